package crawl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/store/storetest"
)

// TestPageRecordFields stores page records with every field filled by
// reflection and reads them back: a field added to pageRecord, linkRecord
// or formRecord that does not survive the store fails here.
func TestPageRecordFields(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = storetest.RoundTrip(29, 100, func(rec pageRecord) (pageRecord, error) {
		b := db.NewBatch()
		defer b.Close()
		if err := b.PutJSON(store.TagPages, []byte(rec.URL), rec); err != nil {
			return rec, err
		}
		if err := b.Commit(false); err != nil {
			return rec, err
		}
		var got pageRecord
		ok, err := db.GetJSON(store.TagPages, []byte(rec.URL), &got)
		if err == nil && !ok {
			err = fmt.Errorf("record %q not found", rec.URL)
		}
		return got, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pageRecordFixtures are the records of testdata/pagerecords-v1.jsonl, one a
// line, as the hand-written encoder of earlier versions stored them (no
// HTML escaping, form probabilities in %g form).
var pageRecordFixtures = []pageRecord{
	{URL: "http://a.example/", Site: "http://a.example", Err: "timeout", Fetched: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
	{URL: "http://a.example/q?x=1&y=<2>", Final: "http://a.example/q2", Site: "http://a.example", Parent: "http://a.example/",
		Depth: 2, Status: 200, Title: "Cars & \"trucks\"", Text: "line\nbreak\ttab \u2028 é 日本 \x01",
		Links: []linkRecord{{U: "http://a.example/l", A: "anchor", B: "before", F: "after"}, {U: "http://b.example/"}},
		Forms: []formRecord{{Index: 0, Kind: "search", Searchable: true, Relevant: true, Dup: true, P: 0.9838274932614556},
			{Index: 1, Kind: "login", P: 1e-09}, {Index: 2, Kind: "other", P: 3e+21}},
		Seq: 8336, Fetched: time.Date(2026, 11, 25, 1, 2, 3, 456789000, time.UTC), Refetches: 2},
}

// TestPageRecordFixtureV1: page records stored by earlier versions read
// back as they were written (the store's GetJSON decodes with
// json.Unmarshal after unpacking).
func TestPageRecordFixtureV1(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "pagerecords-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(pageRecordFixtures) {
			t.Fatalf("more than %d records", len(pageRecordFixtures))
		}
		var got pageRecord
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if want := pageRecordFixtures[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("line %d reads\n%+v\nwant\n%+v", i+1, got, want)
		}
	}
	if err := sc.Err(); err != nil || i != len(pageRecordFixtures) {
		t.Fatalf("read %d records of %d: %v", i, len(pageRecordFixtures), err)
	}
}
