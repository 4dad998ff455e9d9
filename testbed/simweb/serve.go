package simweb

import (
	"bytes"
	"container/list"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// dbCache keeps recently used hidden databases (indexes are built on first use).
type dbCache struct {
	mu    sync.Mutex
	max   int
	lru   *list.List
	items map[[2]int32]*list.Element
}

type dbEntry struct {
	k    [2]int32
	db   *hiddendb.DB
	h    http.Handler
	once sync.Once
}

func newDBCache(max int) *dbCache {
	return &dbCache{max: max, lru: list.New(), items: map[[2]int32]*list.Element{}}
}

// db returns the hidden database i of a site, building its index on first use.
func (w *Web) db(site int32, i int) *hiddendb.DB { return w.dbEntry(site, i).db }

// dbHandler returns the HTTP handler of a site's database i.
func (w *Web) dbHandler(site int32, i int) http.Handler { return w.dbEntry(site, i).h }

func (w *Web) dbEntry(site int32, i int) *dbEntry {
	c := w.dbs
	k := [2]int32{site, int32(i)}
	c.mu.Lock()
	el, ok := c.items[k]
	if ok {
		c.lru.MoveToFront(el)
	} else {
		el = c.lru.PushFront(&dbEntry{k: k})
		c.items[k] = el
		for c.lru.Len() > c.max {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.items, old.Value.(*dbEntry).k)
		}
	}
	e := el.Value.(*dbEntry)
	c.mu.Unlock()
	e.once.Do(func() {
		spec := &w.sites[site].dbs[i]
		e.db = hiddendb.New(w.dbRecords(spec), hiddendb.Options{K: w.cfg.DB.K, PageSize: w.cfg.DB.PageSize, ShowTotal: spec.showTotal, Seed: int64(spec.seed >> 1)})
		e.h = e.db.Handler(spec.prefix)
	})
	return e
}

// Handler serves every virtual host of the web, chosen by the request's Host
// (or, for proxy requests, the absolute URL's host).
func (w *Web) Handler() http.Handler { return http.HandlerFunc(w.serveHTTP) }

// sessionParams are query parameters that carry session ids.
var sessionParams = []string{"sid", "phpsessid", "jsessionid", "sessionid", "session_id"}

func (w *Web) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == SearchEngineHost {
		w.serveEngine(rw, r)
		return
	}
	id, ok := w.hostIdx[host]
	if !ok {
		w.serveUnknownHost(rw, r, host)
		return
	}
	s := w.site(id)
	path := r.URL.Path
	if i := strings.Index(path, ";"); i >= 0 { // ;jsessionid=… path parameter
		path = path[:i]
	}
	q := r.URL.Query()
	for k := range q {
		if contains(sessionParams, strings.ToLower(k)) {
			q.Del(k)
		}
	}
	switch {
	case path == "/robots.txt":
		w.serveRobots(rw, s)
		return
	case strings.HasPrefix(path, "/r/"):
		w.serveRedirect(rw, r, path, q)
		return
	case strings.HasPrefix(path, "/loop/"):
		w.serveLoop(rw, path)
		return
	case strings.HasPrefix(path, "/forms/"):
		w.serveFormPost(rw, r, s, strings.TrimPrefix(path, "/forms/"))
		return
	case path == "/events/calendar" && len(q) > 0:
		w.serveCalendar(rw, s, q)
		return
	}
	if w.serveDB(rw, r, s, path) {
		return
	}
	k := path
	if len(q) > 0 {
		k += "?" + q.Encode()
	}
	pid, ok := s.byPath[k]
	if !ok {
		w.serveNotFound(rw, s)
		return
	}
	w.servePage(rw, r, s, pid)
}

// pageFault is the fault a page is configured with ("" for none).
func (w *Web) pageFault(s *site, pid int32) string {
	p := &s.pages[pid]
	fc := w.cfg.Faults
	u := unit(key(w.cfg.Seed, "fault", uint64(s.h.id), uint64(pid)))
	permanentOK := !p.onPath && p.kind != pkHome
	for _, f := range []struct {
		name string
		rate float64
		ok   bool
	}{
		{"error", fc.Error, permanentOK}, {"flaky", fc.Flaky, true}, {"slow", fc.Slow, true}, {"reset", fc.Reset, true},
		{"oversize", fc.Oversize, permanentOK}, {"malformed", fc.Malformed, p.kind != pkForm},
	} {
		if u < f.rate {
			if f.ok {
				return f.name
			}
			return ""
		}
		u -= f.rate
	}
	return ""
}

// firstRequest counts requests per URL and reports whether this is the first.
func (w *Web) firstRequest(u string) bool {
	v, _ := w.faults.LoadOrStore(u, new(int32))
	return atomic.AddInt32(v.(*int32), 1) == 1
}

func (w *Web) servePage(rw http.ResponseWriter, r *http.Request, s *site, pid int32) {
	fault := w.pageFault(s, pid)
	switch fault {
	case "error":
		http.Error(rw, "500 Internal Server Error: the application failed", http.StatusInternalServerError)
		return
	case "flaky":
		if w.firstRequest(w.pageURL(s, pid)) {
			rw.Header().Set("Retry-After", "1")
			http.Error(rw, "503 Service Unavailable: try again shortly", http.StatusServiceUnavailable)
			return
		}
	case "slow":
		t := time.NewTimer(time.Duration(w.cfg.Faults.SlowDelay))
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	case "reset":
		if w.firstRequest(w.pageURL(s, pid)) {
			resetConn(rw)
			return
		}
	}
	d := w.compose(s, pid, fault == "malformed")
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	if fault == "oversize" {
		w.writeOversize(rw, d)
		return
	}
	rw.Header().Set("Content-Length", strconv.Itoa(d.buf.Len()))
	if r.Method != http.MethodHead {
		rw.Write(d.buf.Bytes())
	}
}

// resetConn drops the connection without a response: a TCP reset over a
// real socket, an aborted response in-process.
func resetConn(rw http.ResponseWriter) {
	if hj, ok := rw.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// writeOversize streams the page with a huge padding before </body>.
func (w *Web) writeOversize(rw http.ResponseWriter, d *doc) {
	body := d.buf.Bytes()
	cut := bytes.LastIndex(body, []byte("</body>"))
	if cut < 0 {
		cut = len(body)
	}
	rw.Write(body[:cut])
	pad := []byte(strings.Repeat("<p>"+strings.Repeat("lorem ipsum dolor sit amet ", 36)+"</p>\n", 4))
	for n := cut; n < w.cfg.Faults.OversizeBytes; n += len(pad) {
		if _, err := rw.Write(pad); err != nil {
			return
		}
	}
	rw.Write(body[cut:])
}

func (w *Web) serveRobots(rw http.ResponseWriter, s *site) {
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(rw, w.robotsTxt(s.h))
}

// robotsTxt is a site's robots.txt.
func (w *Web) robotsTxt(h *siteHeader) string {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for _, d := range h.feat.disallow {
		b.WriteString("Disallow: " + d + "\n")
	}
	if len(h.feat.disallow) == 0 {
		b.WriteString("Disallow:\n")
	}
	if h.feat.crawlDelay > 0 {
		fmt.Fprintf(&b, "Crawl-delay: %d\n", h.feat.crawlDelay)
	}
	b.WriteString("\nUser-agent: BadBot\nDisallow: /\n")
	return b.String()
}

// disallowed reports whether robots.txt forbids a path for every agent.
func (h *siteHeader) disallowed(path string) bool {
	for _, d := range h.feat.disallow {
		if strings.HasPrefix(path, d) {
			return true
		}
	}
	return false
}

// serveRedirect follows /r/N/path chains: each hop lowers N until the real path.
func (w *Web) serveRedirect(rw http.ResponseWriter, r *http.Request, path string, q url.Values) {
	rest := strings.TrimPrefix(path, "/r/")
	i := strings.IndexByte(rest, '/')
	n, err := strconv.Atoi(rest[:max(i, 0)])
	if i < 0 || err != nil || n < 1 {
		http.NotFound(rw, r)
		return
	}
	target := rest[i:]
	if n > 1 {
		target = "/r/" + strconv.Itoa(n-1) + target
	}
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	code := []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusSeeOther}[n%4]
	rw.Header().Set("Location", target)
	rw.WriteHeader(code)
}

// serveLoop bounces between /loop/N/a and /loop/N/b forever.
func (w *Web) serveLoop(rw http.ResponseWriter, path string) {
	next := strings.TrimSuffix(path, "/a") + "/b"
	if strings.HasSuffix(path, "/b") {
		next = strings.TrimSuffix(path, "/b") + "/a"
	}
	rw.Header().Set("Location", next)
	rw.WriteHeader(http.StatusFound)
}

// serveFormPost answers the submission of a non-searchable form.
func (w *Web) serveFormPost(rw http.ResponseWriter, r *http.Request, s *site, kind string) {
	msg := map[string]string{KindLogin: "Invalid user name or password.", KindRegistration: "Please check your e-mail to confirm your account.",
		KindPassword: "If the address is registered, a reset link is on its way.", KindContact: "Thank you, your message has been sent.",
		KindNewsletter: "Thank you for subscribing.", KindOrder: "Your cart has been updated.", KindOther: "Thank you."}[kind]
	if msg == "" {
		w.serveNotFound(rw, s)
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(rw, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%s</title></head><body><p>%s</p><p><a href=\"/\">Back to %s</a></p></body></html>\n",
		html.EscapeString(s.h.name), html.EscapeString(msg), html.EscapeString(s.h.name))
}

func (w *Web) serveNotFound(rw http.ResponseWriter, s *site) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(rw, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Page not found</title></head><body><h1>Page not found</h1><p>The page you requested does not exist on %s.</p><p><a href=\"/\">Home</a></p></body></html>\n",
		html.EscapeString(s.h.name))
}

// serveUnknownHost answers a request for a host the web does not have: the
// index page for the server's own address, 502 for a proxied request, 404
// otherwise.
func (w *Web) serveUnknownHost(rw http.ResponseWriter, r *http.Request, host string) {
	if ip := net.ParseIP(host); ip != nil || host == "localhost" || host == "" {
		w.serveIndex(rw, r)
		return
	}
	code := http.StatusNotFound
	if r.URL.IsAbs() {
		code = http.StatusBadGateway
	}
	http.Error(rw, fmt.Sprintf("simweb: no host %q in this web", host), code)
}

// serveIndex lists the web's domains, seeds and the search engine, for a
// person browsing the server directly.
func (w *Web) serveIndex(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>simweb (seed %d)</title></head><body><h1>simweb – seed %d</h1>", w.cfg.Seed, w.cfg.Seed)
	b.WriteString("<p>Browse through this server as an HTTP proxy (for example <code>curl -x http://ADDR http://HOST/</code>); every host below resolves to it.</p>")
	fmt.Fprintf(&b, "<p>Search engine: <a href=\"http://%s/\">%s</a></p><ul>", SearchEngineHost, SearchEngineHost)
	for _, dn := range domain.BuiltIn {
		seeds := w.Seeds(dn, 3)
		fmt.Fprintf(&b, "<li>%s:", dn)
		for _, u := range seeds {
			fmt.Fprintf(&b, " <a href=\"%s\">%s</a>", html.EscapeString(u), html.EscapeString(u))
		}
		b.WriteString("</li>")
	}
	b.WriteString("</ul></body></html>\n")
	io.WriteString(rw, b.String())
}

// serveDB routes the database URLs of a site: prefix/ (back to the entry
// page), prefix/search, prefix/record/…, prefix/api/search (API sites only)
// and /api/search (the site's first API database).
func (w *Web) serveDB(rw http.ResponseWriter, r *http.Request, s *site, path string) bool {
	for i := range s.h.dbs {
		spec := &s.h.dbs[i]
		p := spec.prefix
		if path == p || path == p+"/" {
			http.Redirect(rw, r, s.pages[s.dbPage[i]].path, http.StatusFound)
			return true
		}
		if path == "/api/search" && spec.api {
			r2 := r.Clone(r.Context())
			r2.URL.Path = p + "/api/search"
			w.dbHandler(s.h.id, i).ServeHTTP(rw, r2)
			return true
		}
		if strings.HasPrefix(path, p+"/") {
			if strings.HasPrefix(path, p+"/api/") && !spec.api {
				w.serveNotFound(rw, s)
				return true
			}
			r2 := r
			if r.URL.Path != path {
				r2 = r.Clone(r.Context())
				r2.URL.Path = path
			}
			w.dbHandler(s.h.id, i).ServeHTTP(rw, r2)
			return true
		}
	}
	return false
}

// serveCalendar is the infinite calendar trap: every month links to the
// next and previous one and to its weeks.
func (w *Web) serveCalendar(rw http.ResponseWriter, s *site, q url.Values) {
	month := q.Get("month")
	t, err := time.Parse("2006-01", month)
	if err != nil {
		w.serveNotFound(rw, s)
		return
	}
	d := &doc{w: w, s: s, pid: s.util[utCalendar], r: rngFor(w.cfg.Seed, "cal", uint64(s.h.id), uint64(t.Unix()))}
	d.p = &s.pages[d.pid]
	d.raw("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Events – " + t.Format("January 2006") + "</title></head><body>")
	d.raw("<h1>Events in " + t.Format("January 2006") + "</h1>")
	d.para(40)
	w.writeCalendarLinks(d, month)
	d.raw("<p><a href=\"/\">Home</a></p></body></html>\n")
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.Write(d.buf.Bytes())
}

func (w *Web) writeCalendarLinks(d *doc, month string) {
	t, err := time.Parse("2006-01", month)
	if err != nil {
		return
	}
	prev, next := t.AddDate(0, -1, 0).Format("2006-01"), t.AddDate(0, 1, 0).Format("2006-01")
	d.raw("<div class=\"calendar\">")
	fmt.Fprintf(&d.buf, "<a href=\"/events/calendar?month=%s\">« %s</a> ", prev, prev)
	for wk := 1; wk <= 4; wk++ {
		fmt.Fprintf(&d.buf, "<a href=\"/events/calendar?month=%s&amp;week=%d\">Week %d</a> ", month, wk, wk)
	}
	fmt.Fprintf(&d.buf, "<a href=\"/events/calendar?month=%s\">%s »</a>", next, next)
	d.raw("</div>\n")
}

// sortedQuery encodes query values with sorted keys.
func sortedQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(v))
		}
	}
	return b.String()
}

// FaultKinds lists the faults Fault names: page faults (FaultConfig's
// per-page rates) and the link faults whose requests reach a site.
var FaultKinds = []string{"error", "flaky", "slow", "reset", "oversize", "malformed", "not-found", "loop"}

// Fault names the fault the web answers a request of u with ("" for none),
// for the benchmarks that count faulty responses on the server's side:
// a page's "error" (500), "flaky" (503), "slow", "reset", "oversize" or
// "malformed"; "not-found" for a broken link's missing page (404);
// "loop" for a redirect loop. "flaky" and "reset" fault only on the first
// request of a URL: the caller counts requests.
func (w *Web) Fault(u *url.URL) string {
	host := strings.ToLower(u.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	id, ok := w.hostIdx[host]
	if !ok {
		return ""
	}
	s := w.site(id)
	path := u.Path
	if i := strings.Index(path, ";"); i >= 0 {
		path = path[:i]
	}
	switch {
	case strings.HasPrefix(path, "/loop/"):
		return "loop"
	case strings.HasPrefix(path, "/r/"), strings.HasPrefix(path, "/forms/"), path == "/robots.txt":
		return ""
	}
	if last := path[strings.LastIndex(path, "/")+1:]; strings.HasPrefix(last, "missing-") || strings.HasPrefix(last, "gone-") {
		return "not-found"
	}
	q := u.Query()
	for k := range q {
		if contains(sessionParams, strings.ToLower(k)) {
			q.Del(k)
		}
	}
	k := path
	if len(q) > 0 {
		k += "?" + q.Encode()
	}
	pid, ok := s.byPath[k]
	if !ok {
		return ""
	}
	return w.pageFault(s, pid)
}
