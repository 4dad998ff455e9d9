package plugins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/clock"
	"github.com/dwcrawl/dwcrawl/core/script"
)

// loopbackDoer sends requests with an http.Client but refuses every host
// that is not loopback, so no test can reach a real search engine.
type loopbackDoer struct{ c *http.Client }

func (d loopbackDoer) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("test doer: refusing non-loopback host %s", host)
	}
	return d.c.Do(req.WithContext(ctx))
}

// captureDoer answers every request itself (no network) and records it.
type captureDoer struct {
	mu   sync.Mutex
	reqs []*http.Request
	body string
}

func (d *captureDoer) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.reqs = append(d.reqs, req)
	d.mu.Unlock()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(d.body)), Request: req}, nil
}

// newFakeClock replaces the engine's clock: sleeping advances it at once
// and is recorded.
func newFakeClock() *clock.Fake { return clock.NewFake(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) }

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// openEngine loads a search plugin with a fake clock.
func openEngine(t *testing.T, pool *script.Pool, ref string, opt SearchOptions, dirs ...string) (*SearchEngine, *clock.Fake) {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Jitter == 0 {
		opt.Jitter = -1 // exact waits; TestAdapterJitter checks the random part
	}
	e, err := OpenSearchEngine(context.Background(), pool, ref, opt, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	clk := newFakeClock()
	e.sleep, e.now = clk.Sleep, clk.Now
	return e, clk
}

// lineOf is the 1-based line of the first line of file containing s.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), s) {
			return n
		}
	}
	t.Fatalf("%q not in %s", s, file)
	return 0
}

func TestSearchEngineRetries(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{}, "testdata"))
	defer pool.Close()
	ctx := context.Background()
	fnLine := lineOf(t, "testdata/search/fake.lua", "search = function")
	pos := fmt.Sprintf("testdata/search/fake.lua:%d: search: ", fnLine)
	s := time.Second
	tests := []struct {
		name    string
		query   string
		opt     SearchOptions
		wantErr error  // nil: success
		wantMsg string // substring of the error
		sleeps  []time.Duration
		stats   Stats
	}{
		{name: "ok", query: "ok", stats: Stats{Queries: 1, Pages: 1, Results: 1}},
		{name: "rate limited then ok", query: "rl:2", sleeps: []time.Duration{5 * s, 5 * s},
			stats: Stats{Queries: 3, Pages: 1, Results: 1, Errors: 2, RateLimited: 2, Retries: 2}},
		{name: "unavailable backs off", query: "busy:3", sleeps: []time.Duration{s, 2 * s, 4 * s},
			stats: Stats{Queries: 4, Pages: 1, Results: 1, Errors: 3, Retries: 3}},
		{name: "raised error retried then fails", query: "raise:9", opt: SearchOptions{Retries: 4, MaxBackoff: 3 * s},
			wantErr: ErrUnavailable, wantMsg: "(5 attempts): testdata/search/_faults.lua:" + fmt.Sprint(lineOf(t, "testdata/search/_faults.lua", `error("boom "`)) + ": boom 5",
			sleeps: []time.Duration{s, 2 * s, 3 * s, 3 * s}, stats: Stats{Queries: 5, Errors: 5, Retries: 4, Failed: 1}},
		{name: "no retries", query: "raise:9", opt: SearchOptions{Retries: -1}, wantErr: ErrUnavailable,
			stats: Stats{Queries: 1, Errors: 1, Failed: 1}},
		{name: "config not retried", query: "config", wantErr: ErrConfig, wantMsg: pos + "config: FAKE_KEY is not set",
			stats: Stats{Queries: 1, Errors: 1, Failed: 1}},
		{name: "daily quota gives up", query: "daily", wantErr: ErrRateLimited, wantMsg: "asks to wait 24h0m0s",
			stats: Stats{Queries: 1, Errors: 1, RateLimited: 1, Failed: 1}},
		{name: "unsupported", query: "unsupported", wantErr: ErrUnsupported, stats: Stats{Queries: 1, Errors: 1, Failed: 1}},
		{name: "not a table", query: "notable", wantErr: ErrBadResult, wantMsg: pos + "must return a table"},
		{name: "result without url", query: "nourl", wantErr: ErrBadResult, wantMsg: "results[1].url: missing"},
		{name: "unknown key", query: "badkey", wantErr: ErrBadResult, wantMsg: pos + `nxt: unknown key (did you mean "next"?)`},
		{name: "unknown code", query: "badcode", wantErr: ErrBadResult, wantMsg: `unknown error code "weird"`},
		{name: "next not boolean", query: "badnext", wantErr: ErrBadResult, wantMsg: "next: expected boolean, got string"},
		{name: "results missing", query: "noresults", wantErr: ErrBadResult, wantMsg: "results: missing"},
		{name: "budget", query: "rl:5", opt: SearchOptions{Budget: 2}, wantErr: ErrBudgetExhausted, wantMsg: "after 2 queries; last error: " + pos + "rate limited: slow down",
			sleeps: []time.Duration{5 * s}, stats: Stats{Queries: 2, Errors: 2, RateLimited: 2, Retries: 1, Failed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, clk := openEngine(t, pool, "search/fake", tt.opt, "testdata")
			sp, err := e.Search(ctx, tt.query, 1)
			checkOutcome(t, outcome{err: err, prefix: `search/fake: search "` + tt.query + `" page 1`,
				empty: sp.Total == -1 && len(sp.Results) == 0, slept: clk.Sleeps(), stats: e.Stats()}, tt.wantErr, tt.wantMsg, tt.sleeps, tt.stats)
			want := SearchPage{Results: []SearchResult{{URL: "https://a.example/1", Title: "A " + tt.query, Snippet: "s"}}, Next: true, Total: 42}
			if tt.wantErr == nil && !reflect.DeepEqual(sp, want) {
				t.Errorf("page = %+v, want %+v", sp, want)
			}
		})
	}
}

func TestSearchEngineIntervalPagesAndFallbacks(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{}, "testdata"))
	defer pool.Close()
	ctx := context.Background()
	e, clk := openEngine(t, pool, "fake", SearchOptions{MinInterval: 2 * time.Second}, "testdata")
	if got := e.Env(); !reflect.DeepEqual(got, []string{"FAKE_KEY"}) {
		t.Errorf("Env = %v", got)
	}
	for page := 1; page <= 3; page++ {
		sp, err := e.Search(ctx, "ok", page)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Next != (page < 3) || sp.Results[0].URL != fmt.Sprintf("https://a.example/%d", page) {
			t.Errorf("page %d = %+v", page, sp)
		}
	}
	// The first query does not wait; each later one waits the interval
	// (the fake clock does not move between calls).
	if got, want := clk.Sleeps(), []time.Duration{2 * time.Second, 2 * time.Second}; !reflect.DeepEqual(got, want) {
		t.Errorf("sleeps = %v, want %v", got, want)
	}
	// Beyond max_page: empty, no query sent.
	before := e.Stats().Queries
	if sp, err := e.Search(ctx, "ok", 6); err != nil || len(sp.Results) != 0 || sp.Next || e.Stats().Queries != before {
		t.Errorf("page 6 = %+v, %v, queries %d -> %d", sp, err, before, e.Stats().Queries)
	}
	// LinkLister reads pages while the engine has more (fake: 3 pages).
	got, err := LinkLister{Engine: e, Pages: 5}.Links(ctx, "https://deep.example/")
	if want := []string{"https://a.example/1", "https://a.example/2", "https://a.example/3"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("LinkLister = %v, %v; want %v", got, err, want)
	}
	if got, err := (LinkLister{Engine: e}).Links(ctx, "https://other.example/"); err != nil || len(got) != 1 {
		t.Errorf("LinkLister one page = %v, %v", got, err)
	}
	// Without link/site functions the operators go through search.
	sp, err := e.Links(ctx, "https://deep.example/", 1)
	if err != nil || sp.Results[0].Title != "A link:https://deep.example/" {
		t.Errorf("Links = %+v, %v", sp, err)
	}
	sp, err = e.Site(ctx, "deep.example", 1)
	if err != nil || sp.Results[0].Title != "A site:deep.example" {
		t.Errorf("Site = %+v, %v", sp, err)
	}
	if err := e.Check(ctx); err != nil {
		t.Errorf("Check without a check function = %v", err)
	}
	// Cancelled while waiting to retry: the context error, no more queries.
	cctx, cancel := context.WithCancel(ctx)
	e.sleep = func(ctx context.Context, d time.Duration) error {
		if d == 5*time.Second { // the retry_after wait, not the interval
			cancel()
		}
		return clk.Sleep(ctx, d)
	}
	if _, err := e.Search(cctx, "rl:99", 1); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrRateLimited) {
		t.Errorf("cancelled during backoff: %v", err)
	}
	e.sleep = clk.Sleep
	// Cancelled context: no query, context error.
	cctx, cancel = context.WithCancel(ctx)
	cancel()
	if _, err := e.Search(cctx, "ok", 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	e.Close()
	if _, err := e.Search(ctx, "ok", 1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("after Close: %v", err)
	}
	if _, err := e.Links(ctx, "https://deep.example/", 1); err == nil || e.Check(ctx) == nil {
		t.Errorf("Links/Check after Close: %v", err)
	}
}

func TestSearchEngineTimeoutAndConcurrency(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{CallTimeout: 200 * time.Millisecond}, "testdata"))
	defer pool.Close()
	ctx := context.Background()
	e, _ := openEngine(t, pool, "fake", SearchOptions{Retries: -1}, "testdata")
	_, err := e.Search(ctx, "loop", 1)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("runaway plugin: %v", err)
	}
	// The state stays usable after a timeout, from many goroutines.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sp, err := e.Search(ctx, "echo", 1+i%2)
			if err == nil && len(sp.Results) != 1 {
				err = fmt.Errorf("results %+v", sp)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if st := e.Stats(); st.Queries != 9 || st.Pages != 8 || st.Failed != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestNewSearchEngineValidation(t *testing.T) {
	checkDeclarations(t, "search", []declCase{
		{"env not list", "env = 'X',", "x.lua:3: env: expected a list"},
		{"env item", "env = { 'X', 2 },", "x.lua:3: env[2]: expected string, got number 2"},
		{"env name", "env = { 'X', 'A-B' },", `x.lua:3: env[2]: expected the name of an environment variable, got "A-B"`},
		{"unknown key", "\n  min_intervall = 1,", `x.lua:4: min_intervall: unknown key (did you mean "min_interval"?)`},
		{"link not function", "link = true,", "x.lua:3: link: expected function, got boolean"},
		{"negative interval", "min_interval = -1,", "x.lua:3: min_interval: must be seconds in [0, 3600]"},
		{"max_page", "max_page = 1.5,", "x.lua:3: max_page: expected integer, got number 1.5"},
		{"max_page zero", "max_page = 0,", "x.lua:3: max_page: must be a positive integer, got 0"},
	}, func(pool *script.Pool, dir string) (func(), error) {
		e, err := OpenSearchEngine(context.Background(), pool, "search/x", SearchOptions{}, dir)
		if err != nil {
			return nil, err
		}
		return e.Close, nil
	})
	checkWrongPlugin(t, "keyword", "example", func(p *Plugin) error {
		_, err := NewSearchEngine(p, SearchOptions{})
		return err
	})
	pool := script.NewPool(PoolOptions(script.Options{}))
	defer pool.Close()
	// Every bundled search plugin satisfies the contract.
	for _, info := range List() {
		if info.Kind != "search" {
			continue
		}
		e, err := OpenSearchEngine(context.Background(), pool, info.Ref(), SearchOptions{})
		if err != nil {
			t.Errorf("%s: %v", info.Ref(), err)
			continue
		}
		if info.Name == "brave" && e.interval != time.Second {
			t.Errorf("brave: interval %v, want the plugin's min_interval 1s", e.interval)
		}
		e.Close()
	}
}

// fixtureServer serves the documented response formats of the engines from
// testdata/*.json and records the requests.
type fixtureServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newFixtureServer(t *testing.T) *fixtureServer {
	t.Helper()
	fs := &fixtureServer{}
	fixture := func(w http.ResponseWriter, status int, name string) {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Error(err)
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(b)
	}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.reqs = append(fs.reqs, r.Clone(context.Background()))
		fs.mu.Unlock()
		q := r.URL.Query()
		switch r.URL.Path {
		case "/searxng/search":
			switch {
			case q.Get("format") != "json" || q.Get("q") == "forbidden":
				http.Error(w, "403 Forbidden", http.StatusForbidden)
			case q.Get("q") == "busy":
				http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
			case q.Get("pageno") == "1":
				fixture(w, 200, "searxng.json")
			default:
				fixture(w, 200, "searxng_empty.json")
			}
		case "/brave/res/v1/web/search":
			switch {
			case r.Header.Get("X-Subscription-Token") != "brave-key":
				fixture(w, http.StatusUnauthorized, "brave_badkey.json")
			case q.Get("q") == "busy":
				w.Header().Set("X-RateLimit-Limit", "1, 2000")
				w.Header().Set("X-RateLimit-Reset", "1, 1419704")
				fixture(w, http.StatusTooManyRequests, "brave_ratelimit.json")
			default:
				fixture(w, 200, "brave.json")
			}
		case "/google/customsearch/v1":
			switch {
			case r.Header.Get("X-Goog-Api-Key") != "google-key" || q.Get("key") != "":
				fixture(w, http.StatusBadRequest, "google_badkey.json")
			case q.Get("q") == "busy":
				fixture(w, http.StatusTooManyRequests, "google_quota.json")
			case q.Get("start") == "1":
				fixture(w, 200, "google.json")
			default:
				fixture(w, 200, "google_last.json")
			}
		case "/simweb/search":
			switch {
			case q.Get("format") != "json":
				http.Error(w, "want format=json", 400)
			case q.Get("q") == "busy":
				w.Header().Set("Retry-After", "3")
				http.Error(w, "429 Too Many Requests: slow down", http.StatusTooManyRequests)
			case q.Get("q") == "broken":
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<html>oops</html>")
			default:
				fixture(w, 200, "simweb.json")
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fixtureServer) last() *http.Request {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.reqs) == 0 {
		return nil
	}
	return fs.reqs[len(fs.reqs)-1]
}

func (fs *fixtureServer) count() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.reqs)
}

func TestBundledSearchPlugins(t *testing.T) {
	srv := newFixtureServer(t)
	env := map[string]string{
		"SEARXNG_URL":           srv.URL + "/searxng/",
		"BRAVE_API_KEY":         "brave-key",
		"BRAVE_SEARCH_URL":      srv.URL + "/brave/res/v1/web/search",
		"GOOGLE_API_KEY":        "google-key",
		"GOOGLE_CSE_ID":         "cx-test",
		"GOOGLE_CSE_URL":        srv.URL + "/google/customsearch/v1",
		"DWCRAWL_SIMWEB_SEARCH": srv.URL + "/simweb",
	}
	pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(env)}))
	defer pool.Close()
	ctx := context.Background()

	type call struct {
		op         string // search, link, site
		arg        string
		page       int
		wantURLs   []string
		wantTitle  string // of the first result
		wantSnip   string // of the first result
		wantNext   bool
		wantTotal  int
		wantParams map[string]string // query parameters of the request sent
		wantErr    error
		wantMsg    string
		wantSleeps []time.Duration
	}
	tests := []struct {
		plugin string
		calls  []call
	}{
		{"searxng", []call{
			{op: "search", arg: "used cars", page: 1,
				wantURLs:  []string{"https://www.cars.example/used/", "https://dealers.example/inventory"},
				wantTitle: "Used Cars for Sale & Certified Pre-Owned", wantSnip: "Search 2 million used cars by make, model and price.",
				wantNext: true, wantTotal: -1, wantParams: map[string]string{"q": "used cars", "format": "json", "pageno": "1"}},
			{op: "search", arg: "used cars", page: 2, wantNext: false, wantTotal: 0, wantParams: map[string]string{"pageno": "2"}},
			{op: "link", arg: "https://www.autotrader.com/cars-for-sale/", page: 1, wantNext: true, wantTotal: -1,
				wantURLs:   []string{"https://www.cars.example/used/", "https://dealers.example/inventory"},
				wantParams: map[string]string{"q": `"autotrader.com" -site:autotrader.com`}},
			{op: "site", arg: "www.cars.com", page: 1, wantNext: true, wantTotal: -1,
				wantURLs:   []string{"https://www.cars.example/used/", "https://dealers.example/inventory"},
				wantParams: map[string]string{"q": "site:cars.com"}},
			{op: "search", arg: "forbidden", page: 1, wantErr: ErrConfig, wantMsg: "HTTP 403: 403 Forbidden (is the json format enabled in settings.yml"},
			{op: "search", arg: "busy", page: 1, wantErr: ErrRateLimited, wantMsg: "rate limited: SearXNG: HTTP 429",
				wantSleeps: []time.Duration{time.Second, 2 * time.Second}},
		}},
		{"brave", []call{
			{op: "search", arg: "used cars", page: 1,
				wantURLs:  []string{"https://www.autos.example/used-cars", "https://carsearch.example/"},
				wantTitle: "Used Cars for Sale Near Me", wantSnip: "Find used cars for sale & compare prices.",
				wantNext: true, wantTotal: -1, wantParams: map[string]string{"q": "used cars", "offset": "0", "count": "20"}},
			{op: "search", arg: "used cars", page: 10, wantNext: false, wantTotal: -1,
				wantURLs:   []string{"https://www.autos.example/used-cars", "https://carsearch.example/"},
				wantParams: map[string]string{"offset": "9"}},
			{op: "link", arg: "http://www.cars.com/", page: 1, wantNext: true, wantTotal: -1,
				wantURLs:   []string{"https://www.autos.example/used-cars", "https://carsearch.example/"},
				wantParams: map[string]string{"q": `"cars.com" -site:cars.com`}},
			{op: "search", arg: "busy", page: 1, wantErr: ErrRateLimited, wantMsg: "Brave Search: HTTP 429: RATE_LIMITED: Request rate limit exceeded for plan.",
				wantSleeps: []time.Duration{time.Second, time.Second}},
		}},
		{"google", []call{
			{op: "search", arg: "used cars", page: 1,
				wantURLs:  []string{"https://www.directory.example/autos/dealers", "https://blog.example/best-used-car-sites"},
				wantTitle: "Used Cars Directory - dealers by state", wantSnip: "A list of used car dealer web sites: autos.example, carsearch.example ...",
				wantNext: true, wantTotal: 1230, wantParams: map[string]string{"q": "used cars", "cx": "cx-test", "start": "1", "num": "10", "key": ""}},
			{op: "search", arg: "used cars", page: 2, wantURLs: []string{"https://last.example/"}, wantNext: false, wantTotal: 12,
				wantParams: map[string]string{"start": "11"}},
			{op: "link", arg: "https://www.carmax.com/cars", page: 1, wantNext: true, wantTotal: 1230,
				wantURLs:   []string{"https://www.directory.example/autos/dealers", "https://blog.example/best-used-car-sites"},
				wantParams: map[string]string{"q": `"carmax.com" -site:carmax.com`, "linkSite": "carmax.com"}},
			{op: "site", arg: "www.carmax.com", page: 1, wantNext: true, wantTotal: 1230,
				wantURLs:   []string{"https://www.directory.example/autos/dealers", "https://blog.example/best-used-car-sites"},
				wantParams: map[string]string{"q": "site:carmax.com"}},
			{op: "search", arg: "busy", page: 1, wantErr: ErrRateLimited, wantMsg: "rateLimitExceeded: Quota exceeded for quota metric 'Queries' and limit 'Queries per day'"},
		}},
		{"simweb", []call{
			{op: "link", arg: "http://www.usedcars-depot.sim/", page: 1,
				wantURLs:  []string{"http://www.autohub-links.sim/dealers/", "http://cars-forum.sim/threads/42"},
				wantTitle: "Auto dealers directory", wantSnip: "Used cars: dealer, inventory, search.",
				wantTotal: 2, wantParams: map[string]string{"q": "link:http://www.usedcars-depot.sim/", "format": "json", "page": "1"}},
			{op: "site", arg: "www.usedcars-depot.sim", page: 2, wantTotal: 2,
				wantURLs:   []string{"http://www.autohub-links.sim/dealers/", "http://cars-forum.sim/threads/42"},
				wantParams: map[string]string{"q": "site:www.usedcars-depot.sim", "page": "2"}},
			{op: "search", arg: "busy", page: 1, wantErr: ErrRateLimited, wantMsg: "simweb search: HTTP 429: 429 Too Many Requests: slow down",
				wantSleeps: []time.Duration{3 * time.Second, 3 * time.Second}},
			{op: "search", arg: "broken", page: 1, wantErr: ErrUnavailable, wantMsg: "unavailable: simweb search sent a reply that is not a JSON object: oops",
				wantSleeps: []time.Duration{time.Second, 2 * time.Second}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			e, _ := openEngine(t, pool, "search/"+tt.plugin, SearchOptions{Retries: 2})
			e.interval = 0 // sleeps below are the retries' only
			if err := e.Check(ctx); err != nil {
				t.Errorf("Check: %v", err)
			}
			for _, c := range tt.calls {
				name := fmt.Sprintf("%s %q page %d", c.op, c.arg, c.page)
				clk := newFakeClock()
				e.sleep, e.now = clk.Sleep, clk.Now
				var sp SearchPage
				var err error
				switch c.op {
				case "search":
					sp, err = e.Search(ctx, c.arg, c.page)
				case "link":
					sp, err = e.Links(ctx, c.arg, c.page)
				case "site":
					sp, err = e.Site(ctx, c.arg, c.page)
				}
				if c.wantErr != nil {
					checkFailure(t, name, err, c.wantErr, "", c.wantMsg, "plugins/search/", clk.Sleeps(), c.wantSleeps)
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				var urls []string
				for _, r := range sp.Results {
					urls = append(urls, r.URL)
				}
				if !reflect.DeepEqual(urls, c.wantURLs) || sp.Next != c.wantNext || sp.Total != c.wantTotal {
					t.Errorf("%s: urls %q next %v total %d, want %q %v %d", name, urls, sp.Next, sp.Total, c.wantURLs, c.wantNext, c.wantTotal)
				}
				if c.wantTitle != "" && (sp.Results[0].Title != c.wantTitle || sp.Results[0].Snippet != c.wantSnip) {
					t.Errorf("%s: first result %+v, want title %q snippet %q", name, sp.Results[0], c.wantTitle, c.wantSnip)
				}
				checkParams(t, name, srv.last(), c.wantParams)
			}
		})
	}
}

func TestSearchPluginsMissingConfig(t *testing.T) {
	srv := newFixtureServer(t)
	tests := []struct {
		plugin  string
		env     map[string]string
		wantVar string
	}{
		{"searxng", map[string]string{}, "SEARXNG_URL"},
		{"brave", map[string]string{"BRAVE_SEARCH_URL": srv.URL + "/brave/res/v1/web/search"}, "BRAVE_API_KEY"},
		{"google", map[string]string{"GOOGLE_API_KEY": "google-key", "GOOGLE_CSE_URL": srv.URL + "/google/customsearch/v1"}, "GOOGLE_CSE_ID"},
		{"google", map[string]string{"GOOGLE_CSE_ID": "cx-test"}, "GOOGLE_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.plugin+" "+tt.wantVar, func(t *testing.T) {
			pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(tt.env)}))
			defer pool.Close()
			e, clk := openEngine(t, pool, tt.plugin, SearchOptions{})
			before := srv.count()
			err := e.Check(context.Background())
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "environment variable "+tt.wantVar+" is not set") {
				t.Errorf("Check = %v", err)
			}
			_, err = e.Search(context.Background(), "used cars", 1)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.wantVar) {
				t.Errorf("Search = %v", err)
			}
			if srv.count() != before || len(clk.Sleeps()) != 0 {
				t.Errorf("a misconfigured plugin sent requests or retried")
			}
		})
	}
	// A rejected key is a configuration error too, and is not retried.
	for _, plugin := range []string{"brave", "google"} {
		env := map[string]string{"BRAVE_API_KEY": "wrong", "BRAVE_SEARCH_URL": srv.URL + "/brave/res/v1/web/search",
			"GOOGLE_API_KEY": "wrong", "GOOGLE_CSE_ID": "cx-test", "GOOGLE_CSE_URL": srv.URL + "/google/customsearch/v1"}
		pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(env)}))
		e, _ := openEngine(t, pool, plugin, SearchOptions{})
		_, err := e.Search(context.Background(), "used cars", 1)
		if !errors.Is(err, ErrConfig) || e.Stats().Queries != 1 {
			t.Errorf("%s with a wrong key: %v (%d queries)", plugin, err, e.Stats().Queries)
		}
		e.Close()
		pool.Close()
	}
}

// TestSearchPluginDefaultEndpoints checks where each plugin sends its
// queries when no override is set, without any network: the doer answers.
func TestSearchPluginDefaultEndpoints(t *testing.T) {
	tests := []struct {
		plugin, body string
		env          map[string]string
		wantURL      string
		wantHeader   [2]string
	}{
		{"simweb", `{"results":[],"next":false,"total":0,"estimated_total":0}`, nil,
			"http://search.simweb/search?format=json&page=1&q=used+cars", [2]string{"Accept", "application/json"}},
		{"brave", `{"query":{"more_results_available":false},"web":{"results":[]}}`, map[string]string{"BRAVE_API_KEY": "k1"},
			"https://api.search.brave.com/res/v1/web/search?count=20&offset=0&q=used+cars", [2]string{"X-Subscription-Token", "k1"}},
		{"google", `{"items":[]}`, map[string]string{"GOOGLE_API_KEY": "k2", "GOOGLE_CSE_ID": "cx9"},
			"https://www.googleapis.com/customsearch/v1?cx=cx9&num=10&q=used+cars&start=1", [2]string{"X-Goog-Api-Key", "k2"}},
		{"searxng", `{"results":[],"number_of_results":0}`, map[string]string{"SEARXNG_URL": "http://localhost:8888/"},
			"http://localhost:8888/search?format=json&pageno=1&q=used+cars", [2]string{"Accept", "application/json"}},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			doer := &captureDoer{body: tt.body}
			pool := script.NewPool(PoolOptions(script.Options{HTTP: doer, Env: envMap(tt.env)}))
			defer pool.Close()
			e, _ := openEngine(t, pool, tt.plugin, SearchOptions{})
			sp, err := e.Search(context.Background(), "used cars", 1)
			if err != nil || len(sp.Results) != 0 || sp.Next {
				t.Fatalf("Search = %+v, %v", sp, err)
			}
			if len(doer.reqs) != 1 {
				t.Fatalf("%d requests", len(doer.reqs))
			}
			req := doer.reqs[0]
			if req.URL.String() != tt.wantURL || req.Header.Get(tt.wantHeader[0]) != tt.wantHeader[1] {
				t.Errorf("request %s %v, want %s with %s: %s", req.URL, req.Header, tt.wantURL, tt.wantHeader[0], tt.wantHeader[1])
			}
		})
	}
}
