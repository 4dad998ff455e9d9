package lab

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

// lighttpdConf is the web server's configuration: one loopback port, one
// name-based virtual host per application and static site, PHP through
// FastCGI (php-cgi spawned by lighttpd), CGI for cgit. A request naming no
// lab host gets the hub.
const lighttpdConf = `# written by the dwcrawl lab; regenerated on every start
server.modules = ("mod_access", "mod_alias", "mod_setenv", "mod_rewrite", "mod_fastcgi", "mod_cgi", "mod_proxy", "mod_accesslog")
server.bind = "127.0.0.1"
server.port = %d
server.document-root = "%s"
server.errorlog = "%s"
accesslog.filename = "%s"
server.tag = "lighttpd"
server.follow-symlink = "enable"
server.max-request-size = 4096
# Omega's result form carries its parsed query with tabs (%%09): a browser
# sends them, so the server must take them.
server.http-parseopts = ("url-ctrls-reject" => "disable")
index-file.names = ("index.php", "index.html", "doku.php")
url.access-deny = ("~", ".inc", ".htaccess", ".ht")
static-file.exclude-extensions = (".php", ".cgi")
mimetype.assign = (
  ".html" => "text/html", ".htm" => "text/html",
  ".css" => "text/css", ".js" => "application/javascript", ".json" => "application/json",
  ".txt" => "text/plain; charset=utf-8", ".xml" => "application/xml",
  ".png" => "image/png", ".gif" => "image/gif", ".jpg" => "image/jpeg", ".svg" => "image/svg+xml",
  ".ico" => "image/x-icon", ".woff" => "font/woff", ".woff2" => "font/woff2",
)
fastcgi.server = (".php" => ((
  "socket" => "%s",
  "bin-path" => "/usr/bin/php-cgi",
  "max-procs" => 1,
  "bin-environment" => ("PHP_FCGI_CHILDREN" => "4", "PHP_FCGI_MAX_REQUESTS" => "10000"),
  "bin-copy-environment" => ("PATH", "LANG", "TMPDIR"),
  "broken-scriptfilename" => "enable",
)))
`

// hostCond is the lighttpd condition matching a host name with or without port.
func hostCond(host string) string {
	return fmt.Sprintf(`$HTTP["host"] =~ "^%s(:[0-9]+)?$"`, regexp.QuoteMeta(host))
}

// serve writes the lighttpd configuration and starts it.
func (l *Lab) serve(ctx context.Context, e *env, apps []app, statics []*static) error {
	if err := os.MkdirAll(e.path("run"), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	hubRoot := e.path("static", Hub)
	fmt.Fprintf(&b, lighttpdConf, l.Port, hubRoot, e.path("log", "lighttpd-error.log"),
		e.path("log", "access.log"), e.path("run", "php.socket"))
	for _, a := range apps {
		fmt.Fprintf(&b, "\n%s {\n%s}\n", hostCond(a.info().Host), a.vhost(e))
	}
	for _, s := range statics {
		fmt.Fprintf(&b, "\n%s {\n  server.document-root = %q\n}\n", hostCond(s.host), s.root)
	}
	conf := e.path("lighttpd.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		return err
	}
	if _, err := e.run(ctx, e.dir, nil, "/usr/sbin/lighttpd", "-tt", "-f", conf); err != nil {
		return fmt.Errorf("lab: lighttpd configuration %s: %w", conf, err)
	}
	p, err := l.startProc("lighttpd", e.path("log", "lighttpd.out"), nil, "/usr/sbin/lighttpd", "-D", "-f", conf)
	if err != nil {
		return err
	}
	c := l.Client()
	return waitFor(ctx, p, 20*time.Second, func() error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.URL(Hub, "/"), nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("hub: HTTP %d", resp.StatusCode)
		}
		return nil
	})
}
