package app

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/warc"
)

// NetOptions are the network settings shared by every command that fetches
// (run, classify, surface, seeds, sample, enrich): the command line's
// --allow-private, --resolve, --proxy, --header and --polite-per-ip.
type NetOptions struct {
	// AllowPrivate lets the fetcher reach loopback, private and link-local
	// addresses (refused by default; the lab and local servers need it).
	AllowPrivate bool
	// Resolve are curl-style "HOST:PORT:ADDR" entries: HOST:PORT is dialed
	// at ADDR, which the address policy still judges.
	Resolve []string
	// Proxy is the proxy URL (http://, https://, socks5://, socks5h://);
	// "" takes HTTP_PROXY, HTTPS_PROXY and NO_PROXY from the environment,
	// "direct" uses no proxy.
	Proxy string
	// Headers are extra request headers, "Name: value", sent to the crawled
	// sites after the profile's politeness.headers.
	Headers []string
	// PolitePerIP keeps the politeness delay per IP address as well as per
	// host (fetch.Options.PolitePerIP), over a profile's politeness.per_ip.
	PolitePerIP bool
}

// ProxyDirect is the Proxy value that disables proxies, the environment's
// included.
const ProxyDirect = "direct"

// apply sets the options on fetcher options for the real web.
func (n NetOptions) apply(fo *fetch.Options) error {
	fo.AllowPrivate = fo.AllowPrivate || n.AllowPrivate
	fo.PolitePerIP = fo.PolitePerIP || n.PolitePerIP
	res, err := fetch.ParseResolve(n.Resolve)
	if err != nil {
		return &OptionError{Option: "resolve", Err: err}
	}
	if len(res) > 0 {
		if fo.Resolve == nil {
			fo.Resolve = map[string]string{}
		}
		for k, v := range res {
			fo.Resolve[k] = v
		}
	}
	switch p := strings.TrimSpace(n.Proxy); p {
	case "":
		fo.ProxyEnv = true
	case ProxyDirect, "none":
	default:
		u, err := fetch.ParseProxy(p)
		if err != nil {
			return &OptionError{Option: "proxy", Err: err}
		}
		fo.Proxy = u
	}
	for _, h := range n.Headers {
		name, val, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") || strings.ContainsAny(val, "\r\n") {
			return &OptionError{Option: "header", Err: fmt.Errorf("%q: want \"Name: value\"", h)}
		}
		if http.CanonicalHeaderKey(name) == "User-Agent" {
			fo.UserAgent = strings.TrimSpace(val)
			continue
		}
		if fo.Header == nil {
			fo.Header = http.Header{}
		} else {
			fo.Header = fo.Header.Clone()
		}
		fo.Header.Set(name, strings.TrimSpace(val))
	}
	return nil
}

// FetchOptions returns fetch.DefaultOptions with n applied: the fetcher of a
// command outside a crawl (classify, seeds).
func (n NetOptions) FetchOptions() (fetch.Options, error) {
	fo := fetch.DefaultOptions()
	return fo, n.apply(&fo)
}

// Describe says how the fetcher reaches the web, for a command's first
// lines: the proxy in use and the address policy.
func (n NetOptions) Describe() string {
	var parts []string
	switch p := strings.TrimSpace(n.Proxy); p {
	case "":
		if env := proxyFromEnv(); env != "" {
			parts = append(parts, "proxy "+env+" (environment)")
		}
	case ProxyDirect, "none":
	default:
		parts = append(parts, "proxy "+p)
	}
	if len(n.Resolve) > 0 {
		parts = append(parts, fmt.Sprintf("%d --resolve entries", len(n.Resolve)))
	}
	if n.AllowPrivate {
		parts = append(parts, "private addresses allowed")
	}
	if n.PolitePerIP {
		parts = append(parts, "politeness per IP address")
	}
	return strings.Join(parts, ", ")
}

// proxyFromEnv names the proxy the environment sets ("" for none).
func proxyFromEnv() string {
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return redactProxy(v)
		}
	}
	return ""
}

// redactProxy hides a proxy URL's password.
func redactProxy(raw string) string {
	u, err := fetch.ParseProxy(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

// cookieJar returns the crawl's cookie jar, restored from db and saving
// every change back to it (a failed save is logged: cookies are a
// convenience, never worth a crawl).
func cookieJar(db *store.DB, log *slog.Logger) (*fetch.Jar, error) {
	jar := fetch.NewJar(func(host string, cs []fetch.SavedCookie) {
		if err := db.PutCookies(host, cs); err != nil {
			log.Warn("saving cookies", "host", host, "err", err)
		}
	}, nil)
	err := db.ScanCookies(func(host string, raw []byte) error {
		var cs []fetch.SavedCookie
		if err := json.Unmarshal(raw, &cs); err != nil {
			return fmt.Errorf("%s: cookies of %s: %w", db.Dir(), host, err)
		}
		jar.Restore(host, cs)
		return nil
	})
	return jar, err
}

// WARCOptions ask for a WARC archive of every HTTP exchange of a command.
type WARCOptions struct {
	// Dir is where the WARC files go ("" for no archive).
	Dir string
	// Profile and Strategy describe the run in the warcinfo record.
	Profile, Strategy string
}

// openWARC starts the archive of opt (nil when opt.Dir is empty).
func openWARC(opt WARCOptions, userAgent string) (*warc.Writer, error) {
	if opt.Dir == "" {
		return nil, nil
	}
	w, err := warc.NewWriter(warc.Options{Dir: opt.Dir, Info: warc.Info{
		Software: "dwcrawl/" + fetch.Version, Profile: opt.Profile, Strategy: opt.Strategy,
		UserAgent: userAgent, Robots: "obey",
		Fields: []warc.Field{{Name: "format", Value: "WARC File Format 1.1"}},
	}})
	if err != nil {
		return nil, &OptionError{Option: "warc", Err: err}
	}
	return w, nil
}

// WARCSummary says what an archive holds once closed.
type WARCSummary struct {
	Dir     string   `json:"dir"`
	Records int64    `json:"records"`
	Files   []string `json:"files"`
	// Errors counts the exchanges that could not be archived.
	Errors int64 `json:"errors,omitempty"`
}

// String reads "412 WARC records in 1 file (DIR)".
func (s *WARCSummary) String() string {
	files := "files"
	if len(s.Files) == 1 {
		files = "file"
	}
	out := fmt.Sprintf("%d WARC records in %d %s (%s)", s.Records, len(s.Files), files, s.Dir)
	if s.Errors > 0 {
		out += fmt.Sprintf(", %d exchanges not archived", s.Errors)
	}
	return out
}

// closeWARC closes w and summarises it (nil, nil for no archive).
func closeWARC(w *warc.Writer, errs int64) (*WARCSummary, error) {
	if w == nil {
		return nil, nil
	}
	err := w.Close()
	return &WARCSummary{Dir: w.Dir(), Records: w.Records(), Files: w.Files(), Errors: errs}, err
}

// fetcherDoer sends a JSON API client's requests through a fetcher (the
// address policy, --resolve, the proxy, the archive); keyword.HTTPDoer.
type fetcherDoer struct{ f *fetch.Fetcher }

func (d fetcherDoer) Do(req *http.Request) (*http.Response, error) {
	return d.f.Do(req.Context(), req)
}
