package harvest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

const testSeed = 3

// testWeb is the small simulated web of the tests (built once).
var testWeb = sync.OnceValue(func() *simweb.Web {
	cfg := simweb.SmallConfig()
	cfg.Seed = testSeed
	return simweb.MustNew(cfg)
})

// truthIndex is the ground truth read back from the web's JSON-lines
// export, independently of FormsAt: static forms by canonical page URL and
// index, and the search URL of every hidden database.
type truthIndex struct {
	forms map[string]simweb.FormInfo // canonical page URL + "#" + index
	dbs   map[string]simweb.DatabaseInfo
}

func readTruth(t *testing.T, w *simweb.Web) truthIndex {
	t.Helper()
	var buf bytes.Buffer
	if err := w.Truth(&buf); err != nil {
		t.Fatal(err)
	}
	ti := truthIndex{forms: map[string]simweb.FormInfo{}, dbs: map[string]simweb.DatabaseInfo{}}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var head struct{ Type string }
		json.Unmarshal(sc.Bytes(), &head)
		switch head.Type {
		case "form":
			var f simweb.FormInfo
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				t.Fatal(err)
			}
			u, err := canon.Canonical(f.Page)
			if err != nil {
				t.Fatal(err)
			}
			ti.forms[u+"#"+itoa(f.Index)] = f
		case "database":
			var d simweb.DatabaseInfo
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			ti.dbs[d.SearchURL] = d
		}
	}
	return ti
}

// verdict is the truth about form index i of the page at u: its identity,
// host, and whether it is searchable and of which domain.
func (ti truthIndex) verdict(u string, i int) (key, host string, searchable bool, domain string, ok bool) {
	cu, err := canon.Canonical(u)
	if err != nil {
		return "", "", false, "", false
	}
	if f, found := ti.forms[cu+"#"+itoa(i)]; found {
		return f.ID, canon.Host(cu), f.Searchable, f.Domain, true
	}
	base, _, _ := strings.Cut(cu, "?")
	if d, found := ti.dbs[base]; found && i == 0 {
		return "db:" + d.ID, d.Site, true, d.Domain, true
	}
	return "", "", false, "", false
}

// recount scores a crawl directory from the truth export, the raw page
// records and the forms table, without the package's scoring code.
func recount(t *testing.T, db *store.DB, ti truthIndex, domain string) Score {
	t.Helper()
	var s Score
	final := map[string]string{}
	seen := map[string]bool{}
	err := db.ScanJSON(store.TagPages, nil, func(k, v []byte) error {
		var rec map[string]any
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		s.Pages++
		u, _ := rec["url"].(string)
		if f, _ := rec["final"].(string); f != "" {
			final[u] = f
			u = f
		}
		if e, _ := rec["err"].(string); e != "" {
			return nil
		}
		for i := 0; ; i++ {
			key, _, searchable, d, ok := ti.verdict(u, i)
			if !ok {
				break
			}
			if searchable && d == domain {
				seen[key] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.RelevantSeen = len(seen)
	rel, deep, srch := map[string]bool{}, map[string]bool{}, map[string]bool{}
	err = db.ScanForms(func(f store.Form) error {
		s.ClassifierSearchable++
		if f.Relevant {
			s.ClassifierRelevant++
		}
		u := f.PageURL
		if fu, ok := final[u]; ok {
			u = fu
		}
		key, host, searchable, d, ok := ti.verdict(u, f.Index)
		if !ok {
			t.Errorf("stored form %s#%d is not in the truth", f.PageURL, f.Index)
			return nil
		}
		if searchable {
			srch[key] = true
		}
		if f.Relevant {
			if searchable && d == domain {
				rel[key], deep[host] = true, true
			} else {
				s.FalsePositives++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.RelevantForms, s.DeepSites, s.SearchableForms = len(rel), len(deep), len(srch)
	return s
}

// TestBenchAgainstRecount runs the strategies on the small web for 200
// pages each and checks every score against an independent recount from
// the truth export.
func TestBenchAgainstRecount(t *testing.T) {
	t.Logf("seed %d", testSeed)
	w := testWeb()
	strategies := crawl.Strategies
	if testing.Short() {
		strategies = []string{crawl.SmartCrawler}
	}
	keep, out := t.TempDir(), t.TempDir()
	var events, snaps int
	var mu sync.Mutex
	rs, err := Bench(context.Background(), Options{Web: w, Domains: []string{"auto"}, Strategies: strategies,
		Pages: 200, ProfileDir: filepath.Join("..", "..", "domains"), KeepDir: keep, OutDir: out, CurveStep: 25, Totals: true,
		Progress: func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			events++
			if e.Snapshot.Pages > 0 {
				snaps++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(strategies) {
		t.Fatalf("got %d results, want %d", len(rs), len(strategies))
	}
	if events < 2*len(strategies) || snaps < len(strategies) {
		t.Errorf("progress called %d times (%d with crawl counters), want a start, a snapshot and an end per run at least", events, snaps)
	}
	ti := readTruth(t, w)
	for _, r := range rs {
		t.Run(r.Strategy, func(t *testing.T) { checkRun(t, r, ti, out) })
	}
	sum := readCSV(t, filepath.Join(out, "harvest.csv"))
	if len(sum) != len(rs)+1 || sum[1][0] != "auto" || sum[1][4] != itoa(rs[0].RelevantForms) {
		t.Errorf("harvest.csv = %v", sum)
	}
	if wide := readCSV(t, filepath.Join(out, "curves-auto.csv")); len(wide) < 2 || len(wide[0]) != len(rs)+1 || wide[0][1] != rs[0].Strategy {
		t.Errorf("curves-auto.csv = %v", wide)
	}
}

// checkRun compares one run's result with a recount of its kept crawl
// directory.
func checkRun(t *testing.T, r Result, ti truthIndex, out string) {
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	t.Logf("%s: %d pages, %d relevant forms (classifier %d, %d false positives, %d seen), %d deep sites, %d searchable forms",
		r.Strategy, r.Pages, r.RelevantForms, r.ClassifierRelevant, r.FalsePositives, r.RelevantSeen, r.DeepSites, r.SearchableForms)
	if r.FallbackProfile {
		t.Error("auto used the fallback profile although domains/auto.lua exists")
	}
	if r.Pages == 0 || r.Pages > 200 {
		t.Errorf("pages = %d, want 1..200", r.Pages)
	}
	if r.Strategy == crawl.SmartCrawler && r.RelevantForms == 0 {
		t.Errorf("no true relevant form found in %d pages", r.Pages)
	}
	db, err := store.Open(r.Dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := recount(t, db, ti, "auto")
	got := r.Score
	checks := []struct {
		name      string
		got, want int
	}{
		{"pages", int(got.Pages), int(want.Pages)},
		{"relevant forms", got.RelevantForms, want.RelevantForms},
		{"deep sites", got.DeepSites, want.DeepSites},
		{"searchable forms", got.SearchableForms, want.SearchableForms},
		{"classifier relevant", got.ClassifierRelevant, want.ClassifierRelevant},
		{"classifier searchable", got.ClassifierSearchable, want.ClassifierSearchable},
		{"false positives", got.FalsePositives, want.FalsePositives},
		{"relevant seen", got.RelevantSeen, want.RelevantSeen},
		{"unknown forms", got.UnknownForms, 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, recount from the truth gives %d", c.name, c.got, c.want)
		}
	}
	if got.RelevantSeen < got.RelevantForms {
		t.Errorf("relevant forms seen %d < found %d", got.RelevantSeen, got.RelevantForms)
	}
	counters, err := db.Counters("crawl.")
	if err != nil {
		t.Fatal(err)
	}
	if n := counters["crawl.pages"]; n != got.Pages {
		t.Errorf("engine counted %d pages, %d page records", n, got.Pages)
	}
	if n := counters["crawl.forms.relevant"]; n != int64(got.ClassifierRelevant) {
		t.Errorf("engine counted %d relevant forms, %d records", n, got.ClassifierRelevant)
	}
	if r.HarvestRate != float64(r.RelevantForms)/float64(r.Pages) {
		t.Errorf("harvest rate %v", r.HarvestRate)
	}
	if r.WebRelevantForms < r.RelevantForms || r.WebDeepSites < r.DeepSites {
		t.Errorf("web totals %d forms %d deep sites below what was found", r.WebRelevantForms, r.WebDeepSites)
	}

	curve := r.Curve()
	if len(curve) == 0 {
		t.Fatal("no curve")
	}
	last := curve[len(curve)-1]
	if last.Pages != r.Pages || last.RelevantForms != r.RelevantForms || last.DeepSites != r.DeepSites || last.ClassifierRelevant != r.ClassifierRelevant {
		t.Errorf("curve ends at %+v, result %+v", last, r.Score)
	}
	for i := 1; i < len(curve); i++ {
		if curve[i].Pages <= curve[i-1].Pages || curve[i].RelevantForms < curve[i-1].RelevantForms {
			t.Errorf("curve not increasing at %d: %+v then %+v", i, curve[i-1], curve[i])
		}
	}
	rows := readCSV(t, filepath.Join(out, CurveFile("auto", r.Strategy)))
	if len(rows) != len(curve)+1 || rows[0][0] != "pages" || rows[len(rows)-1][1] != itoa(r.RelevantForms) {
		t.Errorf("curve CSV has %d rows, want %d", len(rows), len(curve)+1)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestScoreIdentity scores a hand-written crawl directory: a form reached
// under a session-id URL, through a redirect and on its own page counts
// once, the search form of a database's result pages counts once per
// database, and false positives and unknown forms are told apart.
func TestScoreIdentity(t *testing.T) {
	w := testWeb()
	var rel, other simweb.FormInfo
	var db simweb.DatabaseInfo
	for _, d := range w.Databases() {
		if d.Domain == "book" {
			db = d
			break
		}
	}
	for _, s := range w.SitesOfDomain("auto") {
		if !s.Deep || rel.Page != "" {
			continue
		}
		for _, d := range w.Databases() {
			if d.Site == s.Host && d.Domain == "auto" {
				for _, f := range w.FormsAt(d.EntryPage) {
					if f.Relevant && f.Domain == "auto" && rel.Page == "" {
						rel = f
					} else if !f.Searchable && other.Page == "" {
						other = f
					}
				}
			}
		}
	}
	if rel.Page == "" || db.ID == "" {
		t.Fatal("the test web lacks an auto form or a book database")
	}
	if other.Page == "" {
		// any non-searchable form elsewhere
		for _, s := range w.Sites() {
			for _, f := range w.FormsAt(s.URL) {
				if !f.Searchable && other.Page == "" {
					other = f
				}
			}
		}
	}
	st, err := store.Open(t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type frm struct {
		I int  `json:"i"`
		S bool `json:"s"`
	}
	page := func(u, final string, seq int64, forms ...frm) {
		t.Helper()
		rec := map[string]any{"url": u, "seq": seq, "forms": forms}
		if final != "" {
			rec["final"] = final
		}
		if err := st.PutJSON(store.TagPages, []byte(u), rec); err != nil {
			t.Fatal(err)
		}
	}
	form := func(u string, i int, relevant bool, seq int) {
		t.Helper()
		if err := st.PutForm(store.Form{Site: canon.Site(u), PageURL: u, Index: i, Relevant: relevant, PagesFetched: seq}); err != nil {
			t.Fatal(err)
		}
	}
	sess := withQuery(rel.Page, "jsessionid=abc123")
	redirect := "http://" + canon.Host(rel.Page) + "/go/elsewhere"
	result1, result2 := db.SearchURL+"?q=history", db.SearchURL+"?q=war&page=2"
	page(rel.Page, "", 7, frm{I: rel.Index, S: true})
	page(sess, "", 3, frm{I: rel.Index, S: true})
	page(redirect, rel.Page, 9, frm{I: rel.Index, S: true})
	page(result1, "", 11, frm{I: 0, S: true})
	page(result2, "", 12, frm{I: 0, S: true})
	page(withQuery(other.Page, "x=1"), other.Page, 13, frm{I: other.Index, S: true})
	page("http://"+canon.Host(rel.Page)+"/missing", "", 14)
	for _, f := range []struct {
		u   string
		i   int
		rel bool
		seq int
	}{
		{rel.Page, rel.Index, true, 7}, {sess, rel.Index, true, 3}, {redirect, rel.Index, true, 9},
		{result1, 0, false, 11}, {result2, 0, false, 12},
		{withQuery(other.Page, "x=1"), other.Index, true, 13},
		{rel.Page, 99, true, 7},
	} {
		form(f.u, f.i, f.rel, f.seq)
	}

	s, err := ScoreCrawl(st, w, "auto")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, u := range []string{rel.Page, other.Page} {
		for _, f := range w.FormsAt(u) {
			if f.Searchable && f.Domain == "auto" {
				seen[f.ID] = true
			}
		}
	}
	want := Score{Pages: 7, RelevantForms: 1, DeepSites: 1, SearchableForms: 2, ClassifierRelevant: 5, ClassifierSearchable: 7,
		FalsePositives: 2, RelevantSeen: len(seen), UnknownForms: 1}
	s.relevantAt, s.deepAt, s.claimedAt = nil, nil, nil
	if !reflect.DeepEqual(*s, want) {
		t.Errorf("score\n got %+v\nwant %+v", *s, want)
	}
	s, _ = ScoreCrawl(st, w, "auto")
	if c := s.Curve(5); len(c) != 2 || c[0] != (Point{Pages: 5, RelevantForms: 1, DeepSites: 1, ClassifierRelevant: 1}) ||
		c[1] != (Point{Pages: 7, RelevantForms: 1, DeepSites: 1, ClassifierRelevant: 3}) {
		t.Errorf("curve = %+v", c)
	}
	// the book database's result pages hold one relevant book form
	s, _ = ScoreCrawl(st, w, "book")
	if s.RelevantSeen != 1 || s.RelevantForms != 0 {
		t.Errorf("book: seen %d found %d, want 1 and 0", s.RelevantSeen, s.RelevantForms)
	}
}

// withQuery adds a query parameter to u.
func withQuery(u, kv string) string {
	if strings.Contains(u, "?") {
		return u + "&" + kv
	}
	return u + "?" + kv
}

func TestFallbackProfile(t *testing.T) {
	w := testWeb()
	dir := t.TempDir()
	p, fb, err := LoadProfile(context.Background(), dir, "book", w)
	if err != nil {
		t.Fatal(err)
	}
	if !fb || p.Name != "book" || p.Domain != "book" || len(p.Keywords) == 0 || p.Stop.MaxDepth != profile.Defaults().Stop.MaxDepth {
		t.Errorf("fallback profile %+v", p)
	}
	topic := w.Data().Topics["book"]
	for _, k := range []string{topic.Label, topic.Words[0]} {
		if !strings.Contains(strings.Join(p.Keywords, "|"), strings.ToLower(k)) {
			t.Errorf("keywords %v lack %q", p.Keywords, k)
		}
	}
	if _, _, err := LoadProfile(context.Background(), dir, "no-such-topic", w); err == nil {
		t.Error("a domain unknown to the web and without a file loaded")
	}
	p, fb, err = LoadProfile(context.Background(), filepath.Join("..", "..", "domains"), "auto", w)
	if err != nil || fb || p.Domain != "auto" {
		t.Errorf("domains/auto.lua: %v fallback=%v", err, fb)
	}
	os.WriteFile(filepath.Join(dir, "car.lua"), []byte(`return {name="car", domain="auto", keywords={"car"}, seeds={"cars.example"}}`), 0o644)
	if _, _, err := LoadProfile(context.Background(), dir, "car", w); err == nil || !strings.Contains(err.Error(), `"auto"`) {
		t.Errorf("a profile of another domain: err = %v", err)
	}
}

// TestFallbackCrawl crawls with a fallback profile, so that a domain
// without a profile file still benchmarks.
func TestFallbackCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl skipped in -short mode")
	}
	rs, err := Bench(context.Background(), Options{Web: testWeb(), Domains: []string{"book"}, Strategies: []string{crawl.BestFirst},
		Pages: 60, ProfileDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; r.Error != "" || !r.FallbackProfile || r.Pages == 0 {
		t.Errorf("result %+v", r)
	}
}

func TestSummariesAndRatio(t *testing.T) {
	res := func(d, s string, forms int, pages int64) Result {
		return Result{Domain: d, Strategy: s, Score: Score{Pages: pages, RelevantForms: forms, DeepSites: forms / 2}, HarvestRate: float64(forms) / float64(pages)}
	}
	rs := []Result{
		res("auto", "smartcrawler", 40, 1000), res("auto", "ache", 20, 1000),
		res("book", "smartcrawler", 30, 1000), res("book", "ache", 10, 1000),
		res("job", "smartcrawler", 5, 1000), res("job", "ache", 0, 1000),
		{Domain: "movie", Strategy: "ache", Error: "boom"},
	}
	sums := Summarise(rs)
	if len(sums) != 2 || sums[0].Strategy != "smartcrawler" || sums[0].Runs != 3 || sums[0].RelevantForms != 25 || sums[1].RelevantForms != 10 {
		t.Errorf("summaries %+v", sums)
	}
	tests := []struct {
		a, b            string
		ofMeans, meanOf float64
		ok              bool
	}{
		{"smartcrawler", "ache", 75.0 / 30, (2.0 + 3.0) / 2, true},
		{"ache", "smartcrawler", 30.0 / 75, (0.5 + 1.0/3 + 0) / 3, true},
		{"smartcrawler", "bestfirst", 0, 0, false},
	}
	for _, tc := range tests {
		om, mo, ok := Ratio(rs, tc.a, tc.b)
		if ok != tc.ok || !near(om, tc.ofMeans) || !near(mo, tc.meanOf) {
			t.Errorf("Ratio(%s, %s) = %v %v %v, want %v %v %v", tc.a, tc.b, om, mo, ok, tc.ofMeans, tc.meanOf, tc.ok)
		}
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, rs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"smartcrawler/ache relevant forms: 2.50", "error: boom", "means per strategy"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestRatioAt(t *testing.T) {
	// curve points every 100 pages; ache's book run stopped at 250 pages
	run := func(d, s string, budget int, forms ...int) Result {
		r := Result{Domain: d, Strategy: s, Budget: budget}
		for i, f := range forms {
			r.curve = append(r.curve, Point{Pages: int64(100 * (i + 1)), RelevantForms: f})
		}
		if n := len(r.curve); n > 0 {
			r.RelevantForms = r.curve[n-1].RelevantForms
			r.Pages = r.curve[n-1].Pages
		}
		return r
	}
	stopped := run("book", "ache", 400, 2, 4)
	stopped.curve = append(stopped.curve, Point{Pages: 250, RelevantForms: 5})
	stopped.RelevantForms, stopped.Pages = 5, 250
	rs := []Result{
		run("auto", "smartcrawler", 400, 1, 6, 9, 12), run("auto", "ache", 400, 1, 2, 3, 8),
		run("book", "smartcrawler", 400, 2, 4, 8, 10), stopped,
	}
	tests := []struct {
		pages           int64
		ofMeans, meanOf float64
		ok              bool
	}{
		{50, 0, 0, false}, // no point yet: ache found nothing
		{100, 3.0 / 3, (1.0 + 1.0) / 2, true},
		{250, 10.0 / 7, (6.0/2 + 4.0/5) / 2, true},
		{400, 22.0 / 13, (12.0/8 + 10.0/5) / 2, true}, // the stopped run keeps its last count
	}
	for _, tc := range tests {
		om, mo, ok := RatioAt(rs, "smartcrawler", "ache", tc.pages)
		if ok != tc.ok || !near(om, tc.ofMeans) || !near(mo, tc.meanOf) {
			t.Errorf("RatioAt(%d) = %v %v %v, want %v %v %v", tc.pages, om, mo, ok, tc.ofMeans, tc.meanOf, tc.ok)
		}
	}
	if om, _, _ := Ratio(rs, "smartcrawler", "ache"); !near(om, 22.0/13) {
		t.Errorf("Ratio = %v, want the curves' end %v", om, 22.0/13)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, rs); err != nil {
		t.Fatal(err)
	}
	// 10% and 20% of the budget fall before the first curve point: left out
	if want := "along the budget (ratio of means): 200 pages 1.67 · 400 pages 1.69\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, buf.String())
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestOptionsErrors(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{"no web", Options{Pages: 10}, "no simulated web"},
		{"no budget", Options{Web: testWeb()}, "page budget"},
		{"bad strategy", Options{Web: testWeb(), Pages: 10, Strategies: []string{"dfs"}}, "unknown strategy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Bench(context.Background(), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
