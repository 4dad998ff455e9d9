package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// surfaceDB is a small hidden database of made-up paper titles.
func surfaceDB(t *testing.T) (*hiddendb.DB, string) {
	t.Helper()
	words := strings.Fields("deep web crawling hidden database keyword query adaptive harvest record search form index rank page result limit cost model sample estimate")
	var recs []hiddendb.Record
	for i := 0; i < 300; i++ {
		title := fmt.Sprintf("%s %s %s %s", words[i%len(words)], words[(i*7+3)%len(words)], words[(i*13+5)%len(words)], words[(i/len(words))%len(words)])
		id := fmt.Sprintf("r%03d", i)
		recs = append(recs, hiddendb.Record{ID: id, Fields: map[string]string{"id": id, "title": title}, Order: []string{"id", "title"}})
	}
	db := hiddendb.New(recs, hiddendb.Options{K: 20, PageSize: 10, IndexFields: []string{"title"}, ShowTotal: true, Seed: 3})
	srv := httptest.NewServer(db.Handler("/db"))
	t.Cleanup(srv.Close)
	return db, srv.URL + "/db"
}

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errb
	err := app.Run(append([]string{"dwcrawl"}, args...))
	t.Logf("dwcrawl %s\nstderr: %s", strings.Join(args, " "), errb.String())
	return out.String(), err
}

func TestSurfaceCommandResumeAndDocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec func(base string) string
	}{
		{"json-api", func(base string) string { return base }},
		{"lua-plugin", func(base string) string { return "keyword/simweb?url=" + base }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, base := surfaceDB(t)
			dir := filepath.Join(t.TempDir(), "crawl")
			out, err := runCLI(t, "surface", "--interface", tc.spec(base), "--dir", dir, "--budget", "4", "--first", "deep", "--json", "--quiet")
			if err != nil {
				t.Fatal(err)
			}
			var s1 app.SurfaceSummary
			if err := json.Unmarshal([]byte(out), &s1); err != nil {
				t.Fatalf("summary %q: %v", out, err)
			}
			if s1.Queries != 4 || s1.Docs == 0 || s1.K != 20 {
				t.Fatalf("first run: %+v", s1)
			}
			// resume: the budget counts the journaled queries
			out, err = runCLI(t, "surface", "--interface", tc.spec(base), "--dir", dir, "--budget", "9", "--json", "--quiet")
			if err != nil {
				t.Fatal(err)
			}
			var s2 app.SurfaceSummary
			json.Unmarshal([]byte(out), &s2)
			if s2.Queries != 9 || s2.Docs < s1.Docs || s2.Source != s1.Source {
				t.Fatalf("resumed run: %+v after %+v", s2, s1)
			}
			// the coverage estimate: raw fields, so the names are checked
			var raw map[string]any
			json.Unmarshal([]byte(out), &raw)
			for _, k := range []string{"est_size", "est_coverage", "coverage_estimate", "coverage_low", "coverage_high", "coverage_level", "estimator"} {
				if _, ok := raw[k]; !ok {
					t.Fatalf("summary lacks %q: %s", k, out)
				}
			}
			if s2.Estimator == "" || (s2.CoverageEstimate == nil) != (s2.Estimator == surface.EstimatorNone) ||
				(s2.CoverageEstimate != nil && (*s2.CoverageLow > *s2.CoverageEstimate || *s2.CoverageEstimate > *s2.CoverageHigh)) {
				t.Fatalf("estimate of the resumed run: %s", out)
			}
			list, err := runCLI(t, "docs", "--dir", dir, "--list")
			if err != nil || !strings.Contains(list, "coverage") || !strings.Contains(list, s2.Estimator) {
				t.Fatalf("docs --list: %q, %v", list, err)
			}
			out, err = runCLI(t, "docs", "--dir", dir, "--format", "jsonl")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			seen := map[string]bool{}
			sc := bufio.NewScanner(strings.NewReader(out))
			for sc.Scan() {
				var d struct {
					ID, Text string
					Seq      int
				}
				if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
					t.Fatal(err)
				}
				if _, ok := db.Lookup(d.ID); !ok || seen[d.ID] || d.Text == "" {
					t.Fatalf("bad or duplicate record %+v", d)
				}
				seen[d.ID] = true
				n++
				if d.Seq != n {
					t.Fatalf("record %d has seq %d", n, d.Seq)
				}
			}
			if n != s2.Docs {
				t.Fatalf("docs exported %d records, surface reported %d", n, s2.Docs)
			}
			out, err = runCLI(t, "docs", "--dir", dir, "--list", "--json")
			var listed struct {
				Databases []struct {
					Source           string
					Queries, Records int
					CoverageEstimate *float64 `json:"coverage_estimate"`
				}
			}
			if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Databases) != 1 {
				t.Fatalf("docs --list --json: %q %v", out, err)
			}
			if l := listed.Databases[0]; l.Source != s2.Source || l.Queries != 9 || l.Records != s2.Docs || (l.CoverageEstimate == nil) != (s2.CoverageEstimate == nil) {
				t.Fatalf("docs --list --json: %+v; surface reported %+v", l, s2)
			}
		})
	}
}

func TestSurfaceCommandForm(t *testing.T) {
	_, base := surfaceDB(t)
	dir := filepath.Join(t.TempDir(), "crawl")
	sdb, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fields := `[{"Tag":"input","Type":"text","Name":"q","Label":"Search"},{"Tag":"input","Type":"submit","Name":"","Value":"Search"}]`
	f := store.Form{PageURL: base + "/", Index: 0, Action: base + "/search", Method: "GET", Fields: json.RawMessage(fields), Searchable: 1}
	if err := sdb.PutForm(f); err != nil {
		t.Fatal(err)
	}
	id := store.FormID(f.PageURL, 0)
	sdb.Close()
	out, err := runCLI(t, "surface", "--form", id, "--dir", dir, "--budget", "3", "--first", "web", "--json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var s app.SurfaceSummary
	json.Unmarshal([]byte(out), &s)
	if s.Queries != 3 || s.Docs == 0 || s.Source != "form:"+id {
		t.Fatalf("form harvest: %+v", s)
	}
}

func TestSurfaceCommandErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"no interface", []string{"surface", "--dir", "x"}},
		{"both", []string{"surface", "--dir", "x", "--interface", "http://127.0.0.1:1/db", "--form", "abc"}},
		{"bad cost", []string{"surface", "--dir", "x", "--interface", "http://127.0.0.1:1/db", "--cost", "1,2"}},
		{"bad policy", []string{"bench", "surface", "--corpus", "x.csv", "--policies", "best"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runCLI(t, c.args...)
			var ee errExit
			if err == nil || !asErrExit(err, &ee) || ee.code != 2 {
				t.Fatalf("want a usage error (exit 2), got %v", err)
			}
		})
	}
}

func asErrExit(err error, ee *errExit) bool {
	e, ok := err.(errExit)
	if ok {
		*ee = e
	}
	return ok
}

func TestBenchSurfaceCommand(t *testing.T) {
	out, err := runCLI(t, "bench", "surface", "--corpus", filepath.Join("..", "..", "core", "surface", "testdata", "papers.jsonl"), "--k", "10", "--budget", "25", "--policies", "adaptive,generic,random,oracle", "--json", "--seed", "2")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Policy           string
		Queries          int
		Coverage         float64
		CoverageEstimate *float64 `json:"coverage_estimate"`
		CoverageLow      *float64 `json:"coverage_low"`
		CoverageHigh     *float64 `json:"coverage_high"`
		Estimator        string
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if len(rows) != 4*2 { // checkpoints 10 and 25
		t.Fatalf("rows: %+v", rows)
	}
	for _, r := range rows {
		if r.Coverage < 0 || r.Coverage > 1 {
			t.Fatalf("coverage out of range: %+v", r)
		}
		if r.Estimator == "" || (r.CoverageEstimate != nil && (*r.CoverageLow > *r.CoverageEstimate || *r.CoverageEstimate > *r.CoverageHigh)) {
			t.Fatalf("estimate: %+v", r)
		}
	}
}

// TestSurfaceTestbedForm surfaces a form found by a testbed crawl: the
// directory remembers its simulated web, so the form is reached offline, and
// every record downloaded belongs to the form's true hidden database.
func TestSurfaceTestbedForm(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web")
	}
	dir := filepath.Join(t.TempDir(), "crawl")
	if _, err := runCLI(t, "run", "--testbed", "--pages", "300", "--dir", dir, filepath.Join("..", "..", "domains", "auto.lua")); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, ok, err := db.Testbed()
	if err != nil || !ok {
		t.Fatalf("testbed config not recorded: %v", err)
	}
	cfg, err := simweb.ParseConfig(raw)
	if err != nil {
		t.Fatal(err)
	}
	w := simweb.MustNew(cfg)
	var form store.Form
	var info simweb.FormInfo
	db.ScanForms(func(f store.Form) error {
		if fi, ok := w.FormAt(f.PageURL, f.Index); ok && f.Relevant && fi.Database != "" && form.PageURL == "" {
			form, info = f, fi
		}
		return nil
	})
	db.Close()
	if form.PageURL == "" {
		t.Fatal("the crawl found no relevant form with a database")
	}
	id := store.FormID(form.PageURL, form.Index)
	out, err := runCLI(t, "surface", "--form", id, "--dir", dir, "--budget", "8", "--json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var sum app.SurfaceSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Queries == 0 || sum.Docs == 0 {
		t.Fatalf("summary %q: %v", out, err)
	}
	hdb, dbi, ok := w.Database(info.Database)
	if !ok || sum.Docs > hdb.Len() {
		t.Fatalf("%d records from database %s of %d", sum.Docs, info.Database, dbi.Size)
	}
	out, err = runCLI(t, "docs", "--dir", dir, "--source", "form:"+id, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for sc := bufio.NewScanner(strings.NewReader(out)); sc.Scan(); n++ {
		var d struct {
			URL string `json:"url"`
		}
		json.Unmarshal(sc.Bytes(), &d)
		if !strings.HasPrefix(d.URL, "http://"+info.Database+"/") {
			t.Fatalf("record %q is not from database %s", d.URL, info.Database)
		}
	}
	if n != sum.Docs {
		t.Fatalf("docs exported %d records, surface reported %d", n, sum.Docs)
	}
	t.Logf("form %s (database %s, %d records): %d queries, %d records", id, info.Database, dbi.Size, sum.Queries, sum.Docs)
}
