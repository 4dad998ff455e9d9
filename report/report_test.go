package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

func TestCumulative(t *testing.T) {
	tests := []struct {
		name string
		at   []int
		end  int64
		want []Point
	}{
		{"none", nil, 50, []Point{{0, 0}, {50, 0}}},
		{"steps", []int{3, 7, 7, 20}, 30, []Point{{0, 0}, {3, 0}, {3, 1}, {7, 1}, {7, 3}, {20, 3}, {20, 4}, {30, 4}}},
		{"at zero, ends at the last", []int{0, 0, 5}, 5, []Point{{0, 2}, {5, 2}, {5, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cumulative(tt.at, tt.end); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cumulative(%v, %d) = %v, want %v", tt.at, tt.end, got, tt.want)
			}
		})
	}
}

// crawlFixture writes a crawl directory through the store's API: forms
// (some relevant, several per site, two on one page), counters, a
// surfacing journal and an enrichment journal.
func crawlFixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crawl")
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	forms := []store.Form{
		{Site: "http://a.example", PageURL: "http://a.example/s", Index: 0, Relevant: true, PagesFetched: 12},
		{Site: "http://a.example", PageURL: "http://a.example/s", Index: 1, Relevant: true, PagesFetched: 12},
		{Site: "http://b.example", PageURL: "http://b.example/", Index: 0, Relevant: false, PagesFetched: 5},
		{Site: "http://b.example", PageURL: "http://b.example/x", Index: 0, Relevant: true, PagesFetched: 40},
		{Site: "http://a.example", PageURL: "http://a.example/t", Index: 0, Relevant: true, PagesFetched: 33},
	}
	for _, f := range forms {
		if err := db.PutForm(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, n := range map[string]int64{"crawl.pages": 60, "crawl.failed": 2, "crawl.sites": 4, "crawl.sites.relevant": 3, "crawl.forms": 9} {
		if err := db.AddCounter(name, n); err != nil {
			t.Fatal(err)
		}
	}
	j := &surface.StoreJournal{DB: db, Source: "keyword/dblp"}
	docs := 0
	for n, fresh := range []int{3, 0, 2} {
		e := surface.Entry{Log: surface.QueryLog{N: n + 1, Query: "q" + strconv.Itoa(n), Returned: 3, New: fresh, CumCost: float64(n + 1)}}
		for k := range fresh {
			key := "d" + strconv.Itoa(docs+k)
			e.Fresh = append(e.Fresh, key)
			e.Docs = append(e.Docs, surface.Doc{ID: key, Text: "text " + key})
			e.Results = append(e.Results, key)
		}
		docs += fresh
		e.Log.Docs = docs
		if n == 1 {
			e.Results = []string{"d0"}
		}
		if err := j.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PutJSON(enrich.TagEnrichRun, []byte("run"), enrich.RunConfig{Local: "papers.csv", Method: "smart-b", K: 20}); err != nil {
		t.Fatal(err)
	}
	for n, covered := range []int{4, 1, 0, 6} {
		if err := db.PutJSON(enrich.TagEnrichLog, store.AppendUint64(nil, uint64(n+1)), enrich.Entry{N: n + 1, Query: "q", New: covered}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFromCrawl reports on a database the caller holds open, as a server
// does while a crawl runs.
func TestFromCrawl(t *testing.T) {
	db, err := store.Open(crawlFixture(t), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, err := FromCrawl(t.Context(), "live", db)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) != 4 || r.Figures[0].Series[0].Label != "live" || r.Tables[0].Rows[0][1] != "60" {
		t.Errorf("figures %d, first %+v, tables %+v", len(r.Figures), r.Figures[0], r.Tables)
	}
}

func TestReadCrawl(t *testing.T) {
	dir := crawlFixture(t)
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d, err := ReadCrawl(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	wantForms := []Point{{0, 0}, {12, 0}, {12, 2}, {33, 2}, {33, 3}, {40, 3}, {40, 4}, {60, 4}}
	wantSites := []Point{{0, 0}, {12, 0}, {12, 1}, {40, 1}, {40, 2}, {60, 2}}
	if !reflect.DeepEqual(d.Forms, wantForms) || !reflect.DeepEqual(d.DeepSites, wantSites) {
		t.Errorf("forms %v\nsites %v", d.Forms, d.DeepSites)
	}
	if d.Pages != 60 || d.Searchable != 5 || d.Counters["crawl.failed"] != 2 {
		t.Errorf("pages %d, searchable %d, counters %v", d.Pages, d.Searchable, d.Counters)
	}
	if run := d.Surfacing["keyword/dblp"]; !reflect.DeepEqual(run.Docs, []Point{{1, 3}, {2, 3}, {3, 5}}) || run.Cost != 3 {
		t.Errorf("surfacing %+v", d.Surfacing)
	}
	if e := d.Enrichment; e == nil || !reflect.DeepEqual(e.Covered, []Point{{0, 0}, {1, 4}, {2, 5}, {3, 5}, {4, 11}}) || e.Config.Method != "smart-b" {
		t.Errorf("enrichment %+v", e)
	}
}

// TestCrawlReport draws the fixture and checks the plotted lines and the
// tables against the stored numbers.
func TestCrawlReport(t *testing.T) {
	r, err := Load(crawlFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range r.Figures {
		keys = append(keys, f.Key)
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		checkPlotted(t, f, svg)
	}
	if want := []string{"harvest-forms", "harvest-sites", "surface-docs", "enrich-covered"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("figures %v, want %v", keys, want)
	}
	rows := map[string][]string{}
	for _, tb := range r.Tables {
		rows[tb.Key] = tb.Rows[0]
	}
	want := map[string][]string{
		"crawl":   {"crawl", "60", "2", "4", "3", "2", "9", "5", "4", "0.0667"},
		"surface": {"crawl", "keyword/dblp", "3", "5", "3", "", "", "", "", ""}, // no estimate journaled
		"enrich":  {"crawl", "smart-b", "papers.csv", "20", "4", "11"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("table rows\n%v\nwant\n%v", rows, want)
	}
}

// TestBenchReport reads real bench outputs (testdata) and checks the
// curves against the files, read here independently.
func TestBenchReport(t *testing.T) {
	r, err := Load("testdata/bench-harvest", "testdata/bench-surface", "testdata/bench-enrich-40.json", "testdata/bench-enrich-120.json")
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]*Figure{}
	for _, f := range r.Figures {
		figs[f.Key] = f
	}
	// harvest: each curve file is a line, with the origin added
	for _, dom := range []string{"auto", "book"} {
		f := figs["bench-harvest-"+dom+"-forms"]
		if f == nil || len(f.Series) != 2 {
			t.Fatalf("%s: %+v", dom, f)
		}
		for _, s := range f.Series {
			strategy := strings.TrimPrefix(s.Label, "bench-harvest: ")
			rows := readRows(t, "testdata/bench-harvest/curve-"+dom+"-"+strategy+".csv")
			if len(s.Points) != len(rows) { // header ↔ origin
				t.Errorf("%s %s: %d points for %d rows", dom, strategy, len(s.Points), len(rows)-1)
			}
			for i, row := range rows[1:] {
				if p := s.Points[i+1]; ftoa(p.X) != row[0] || ftoa(p.Y) != row[1] {
					t.Errorf("%s %s row %d: %v, file %v", dom, strategy, i+1, p, row)
				}
			}
		}
	}
	// enrichment: one line per method across both files, by budget
	var results []struct {
		Method          string
		Budget, Covered int
	}
	for _, file := range []string{"testdata/bench-enrich-40.json", "testdata/bench-enrich-120.json"} {
		b, _ := os.ReadFile(file)
		var rs []struct {
			Method          string
			Budget, Covered int
		}
		if err := json.Unmarshal(b, &rs); err != nil {
			t.Fatal(err)
		}
		results = append(results, rs...)
	}
	f := figs["bench-enrich-covered"]
	if f == nil || len(f.Series) != 3 {
		t.Fatalf("enrichment figure %+v", f)
	}
	for _, s := range f.Series {
		want := []Point{{0, 0}}
		for _, r := range results {
			if r.Method == s.Label {
				want = append(want, Point{float64(r.Budget), float64(r.Covered)})
			}
		}
		if !reflect.DeepEqual(s.Points, want) {
			t.Errorf("%s: %v, want %v", s.Label, s.Points, want)
		}
	}
	// surfacing: coverage after every query
	f = figs["bench-surface-coverage"]
	if f == nil || len(f.Series) != 3 {
		t.Fatalf("surfacing figure %+v", f)
	}
	for _, s := range f.Series {
		rows := readRows(t, "testdata/bench-surface/"+strings.TrimPrefix(s.Label, "bench-surface: ")+".csv")
		last := rows[len(rows)-1]
		if p := s.Points[len(s.Points)-1]; len(s.Points) != len(rows) || ftoa(p.X) != last[0] || strconv.FormatFloat(p.Y, 'f', 6, 64) != last[3] {
			t.Errorf("%s: %d points ending %v, file ends %v", s.Label, len(s.Points), p, last)
		}
	}
	for _, f := range r.Figures {
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		checkPlotted(t, f, svg)
	}
}

func readRows(t *testing.T, path string) [][]string {
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

// TestOutputs writes the three formats and checks that each is what it
// claims: a parseable HTML page with a table and inline SVG per plot, an
// SVG document, a PNG image of the tiled plots' size.
func TestOutputs(t *testing.T) {
	r, err := Load(crawlFixture(t), "testdata/bench-enrich-40.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			counts[n.Data]++
		}
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "link" || n.Data == "img") {
			t.Errorf("the page is not self-contained: <%s>", n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if counts["svg"] != len(r.Figures) || counts["figure"] != len(r.Figures) || counts["table"] < len(r.Tables)+len(r.Figures) {
		t.Errorf("page elements %v for %d figures, %d tables", counts, len(r.Figures), len(r.Tables))
	}

	b.Reset()
	if err := r.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	// every series of every figure is drawn in the tiled image too
	for _, f := range r.Figures {
		checkPlotted(t, f, b.Bytes())
	}

	b.Reset()
	if err := r.WritePNG(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("PNG magic missing: % x", b.Bytes()[:8])
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	// 5 figures, two per row: 12 × 12 inches at 96 dpi
	if sz := img.Bounds().Size(); sz.X != 2*6*pngDPI || sz.Y != 3*4*pngDPI {
		t.Errorf("PNG %v", sz)
	}
}

func TestLoadErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	noCurves := filepath.Dir(write("nocurves/harvest.csv", "domain,strategy,budget,pages,relevant_forms,error\nauto,ache,300,0,0,simweb: boom\n"))
	badCurve := filepath.Dir(write("badcurve/curve-auto-ache.csv", "pages,relevant_forms,deep_sites\n3,1,1\n6,two,1\n"))
	badEstimate := filepath.Dir(write("badestimate/adaptive.csv", "query,term,docs,coverage,cost,coverage_estimate,coverage_low,coverage_high,estimator\n"+
		"1,a,10,0.01,1,,,,none\n2,b,20,0.02,2,0.03,low,0.04,stratified-schnabel/reported\n"))
	other := filepath.Dir(write("other/notes.txt", "hello"))
	otherCSV := filepath.Dir(write("othercsv/data.csv", "a,b\n1,2\n"))
	unused := filepath.Join(tmp, "unused-crawl")
	db, err := store.Open(unused, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	tests := []struct {
		name, in string
		is       error
		text     string
	}{
		{"missing", filepath.Join(tmp, "nope"), nil, "no such directory or file"},
		{"empty dir", empty, ErrNoData, "empty directory"},
		{"bench dir without curves", noCurves, ErrNoData, "without curves"},
		{"bad number", badCurve, nil, "curve-auto-ache.csv:3: column relevant_forms: \"two\" is not a number"},
		{"bad estimate bound", badEstimate, nil, "adaptive.csv:3: column coverage_low: \"low\" is not a number"},
		{"estimate without bounds", write("nobounds.json", `[{"policy": "random", "queries": 10, "coverage": 0.1, "coverage_estimate": 0.2, "estimator": "x"}]`), nil, "object 1 has a coverage_estimate without"},
		{"unknown dir", other, ErrNoData, "neither a crawl directory"},
		{"unknown CSV", otherCSV, ErrNoData, "neither a crawl directory"},
		{"crawl dir without data", unused, ErrNoData, "no pages fetched"},
		{"not JSON", write("bad.json", "[{"), nil, "bad.json"},
		{"JSON of another shape", write("obj.json", `[{"name": "x"}]`), nil, "not the --json output"},
		{"harvest JSON", write("harvest.json", `[{"domain": "auto", "strategy": "ache"}]`), nil, "bench harvest --out"},
		{"empty JSON", write("none.json", `[]`), ErrNoData, "empty array"},
		{"other file", write("x.txt", "x"), nil, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.in)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.text) || !strings.Contains(err.Error(), filepath.Base(tt.in)) {
				t.Errorf("error %q lacks %q or the input's name", err, tt.text)
			}
		})
	}
	// a crawl directory in use (another process crawling) is reported on
	// from a snapshot
	dir := crawlFixture(t)
	db, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if rep, err := Load(dir); err != nil || len(rep.Figures) == 0 {
		t.Errorf("directory in use: %v", err)
	}
}

// surfacedFixture harvests two hidden databases over loopback HTTP into a
// crawl directory, as dwcrawl surface does: the journal holds the coverage
// estimates of the checkpoints. The records are drawn from a seeded Zipf
// distribution over made-up words.
func surfacedFixture(t *testing.T) string {
	t.Helper()
	const seed = 7
	t.Logf("corpus seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	syll := []string{"ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "bo", "da", "fe", "gi", "ju"}
	var vocab []string
	for _, a := range syll {
		for _, b := range syll {
			vocab = append(vocab, a+b+"n")
		}
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	recs := make([]hiddendb.Record, 1500)
	for i := range recs {
		words := make([]string, 6)
		for j := range words {
			words[j] = vocab[zipf.Uint64()]
		}
		recs[i] = hiddendb.Record{ID: "r" + strconv.Itoa(i), Fields: map[string]string{"title": strings.Join(words, " ")}}
	}
	dir := filepath.Join(t.TempDir(), "surfaced")
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, src := range []struct {
		name      string
		showTotal bool
		policy    surface.Policy
	}{
		{"adaptive, totals hidden", false, &surface.Adaptive{}},
		{"random, totals hidden", false, surface.NewRandom(vocab, seed)},
		{"random, totals shown", true, surface.NewRandom(vocab, seed)},
	} {
		hdb := hiddendb.New(recs, hiddendb.Options{K: 20, PageSize: 10, IndexFields: []string{"title"}, ShowTotal: src.showTotal, Seed: seed})
		srv := httptest.NewServer(hdb.Handler("/db"))
		s := &keyword.APISearcher{Base: srv.URL + "/db", Client: srv.Client()}
		_, err := surface.Harvest(t.Context(), s, src.policy, surface.Options{
			Source: src.name, Budget: 40, First: vocab[0], EstimateEvery: 5,
			Journal: &surface.StoreJournal{DB: db, Source: src.name},
		})
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", src.name, err)
		}
	}
	return dir
}

// estimateFile is what a test reads back from an input on its own: the
// estimate series of each plot (label → points and band) and the estimate
// cells of each table row.
type estimateFile struct {
	series map[string]Series   // figure key + "|" + series label
	cells  map[string][]string // table key + "|" + row's first cells
}

// journalEstimates replays the journals of a crawl directory.
func journalEstimates(t *testing.T, dir string) estimateFile {
	t.Helper()
	db, err := store.OpenReadOnly(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := estimateFile{series: map[string]Series{}, cells: map[string][]string{}}
	sources, err := surface.Sources(db)
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for src := range sources {
		var s Series
		var last surface.QueryLog
		j := &surface.StoreJournal{DB: db, Source: src}
		err := j.Replay(t.Context(), func(e surface.Entry) error {
			if e.Log.Estimator != "" {
				last = e.Log
			}
			if e.Log.CoverageEstimate != nil {
				x := float64(e.Log.N)
				s.Points = append(s.Points, Point{x, *e.Log.CoverageEstimate})
				s.Band = append(s.Band, Interval{x, *e.Log.CoverageLow, *e.Log.CoverageHigh})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d estimates, the last by %q", src, len(s.Points), last.Estimator)
		most = max(most, len(s.Points))
		s.Label = "surfaced: " + src
		if len(s.Points) > 0 {
			want.series["surface-estimate|"+s.Label] = s
		}
		cells := make([]string, 5)
		if last.Estimator != "" {
			cells[3], cells[4] = last.Estimator, strconv.Itoa(last.N)
		}
		if last.CoverageEstimate != nil {
			cells[0], cells[1], cells[2] = ftoa(*last.CoverageEstimate), ftoa(*last.CoverageLow)+"–"+ftoa(*last.CoverageHigh), ftoa(*last.SizeEstimate)
		}
		want.cells["surface|surfaced|"+src] = cells
	}
	if most < 3 {
		t.Fatalf("the harvests journaled at most %d estimates: too few to test the report", most)
	}
	return want
}

// csvEstimates reads the <policy>.csv files of a bench surface --out
// directory: the true coverage line, the estimate line and band, and the
// table's estimate cells.
func csvEstimates(t *testing.T, dir string) estimateFile {
	t.Helper()
	want := estimateFile{series: map[string]Series{}, cells: map[string][]string{}}
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	for _, f := range files {
		policy := strings.TrimSuffix(filepath.Base(f), ".csv")
		rows := readRows(t, f)
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		num := func(row []string, name string) float64 {
			v, err := strconv.ParseFloat(row[col[name]], 64)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			return v
		}
		cells := make([]string, 5)
		key := "bench-surface|" + filepath.Base(dir) + "|" + policy
		if _, ok := col["estimator"]; !ok {
			want.cells[key] = cells // an older file: no estimate columns
			continue
		}
		truth := Series{Label: "true coverage", Points: []Point{{0, 0}}}
		est := Series{Label: "estimate"}
		in, valid := 0, 0
		for _, row := range rows[1:] {
			q := num(row, "query")
			truth.Points = append(truth.Points, Point{q, num(row, "coverage")})
			if row[col["estimator"]] == "" {
				continue
			}
			cells = []string{"", "", row[col["estimator"]], "", ""}
			if row[col["coverage_estimate"]] == "" {
				continue
			}
			lo, hi, cov := num(row, "coverage_low"), num(row, "coverage_high"), num(row, "coverage")
			est.Points = append(est.Points, Point{q, num(row, "coverage_estimate")})
			est.Band = append(est.Band, Interval{q, lo, hi})
			holds := lo <= math.Round(cov*1e4)/1e4 && math.Round(cov*1e4)/1e4 <= hi
			valid++
			if holds {
				in++
			}
			cells[0], cells[1], cells[3] = ftoa(num(row, "coverage_estimate")), ftoa(lo)+"–"+ftoa(hi), map[bool]string{true: "yes", false: "no"}[holds]
		}
		if valid == 0 {
			t.Fatalf("%s: no estimates", f)
		}
		cells[4] = strconv.Itoa(in) + "/" + strconv.Itoa(valid)
		want.cells[key] = cells
		want.series["bench-surface-estimate-"+policy+"|true coverage"] = truth
		want.series["bench-surface-estimate-"+policy+"|estimate"] = est
	}
	return want
}

// jsonEstimates reads a bench surface --json file: the truth and the
// estimate at the checkpoints, and the checkpoint table's cells.
func jsonEstimates(t *testing.T, path string) estimateFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	want := estimateFile{series: map[string]Series{}, cells: map[string][]string{}}
	run := strings.TrimSuffix(filepath.Base(path), ".json")
	for _, r := range raw {
		policy, q, cov := r["policy"].(string), r["queries"].(float64), r["coverage"].(float64)
		tk, ek := "bench-surface-estimate-"+policy+"|true coverage", "bench-surface-estimate-"+policy+"|estimate"
		truth, est := want.series[tk], want.series[ek]
		if len(truth.Points) == 0 {
			truth = Series{Label: "true coverage", Points: []Point{{0, 0}}}
			est.Label = "estimate"
		}
		truth.Points = append(truth.Points, Point{q, cov})
		cells := []string{ftoa(cov), "", "", r["estimator"].(string), ""}
		if e, ok := r["coverage_estimate"].(float64); ok {
			lo, hi := r["coverage_low"].(float64), r["coverage_high"].(float64)
			est.Points = append(est.Points, Point{q, e})
			est.Band = append(est.Band, Interval{q, lo, hi})
			cells[1], cells[2] = ftoa(e), ftoa(lo)+"–"+ftoa(hi)
			cells[4] = map[bool]string{true: "yes", false: "no"}[r["in_interval"].(bool)]
		}
		want.series[tk], want.series[ek] = truth, est
		want.cells["bench-surface-checkpoints|"+run+"|"+policy+"|"+ftoa(q)] = cells
	}
	return want
}

// TestEstimates reports the coverage estimates of a surfacing (from its
// journal) and of the surfacing bench (CSV and JSON), checking every
// estimate line, band and table cell against the input read here on its
// own, and that the bands are drawn at the stored bounds.
func TestEstimates(t *testing.T) {
	surfaced := surfacedFixture(t)
	tests := []struct {
		name  string
		input string
		read  func(*testing.T, string) estimateFile
		// cells: where the estimate cells start in a table row, and how
		// many of the row's first cells name it
		from, keyCells int
	}{
		{"surfacing journal", surfaced, journalEstimates, 5, 2},
		{"bench CSV", "testdata/bench-surface-estimates", csvEstimates, 6, 2},
		{"bench CSV without estimate columns", "testdata/bench-surface", csvEstimates, 6, 2},
		{"bench JSON", "testdata/bench-surface-60.json", jsonEstimates, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.read(t, tt.input)
			r, err := Load(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			got := estimateFile{series: map[string]Series{}, cells: map[string][]string{}}
			for _, f := range r.Figures {
				if f.Key != "surface-estimate" && !strings.HasPrefix(f.Key, "bench-surface-estimate-") {
					continue
				}
				svg, err := f.SVG()
				if err != nil {
					t.Fatal(err)
				}
				checkPlotted(t, f, svg)
				checkBands(t, f, svg)
				for _, s := range f.Series {
					got.series[f.Key+"|"+s.Label] = s
				}
			}
			for _, tb := range r.Tables {
				if tb.Key != "surface" && tb.Key != "bench-surface" && tb.Key != "bench-surface-checkpoints" {
					continue
				}
				for _, row := range tb.Rows {
					got.cells[tb.Key+"|"+strings.Join(row[:tt.keyCells], "|")+keySuffix(tb.Key, row)] = row[tt.from:]
				}
			}
			if !reflect.DeepEqual(got.series, want.series) {
				t.Errorf("estimate series\n%v\nwant\n%v", got.series, want.series)
			}
			if !reflect.DeepEqual(got.cells, want.cells) {
				t.Errorf("estimate cells\n%q\nwant\n%q", got.cells, want.cells)
			}
		})
	}
}

// keySuffix: a checkpoint row is named by its queries too.
func keySuffix(key string, row []string) string {
	if key == "bench-surface-checkpoints" {
		return "|" + row[2]
	}
	return ""
}
