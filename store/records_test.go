package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)

func TestSiteRoundTrip(t *testing.T) {
	db, _ := openTemp(t)
	for _, s := range []Site{
		{URL: "https://a.example", Host: "a.example"},
		{URL: "https://b.example:8443", Host: "b.example", Domain: "auto", Status: SiteRelevant, Score: 0.75,
			Queue: QueueHigh, Deep: true, Forms: 3, Pages: 42, FirstSeen: t0, VisitedAt: t0.Add(time.Hour), From: "seed"},
		{URL: "http://c.example", Host: "c.example", Status: SiteIrrelevant, Score: -1.5, Queue: QueueLow},
	} {
		t.Run(s.URL, func(t *testing.T) {
			must(t, db.PutSite(s))
			got, ok, err := db.GetSite(s.URL)
			if err != nil || !ok {
				t.Fatalf("get: ok %v err %v", ok, err)
			}
			if !reflect.DeepEqual(got, s) {
				t.Fatalf("got %+v\nwant %+v", got, s)
			}
		})
	}
	var n int
	must(t, db.ScanSites(func(Site) error { n++; return nil }))
	if n != 3 {
		t.Fatalf("scanned %d sites, want 3", n)
	}
	if _, ok, err := db.GetSite("https://nope.example"); ok || err != nil {
		t.Fatalf("missing site: ok %v err %v", ok, err)
	}
	if err := db.PutSite(Site{Host: "x"}); err == nil {
		t.Fatal("site without URL accepted")
	}
}

func TestURLStateRoundTrip(t *testing.T) {
	db, _ := openTemp(t)
	for _, st := range []URLState{
		{URL: "https://a.example/"},
		{URL: "https://a.example/x?q=1", Site: "https://a.example", State: StateFetched, Depth: 2,
			Fetched: t0, Status: 200},
		{URL: "https://a.example/y", Site: "https://other.example", State: StateFailed, Depth: 1,
			Fetched: t0, Status: 503, Err: "server error"},
		{URL: "http://b.example/\x00odd", Site: "http://b.example", State: StateSkipped, Err: "robots.txt"},
	} {
		t.Run(st.URL, func(t *testing.T) {
			must(t, db.MarkURL(st))
			got, ok, err := db.GetURL(st.URL)
			if err != nil || !ok {
				t.Fatalf("get: ok %v err %v", ok, err)
			}
			if !reflect.DeepEqual(got, st) {
				t.Fatalf("got %+v\nwant %+v", got, st)
			}
		})
	}
	var urls []string
	must(t, db.ScanURLs("https://a.example/", func(st URLState) error { urls = append(urls, st.URL); return nil }))
	if want := []string{"https://a.example/", "https://a.example/x?q=1", "https://a.example/y"}; !reflect.DeepEqual(urls, want) {
		t.Fatalf("scan urls: %q, want %q", urls, want)
	}
}

func TestURLStateCodec(t *testing.T) {
	for _, st := range []URLState{
		{URL: "u"},
		{URL: "https://h/p", Site: "https://h", State: StateQueued, Depth: -3, FrontierKey: []byte{TagFrontier, 0, 1, 2},
			Fetched: t0, Status: -1, Err: "e"},
	} {
		v := encodeURLState(nil, &st)
		got, err := decodeURLState(st.URL, v)
		if err != nil || !reflect.DeepEqual(got, st) {
			t.Fatalf("round trip: got %+v err %v, want %+v", got, err, st)
		}
		// Every truncation fails cleanly.
		for i := 0; i < len(v); i++ {
			if _, err := decodeURLState(st.URL, v[:i]); !errors.Is(err, ErrBadValue) {
				t.Fatalf("truncated at %d/%d: err %v", i, len(v), err)
			}
		}
	}
}

func TestFrontierCodec(t *testing.T) {
	for _, e := range []FrontierEntry{
		{Queue: "links", Score: 0.5, Seq: 1, URL: "https://h/a", Site: "https://h", Depth: 1},
		{Queue: "", Score: -2, Seq: 1 << 60, URL: "https://h/b", Site: "https://elsewhere", Payload: []byte(`{"level":2}`)},
		{Queue: "q\x00x", Score: 0, Seq: 7, URL: "u"},
	} {
		key := frontierKey(nil, e.Queue, e.Score, e.Seq)
		got, err := decodeFrontier(key, encodeFrontierValue(nil, &e))
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Fatalf("round trip: got %+v err %v, want %+v", got, err, e)
		}
	}
}

func TestFormRoundTrip(t *testing.T) {
	db, _ := openTemp(t)
	for _, f := range []Form{
		{PageURL: "https://a.example/search", Index: 0, Site: "https://a.example"},
		{ID: "custom", Site: "https://b.example", PageURL: "https://b.example/", Depth: 2, Index: 3, Kind: "search",
			Searchable: 0.9, DomainScore: 0.4, Relevant: true, Action: "https://b.example/find", Method: "GET",
			Fields: json.RawMessage(`[{"name":"q","type":"text"}]`), FoundAt: t0, PagesFetched: 1234},
	} {
		t.Run(f.PageURL, func(t *testing.T) {
			must(t, db.PutForm(f))
			if f.ID == "" {
				f.ID = FormID(f.PageURL, f.Index)
			}
			got, ok, err := db.GetForm(f.ID)
			if err != nil || !ok {
				t.Fatalf("get %s: ok %v err %v", f.ID, ok, err)
			}
			if !reflect.DeepEqual(got, f) {
				t.Fatalf("got %+v\nwant %+v", got, f)
			}
		})
	}
	var ids []string
	must(t, db.ScanForms(func(f Form) error { ids = append(ids, f.ID); return nil }))
	if len(ids) != 2 {
		t.Fatalf("scanned forms %q", ids)
	}
}

func TestFormID(t *testing.T) {
	a, b := FormID("https://h/p", 0), FormID("https://h/p", 1)
	if a == b || len(a) != 16 || a != FormID("https://h/p", 0) {
		t.Fatalf("FormID not stable and distinct: %s %s", a, b)
	}
}

func TestModelRoundTrip(t *testing.T) {
	db, _ := openTemp(t)
	for i, tc := range []struct {
		m           Model
		wantVersion int
	}{
		{Model{Name: "site-nb", Data: []byte("v1 data"), SavedAt: t0}, 1},
		{Model{Name: "site-nb", Data: []byte{0, 1, 2, 0xFF}, SavedAt: t0}, 2},
		{Model{Name: "site-nb", Version: 10, Data: nil, SavedAt: t0}, 10},
		{Model{Name: "site-nb", Data: []byte("after 10"), SavedAt: t0}, 11},
		{Model{Name: "site", Data: []byte("prefix of another name"), SavedAt: t0}, 1},
	} {
		v, err := db.PutModel(tc.m)
		must(t, err)
		if v != tc.wantVersion {
			t.Fatalf("case %d: version %d, want %d", i, v, tc.wantVersion)
		}
		tc.m.Version = v
		got, ok, err := db.GetModelVersion(tc.m.Name, v)
		if err != nil || !ok || !reflect.DeepEqual(got, tc.m) {
			t.Fatalf("case %d: got %+v ok %v err %v, want %+v", i, got, ok, err, tc.m)
		}
	}
	latest, ok, err := db.GetModel("site-nb")
	if err != nil || !ok || latest.Version != 11 || !bytes.Equal(latest.Data, []byte("after 10")) {
		t.Fatalf("latest: %+v ok %v err %v", latest, ok, err)
	}
	if _, ok, err := db.GetModel("absent"); ok || err != nil {
		t.Fatalf("absent model: ok %v err %v", ok, err)
	}
}

func TestCounters(t *testing.T) {
	db, _ := openTemp(t)
	for _, tc := range []struct {
		name  string
		delta int64
		want  int64
	}{
		{"pages", 1, 1}, {"pages", 41, 42}, {"pages", -2, 40}, {"forms", 5, 5}, {"sites.deep", -7, -7},
	} {
		must(t, db.AddCounter(tc.name, tc.delta))
		if got, err := db.Counter(tc.name); err != nil || got != tc.want {
			t.Fatalf("%s: got %d err %v, want %d", tc.name, got, err, tc.want)
		}
	}
	all, err := db.Counters("")
	must(t, err)
	if want := map[string]int64{"pages": 40, "forms": 5, "sites.deep": -7}; !reflect.DeepEqual(all, want) {
		t.Fatalf("counters %v, want %v", all, want)
	}
	some, err := db.Counters("sites.")
	must(t, err)
	if len(some) != 1 {
		t.Fatalf("prefix counters %v", some)
	}
	if got, err := db.Counter("never"); got != 0 || err != nil {
		t.Fatalf("absent counter: %d %v", got, err)
	}
}

type pageRec struct {
	URL   string   `json:"url"`
	Terms []string `json:"terms"`
}

func TestGenericJSON(t *testing.T) {
	db, _ := openTemp(t)
	recs := map[string]pageRec{
		"https://a/1": {URL: "https://a/1", Terms: []string{"car"}},
		"https://a/2": {URL: "https://a/2"},
		"https://b/1": {URL: "https://b/1", Terms: []string{"book", "isbn"}},
	}
	for k, v := range recs {
		must(t, db.PutJSON(TagPages, []byte(k), v))
	}
	for k, want := range recs {
		var got pageRec
		ok, err := db.GetJSON(TagPages, []byte(k), &got)
		if err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: got %+v ok %v err %v", k, got, ok, err)
		}
	}
	var keys []string
	must(t, db.ScanJSON(TagPages, []byte("https://a/"), func(k, v []byte) error {
		keys = append(keys, string(k))
		return nil
	}))
	if want := []string{"https://a/1", "https://a/2"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("scan keys %q, want %q", keys, want)
	}
	stop := errors.New("stop")
	if err := db.ScanJSON(TagPages, nil, func(k, v []byte) error { return stop }); err != stop {
		t.Fatalf("scan error not returned as is: %v", err)
	}
	must(t, db.Delete(TagPages, []byte("https://b/1")))
	must(t, db.DeletePrefix(TagPages, []byte("https://a/")))
	n := 0
	must(t, db.ScanJSON(TagPages, nil, func(k, v []byte) error { n++; return nil }))
	if n != 0 {
		t.Fatalf("%d records left after deletes", n)
	}
	// Other tables are untouched by a prefix delete.
	must(t, db.PutJSON(TagFeatures, []byte("r1"), 1))
	must(t, db.PutJSON(TagDocs, []byte("d"), 2))
	must(t, db.DeletePrefix(TagFeatures, nil))
	if ok, _ := db.GetJSON(TagDocs, []byte("d"), new(int)); !ok {
		t.Fatal("DeletePrefix of one table removed another's record")
	}
	for _, tag := range []byte{TagMeta, TagURLs, TagFrontier, TagCounters} {
		if err := db.PutJSON(tag, []byte("k"), 1); !errors.Is(err, ErrManagedTable) {
			t.Fatalf("PutJSON on managed table 0x%02x: %v", tag, err)
		}
		if err := db.DeletePrefix(tag, nil); !errors.Is(err, ErrManagedTable) {
			t.Fatalf("DeletePrefix on managed table 0x%02x: %v", tag, err)
		}
	}
}

// FuzzDecodeValues: the value decoders never panic on arbitrary bytes, and
// a URL state they accept survives a re-encode and decode unchanged.
func FuzzDecodeValues(f *testing.F) {
	st := URLState{URL: "https://h/p", Site: "https://h", State: StateFetched, Depth: 1, Fetched: t0, Status: 200}
	f.Add(encodeURLState(nil, &st))
	e := FrontierEntry{URL: "https://h/p", Site: "https://h", Depth: 2, Payload: []byte("{}")}
	f.Add(encodeFrontierValue(nil, &e))
	f.Fuzz(func(t *testing.T, v []byte) {
		if st, err := decodeURLState("https://h/p", v); err == nil {
			again, err := decodeURLState(st.URL, encodeURLState(nil, &st))
			if err != nil || !reflect.DeepEqual(again, st) {
				t.Fatalf("re-decode of %+v: %+v, %v", st, again, err)
			}
		}
		if e, err := decodeFrontier(frontierKey(nil, "q", 1, 1), v); err == nil {
			_ = encodeFrontierValue(nil, &e)
		}
		_, _ = decodeModel(modelKey(nil, "m", 1), v)
	})
}

func TestStateText(t *testing.T) {
	for s := StateSeen; s <= StateSkipped; s++ {
		b, err := s.MarshalText()
		must(t, err)
		var back State
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Fatalf("%v: back %v err %v", s, back, err)
		}
	}
	if State(9).String() != "state(9)" {
		t.Fatalf("unknown state prints %q", State(9).String())
	}
	var s State
	if err := s.UnmarshalText([]byte("bogus")); err == nil {
		t.Fatal("bogus state accepted")
	}
}
