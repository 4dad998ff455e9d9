package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// handWeb is a web written by hand for the engine's unit tests: every page is
// known, so a test knows exactly which pages a crawl must fetch. It is served
// over HTTP on loopback; every host name is dialled to the one server.
type handWeb struct {
	pages map[string]string // canonical URL → HTML
	hosts map[string]bool
}

func newHandWeb() *handWeb { return &handWeb{pages: map[string]string{}, hosts: map[string]bool{}} }

// add serves html at the absolute URL u.
func (w *handWeb) add(u, html string) {
	c, err := canon.Canonical(u)
	if err != nil {
		panic(err)
	}
	w.pages[c] = html
	w.hosts[canon.Host(c)] = true
}

func (w *handWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, ok := w.pages["http://"+r.Host+r.URL.RequestURI()]
	if !ok {
		http.NotFound(rw, r) // robots.txt included: everything is allowed
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(rw, body)
}

// pageHTML is a page with links (absolute or site-relative) and, when
// formAction is set, one search form submitting there.
func pageHTML(title string, links []string, formAction string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><h1>%s</h1>\n", title, title)
	for _, l := range links {
		fmt.Fprintf(&b, "<p>See the <a href=%q>used car listings</a> here.</p>\n", l)
	}
	if formAction != "" {
		fmt.Fprintf(&b, "<form action=%q method=\"get\"><input type=\"text\" name=\"q\"><input type=\"submit\" value=\"Search\"></form>\n", formAction)
	}
	b.WriteString("</body></html>")
	return b.String()
}

// addLayeredSite adds a site of width chains of pages below its homepage:
// the homepage links to /d1/p0 … /d1/p(width-1), and /dN/pI links to
// /d(N+1)/pI down to depth depth. formAt says which pages hold a search form
// (each its own, so none is a duplicate of another). extra links are added
// to the homepage.
func (w *handWeb) addLayeredSite(site string, width, depth int, formAt func(depth, i int) bool, extra ...string) {
	var home []string
	for i := 0; i < width; i++ {
		home = append(home, fmt.Sprintf("/d1/p%d", i))
	}
	w.add(site+"/", pageHTML("used cars home", append(home, extra...), ""))
	for d := 1; d <= depth; d++ {
		for i := 0; i < width; i++ {
			var links []string
			if d < depth {
				links = []string{fmt.Sprintf("/d%d/p%d", d+1, i)}
			}
			action := ""
			if formAt != nil && formAt(d, i) {
				action = fmt.Sprintf("/search/cars/d%d-p%d", d, i)
			}
			w.add(fmt.Sprintf("%s/d%d/p%d", site, d, i), pageHTML(fmt.Sprintf("used cars page %d-%d", d, i), links, action))
		}
	}
}

// serve starts the web on loopback and returns the real fetcher reaching it.
func (w *handWeb) serve(t *testing.T) *fetch.Fetcher {
	t.Helper()
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	fo := fetch.DefaultOptions()
	fo.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	fo.AllowHost = func(h string) bool { return w.hosts[h] }
	fo.Delay = 0
	f, err := fetch.New(fo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// actionForms judges forms by their action alone: a form submitting to
// /search/ is searchable, and relevant when the action names cars.
type actionForms struct{}

func (actionForms) Classify(f *page.Form, _ string) form.Decision {
	d := form.Decision{Kind: "other"}
	if strings.Contains(f.Action, "/search/") {
		d.Kind, d.Searchable, d.PSearchable = "search", true, 1
		d.Relevant = strings.Contains(f.Action, "cars")
		if d.Relevant {
			d.PDomain = 1
		}
	}
	return d
}

// everyPage finds every page on topic.
type everyPage struct{}

func (everyPage) Relevant(string) (bool, float64) { return true, 1 }

// handCrawl is an engine over a hand-built web with a profile whose stop
// rules are exactly stop (zero: no limit).
type handCrawl struct {
	*Engine
	db *store.DB
}

func newHandCrawl(t *testing.T, dir string, f Fetcher, strategy string, stop profile.Stop, seeds []string, mod func(*profile.Profile, *Deps)) *handCrawl {
	t.Helper()
	p := testProfile(t, "auto")
	p.Stop = stop
	p.Budget = profile.Budget{}
	p.Seeds = seeds
	db, err := store.Open(dir, store.Options{NoSync: true, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	deps := Deps{Store: db, Fetcher: f, Forms: actionForms{}, Pages: everyPage{}}
	if mod != nil {
		mod(p, &deps)
	}
	e, err := New(Options{Profile: p, Strategy: strategy, Workers: 1, Logger: quiet(), Seed: testSeed}, deps)
	if err != nil {
		t.Fatal(err)
	}
	return &handCrawl{Engine: e, db: db}
}

// depthCounts counts the recorded pages of site by depth.
func depthCounts(t *testing.T, db *store.DB, site string) map[int]int {
	t.Helper()
	out := map[int]int{}
	err := db.ScanJSON(store.TagPages, []byte(site+"/"), func(_, val []byte) error {
		var rec pageRecord
		if err := json.Unmarshal(val, &rec); err != nil {
			return err
		}
		out[rec.Depth]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkCounters: every count of the snapshot is the store's counter.
func checkCounters(t *testing.T, db *store.DB, sn Snapshot) {
	t.Helper()
	cs, err := db.Counters("crawl.")
	if err != nil {
		t.Fatal(err)
	}
	got := map[counter]int64{
		cPages: sn.Pages, cFailed: sn.Failed, cSites: sn.Sites, cRelSites: sn.RelevantSites, cDeep: sn.DeepSites,
		cForms: sn.Forms, cSearchable: sn.SearchableForms, cRelevant: sn.RelevantForms,
		cReverse: sn.ReverseTriggers, cRevQueries: sn.ReverseQueries, cCentre: sn.CentrePages,
		cFSS: sn.LearnSites, cFSL: sn.LearnForms, cSitemapURLs: sn.SitemapURLs, cProbes: sn.ProbeQueries, cProbed: sn.ProbedForms,
	}
	for c, name := range counterNames {
		if got[counter(c)] != cs[name] {
			t.Errorf("counter %s: snapshot %d, store %d", name, got[counter(c)], cs[name])
		}
	}
}

// cancellingFetcher cancels the crawl when asked for its page number
// after+1, which then fails as cancelled: exactly after pages get recorded.
type cancellingFetcher struct {
	Fetcher
	after  int
	cancel context.CancelFunc
	mu     sync.Mutex
	n      int
}

func (c *cancellingFetcher) Fetch(ctx context.Context, u string) (*fetch.Response, error) {
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()
	if n > c.after {
		c.cancel()
		return nil, ctx.Err()
	}
	return c.Fetcher.Fetch(ctx, u)
}
