package enrich

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

func TestBuildSampleOverHTTP(t *testing.T) {
	seed := int64(21)
	t.Logf("seed %d", seed)
	recs := synthetic(seed, 3000)
	for _, show := range []bool{false, true} {
		db := hiddendb.New(recs, hiddendb.Options{K: 50, PageSize: 20, Seed: seed, ShowTotal: show})
		srv := httptest.NewServer(db.Handler("/db"))
		s, err := NewHTTPSearcher(srv.URL + "/db")
		if err != nil {
			t.Fatal(err)
		}
		k, err := s.(TopKer).TopK(context.Background())
		if err != nil || k != 50 {
			t.Fatalf("TopK = %d, %v", k, err)
		}
		var vocab []string
		for _, r := range recs[:500] {
			vocab = append(vocab, r.Fields["title"]+" "+r.Fields["author"])
		}
		sample, meta, err := BuildSample(context.Background(), s, SampleOptions{Queries: 150, K: k, Vocabulary: vocab, Columns: []string{"title", "author"}, Seed: seed})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		real := float64(len(sample.Docs)) / float64(len(recs))
		t.Logf("show total %v: %d records, %d/%d solid, θ̂ = %.4f, |Hs|/|H| = %.4f, |Ĥ| = %.0f", show, meta.Records, meta.Solid, meta.Queries, sample.Theta, real, meta.HiddenSize)
		if len(sample.Docs) == 0 || sample.Theta <= 0 {
			t.Fatal("empty sample")
		}
		if sample.Theta < real/2 || sample.Theta > real*2 {
			t.Fatalf("θ̂ = %.4f far from the true ratio %.4f", sample.Theta, real)
		}
	}
}

func TestSampleFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hs.jsonl")
	s := &Sample{Theta: 0.01, Docs: []Doc{{ID: "a", Fields: map[string]string{"title": "x y"}, Text: "x y"}, {ID: "b", URL: "http://h/b"}}}
	if err := SaveSample(p, s, SampleMeta{Theta: 0.01, Records: 2}); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSample(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Theta != 0.01 || len(got.Docs) != 2 || got.Docs[0].Fields["title"] != "x y" || got.Docs[1].URL != "http://h/b" {
		t.Fatalf("round trip: %+v", got)
	}
	// flat records, as a hidden-database export would have them
	flat := `{"id": "7", "title": "deep web", "year": 2019}` + "\n\n" + `{"title": "other"}` + "\n"
	fs, err := ReadSample(strings.NewReader(flat), "flat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Docs) != 2 || fs.Docs[0].ID != "7" || fs.Docs[0].Fields["year"] != "2019" || fs.Theta != 0 {
		t.Fatalf("flat: %+v", fs.Docs)
	}
	if _, err := ReadSample(strings.NewReader("{\"a\":1}\nnot json\n"), "bad.jsonl"); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Fatalf("bad line: %v", err)
	}
	wl := filepath.Join(dir, "words.txt")
	os.WriteFile(wl, []byte("# words\nalpha 12\nbeta\n\n"), 0o644)
	if w, err := LoadWords(wl); err != nil || strings.Join(w, ",") != "alpha,beta" {
		t.Fatalf("LoadWords txt = %v, %v", w, err)
	}
	wj := filepath.Join(dir, "words.json")
	os.WriteFile(wj, []byte(`[{"word":"you","count":3},{"word":"data","count":2}]`), 0o644)
	if w, err := LoadWords(wj); err != nil || strings.Join(w, ",") != "you,data" {
		t.Fatalf("LoadWords json = %v, %v", w, err)
	}
}

func TestFetchAllPages(t *testing.T) {
	recs := synthetic(2, 500)
	db := hiddendb.New(recs, hiddendb.Options{K: 25, PageSize: 10, ShowTotal: true})
	srv := httptest.NewServer(db.Handler(""))
	defer srv.Close()
	s, _ := NewHTTPSearcher(srv.URL + "/api/search")
	var q string
	for w, n := range db.Vocabulary() {
		if n > 60 {
			q = w
			break
		}
	}
	res, err := FetchAll(context.Background(), s, q, 25)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Docs) != 25 || res.Total != db.Count(q) || res.Solid(25) {
		t.Fatalf("overflowing %q: %d docs, total %d (want 25, %d)", q, len(res.Docs), res.Total, db.Count(q))
	}
	res, err = FetchAll(context.Background(), s, recs[0].Fields["title"]+" "+recs[0].Fields["author"], 25)
	if err != nil || len(res.Docs) == 0 || !res.Solid(25) || res.Docs[0].Fields["title"] == "" {
		t.Fatalf("specific query: %+v, %v", res, err)
	}
	if _, err := NewHTTPSearcher("ftp://x"); err == nil || !strings.Contains(err.Error(), `"ftp://x"`) {
		t.Fatalf("ftp accepted or not named: %v", err)
	}
	// a 404 is final (no retry) and names the URL
	bad, _ := NewHTTPSearcher(srv.URL + "/nowhere")
	if _, err := FetchAll(context.Background(), bad, "x", 5); err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), srv.URL+"/nowhere/api/search?") {
		t.Fatalf("404: %v", err)
	}
}
