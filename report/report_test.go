package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
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
		"surface": {"crawl", "keyword/dblp", "3", "5", "3"},
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
