package simweb

import (
	"encoding/json"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/postings"
	"html"
	"io"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// engineIndex is the search engine's view of the web: every static page
// with its index terms, and the out-of-site links pointing at each URL.
type engineIndex struct {
	pages   []engPage
	siteOff []int32    // first page of each site in pages
	terms   postingSet // term → ascending page numbers
	inlinks postingSet // canonical target URL → linking pages
}

// postingSet maps keys to ascending page numbers: a map when the index is
// built, a table over the cache file's bytes when it is read (see
// postingTable).
type postingSet interface {
	get(key string) []int32
	len() int
	each(fn func(key string, ps []int32))
}

type postingMap map[string][]int32

func (m postingMap) get(k string) []int32 { return m[k] }
func (m postingMap) len() int             { return len(m) }
func (m postingMap) each(fn func(string, []int32)) {
	for k, ps := range m {
		fn(k, ps)
	}
}

type engPage struct {
	site  int32
	pid   int32
	depth uint8
	rank  float32 // query-independent rank
}

// SearchResult is one page of search-engine results.
type SearchResult struct {
	Query    string      `json:"query"`
	Page     int         `json:"page"`
	PageSize int         `json:"page_size"`
	Total    int         `json:"total"`           // results reachable (capped)
	Matches  int         `json:"estimated_total"` // all matches
	Results  []SearchHit `json:"results"`
	Next     bool        `json:"next"`
}

// SearchHit is one result.
type SearchHit struct {
	Rank    int    `json:"rank"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet"`
}

func (w *Web) engine() *engineIndex {
	w.engOne.Do(func() { w.eng = w.loadEngine() })
	return w.eng
}

// buildEngine indexes every page of every site; it takes a few seconds for
// a web of 300k pages (see loadEngine for the cache).
func (w *Web) buildEngine() *engineIndex {
	terms, inlinks := postingMap{}, postingMap{}
	e := &engineIndex{terms: terms, inlinks: inlinks, siteOff: make([]int32, len(w.sites)+1)}
	var pi pageIndex
	for id := range w.sites {
		s := w.buildSite(int32(id))
		e.siteOff[id] = int32(len(e.pages))
		hostTerms := text.Tokenize(s.h.host)
		for pid := range s.pages {
			n := int32(len(e.pages))
			e.pages = append(e.pages, w.engPage(s, int32(pid)))
			w.indexPage(&pi, s, int32(pid), hostTerms)
			for _, t := range pi.terms {
				terms[t] = append(terms[t], n)
			}
			for _, u := range pi.inlinks {
				inlinks[u] = append(inlinks[u], n)
			}
		}
	}
	e.siteOff[len(w.sites)] = int32(len(e.pages))
	return e
}

func (w *Web) engPage(s *site, pid int32) engPage {
	p := &s.pages[pid]
	return engPage{site: s.h.id, pid: pid, depth: p.depth, rank: float32(s.h.pop / (1 + float64(p.depth)))}
}

// pageIndex is what the engine indexes of one page: its distinct terms
// (host, path, title, keywords) and the targets of its out-of-site links.
type pageIndex struct {
	terms, inlinks []string
	seen           map[string]bool
}

// indexPage fills pi with page pid of s.
func (w *Web) indexPage(pi *pageIndex, s *site, pid int32, hostTerms []string) {
	if pi.seen == nil {
		pi.seen = map[string]bool{}
	}
	clear(pi.seen)
	pi.terms, pi.inlinks = pi.terms[:0], pi.inlinks[:0]
	add := func(toks []string) {
		for _, t := range toks {
			if len(t) > 1 && !text.IsStop(t) && !pi.seen[t] {
				pi.seen[t] = true
				pi.terms = append(pi.terms, t)
			}
		}
	}
	p := &s.pages[pid]
	add(hostTerms)
	add(text.Tokenize(p.path))
	add(text.Tokenize(w.pageTitle(s, pid)))
	add(w.keywords(s, pid))
	for _, l := range w.externalLinks(s, pid) {
		if l.fault != "broken" {
			pi.inlinks = append(pi.inlinks, w.extTargetURL(l))
		}
	}
}

// EngineSearch runs a query on the search engine, as /search does (without
// the rate limit). Queries: plain keywords (conjunctive), "site:HOST",
// "link:URL", or keywords combined with one operator.
func (w *Web) EngineSearch(q string, page int) SearchResult {
	e := w.engine()
	if page < 1 {
		page = 1
	}
	var kws []string
	var site, link string
	for _, f := range strings.Fields(q) {
		lf := strings.ToLower(f)
		switch {
		case strings.HasPrefix(lf, "site:"):
			site = strings.TrimPrefix(lf, "site:")
		case strings.HasPrefix(lf, "link:"):
			link = f[5:]
		default:
			kws = append(kws, f)
		}
	}
	var cands []int32
	all := true
	if link != "" {
		all = false
		for _, u := range linkVariants(link) {
			cands = append(cands, e.inlinks.get(u)...)
		}
		sort.Slice(cands, func(a, b int) bool { return cands[a] < cands[b] })
	}
	if site != "" {
		site = strings.TrimPrefix(strings.TrimPrefix(site, "http://"), "https://")
		site = strings.TrimSuffix(site, "/")
		id, ok := w.hostIdx[site]
		var ps []int32
		if ok {
			for n := e.siteOff[id]; n < e.siteOff[id+1]; n++ {
				ps = append(ps, n)
			}
		}
		if all {
			cands, all = ps, false
		} else {
			cands = postings.Intersect(nil, cands, ps)
		}
	}
	for _, t := range hiddenTerms(strings.Join(kws, " ")) {
		p := e.terms.get(t)
		if all {
			cands, all = append([]int32(nil), p...), false
		} else {
			cands = postings.Intersect(nil, cands, p)
		}
	}
	if all {
		cands = nil
	}
	sort.SliceStable(cands, func(a, b int) bool {
		pa, pb := e.pages[cands[a]], e.pages[cands[b]]
		if pa.rank != pb.rank {
			return pa.rank > pb.rank
		}
		return cands[a] < cands[b]
	})
	res := SearchResult{Query: q, Page: page, PageSize: w.cfg.Search.PageSize, Matches: len(cands), Results: []SearchHit{}}
	limit := min(len(cands), w.cfg.Search.ResultCap)
	res.Total = limit
	from := (page - 1) * res.PageSize
	to := min(from+res.PageSize, limit)
	for i := from; i < to; i++ {
		ep := e.pages[cands[i]]
		s := w.site(ep.site)
		kw := w.keywords(s, ep.pid)
		res.Results = append(res.Results, SearchHit{Rank: i + 1, URL: w.pageURL(s, ep.pid), Title: w.pageTitle(s, ep.pid),
			Snippet: titleCase(w.topics[s.h.topic].Label) + ": " + strings.Join(kw, ", ") + "."})
	}
	res.Next = to < limit
	return res
}

// hiddenTerms are the engine's query terms (as the index: lower-case tokens
// without stop words).
func hiddenTerms(q string) []string {
	var out []string
	for _, t := range text.Tokenize(q) {
		if len(t) > 1 && !text.IsStop(t) && !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// linkVariants are the canonical forms a link: URL may refer to.
func linkVariants(raw string) []string {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	out := []string{"http://" + host + p}
	if !strings.HasSuffix(p, "/") {
		out = append(out, "http://"+host+p+"/")
	}
	return out
}

// limiter is a token bucket shared by all clients of the engine.
type limiter struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	b := float64(max(burst, 1))
	return &limiter{rate: rate, burst: b, tokens: b, now: time.Now}
}

// allow takes a token, or reports how long to wait for one.
func (l *limiter) allow() (bool, time.Duration) {
	if l.rate <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.last.IsZero() {
		l.tokens = math.Min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return true, 0
	}
	return false, time.Duration((1 - l.tokens) / l.rate * float64(time.Second))
}

// serveEngine is the search engine host: / (a search form), /search (HTML,
// or JSON with format=json), /api/search (JSON), /robots.txt.
func (w *Web) serveEngine(rw http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(rw, "User-agent: *\nDisallow:\n")
		return
	case "/":
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(rw, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>simweb search</title></head><body><h1>simweb search</h1>
<form action="/search" method="get" role="search"><input type="text" name="q" size="50"><input type="submit" value="Search"></form>
<p>Operators: <code>site:HOST</code>, <code>link:URL</code>. JSON: <code>/search?q=…&amp;format=json&amp;page=N</code>.</p></body></html>
`)
		return
	case "/search", "/api/search":
	default:
		http.NotFound(rw, r)
		return
	}
	if ok, wait := w.lim.allow(); !ok {
		rw.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		http.Error(rw, "429 Too Many Requests: slow down", http.StatusTooManyRequests)
		return
	}
	r.ParseForm()
	q := strings.TrimSpace(r.Form.Get("q"))
	if q == "" {
		for _, k := range sortedKeys(r.Form) {
			if k != "page" && k != "format" && k != "sitesearch" && !strings.HasPrefix(k, "_") && strings.TrimSpace(r.Form.Get(k)) != "" {
				q = strings.TrimSpace(r.Form.Get(k))
				break
			}
		}
	}
	if ss := strings.TrimSpace(r.Form.Get("sitesearch")); ss != "" && !strings.Contains(q, "site:") {
		q += " site:" + ss
	}
	page, _ := strconv.Atoi(r.Form.Get("page"))
	res := w.EngineSearch(q, page)
	if r.URL.Path == "/api/search" || r.Form.Get("format") == "json" {
		rw.Header().Set("Content-Type", "application/json")
		json.NewEncoder(rw).Encode(res)
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%s – simweb search</title></head><body>\n", html.EscapeString(q))
	fmt.Fprintf(&b, "<form action=\"/search\" method=\"get\" role=\"search\"><input type=\"text\" name=\"q\" value=\"%s\"><input type=\"submit\" value=\"Search\"></form>\n", html.EscapeString(q))
	fmt.Fprintf(&b, "<p class=\"stats\">About %d results</p>\n<ol class=\"results\">\n", res.Matches)
	for _, h := range res.Results {
		fmt.Fprintf(&b, "<li class=\"result\" value=\"%d\"><a class=\"result-link\" href=\"%s\">%s</a><cite>%s</cite><p class=\"snippet\">%s</p></li>\n",
			h.Rank, html.EscapeString(h.URL), html.EscapeString(h.Title), html.EscapeString(h.URL), html.EscapeString(h.Snippet))
	}
	b.WriteString("</ol>\n")
	if res.Next {
		fmt.Fprintf(&b, "<a rel=\"next\" class=\"next\" href=\"/search?q=%s&amp;page=%d\">Next</a>\n", url.QueryEscape(q), res.Page+1)
	}
	b.WriteString("</body></html>\n")
	io.WriteString(rw, b.String())
}

// Prepare builds the search engine's index now rather than on the first
// query (it takes a few seconds for a 100k-page web). It is safe to call
// from a goroutine while the web serves.
func (w *Web) Prepare() { w.engine() }

// PrepareAll builds the search engine's index and reads every topic's
// record pool now: what a long-running server would otherwise do at the
// first request that needs them, so that the CPU time it spends once it
// serves is the cost of serving.
func (w *Web) PrepareAll() {
	w.engine()
	for _, t := range w.topics {
		t.RecordPool()
	}
}
