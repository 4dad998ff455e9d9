package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

// openKeyword opens a keyword plugin with a fake clock.
func openKeyword(t *testing.T, pool *script.Pool, ref string, opt KeywordOptions, dirs ...string) (*KeywordInterface, *clock.Fake) {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Jitter == 0 {
		opt.Jitter = -1 // exact waits; TestAdapterJitter checks the random part
	}
	ki, err := OpenKeywordInterface(context.Background(), pool, ref, opt, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ki.Close)
	clk := newFakeClock()
	ki.sleep, ki.now = clk.Sleep, clk.Now
	return ki, clk
}

var fakeVars = map[string]string{"base": "https://db.example"}

func TestKeywordInterfaceRetries(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{Env: envMap(nil)}, "testdata"))
	defer pool.Close()
	ctx := context.Background()
	const file = "testdata/keyword/fake.lua"
	pos := fmt.Sprintf("%s:%d: search: ", file, lineOf(t, file, "search = function"))
	s := time.Second
	tests := []struct {
		name    string
		query   string
		opt     KeywordOptions
		wantErr error
		wantMsg string
		sleeps  []time.Duration
		stats   Stats
	}{
		{name: "ok", query: "ok", stats: Stats{Queries: 1, Pages: 1, Results: 3}},
		{name: "rate limited then ok", query: "rl:2", sleeps: []time.Duration{5 * s, 5 * s},
			stats: Stats{Queries: 3, Pages: 1, Results: 3, Errors: 2, RateLimited: 2, Retries: 2}},
		{name: "unavailable backs off", query: "busy:3", sleeps: []time.Duration{s, 2 * s, 4 * s},
			stats: Stats{Queries: 4, Pages: 1, Results: 3, Errors: 3, Retries: 3}},
		{name: "raised error retried then fails", query: "raise:9", opt: KeywordOptions{Retries: 2, Backoff: 2 * s},
			wantErr: ErrUnavailable, wantMsg: fmt.Sprintf("(3 attempts): testdata/search/_faults.lua:%d: boom 3", lineOf(t, "testdata/search/_faults.lua", `error("boom "`)),
			sleeps: []time.Duration{2 * s, 4 * s}, stats: Stats{Queries: 3, Errors: 3, Retries: 2, Failed: 1}},
		{name: "config not retried", query: "config", wantErr: ErrConfig, wantMsg: pos + "config: FAKE_TOKEN is not set",
			stats: Stats{Queries: 1, Errors: 1, Failed: 1}},
		{name: "long retry_after gives up", query: "daily", wantErr: ErrRateLimited, wantMsg: "asks to wait 24h0m0s",
			stats: Stats{Queries: 1, Errors: 1, RateLimited: 1, Failed: 1}},
		{name: "not a table", query: "notable", wantErr: ErrBadResult, wantMsg: pos + "must return a table (a result page or {error=}), got number"},
		{name: "nested field", query: "nested", wantErr: ErrBadResult, wantMsg: pos + "records[1].fields.authors: expected a string, number or boolean, got table"},
		{name: "no id", query: "noid", wantErr: ErrBadResult, wantMsg: "records[1]: needs an id or a url"},
		{name: "bad url", query: "badurl", wantErr: ErrBadResult, wantMsg: `records[1].url: want an absolute http(s) URL, got "ftp://db.example/x"`},
		{name: "unknown record key", query: "badkey", wantErr: ErrBadResult, wantMsg: pos + "records[1].titel: unknown key"},
		{name: "unknown key", query: "badtop", wantErr: ErrBadResult, wantMsg: pos + `recs: unknown key`},
		{name: "records missing", query: "norecords", wantErr: ErrBadResult, wantMsg: "records: missing"},
		{name: "negative total", query: "badtotal", wantErr: ErrBadResult, wantMsg: pos + "total: expected a non-negative integer or nil, got -1"},
		{name: "fractional k", query: "badk", wantErr: ErrBadResult, wantMsg: pos + "k: expected integer, got number 2.5"},
		{name: "records not a list", query: "notlist", wantErr: ErrBadResult, wantMsg: pos + "records.a: unexpected key in a list"},
		{name: "budget", query: "rl:5", opt: KeywordOptions{Budget: 2}, wantErr: ErrBudgetExhausted,
			wantMsg: "query budget exhausted after 2 queries; last error: " + pos + "rate limited: slow down",
			sleeps:  []time.Duration{5 * s}, stats: Stats{Queries: 2, Errors: 2, RateLimited: 2, Retries: 1, Failed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.Vars = fakeVars
			ki, clk := openKeyword(t, pool, "keyword/fake", tt.opt, "testdata")
			kp, err := ki.Search(ctx, tt.query, 1)
			checkOutcome(t, outcome{err: err, prefix: `keyword/fake: search "` + tt.query + `" page 1`,
				empty: kp.Total == -1 && len(kp.Records) == 0, slept: clk.Sleeps(), stats: ki.Stats()}, tt.wantErr, tt.wantMsg, tt.sleeps, tt.stats)
			if tt.wantErr == nil && (len(kp.Records) != 3 || kp.Total != 42 || !kp.Next) {
				t.Errorf("page = %+v", kp)
			}
		})
	}
}

func TestKeywordInterfaceRecordsInfoAndVars(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{Env: envMap(map[string]string{"FAKE_KW_URL": "https://env.example"})}, "testdata"))
	defer pool.Close()
	ctx := context.Background()
	ki, _ := openKeyword(t, pool, "fake", KeywordOptions{Vars: map[string]string{"note": "hello"}}, "testdata")

	info := ki.Info()
	wantVars := []KeywordVar{
		{Name: "base", Help: "base URL", Env: "FAKE_KW_URL", Required: true},
		{Name: "mode", Default: "plain"},
		{Name: "note", Help: "free text"},
	}
	if info.Name != "fake" || info.Version != "1.2.0" || info.K != 100 || info.PageSize != 3 || info.Conjunctive || !info.StopWords || !info.Fetch ||
		!reflect.DeepEqual(info.Env, []string{"FAKE_TOKEN", "FAKE_KW_URL"}) || !reflect.DeepEqual(info.Vars, wantVars) {
		t.Errorf("info = %+v", info)
	}
	if got, want := ki.Vars(), map[string]string{"base": "https://env.example", "mode": "plain", "note": "hello"}; !reflect.DeepEqual(got, want) {
		t.Errorf("vars = %v, want %v", got, want)
	}

	kp, err := ki.Search(ctx, "ok", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []KeywordRecord{
		{ID: "a1", URL: "https://db.example/a1", Text: "true A ok 2015", Fields: map[string]string{"title": "A ok", "year": "2015", "open": "true"}},
		{ID: "7", Text: "explicit text", Fields: map[string]string{"title": "seven"}},
		{ID: "https://db.example/url-only", URL: "https://db.example/url-only"},
	}
	if !reflect.DeepEqual(kp.Records, want) {
		t.Errorf("records = %+v\nwant %+v", kp.Records, want)
	}
	// Page 2 reports the site's limits; the interface learns them.
	if _, err := ki.Search(ctx, "ok", 2); err != nil {
		t.Fatal(err)
	}
	if info := ki.Info(); info.K != 77 || info.PageSize != 3 {
		t.Errorf("after page 2: K %d PageSize %d", info.K, info.PageSize)
	}
	kp, err = ki.Search(ctx, "dup", 0) // page < 1 means 1
	if err != nil || len(kp.Records) != 2 || kp.Records[0].Text != "" || kp.Records[1].ID != "e" || kp.Next || kp.Total != -1 {
		t.Errorf("dup = %+v, %v", kp, err)
	}
	// vars is a fresh table per call: the plugin's scribbles do not stick.
	for i := 0; i < 2; i++ {
		kp, err = ki.Search(ctx, "vars", 1)
		if err != nil || kp.Records[0].Fields["base"] != "changed" || kp.Records[0].Fields["note"] != "hello" {
			t.Fatalf("vars = %+v, %v", kp, err)
		}
	}
	if ki.Vars()["base"] != "https://env.example" {
		t.Error("a plugin changed the interface's variables")
	}
	if err := ki.Check(ctx); err != nil {
		t.Errorf("Check = %v", err)
	}

	// Fetch completes a record; it is paced and retried but not budgeted.
	before := ki.Stats()
	got, err := ki.Fetch(ctx, want[1])
	wantRec := KeywordRecord{ID: "7", Text: "full text of 7", Fields: map[string]string{"title": "seven (full)", "detail": "yes"}}
	if err != nil || !reflect.DeepEqual(got, wantRec) {
		t.Errorf("Fetch = %+v, %v\nwant %+v", got, err, wantRec)
	}
	_, err = ki.Fetch(ctx, KeywordRecord{ID: "b", URL: "https://db.example/broken", Fields: map[string]string{"title": "t"}})
	if !errors.Is(err, ErrUnavailable) || !strings.HasPrefix(err.Error(), `keyword/fake: fetch "https://db.example/broken" (4 attempts): testdata/keyword/fake.lua:`) {
		t.Errorf("Fetch broken = %v", err)
	}
	if st := ki.Stats(); st.Queries != before.Queries || st.Fetches != before.Fetches+5 {
		t.Errorf("stats after fetches %+v (before %+v)", st, before)
	}
}

func TestKeywordInterfaceOpenErrors(t *testing.T) {
	ctx := context.Background()
	pool := script.NewPool(PoolOptions(script.Options{Env: envMap(nil)}, "testdata"))
	defer pool.Close()
	tests := []struct {
		name string
		vars map[string]string
		want error
		msg  string
	}{
		{"missing required", nil, ErrConfig, fmt.Sprintf("keyword/fake: open: testdata/keyword/fake.lua:%d: vars.base: variable base is required (or set FAKE_KW_URL): base URL",
			lineOf(t, "testdata/keyword/fake.lua", "base = { env"))},
		{"unknown variable", map[string]string{"base": "x", "nope": "1"}, ErrConfig, `vars: the plugin has no variable "nope" (it accepts: base, mode, note)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ki, err := OpenKeywordInterface(ctx, pool, "keyword/fake", KeywordOptions{Vars: tt.vars}, "testdata")
			if err == nil {
				ki.Close()
				t.Fatal("no error")
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v\nwant %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
	ki, _ := openKeyword(t, pool, "keyword/fake", KeywordOptions{Vars: map[string]string{"base": "x", "mode": "off"}}, "testdata")
	if err := ki.Check(ctx); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "keyword/fake: check: testdata/keyword/fake.lua:") || !strings.HasSuffix(err.Error(), "check: mode is off") {
		t.Errorf("Check = %v", err)
	}
	// A plugin without fetch: ErrUnsupported, no call made.
	ex, _ := openKeyword(t, pool, "keyword/example", KeywordOptions{})
	if _, err := ex.Fetch(ctx, KeywordRecord{ID: "1"}); !errors.Is(err, ErrUnsupported) || ex.Stats().Fetches != 0 {
		t.Errorf("Fetch without fetch = %v", err)
	}
	if info := ex.Info(); info.Fetch || info.K != 0 || info.PageSize != 2 || !info.Conjunctive || info.StopWords || len(info.Vars) != 0 {
		t.Errorf("example info %+v", info)
	}
	ki.Close()
	if _, err := ki.Search(ctx, "ok", 1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Search after Close: %v", err)
	}
	if _, err := ki.Fetch(ctx, KeywordRecord{ID: "1"}); err == nil || ki.Check(ctx) == nil {
		t.Errorf("Fetch/Check after Close: %v", err)
	}
}

func TestKeywordDeclarationValidation(t *testing.T) {
	checkDeclarations(t, "keyword", []declCase{
		{"vars not table", "vars = 'x',", `x.lua:3: vars: expected table, got string "x"`},
		{"var name", "vars = { Base = 'x' },", `x.lua:3: vars.Base: variable names are lower-case identifiers, got "Base"`},
		{"var key", "vars = {\n    base = { hlp = 'x' },\n  },", `x.lua:4: vars.base.hlp: unknown key (did you mean "help"?)`},
		{"var type", "vars = { base = 3 },", "x.lua:3: vars.base: expected a string or a table, got number 3"},
		{"required type", "vars = { base = { required = 'yes' } },", `x.lua:3: vars.base.required: expected boolean, got string "yes"`},
		{"var env", "vars = { base = { env = 'X Y' } },", `x.lua:3: vars.base.env: expected the name of an environment variable, got "X Y"`},
		{"k", "k = 0,", "x.lua:3: k: must be a positive integer, got 0"},
		{"unknown key", "colour = 'red',", "x.lua:3: colour: unknown key"},
		{"stopwords", "stopwords = 'yes',", "x.lua:3: stopwords: expected boolean, got string"},
		{"interval", "min_interval = -2,", "x.lua:3: min_interval: must be seconds in [0, 3600]"},
		{"check", "check = 1,", "x.lua:3: check: expected function, got number"},
		{"env", "env = { 1 },", "x.lua:3: env[1]: expected string, got number 1"},
	}, func(pool *script.Pool, dir string) (func(), error) {
		ki, err := OpenKeywordInterface(context.Background(), pool, "keyword/x", KeywordOptions{}, dir)
		if err != nil {
			return nil, err
		}
		return ki.Close, nil
	})
	checkWrongPlugin(t, "search", "example", func(p *Plugin) error {
		_, err := NewKeywordInterface(p, KeywordOptions{})
		return err
	})
}

func TestKeywordInterfaceTimeoutAndConcurrency(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{CallTimeout: 200 * time.Millisecond, Env: envMap(nil)}, "testdata"))
	defer pool.Close()
	ctx := context.Background()
	ki, _ := openKeyword(t, pool, "fake", KeywordOptions{Retries: -1, Vars: fakeVars}, "testdata")
	if _, err := ki.Search(ctx, "loop", 1); !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("runaway plugin: %v", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			kp, err := ki.Search(ctx, "ok", 1+i%3)
			if err == nil && len(kp.Records) != 3 {
				err = fmt.Errorf("records %+v", kp)
			}
			_ = ki.Info()
			errs <- err
		}(i)
		go func(i int) {
			defer wg.Done()
			_, err := ki.Fetch(ctx, KeywordRecord{ID: fmt.Sprint(i), Fields: map[string]string{"title": "t"}})
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
	if st := ki.Stats(); st.Queries != 9 || st.Pages != 8 || st.Fetches != 8 || st.Failed != 1 {
		t.Errorf("stats %+v", st)
	}
}

// keywordFixtures serves the documented reply formats of the keyword APIs
// from testdata/keyword and records the requests.
func keywordFixtures(t *testing.T) *fixtureServer {
	t.Helper()
	fs := &fixtureServer{}
	serve := func(w http.ResponseWriter, status int, name string) {
		b, err := os.ReadFile(filepath.Join("testdata", "keyword", name))
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
		q := r.URL.Query().Get("q")
		switch {
		case q == "busy":
			w.Header().Set("Retry-After", "3")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		case q == "down":
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		case q == "html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>maintenance</html>")
		case q == "bad":
			http.Error(w, "Bad Request: query syntax", http.StatusBadRequest)
		case r.URL.Path == "/dblp/search/publ/api" && q == "zzzzqqq":
			serve(w, 200, "dblp_empty.json")
		case r.URL.Path == "/dblp/search/publ/api":
			serve(w, 200, "dblp.json")
		case r.URL.Path == "/ol/search.json":
			serve(w, 200, "openlibrary.json")
		case r.URL.Path == "/sim/db/api/search":
			serve(w, 200, "simweb.json")
		case r.URL.Path == "/sim/null/api/search":
			io.WriteString(w, "null")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(fs.Close)
	return fs
}

func TestBundledKeywordPlugins(t *testing.T) {
	srv := keywordFixtures(t)
	pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(map[string]string{
		"DBLP_API_URL": srv.URL + "/dblp/search/publ/api",
	})}))
	defer pool.Close()
	ctx := context.Background()
	type call struct {
		query      string
		page       int
		wantIDs    []string
		wantFirst  *KeywordRecord
		wantNext   bool
		wantTotal  int
		wantParams map[string]string
		wantErr    error  // a sentinel, or nil with wantCode
		wantCode   string // the Error.Code of a failure without a sentinel
		wantMsg    string
		wantSleeps []time.Duration
		wantK      int
	}
	dblpFirst := KeywordRecord{ID: "conf/www/BarbosaF07", URL: "https://dblp.org/rec/conf/www/BarbosaF07",
		Text: "An adaptive crawler for locating hidden-Web entry points. Luciano Barbosa and Juliana Freire WWW 2007",
		Fields: map[string]string{"title": "An adaptive crawler for locating hidden-Web entry points.", "authors": "Luciano Barbosa and Juliana Freire",
			"venue": "WWW", "year": "2007", "type": "Conference and Workshop Papers", "key": "conf/www/BarbosaF07", "doi": "10.1145/1242572.1242632",
			"ee": "https://doi.org/10.1145/1242572.1242632", "pages": "441-450"}}
	olFirst := KeywordRecord{ID: "/works/OL27448W", URL: srv.URL + "/works/OL27448W", Text: "The Lord of the Rings J.R.R. Tolkien 1954",
		Fields: map[string]string{"title": "The Lord of the Rings", "authors": "J.R.R. Tolkien", "year": "1954", "isbn": "9780618640157", "key": "/works/OL27448W"}}
	simFirst := KeywordRecord{ID: "r1", URL: "http://hidden.sim/db/record/r1", Text: "Deep web crawling 2007", Fields: map[string]string{"title": "Deep web crawling", "year": "2007"}}
	tests := []struct {
		plugin string
		vars   map[string]string
		calls  []call
	}{
		{"dblp", nil, []call{
			{query: "deep web crawl", page: 1, wantIDs: []string{"conf/www/BarbosaF07", "journals/corr/abs-1901-00001"}, wantFirst: &dblpFirst,
				wantNext: true, wantTotal: 250, wantK: 10000, wantParams: map[string]string{"q": "deep web crawl", "format": "json", "h": "100", "f": "0"}},
			{query: "deep web crawl", page: 3, wantIDs: []string{"conf/www/BarbosaF07", "journals/corr/abs-1901-00001"},
				wantNext: true, wantTotal: 250, wantK: 10000, wantParams: map[string]string{"f": "200", "h": "100"}},
			{query: "deep web crawl", page: 100, wantIDs: []string{"conf/www/BarbosaF07", "journals/corr/abs-1901-00001"},
				wantNext: false, wantTotal: 250, wantK: 10000, wantParams: map[string]string{"f": "9900", "h": "100"}},
			{query: "zzzzqqq", page: 1, wantNext: false, wantTotal: 0, wantK: 10000},
			{query: "busy", page: 1, wantErr: ErrRateLimited, wantMsg: "rate limited: dblp: HTTP 429: Too Many Requests", wantSleeps: []time.Duration{3 * time.Second, 3 * time.Second}},
			{query: "down", page: 1, wantErr: ErrUnavailable, wantMsg: "dblp: HTTP 503", wantSleeps: []time.Duration{time.Second, 2 * time.Second}},
			{query: "bad", page: 1, wantCode: CodeFailed, wantMsg: "failed: dblp: HTTP 400: Bad Request: query syntax"},
		}},
		{"openlibrary", map[string]string{"url": srv.URL + "/ol/search.json"}, []call{
			{query: "lord of the rings", page: 1, wantIDs: []string{"/works/OL27448W", "/works/OL2623456W", "/works/OL9999999W"}, wantFirst: &olFirst,
				wantNext: true, wantTotal: 629, wantParams: map[string]string{"q": "lord of the rings", "page": "1", "limit": "100", "fields": "key,title,author_name,first_publish_year,isbn"}},
			{query: "html", page: 1, wantErr: ErrUnavailable, wantMsg: "Open Library sent a reply that is not a JSON object: maintenance",
				wantSleeps: []time.Duration{time.Second, 2 * time.Second}},
		}},
		{"simweb", map[string]string{"url": srv.URL + "/sim/db/"}, []call{
			{query: "deep web", page: 1, wantIDs: []string{"r1", "r2"}, wantFirst: &simFirst, wantNext: true, wantTotal: -1, wantK: 50,
				wantParams: map[string]string{"q": "deep web", "page": "1"}},
			{query: "busy", page: 2, wantErr: ErrRateLimited, wantMsg: "hidden database API: HTTP 429", wantSleeps: []time.Duration{3 * time.Second, 3 * time.Second}},
		}},
		{"simweb", map[string]string{"url": srv.URL + "/sim/null"}, []call{
			{query: "x", page: 1, wantErr: ErrUnavailable, wantMsg: "not a JSON object", wantSleeps: []time.Duration{time.Second, 2 * time.Second}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			ki, _ := openKeyword(t, pool, "keyword/"+tt.plugin, KeywordOptions{Retries: 2, Vars: tt.vars})
			for _, c := range tt.calls {
				name := fmt.Sprintf("%q page %d", c.query, c.page)
				clk := newFakeClock()
				ki.sleep, ki.now, ki.last = clk.Sleep, clk.Now, time.Time{}
				n := srv.count()
				kp, err := ki.Search(ctx, c.query, c.page)
				if c.wantErr != nil || c.wantCode != "" {
					checkFailure(t, name, err, c.wantErr, c.wantCode, c.wantMsg, "plugins/keyword/"+tt.plugin+".lua:", clk.Sleeps(), c.wantSleeps)
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				var ids []string
				for _, r := range kp.Records {
					ids = append(ids, r.ID)
				}
				if !reflect.DeepEqual(ids, c.wantIDs) || kp.Next != c.wantNext || kp.Total != c.wantTotal {
					t.Errorf("%s: ids %q next %v total %d, want %q %v %d", name, ids, kp.Next, kp.Total, c.wantIDs, c.wantNext, c.wantTotal)
				}
				if c.wantFirst != nil && !reflect.DeepEqual(kp.Records[0], *c.wantFirst) {
					t.Errorf("%s: first record\n%+v\nwant\n%+v", name, kp.Records[0], *c.wantFirst)
				}
				if k := ki.Info().K; k != c.wantK {
					t.Errorf("%s: K = %d, want %d", name, k, c.wantK)
				}
				if c.wantParams != nil {
					if srv.count() != n+1 {
						t.Errorf("%s: %d requests", name, srv.count()-n)
					}
					checkParams(t, name, srv.last(), c.wantParams)
				}
			}
		})
	}
}

// TestDblpRecordShapes checks the irregular parts of dblp's JSON: one
// author as an object, a venue list, homonym numbers, entities, no url.
func TestDblpRecordShapes(t *testing.T) {
	srv := keywordFixtures(t)
	pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(nil)}))
	defer pool.Close()
	ki, _ := openKeyword(t, pool, "dblp", KeywordOptions{Vars: map[string]string{"url": srv.URL + "/dblp/search/publ/api"}})
	kp, err := ki.Search(context.Background(), "deep web", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := kp.Records[1]
	want := KeywordRecord{ID: "journals/corr/abs-1901-00001", URL: "https://dblp.org/rec/journals/corr/abs-1901-00001",
		Text: "Deep web crawling & beyond. Wei Wang CoRR, arXiv 2019",
		Fields: map[string]string{"title": "Deep web crawling & beyond.", "authors": "Wei Wang", "venue": "CoRR, arXiv", "year": "2019",
			"type": "Informal and Other Publications", "key": "journals/corr/abs-1901-00001", "ee": "https://arxiv.org/abs/1901.00001"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("record\n%+v\nwant\n%+v", got, want)
	}
}

// TestKeywordPluginDefaultEndpoints checks where the real-API plugins send
// their queries when no override is set, without any network.
func TestKeywordPluginDefaultEndpoints(t *testing.T) {
	tests := []struct{ plugin, body, wantURL string }{
		{"dblp", `{"result":{"status":{"@code":"200"},"hits":{"@total":"0"}}}`,
			"https://dblp.org/search/publ/api?f=0&format=json&h=100&q=used+cars"},
		{"openlibrary", `{"numFound":0,"start":0,"docs":[]}`,
			"https://openlibrary.org/search.json?fields=key%2Ctitle%2Cauthor_name%2Cfirst_publish_year%2Cisbn&limit=100&page=1&q=used+cars"},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			doer := &captureDoer{body: tt.body}
			pool := script.NewPool(PoolOptions(script.Options{HTTP: doer, Env: envMap(nil)}))
			defer pool.Close()
			ki, _ := openKeyword(t, pool, tt.plugin, KeywordOptions{})
			kp, err := ki.Search(context.Background(), "used cars", 1)
			if err != nil || len(kp.Records) != 0 || kp.Next || kp.Total != 0 {
				t.Fatalf("Search = %+v, %v", kp, err)
			}
			if len(doer.reqs) != 1 || doer.reqs[0].URL.String() != tt.wantURL || doer.reqs[0].Header.Get("Accept") != "application/json" {
				t.Errorf("requests %v, want %s", doer.reqs, tt.wantURL)
			}
			if ki.Info().MinInterval != time.Second {
				t.Errorf("min interval %v", ki.Info().MinInterval)
			}
		})
	}
}

// TestBundledKeywordPluginsOpen: every bundled keyword plugin satisfies the
// contract (given its required variables).
func TestBundledKeywordPluginsOpen(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{Env: envMap(nil)}))
	defer pool.Close()
	required := map[string]map[string]string{
		"simweb":   {"url": "http://127.0.0.1:1/db"},
		"htmlform": {"action": "http://127.0.0.1:1/search", "field": "q"},
	}
	n := 0
	for _, info := range List() {
		if info.Kind != "keyword" {
			continue
		}
		n++
		ki, err := OpenKeywordInterface(context.Background(), pool, info.Ref(), KeywordOptions{Vars: required[info.Name]})
		if err != nil {
			t.Errorf("%s: %v", info.Ref(), err)
			continue
		}
		if ki.Info().Description == "" {
			t.Errorf("%s: no description", info.Ref())
		}
		ki.Close()
	}
	if n < 5 {
		t.Errorf("%d bundled keyword plugins", n)
	}
}
