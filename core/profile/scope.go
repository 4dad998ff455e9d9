package profile

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/script"
)

// headerName is an HTTP field name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// validateNet checks politeness.headers, scope and sitemaps, and compiles
// the scope patterns.
func (p *Profile) validateNet(c *script.Chunk) error {
	for name, v := range p.Politeness.Headers {
		key := "politeness.headers" + luaKey(name)
		switch {
		case !headerName.MatchString(name):
			return c.Errorf(key, "%q is not an HTTP header name", name)
		case strings.ContainsAny(v, "\r\n\x00"):
			return c.Errorf(key, "value must be one line")
		case http.CanonicalHeaderKey(name) == "User-Agent":
			return c.Errorf(key, "set the User-Agent with politeness.user_agent")
		case http.CanonicalHeaderKey(name) == "Host" || http.CanonicalHeaderKey(name) == "Cookie":
			return c.Errorf(key, "%s is set by the fetcher (the URL's host, the crawl's cookie jar)", http.CanonicalHeaderKey(name))
		}
	}
	s := &p.Scope
	var err error
	if s.allowHosts, err = compileGlobs(c, "scope.allow_hosts", s.AllowHosts); err != nil {
		return err
	}
	if s.denyHosts, err = compileGlobs(c, "scope.deny_hosts", s.DenyHosts); err != nil {
		return err
	}
	if s.allow, err = compileRegexps(c, "scope.allow", s.Allow); err != nil {
		return err
	}
	if s.deny, err = compileRegexps(c, "scope.deny", s.Deny); err != nil {
		return err
	}
	if s.MaxPagesPerHost < 0 {
		return c.Errorf("scope.max_pages_per_host", "must not be negative (0: no cap), got %d", s.MaxPagesPerHost)
	}
	if p.Sitemaps.MaxFiles < 1 {
		return c.Errorf("sitemaps.max_files", "must be at least 1, got %d (set enabled = false to read no sitemap)", p.Sitemaps.MaxFiles)
	}
	if p.Sitemaps.MaxURLs < 1 {
		return c.Errorf("sitemaps.max_urls", "must be at least 1, got %d", p.Sitemaps.MaxURLs)
	}
	return nil
}

// luaKey is how a table key is written after its table's path in error
// positions: .name for an identifier, else ["name"].
func luaKey(name string) string {
	if identRe.MatchString(name) {
		return "." + name
	}
	return "[" + strconv.Quote(name) + "]"
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// compileGlobs turns host globs into anchored, case-insensitive regexps.
func compileGlobs(c *script.Chunk, key string, globs []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(globs))
	for i, g := range globs {
		g = strings.ToLower(strings.TrimSpace(g))
		if g == "" || strings.ContainsAny(g, "/: ") {
			return nil, c.Errorf(fmt.Sprintf("%s[%d]", key, i+1), "want a host name glob such as \"*.example.com\" (no scheme, port or path), got %q", globs[i])
		}
		parts := strings.Split(g, "*")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		out = append(out, regexp.MustCompile("^"+strings.Join(parts, ".*")+"$"))
	}
	return out, nil
}

func compileRegexps(c *script.Chunk, key string, pats []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(pats))
	for i, pat := range pats {
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, c.Errorf(fmt.Sprintf("%s[%d]", key, i+1), "bad regular expression: %v", err)
		}
		out = append(out, re)
	}
	return out, nil
}

// Limited reports whether any scope rule is set (page caps aside).
func (s *Scope) Limited() bool {
	return len(s.allowHosts)+len(s.denyHosts)+len(s.allow)+len(s.deny) > 0
}

// Check says whether rawURL is in scope, and if not which rule refused
// it. A profile that was not loaded (a literal Profile) has no compiled
// rules: everything is in scope.
func (s *Scope) Check(rawURL string) (bool, string) {
	if !s.Limited() {
		return true, ""
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false, "unparsable URL"
	}
	host := strings.ToLower(u.Hostname())
	for i, re := range s.denyHosts {
		if re.MatchString(host) {
			return false, fmt.Sprintf("host %s matches scope.deny_hosts %q", host, s.DenyHosts[i])
		}
	}
	if len(s.allowHosts) > 0 && !anyMatch(s.allowHosts, host) {
		return false, fmt.Sprintf("host %s matches no scope.allow_hosts glob", host)
	}
	for i, re := range s.deny {
		if re.MatchString(rawURL) {
			return false, fmt.Sprintf("matches scope.deny %q", s.Deny[i])
		}
	}
	if len(s.allow) > 0 && !anyMatch(s.allow, rawURL) {
		return false, "matches no scope.allow pattern"
	}
	return true, ""
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Engines returns the search plugins to try for reverse search, in order:
// Plugin alone when set, else Plugins.
func (r Reverse) Engines() []string {
	if r.Plugin != "" {
		return []string{r.Plugin}
	}
	return r.Plugins
}
