package app

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

type cancelAfter struct {
	s      enrich.Searcher
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Search(ctx context.Context, q string, page int) (enrich.Page, error) {
	if page == 1 {
		c.n--
		if c.n < 0 {
			c.cancel()
			return enrich.Page{}, ctx.Err()
		}
	}
	return c.s.Search(ctx, q, page)
}

func (c *cancelAfter) TopK(ctx context.Context) (int, error) { return c.s.(enrich.TopKer).TopK(ctx) }

func TestEnrichResumeAndOutput(t *testing.T) {
	seed := int64(4)
	t.Logf("seed %d", seed)
	recs := hiddendb.Synthetic(seed, 2000)
	db := hiddendb.New(recs, hiddendb.Options{K: 30, PageSize: 10, Seed: seed})
	srv := httptest.NewServer(db.Handler(""))
	defer srv.Close()
	dir := t.TempDir()
	local := filepath.Join(dir, "local.csv")
	if err := os.WriteFile(local, []byte(hiddendb.LocalCSV(recs, 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := enrich.NewHTTPSearcher(srv.URL)
	out := filepath.Join(dir, "enriched.csv")
	state := filepath.Join(dir, "state")
	var logs bytes.Buffer
	base := EnrichOptions{Local: local, Columns: []string{"title", "author"}, Interface: s, Budget: 15,
		SampleQueries: 60, Out: out, Dir: state, Seed: 1, Log: &logs, Progress: &logs}

	// interrupted after 6 queries (plus the sampling queries)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Enrich(ctx, EnrichOptions(func() EnrichOptions { o := base; o.Interface = &cancelAfter{s: s, n: 60 + 6, cancel: cancel}; return o }()))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v", err)
	}
	if res.Report.Queries != 6 {
		t.Fatalf("interrupted run sent %d queries, want 6", res.Report.Queries)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("no output after interruption: %v", err)
	}
	// resume: the sample and the 6 queries come from the directory
	res, err = Enrich(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 6 || res.Report.Queries != 15 || res.SampleQueries != 0 {
		t.Fatalf("resumed run: %+v", res)
	}
	t.Logf("log:\n%s", logs.String())
	var rep bytes.Buffer
	WriteEnrichReport(&rep, res)
	if !strings.Contains(rep.String(), "replayed from the journal") {
		t.Fatalf("report:\n%s", rep.String())
	}
	// a larger budget continues the same run
	more := base
	more.Budget = 20
	res, err = Enrich(context.Background(), more)
	if err != nil || res.Resumed != 15 || res.Report.Queries != 20 {
		t.Fatalf("budget raised: %+v, %v", res, err)
	}
	// different inputs are refused
	other := base
	other.Columns = []string{"title"}
	if _, err := Enrich(context.Background(), other); err == nil || !strings.Contains(err.Error(), "different enrichment run") {
		t.Fatalf("mismatch: err = %v", err)
	}

	f, _ := os.Open(out)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := "id,title,author,h_id,h_author,h_title,match_score,covered_by"
	if got := strings.Join(rows[0], ","); got != want {
		t.Fatalf("header %q, want %q", got, want)
	}
	if len(rows) != 301 {
		t.Fatalf("%d rows, want 301", len(rows))
	}
	covered := 0
	for _, r := range rows[1:] {
		if r[3] == "" {
			continue
		}
		covered++
		if r[3] != r[0] || r[5] != r[1] || r[6] != "1.000" || r[7] == "" {
			t.Fatalf("row %q: wrong enrichment", r)
		}
	}
	if covered != res.Report.Covered || covered == 0 {
		t.Fatalf("%d enriched rows, report says %d", covered, res.Report.Covered)
	}
}

func TestEnrichErrors(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, "l.csv")
	os.WriteFile(local, []byte("id,title\n1,deep web\n"), 0o644)
	s, _ := enrich.NewHTTPSearcher("http://127.0.0.1:1")
	cases := []struct {
		name string
		opt  EnrichOptions
		want string
	}{
		{"no column", EnrichOptions{Local: local, Columns: []string{"name"}, Interface: s, K: 10, Budget: 1}, `no column "name"`},
		{"no file", EnrichOptions{Local: filepath.Join(dir, "x.csv"), Columns: []string{"title"}, Interface: s, K: 10, Budget: 1}, "no such file"},
		{"ideal", EnrichOptions{Local: local, Columns: []string{"title"}, Interface: s, K: 10, Budget: 1, Method: enrich.Ideal}, "bench enrich"},
		{"no theta", EnrichOptions{Local: local, Columns: []string{"title"}, Interface: s, K: 10, Budget: 1, SamplePath: filepath.Join("..", "..", "core", "enrich", "testdata", "bom.csv")}, "bom.csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Enrich(context.Background(), c.opt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}
