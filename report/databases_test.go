package report

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

// harvestFixture writes a harvest's directory: three probed forms, two of
// them surfaced (journal sources form:ID) with random records per query,
// and a keyword-interface surfacing beside them. It returns the directory
// and each surfaced form's curve, from (0, 0).
func harvestFixture(t *testing.T, seed uint64) (string, map[string][]Point) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("fixture seed %d", seed)
	dir := filepath.Join(t.TempDir(), "harvest")
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	forms := []store.Form{
		{ID: "f1", Site: "http://cars.example", PageURL: "http://cars.example/find", Relevant: true, PagesFetched: 10, Probe: &store.Probe{Decision: store.ProbeTopicDatabase}},
		{ID: "f2", Site: "http://autos.example", PageURL: "http://autos.example/s", Relevant: true, PagesFetched: 20, Probe: &store.Probe{Decision: store.ProbeTopicDatabase}},
		{ID: "f3", Site: "http://blog.example", PageURL: "http://blog.example/", Relevant: true, PagesFetched: 30, Probe: &store.Probe{Decision: store.ProbeSiteSearch}},
	}
	for _, f := range forms {
		if err := db.PutForm(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AddCounter("crawl.pages", 40); err != nil {
		t.Fatal(err)
	}
	curves := map[string][]Point{}
	for _, src := range []string{"form:f1", "form:f2", "keyword/dblp"} {
		j := &surface.StoreJournal{DB: db, Source: src}
		docs := 0
		pts := []Point{{0, 0}}
		for n := 1; n <= 3+rng.IntN(8); n++ {
			fresh := rng.IntN(6)
			e := surface.Entry{Log: surface.QueryLog{N: n, Query: "q" + strconv.Itoa(n), Returned: fresh, New: fresh, CumCost: float64(n)}}
			for k := range fresh {
				key := src + "/" + strconv.Itoa(docs+k)
				e.Fresh = append(e.Fresh, key)
				e.Docs = append(e.Docs, surface.Doc{ID: key, Text: "record " + key})
				e.Results = append(e.Results, key)
			}
			docs += fresh
			e.Log.Docs = docs
			if err := j.Append(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			pts = append(pts, Point{float64(n), float64(docs)})
		}
		curves[src] = pts
	}
	return dir, curves
}

// TestDatabasesReport: the forms a harvest surfaced are plotted as records
// against queries, one line per database, and listed with their site and
// verdict; another source stays in the surfacing plot.
func TestDatabasesReport(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		dir, curves := harvestFixture(t, seed)
		r, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		figs := map[string]*Figure{}
		for _, f := range r.Figures {
			figs[f.Key] = f
			svg, err := f.SVG()
			if err != nil {
				t.Fatal(err)
			}
			checkPlotted(t, f, svg)
		}
		dbs := figs["surface-databases"]
		if dbs == nil || len(dbs.Series) != 2 {
			t.Fatalf("seed %d: databases figure %+v", seed, dbs)
		}
		for i, want := range []struct{ label, src string }{{"harvest: f1 (cars.example)", "form:f1"}, {"harvest: f2 (autos.example)", "form:f2"}} {
			if s := dbs.Series[i]; s.Label != want.label || !reflect.DeepEqual(s.Points, curves[want.src]) {
				t.Errorf("seed %d: series %d %q %v, want %q %v", seed, i, s.Label, s.Points, want.label, curves[want.src])
			}
		}
		if docs := figs["surface-docs"]; docs == nil || len(docs.Series) != 1 || docs.Series[0].Label != "harvest: keyword/dblp" {
			t.Errorf("seed %d: surfacing figure %+v", seed, docs)
		}
		var rows [][]string
		for _, tb := range r.Tables {
			if tb.Key == "surface-databases" {
				rows = tb.Rows
			}
		}
		if len(rows) != 2 {
			t.Fatalf("seed %d: database table %v", seed, rows)
		}
		for i, id := range []string{"f1", "f2"} {
			last := curves["form:"+id][len(curves["form:"+id])-1]
			want := []string{"harvest", id, map[string]string{"f1": "http://cars.example", "f2": "http://autos.example"}[id], store.ProbeTopicDatabase, ftoa(last.X), ftoa(last.Y)}
			if got := rows[i][:6]; !reflect.DeepEqual(got, want) {
				t.Errorf("seed %d: row %v, want %v…", seed, got, want)
			}
		}
	}
}
