package app

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

// TestHarvestDatabases reads the databases of a harvest directory written
// through the store: each form's verdict, its recorded state and its
// journal's counts, in the order the forms were found.
func TestHarvestDatabases(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "h"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	probe := func(d string) *store.Probe { return &store.Probe{Decision: d} }
	forms := []store.Form{
		{ID: "queued", Site: "http://a.test", PageURL: "http://a.test/s", PagesFetched: 5, Probe: probe(store.ProbeTopicDatabase)},
		{ID: "surfacing", Site: "http://b.test", PageURL: "http://b.test/s", PagesFetched: 1, Probe: probe(store.ProbeTopicDatabase)},
		{ID: "done", Site: "http://c.test", PageURL: "http://c.test/s", PagesFetched: 9, Probe: probe(store.ProbeTopicDatabase)},
		{ID: "failed", Site: "http://d.test", PageURL: "http://d.test/s", PagesFetched: 7, Probe: probe(store.ProbeTopicDatabase)},
		{ID: "reprobed", Site: "http://e.test", PageURL: "http://e.test/s", PagesFetched: 8, Probe: probe(store.ProbeTopicDatabase)},
		{ID: "site", Site: "http://f.test", PageURL: "http://f.test/s", PagesFetched: 3, Probe: probe(store.ProbeSiteSearch)},
		{ID: "unprobed", Site: "http://g.test", PageURL: "http://g.test/s", PagesFetched: 4, Relevant: true, Searchable: 0.9},
		{ID: "irrelevant", Site: "http://h.test", PageURL: "http://h.test/s", PagesFetched: 2, Searchable: 0.9},
	}
	for _, f := range forms {
		if err := db.PutForm(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []harvestState{
		{Form: "surfacing", State: "surfacing"},
		{Form: "done", State: "done", Stopped: "budget"},
		{Form: "failed", State: "failed", Error: "boom", Tries: 1},
		{Form: "reprobed", State: "reprobed", Reprobed: true},
		{Form: vocabKey, State: "learned"},
	} {
		if err := db.PutJSON(store.TagHarvest, store.AppendString(nil, sourceOf(st.Form)), st); err != nil {
			t.Fatal(err)
		}
	}
	j := &surface.StoreJournal{DB: db, Source: sourceOf("done")}
	for n, keys := range [][]string{{"r1", "r2"}, {}, {"r3"}} {
		e := surface.Entry{Log: surface.QueryLog{N: n + 1, Query: "q", Returned: len(keys), New: len(keys)}}
		for _, k := range keys {
			e.Fresh = append(e.Fresh, k)
			e.Docs = append(e.Docs, surface.Doc{ID: k, Text: "record " + k})
		}
		if err := j.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := HarvestDatabases(db)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, verdict, state, stopped, err string
		queries, records                 int
	}{
		{"surfacing", store.ProbeTopicDatabase, "surfacing", "", "", 0, 0},
		{"site", store.ProbeSiteSearch, "skipped", "", "", 0, 0},
		{"unprobed", "unprobed", "skipped", "", "", 0, 0},
		{"queued", store.ProbeTopicDatabase, "queued", "", "", 0, 0},
		{"failed", store.ProbeTopicDatabase, "failed", "", "boom", 0, 0},
		{"reprobed", store.ProbeTopicDatabase, "queued", "", "", 0, 0},
		{"done", store.ProbeTopicDatabase, "done", "budget", "", 3, 3},
	}
	if len(got) != len(want) {
		t.Fatalf("%d databases, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || g.Verdict != w.verdict || g.State != w.state || g.Stopped != w.stopped || g.Error != w.err || g.Queries != w.queries || g.Records != w.records {
			t.Errorf("database %d: %+v, want %+v", i, g, w)
		}
	}
}
