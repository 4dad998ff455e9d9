package crawl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
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
		text, err := rec.encode(nil)
		if err != nil {
			return rec, err
		}
		if err := b.PutJSONText(store.TagPages, []byte(rec.URL), text); err != nil {
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

// stdJSON is v as encoding/json writes it without HTML escaping: the
// reference encode is held to.
func stdJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestPageRecordEncode: encode writes encoding/json's bytes for records
// with every field filled by reflection (a field encode leaves out fails
// here), for the fixtures, and for strings JSON must escape or repair.
func TestPageRecordEncode(t *testing.T) {
	const seed = 31
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	cases := append([]pageRecord{{}, {URL: "http://a.example/\xff\xe6\x97", Title: "\x00\x1f\x7f\u2029", Forms: []formRecord{{P: -1e-7}, {P: 1e21}, {P: 123456.5}}}},
		pageRecordFixtures...)
	for range 500 {
		var rec pageRecord
		if err := storetest.Fill(&rec, rng); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, rec)
	}
	for i, rec := range cases {
		got, err := rec.encode([]byte("prefix"))
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if want := append([]byte("prefix"), stdJSON(t, &rec)...); !bytes.Equal(got, want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestPageRecordEncodeErrors: values JSON cannot hold are errors, as with
// encoding/json.
func TestPageRecordEncodeErrors(t *testing.T) {
	for _, rec := range []pageRecord{
		{Forms: []formRecord{{P: math.NaN()}}},
		{Forms: []formRecord{{P: math.Inf(-1)}}},
		{Fetched: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if _, err := rec.encode(nil); err == nil {
			t.Errorf("%+v encoded without an error", rec)
		}
	}
}

// BenchmarkPageRecordEncode compares encode with json.Marshal on a record
// of a typical page.
func BenchmarkPageRecordEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var rec pageRecord
	for rec.Text == "" || len(rec.Links) < 3 {
		if err := storetest.Fill(&rec, rng); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("encode", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = rec.encode(buf[:0])
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(&rec); err != nil {
				b.Fatal(err)
			}
		}
	})
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
