package simweb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/domain"
)

func TestConfigJSON(t *testing.T) {
	c := DefaultConfig()
	got, err := ParseConfig(c.JSON())
	if err != nil {
		t.Fatalf("round trip: %v", err)
	}
	if !bytes.Equal(got.JSON(), c.JSON()) {
		t.Error("config JSON does not round-trip")
	}
	tests := []struct {
		name, json, err string
	}{
		{"override", `{"sites": 12, "faults": {"slow_delay": "5ms"}}`, ""},
		{"unknown key", `{"sitez": 12}`, "unknown field"},
		{"bad rate", `{"homophily": 1.5}`, "homophily"},
		{"bad depth", `{"form_depth": [0, 0]}`, "form_depth"},
		{"bad style", `{"form_style": {"fancy": 1}}`, "fancy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.json))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.Sites != 12 || time.Duration(c.Faults.SlowDelay) != 5*time.Millisecond || c.Homophily != DefaultConfig().Homophily {
					t.Errorf("override not applied over defaults: %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one mentioning %q", err, tc.err)
			}
		})
	}
	p := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(p, []byte(`{"seed": 9}`), 0o644)
	if c, err := LoadConfig(p); err != nil || c.Seed != 9 {
		t.Errorf("LoadConfig: %v %d", err, c.Seed)
	}
}

// fetchSome fetches the homepages of all sites and the pages they link to.
func fetchSome(t *testing.T, w *Web, limit int) map[string][]byte {
	c := w.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	out := map[string][]byte{}
	var queue []string
	for _, s := range w.Sites() {
		queue = append(queue, s.URL)
	}
	for len(queue) > 0 && len(out) < limit {
		u := queue[0]
		queue = queue[1:]
		if _, ok := out[u]; ok {
			continue
		}
		resp, err := c.Get(u)
		if err != nil {
			out[u] = []byte(err.Error())
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		code := resp.StatusCode
		out[u] = append([]byte(fmt.Sprintf("%d\n", code)), b...)
		base, _ := url.Parse(u)
		if code == 200 {
			queue = append(queue, parsePage(t, base, b).links...)
		}
	}
	return out
}

func TestDeterminism(t *testing.T) {
	cfg := func(c *Config) {
		c.Faults = DefaultConfig().Faults
		c.Faults.SlowDelay = 0
		c.Faults.Flaky, c.Faults.Reset = 0, 0
	}
	a, b := smallWeb(t, 7, cfg), smallWeb(t, 7, cfg)
	pa, pb := fetchSome(t, a, 400), fetchSome(t, b, 400)
	if len(pa) != len(pb) {
		t.Fatalf("fetched %d vs %d pages", len(pa), len(pb))
	}
	for u, x := range pa {
		if !bytes.Equal(x, pb[u]) {
			t.Fatalf("%s differs between two webs of the same seed", u)
		}
	}
	var ta, tb bytes.Buffer
	if err := a.Truth(&ta); err != nil {
		t.Fatal(err)
	}
	b.Truth(&tb)
	if !bytes.Equal(ta.Bytes(), tb.Bytes()) {
		t.Fatal("truth differs between two webs of the same seed")
	}
	c := smallWeb(t, 8, cfg)
	var tc bytes.Buffer
	c.Truth(&tc)
	if bytes.Equal(ta.Bytes(), tc.Bytes()) {
		t.Fatal("seeds 7 and 8 give the same web")
	}
}

func TestDepthDistribution(t *testing.T) {
	w := smallWeb(t, 3, func(c *Config) {
		c.Sites = 500
		c.Pages = PagesConfig{Median: 10, Sigma: 1, Min: 3, Max: 200}
		c.Text.Words = 0
	})
	hist := w.Stats().FormDepth
	n := 0
	for _, x := range hist {
		n += x
	}
	within3 := 0
	for d := 0; d <= 3 && d < len(hist); d++ {
		within3 += hist[d]
	}
	share := float64(within3) / float64(n)
	t.Logf("relevant forms %d, depth histogram %v, within depth 3: %.2f", n, hist, share)
	if n < 150 {
		t.Fatalf("only %d relevant forms", n)
	}
	if share < 0.62 || share > 0.82 {
		t.Errorf("%.2f of forms within depth 3, want about 0.72", share)
	}
	if len(hist) != 6 || hist[5] == 0 {
		t.Errorf("want a tail to depth 5 and nothing deeper: %v", hist)
	}
}

// readTruth decodes a truth file into its line types.
func readTruth(t *testing.T, w *Web) (pages map[string]PageInfo, forms []FormInfo, dbs []DatabaseInfo) {
	var buf bytes.Buffer
	if err := w.Truth(&buf); err != nil {
		t.Fatal(err)
	}
	pages = map[string]PageInfo{}
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var typ struct{ Type string }
		json.Unmarshal(line, &typ)
		switch typ.Type {
		case "page":
			var p PageInfo
			json.Unmarshal(line, &p)
			pages[p.URL] = p
		case "form":
			var f FormInfo
			json.Unmarshal(line, &f)
			forms = append(forms, f)
		case "database":
			var d DatabaseInfo
			json.Unmarshal(line, &d)
			dbs = append(dbs, d)
		case "site", "hub":
		default:
			t.Fatalf("unknown truth line %s", line)
		}
	}
	return pages, forms, dbs
}

// TestBFSCrawl crawls every site breadth-first with a plain http.Client,
// checks that link depth is the truth depth, and that every searchable form
// of the truth is found where the truth says, and nothing else.
func TestBFSCrawl(t *testing.T) {
	w := smallWeb(t, 11, nil)
	pages, forms, _ := readTruth(t, w)
	c := w.Client()
	depth := map[string]int{}
	found := map[string]parsedForm{} // page#index
	for _, si := range w.Sites() {
		queue := []string{si.URL}
		depth[si.URL] = 0
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			code, body := get(t, c, u)
			if code != 200 {
				t.Errorf("%s: status %d", u, code)
				continue
			}
			base, _ := url.Parse(u)
			p := parsePage(t, base, body)
			for i, f := range p.forms {
				found[fmt.Sprintf("%s#%d", u, i)] = f
			}
			if tp, ok := pages[u]; !ok {
				t.Errorf("crawled %s, not in the truth", u)
			} else if tp.Depth != depth[u] {
				t.Errorf("%s: BFS depth %d, truth %d", u, depth[u], tp.Depth)
			}
			for _, l := range p.links {
				l = canon(l)
				lu, _ := url.Parse(l)
				if lu.Host != base.Host || strings.Contains(lu.Path, "/calendar") {
					continue
				}
				if _, seen := depth[l]; !seen {
					depth[l] = depth[u] + 1
					queue = append(queue, l)
				}
			}
		}
	}
	if len(depth) != len(pages) {
		t.Errorf("crawled %d pages, truth has %d", len(depth), len(pages))
	}
	nsearch := 0
	for _, f := range forms {
		pf, ok := found[f.ID]
		if !ok {
			t.Errorf("truth form %s not found by the crawl", f.ID)
			continue
		}
		if pf.action != f.Action {
			t.Errorf("%s: action %s, truth %s", f.ID, pf.action, f.Action)
		}
		if f.Searchable {
			nsearch++
			if !w.IsRelevantForm(f.Page, f.Index, f.Domain) {
				t.Errorf("IsRelevantForm(%s) false", f.ID)
			}
		}
	}
	if len(found) != len(forms) {
		t.Errorf("crawl found %d forms, truth lists %d", len(found), len(forms))
	}
	if nsearch == 0 {
		t.Fatal("no searchable forms in the truth")
	}
	t.Logf("%d pages, %d forms, %d searchable", len(pages), len(forms), nsearch)
}

func TestLinkConsistency(t *testing.T) {
	for _, faulty := range []bool{false, true} {
		t.Run(fmt.Sprintf("faults=%v", faulty), func(t *testing.T) {
			w := smallWeb(t, 5, func(c *Config) {
				if faulty {
					c.Faults = FaultConfig{BrokenLink: 0.1, Redirect: 0.1, Loop: 0.05, SessionID: 0.5, OversizeBytes: 1 << 20}
				}
			})
			c := w.Client()
			checked, broken := 0, 0
			w.eachSite(func(s *site) error {
				for pid := range s.pages {
					d := w.compose(s, int32(pid), false)
					for _, l := range d.links {
						resp, err := c.Get(l.url)
						switch {
						case l.fault == "loop":
							if err == nil {
								t.Errorf("%s: loop link answered %d", l.url, resp.StatusCode)
							}
							continue
						case l.fault == "broken" && l.site < 0:
							var dns interface{ Temporary() bool }
							if err == nil || !errors.As(err, &dns) {
								t.Errorf("%s: dangling host gave %v", l.url, err)
							}
							broken++
							continue
						case err != nil:
							t.Fatalf("%s: %v", l.url, err)
						}
						resp.Body.Close()
						want := 200
						if l.fault == "broken" {
							want = 404
							broken++
						}
						if resp.StatusCode != want {
							t.Errorf("link %s (fault %q) from %s: status %d", l.url, l.fault, w.pageURL(s, int32(pid)), resp.StatusCode)
						}
						checked++
					}
				}
				return nil
			})
			t.Logf("%d links checked, %d broken", checked, broken)
			if faulty != (broken > 0) {
				t.Errorf("broken links %d with faults=%v", broken, faulty)
			}
		})
	}
}

func TestHiddenDatabase(t *testing.T) {
	w := smallWeb(t, 2, func(c *Config) { c.DB.K = 12; c.DB.PageSize = 5; c.DB.API = 1 })
	_, _, dbs := readTruth(t, w)
	var info DatabaseInfo
	for _, d := range dbs {
		if d.Size > info.Size {
			info = d
		}
	}
	db, _, ok := w.Database(info.ID)
	if !ok {
		t.Fatalf("database %s not found", info.ID)
	}
	// frequent terms give solid and overflowing queries
	voc := db.Vocabulary()
	terms := sortedKeys(voc)
	sort.SliceStable(terms, func(a, b int) bool { return voc[terms[a]] > voc[terms[b]] })
	c := w.Client()
	walk := func(q string) []string {
		var ids []string
		next := info.SearchURL + "?q=" + url.QueryEscape(q)
		for pages := 0; next != ""; pages++ {
			if pages > 50 {
				t.Fatalf("%q: too many pages", q)
			}
			code, body := get(t, c, next)
			if code != 200 {
				t.Fatalf("%s: %d", next, code)
			}
			base, _ := url.Parse(next)
			next = ""
			for _, l := range parsePage(t, base, body).links {
				if strings.Contains(l, "/record/") {
					ids = append(ids, l[strings.LastIndex(l, "/")+1:])
				}
				if strings.Contains(l, "page=") && strings.Contains(l, "/search?") {
					next = l
				}
			}
		}
		return ids
	}
	idsOf := func(idx []int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, url.PathEscape(db.Record(i).ID))
		}
		return out
	}
	checked := 0
	for _, q := range []string{terms[0], terms[3], terms[len(terms)/2], terms[0] + " " + terms[1], terms[2] + " the " + terms[5]} {
		got := walk(q)
		match := db.Match(q)
		want := idsOf(match)
		if len(want) > 12 {
			want = want[:12]
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%q: pages give %v, want the top-k of the %d matches %v", q, got, len(match), want)
		}
		checked++
	}
	// conjunctive: a two-term query matches the intersection
	a, b := db.Match(terms[0]), db.Match(terms[1])
	inter := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				inter++
			}
		}
	}
	if n := len(db.Match(terms[0] + " " + terms[1])); n != inter {
		t.Errorf("conjunctive match %d, intersection %d", n, inter)
	}
	// record pages, the JSON API and POST
	code, body := get(t, c, strings.Replace(info.SearchURL, "/search", "/api/search", 1)+"?q="+url.QueryEscape(terms[0]))
	var api struct {
		Records []struct{ ID, URL string }
		Next    bool
	}
	if err := json.Unmarshal(body, &api); code != 200 || err != nil || len(api.Records) == 0 {
		t.Fatalf("api: %d %v %s", code, err, body)
	}
	if code, _ := get(t, c, api.Records[0].URL); code != 200 {
		t.Errorf("record page %s: %d", api.Records[0].URL, code)
	}
	resp, err := c.PostForm(info.SearchURL, url.Values{"q": {terms[0]}, "_sort": {"date"}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST: %v", err)
	}
	resp.Body.Close()
	// the entry page's own forms submit to the database
	entry := w.FormsAt(info.EntryPage)
	n := 0
	for _, f := range entry {
		if f.Database == info.ID {
			n++
		}
	}
	if n == 0 {
		t.Errorf("entry page %s has no form of %s: %+v", info.EntryPage, info.ID, entry)
	}
	t.Logf("%s: %d records, %d queries walked", info.ID, info.Size, checked)
}

func TestRobots(t *testing.T) {
	w := smallWeb(t, 4, func(c *Config) { c.Robots = RobotsConfig{DisallowShare: 1, CrawlDelayShare: 1, CrawlDelay: 2} })
	c := w.Client()
	pages, _, _ := readTruth(t, w)
	for _, si := range w.Sites()[:5] {
		code, body := get(t, c, si.URL+"robots.txt")
		if code != 200 || !strings.Contains(string(body), "Disallow: /") || !strings.Contains(string(body), "Crawl-delay: 2") {
			t.Errorf("%s robots.txt: %d %s", si.Host, code, body)
		}
	}
	dis := 0
	for u, p := range pages {
		lu, _ := url.Parse(u)
		h := w.sites[w.hostIdx[lu.Host]]
		if p.Disallowed != h.disallowed(lu.Path) {
			t.Errorf("%s: disallowed %v", u, p.Disallowed)
		}
		if p.Disallowed {
			dis++
		}
	}
	if dis == 0 {
		t.Error("no disallowed page")
	}
}

func TestFaults(t *testing.T) {
	type check func(t *testing.T, w *Web, c *http.Client, u string)
	status := func(codes ...int) check {
		return func(t *testing.T, w *Web, c *http.Client, u string) {
			for _, want := range codes {
				code, _ := get(t, c, u)
				if code != want {
					t.Errorf("%s: status %d, want %d", u, code, want)
				}
			}
		}
	}
	tests := []struct {
		name  string
		fault FaultConfig
		check check
	}{
		{"error", FaultConfig{Error: 1}, status(500, 500)},
		{"flaky", FaultConfig{Flaky: 1}, status(503, 200)},
		{"reset", FaultConfig{Reset: 1}, func(t *testing.T, w *Web, c *http.Client, u string) {
			_, err := c.Get(u)
			if !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("first request: %v, want a connection reset", err)
			}
			status(200)(t, w, c, u)
		}},
		{"slow", FaultConfig{Slow: 1, SlowDelay: Duration(time.Hour)}, func(t *testing.T, w *Web, c *http.Client, u string) {
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
			go cancel()
			if _, err := c.Do(req); !errors.Is(err, context.Canceled) {
				t.Errorf("slow page with cancelled context: %v", err)
			}
		}},
		{"oversize", FaultConfig{Oversize: 1, OversizeBytes: 300 << 10}, func(t *testing.T, w *Web, c *http.Client, u string) {
			_, b := get(t, c, u)
			if len(b) < 300<<10 || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</html>")) {
				t.Errorf("oversized body %d bytes", len(b))
			}
		}},
		{"malformed", FaultConfig{Malformed: 1}, func(t *testing.T, w *Web, c *http.Client, u string) {
			_, b := get(t, c, u)
			base, _ := url.Parse(u)
			if got, want := len(parsePage(t, base, b).forms), len(w.FormsAt(u)); got != want {
				t.Errorf("malformed page: parser finds %d forms, truth %d", got, want)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := smallWeb(t, 6, func(c *Config) { c.Faults = tc.fault })
			c := w.Client()
			// a non-form, non-home page: faults apply there whatever their kind
			n := 0
			for id := int32(0); id < 4; id++ {
				s := w.site(id)
				for pid := range s.pages {
					if p := s.pages[pid]; !p.onPath && p.kind != pkHome && n < 12 {
						u := w.pageURL(s, int32(pid))
						if pu, _ := url.Parse(u); w.Fault(pu) != tc.name && !(tc.name == "malformed" && p.kind == pkForm) {
							t.Errorf("Fault(%s) = %q, want %q", u, w.Fault(pu), tc.name)
						}
						tc.check(t, w, c, u)
						n++
					}
				}
			}
			if n == 0 {
				t.Fatal("no page to check")
			}
		})
	}
	t.Run("redirects", func(t *testing.T) {
		w := smallWeb(t, 6, nil)
		c := w.Client()
		home := w.Sites()[0].URL
		resp, err := c.Get(home + "r/3/about.html")
		if err != nil || resp.StatusCode != 200 || resp.Request.URL.Path != "/about.html" {
			t.Fatalf("redirect chain: %v", err)
		}
		if _, err := c.Get(home + "loop/1/a"); err == nil || !strings.Contains(err.Error(), "redirects") {
			t.Errorf("redirect loop: %v", err)
		}
		for path, want := range map[string]string{"r/3/about.html": "", "loop/1/a": "loop", "about/missing-12ab.html": "not-found", "gone-3f.html": "not-found", "robots.txt": ""} {
			if u, _ := url.Parse(home + path); w.Fault(u) != want {
				t.Errorf("Fault(%s) = %q, want %q", u, w.Fault(u), want)
			}
		}
	})
	t.Run("calendar", func(t *testing.T) {
		w := smallWeb(t, 6, func(c *Config) { c.Faults.Calendar = 1 })
		c := w.Client()
		u := w.Sites()[0].URL + "events/calendar"
		for i := 0; i < 30; i++ {
			code, b := get(t, c, u)
			base, _ := url.Parse(u)
			var next string
			for _, l := range parsePage(t, base, b).links {
				if strings.Contains(l, "month=") && !strings.Contains(l, "week") {
					next = l // the last month link is "next"
				}
			}
			if code != 200 || next == "" || next == u {
				t.Fatalf("calendar page %s: %d, next %q", u, code, next)
			}
			u = next
		}
	})
	t.Run("session ids", func(t *testing.T) {
		w := smallWeb(t, 6, func(c *Config) { c.Faults.SessionID = 1 })
		s := w.site(0)
		d1, d2 := w.compose(s, 0, false), w.compose(s, 1, false)
		var a, b string
		for _, l := range d1.links {
			for _, m := range d2.links {
				if l.page == m.page && l.page >= 0 && l.url != m.url {
					a, b = l.url, m.url
				}
			}
		}
		if a == "" {
			t.Fatal("no page linked under two session ids")
		}
		c := w.Client()
		_, ba := get(t, c, a)
		_, bb := get(t, c, b)
		if !bytes.Equal(ba, bb) || canon(a) != canon(b) {
			t.Errorf("%s and %s should be the same page", a, b)
		}
	})
}

func TestSearchEngine(t *testing.T) {
	w := smallWeb(t, 9, nil)
	c := w.Client()
	seed := w.Seeds("auto", 1)[0]
	res := w.EngineSearch("link:"+seed, 1)
	if res.Total == 0 {
		t.Fatalf("nobody links to %s", seed)
	}
	for _, h := range res.Results {
		_, b := get(t, c, h.URL)
		base, _ := url.Parse(h.URL)
		ok := false
		for _, l := range parsePage(t, base, b).links {
			if canon(l) == seed || strings.HasPrefix(l, seed) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s is a link: result but does not link to %s", h.URL, seed)
		}
	}
	host := w.Sites()[0].Host
	code, body := get(t, c, "http://"+SearchEngineHost+"/search?format=json&q="+url.QueryEscape("site:"+host))
	var sr SearchResult
	if err := json.Unmarshal(body, &sr); code != 200 || err != nil || sr.Total == 0 {
		t.Fatalf("site: query: %d %v", code, err)
	}
	for _, h := range sr.Results {
		if !strings.HasPrefix(h.URL, "http://"+host+"/") {
			t.Errorf("site:%s returned %s", host, h.URL)
		}
	}
	code, body = get(t, c, "http://"+SearchEngineHost+"/search?q=used+cars")
	if code != 200 || !strings.Contains(string(body), "class=\"result-link\"") {
		t.Errorf("keyword search HTML: %d", code)
	}
	kw := w.EngineSearch("car", 1)
	if kw.Total == 0 || kw.Total > w.cfg.Search.ResultCap {
		t.Errorf("keyword search: %d results", kw.Total)
	}
}

func TestSearchRateLimit(t *testing.T) {
	w := smallWeb(t, 9, func(c *Config) { c.Search.Rate = 1; c.Search.Burst = 2 })
	now := time.Unix(1000, 0)
	w.lim.now = func() time.Time { return now }
	c := w.Client()
	u := "http://" + SearchEngineHost + "/search?q=cars&format=json"
	for i, want := range []int{200, 200, 429} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("request %d: %d, want %d", i, resp.StatusCode, want)
		}
		if want == 429 && resp.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	now = now.Add(time.Second)
	if code, _ := get(t, c, u); code != 200 {
		t.Errorf("after refill: %d", code)
	}
}

func TestServing(t *testing.T) {
	w := smallWeb(t, 12, nil)
	home := w.Sites()[1].URL
	t.Run("dial", func(t *testing.T) {
		c := &http.Client{Transport: &http.Transport{DialContext: w.DialContext}}
		if code, _ := get(t, c, home); code != 200 {
			t.Errorf("pipe dial: %d", code)
		}
		if _, err := c.Get("http://no-such-host.example/"); err == nil {
			t.Error("unknown host reachable")
		}
	})
	t.Run("loopback", func(t *testing.T) {
		srv, err := w.Listen("127.0.0.1:0", ServeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		if code, _ := get(t, srv.Client(), home); code != 200 {
			t.Errorf("loopback: %d", code)
		}
		proxied := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: srv.Addr})}}
		if code, _ := get(t, proxied, home); code != http.StatusBadRequest {
			t.Errorf("proxy request to a non-proxy server: %d", code)
		}
	})
	t.Run("loopback faults", func(t *testing.T) {
		fw := smallWeb(t, 12, func(c *Config) { c.Faults = FaultConfig{Reset: 0.5, Flaky: 0.5} })
		srv, err := fw.Listen("127.0.0.1:0", ServeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		// fresh connections: net/http silently retries a GET whose reused
		// connection was reset
		c := &http.Client{Transport: &http.Transport{DialContext: LoopbackDialer(srv.Addr), DisableKeepAlives: true}}
		s := fw.site(0)
		resets, flaky := 0, 0
		for pid := range s.pages {
			u := fw.pageURL(s, int32(pid))
			switch fw.pageFault(s, int32(pid)) {
			case "reset":
				if _, err := c.Get(u); err == nil {
					t.Errorf("%s: reset fault answered", u)
				}
				resets++
			case "flaky":
				flaky++
				if code, _ := get(t, c, u); code != http.StatusServiceUnavailable {
					t.Errorf("%s: first request %d", u, code)
				}
			default:
				continue
			}
			if code, _ := get(t, c, u); code != 200 {
				t.Errorf("%s: second request %d", u, code)
			}
		}
		if resets == 0 || flaky == 0 {
			t.Errorf("resets %d, flaky %d", resets, flaky)
		}
	})
	t.Run("proxy", func(t *testing.T) {
		srv, err := w.Listen("127.0.0.1:0", ServeOptions{Proxy: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		proxied := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: srv.Addr})}}
		if code, _ := get(t, proxied, home); code != 200 {
			t.Errorf("proxy: %d", code)
		}
		if code, _ := get(t, proxied, "http://not-in-the-web.example/"); code != http.StatusBadGateway {
			t.Errorf("proxy to unknown host: %d", code)
		}
		if code, b := get(t, proxied, "http://"+srv.Addr+"/"); code != 200 || !strings.Contains(string(b), SearchEngineHost) {
			t.Errorf("index page: %d", code)
		}
	})
}

func TestDataDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "extra.jsonl"), []byte(`{"domain":"auto","name":"zorblax roadster","year":"2031"}
{"domain":"auto","name":"zorblax coupe","year":"2032"}
`), 0o644)
	os.WriteFile(filepath.Join(dir, "topics.json"), []byte(`{"boats":{"target":true,"noun":"boat","plural":"boats","words":["boat","hull","marina"],"records":"auto"}}`), 0o644)
	d, err := LoadData(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(d.Topics["auto"].RecordPool()); got != 2 {
		t.Errorf("auto pool from the JSONL file: %d records", got)
	}
	if d.Topics["boats"] == nil || len(d.Topics["boats"].RecordPool()) != 2 || d.TopicNames[len(domain.BuiltIn)] != "boats" {
		t.Errorf("topics.json did not add a target domain: %v", d.TopicNames)
	}
	if len(d.Topics["movie"].RecordPool()) == 0 || len(d.Forms[KindLogin]) == 0 {
		t.Error("built-in fallbacks missing")
	}
	cfg := SmallConfig()
	cfg.Data = dir
	cfg.Domains["boats"] = 1
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.SitesOfDomain("boats")) == 0 {
		t.Error("no boats sites")
	}
}

func TestSharedData(t *testing.T) {
	dir := FindDataDir()
	if dir == "" {
		t.Skip("shared data not found: ../shared/data")
	}
	if testing.Short() {
		t.Skip("loading the shared data takes seconds")
	}
	d, err := LoadData(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{KindSearch, KindExternal, KindLogin, KindRegistration, KindPassword, KindContact, KindNewsletter, KindOrder, KindOther} {
		n := 0
		for _, f := range d.Forms[k] {
			if strings.HasPrefix(f.Source, "formasaurus:html/") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no real %s forms", k)
		}
	}
	if len(d.Forms[KindSearch]) < 100 {
		t.Errorf("%d searchable forms cut", len(d.Forms[KindSearch]))
	}
	for _, dn := range domain.BuiltIn {
		if n := len(d.Topics[dn].RecordPool()); n < 200 {
			t.Errorf("%s: %d records", dn, n)
		}
	}
	for _, k := range sortedKeys(d.Forms) {
		t.Logf("%s: %d forms", k, len(d.Forms[k]))
	}
	t.Logf("warnings: %d (pages whose form count disagrees with the labels)", len(d.Warnings))
}
