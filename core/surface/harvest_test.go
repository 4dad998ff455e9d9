package surface

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// papersDB serves testdata/papers.jsonl (600 made-up paper records).
func papersDB(tb testing.TB, k int, showTotal bool) *hiddendb.DB {
	tb.Helper()
	recs, err := hiddendb.LoadJSONL(filepath.Join("testdata", "papers.jsonl"), "id")
	if err != nil {
		tb.Fatal(err)
	}
	return hiddendb.New(recs, hiddendb.Options{K: k, PageSize: 7, IndexFields: []string{"title", "authors", "venue", "year"}, ShowTotal: showTotal, Seed: 1})
}

func TestHarvestBasics(t *testing.T) {
	cases := []struct {
		name      string
		showTotal bool
		budget    int
		costB     float64
		cost      Cost
		wantQ     int
	}{
		{"query budget", true, 12, 0, Cost{}, 12},
		{"hidden totals", false, 12, 0, Cost{}, 12},
		{"cost budget", true, 0, 30, Cost{Q: 1, D: 0.05}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := papersDB(t, 20, c.showTotal)
			st, err := Harvest(context.Background(), hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: c.budget, CostBudget: c.costB, Cost: c.cost, First: "web"})
			if err != nil {
				t.Fatal(err)
			}
			log := st.Log()
			if c.wantQ >= 0 && len(log) != c.wantQ {
				t.Fatalf("%d queries, want %d", len(log), c.wantQ)
			}
			if c.costB > 0 && (st.Cost() < c.costB || st.Cost()-log[len(log)-1].Cost >= c.costB) {
				t.Fatalf("stopped at cost %g with budget %g", st.Cost(), c.costB)
			}
			if st.K() != 20 {
				t.Fatalf("K() = %d, want 20 (inferred)", st.K())
			}
			seen := map[string]bool{}
			newSum := 0
			for i, l := range log {
				if seen[l.Query] {
					t.Fatalf("query %q issued twice", l.Query)
				}
				seen[l.Query] = true
				if l.Returned > 20 {
					t.Fatalf("query %q returned %d > k", l.Query, l.Returned)
				}
				newSum += l.New
				if l.Docs != newSum || l.N != i+1 {
					t.Fatalf("log line %+v: docs %d, want %d", l, l.Docs, newSum)
				}
			}
			ids := map[string]bool{}
			for i := 0; i < st.Docs(); i++ {
				d := st.Doc(i)
				if _, ok := db.Lookup(d.ID); !ok || ids[d.ID] {
					t.Fatalf("document %q unknown or duplicated", d.ID)
				}
				ids[d.ID] = true
			}
			if st.Docs() != newSum {
				t.Fatalf("%d documents, log says %d", st.Docs(), newSum)
			}
		})
	}
}

// Resuming from the journal rebuilds the same state: the next choice and
// the statistics are those of an uninterrupted run.
func TestHarvestResume(t *testing.T) {
	db := papersDB(t, 20, true)
	ctx := context.Background()
	full, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: 20})
	if err != nil {
		t.Fatal(err)
	}
	j := &MemJournal{}
	if _, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: 8, Journal: j}); err != nil {
		t.Fatal(err)
	}
	if j.Len() != 8 {
		t.Fatalf("journal holds %d entries, want 8", j.Len())
	}
	resumed, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: 20, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	a, b := full.Log(), resumed.Log()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d queries", len(a), len(b))
	}
	for i := range a {
		if a[i].Query != b[i].Query || a[i].New != b[i].New {
			t.Fatalf("query %d: %q (+%d) uninterrupted, %q (+%d) resumed", i+1, a[i].Query, a[i].New, b[i].Query, b[i].New)
		}
	}
	if full.Stats.W != resumed.Stats.W {
		t.Fatalf("W %g vs %g", full.Stats.W, resumed.Stats.W)
	}
}

// flaky fails every query in fail; the pages of other queries pass through.
type flaky struct {
	s    Searcher
	fail map[string]error
}

func (f flaky) Search(ctx context.Context, q string, page int) (Page, error) {
	if err, ok := f.fail[q]; ok {
		return Page{}, err
	}
	return f.s.Search(ctx, q, page)
}

func TestHarvestFailures(t *testing.T) {
	db := papersDB(t, 20, true)
	boom := errors.New("boom")
	t.Run("skips a failing query", func(t *testing.T) {
		s := flaky{hiddendb.Searcher{DB: db}, map[string]error{"web": boom}}
		j := &MemJournal{}
		st, err := Harvest(context.Background(), s, NewGeneric([]string{"web", "database", "query"}), Options{Journal: j})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Log()) != 2 || j.Len() != 2 || !st.Issued("web") {
			t.Fatalf("log %+v", st.Log())
		}
	})
	t.Run("gives up after consecutive failures", func(t *testing.T) {
		fail := map[string]error{}
		words := []string{"a1", "b2", "c3", "d4", "e5", "f6"}
		for _, w := range words {
			fail[w] = boom
		}
		_, err := Harvest(context.Background(), flaky{hiddendb.Searcher{DB: db}, fail}, NewGeneric(words), Options{MaxFailures: 3})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "3 consecutive") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("request budget ends the harvest", func(t *testing.T) {
		st, err := Harvest(context.Background(), keyword.Limited(hiddendb.Searcher{DB: db}, 10), &Adaptive{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Log()) == 0 || len(st.Log()) > 10 {
			t.Fatalf("%d queries with 10 requests", len(st.Log()))
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestHarvestFirstQuery(t *testing.T) {
	db := papersDB(t, 20, true)
	st, err := Harvest(context.Background(), hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: 2, First: "Hidden Web"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Log()[0].Query != "Hidden Web" || !st.Issued("hidden web") {
		t.Fatalf("first query %q", st.Log()[0].Query)
	}
}

func TestHarvestEstimators(t *testing.T) {
	db := papersDB(t, 20, true)
	for _, est := range []Estimator{Independence, Zipf} {
		t.Run(string(est), func(t *testing.T) {
			st, err := Harvest(context.Background(), hiddendb.Searcher{DB: db}, &Adaptive{Options: SelectOptions{Estimator: est}}, Options{Budget: 40})
			if err != nil {
				t.Fatal(err)
			}
			cov := float64(st.Docs()) / float64(db.Len())
			t.Logf("%s: coverage %.3f after 40 queries", est, cov)
			if cov < 0.6 {
				t.Fatalf("coverage %.3f after 40 queries of at most 20 results", cov)
			}
		})
	}
}

// sameAnswer answers every query with the same 30 records, 3 a page,
// its total shown or not, and counts the pages asked for.
type sameAnswer struct {
	showTotal bool
	pages     int
}

func (s *sameAnswer) Search(_ context.Context, q string, page int) (keyword.Page, error) {
	s.pages++
	pg := keyword.Page{Total: -1, Next: page < 10}
	if s.showTotal {
		pg.Total = 30
	}
	for i := (page - 1) * 3; i < page*3 && i < 30; i++ {
		pg.Docs = append(pg.Docs, keyword.Doc{ID: strconv.Itoa(i), Text: "record " + strconv.Itoa(i) + " about " + q})
	}
	return pg, nil
}

// TestHarvestStalePages: with StalePages, a query whose pages list only
// records already downloaded stops paging when the total is shown; with
// hidden totals every page is read.
func TestHarvestStalePages(t *testing.T) {
	tests := []struct {
		stale     int
		showTotal bool
		want      int // pages read by 3 queries
	}{
		{0, true, 30},
		{2, true, 10 + 2 + 2},
		{2, false, 30},
	}
	for _, tt := range tests {
		s := &sameAnswer{showTotal: tt.showTotal}
		p, err := NewPolicy("generic", PolicyOptions{Words: []string{"alpha", "beta", "gamma", "delta"}})
		if err != nil {
			t.Fatal(err)
		}
		st, err := Harvest(context.Background(), s, p, Options{Budget: 3, StalePages: tt.stale, StopAfter: 0})
		if err != nil {
			t.Fatal(err)
		}
		if s.pages != tt.want || st.Docs() != 30 || len(st.Log()) != 3 {
			t.Errorf("StalePages %d, total shown %v: %d pages, %d records, %d queries; want %d pages, 30 records, 3 queries",
				tt.stale, tt.showTotal, s.pages, st.Docs(), len(st.Log()), tt.want)
		}
	}
}
