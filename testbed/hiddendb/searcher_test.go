package hiddendb

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// testDB is a 60-record database where "web" matches every other record.
func testDB(k int, showTotal bool) *DB {
	var recs []Record
	for i := 0; i < 60; i++ {
		title := fmt.Sprintf("paper %d on databases", i)
		if i%2 == 0 {
			title = fmt.Sprintf("paper %d on the deep web", i)
		}
		recs = append(recs, Record{ID: fmt.Sprint(i), Fields: map[string]string{"title": title, "venue": "VLDB"}, Order: []string{"title", "venue"}})
	}
	return New(recs, Options{K: k, PageSize: 7, IndexFields: []string{"title"}, ShowTotal: showTotal, Seed: 1})
}

func TestSearcher(t *testing.T) {
	cases := []struct {
		name      string
		showTotal bool
		omitText  bool
	}{
		{"totals hidden", false, false},
		{"totals shown", true, false},
		{"text omitted", true, true},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testDB(20, c.showTotal)
			s := Searcher{DB: db, OmitText: c.omitText}
			want := -1
			if c.showTotal {
				want = db.Count("web")
			}
			var n int
			for page := 1; ; page++ {
				pg, err := s.Search(ctx, "web", page)
				if err != nil {
					t.Fatal(err)
				}
				if pg.Total != want {
					t.Fatalf("page %d: total %d, want %d", page, pg.Total, want)
				}
				for _, d := range pg.Docs {
					if (d.Text == "") != c.omitText || d.Fields["title"] == "" {
						t.Fatalf("record %+v: text present %v, want %v", d, d.Text != "", !c.omitText)
					}
				}
				n += len(pg.Docs)
				if !pg.Next {
					break
				}
			}
			if n != 20 {
				t.Fatalf("%d records over the pages, want the top 20 of %d", n, db.Count("web"))
			}
			if k, err := s.TopK(ctx); err != nil || k != 20 {
				t.Fatalf("TopK = %d, %v", k, err)
			}
		})
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (Searcher{DB: testDB(20, false)}).Search(ctx, "web", 1); err == nil {
		t.Fatal("search under a cancelled context succeeded")
	}
}

// TestAPISearcherReadsHandler checks the JSON API's wire format from both
// ends: keyword.APISearcher reads what Handler serves.
func TestAPISearcherReadsHandler(t *testing.T) {
	ctx := context.Background()
	for _, show := range []bool{false, true} {
		db := testDB(20, show)
		srv := httptest.NewServer(db.Handler("/db"))
		for _, base := range []string{srv.URL + "/db", srv.URL + "/db/api/search"} {
			t.Run(base, func(t *testing.T) {
				s := &keyword.APISearcher{Base: base, Client: srv.Client()}
				want := -1
				if show {
					want = db.Count("web")
				}
				var ids []string
				for page := 1; ; page++ {
					pg, err := s.Search(ctx, "web", page)
					if err != nil {
						t.Fatal(err)
					}
					if pg.Total != want {
						t.Fatalf("total %d, want %d", pg.Total, want)
					}
					for _, d := range pg.Docs {
						if d.Text == "" || d.URL == "" || d.Fields["title"] == "" {
							t.Fatalf("record without text, URL or fields: %+v", d)
						}
						ids = append(ids, d.ID)
					}
					if !pg.Next {
						break
					}
				}
				top := db.TopK("web")
				if len(ids) != len(top) {
					t.Fatalf("%d records over the pages, want the top %d", len(ids), len(top))
				}
				for i, x := range top {
					if db.Record(x).ID != ids[i] {
						t.Fatalf("result %d is %s, want %s", i, ids[i], db.Record(x).ID)
					}
				}
			})
		}
		srv.Close()
	}
}
