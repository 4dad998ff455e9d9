package keyword

import (
	"context"
	"testing"
)

func TestDBSearcher(t *testing.T) {
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
			s := DBSearcher{DB: db, OmitText: c.omitText}
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
	if _, err := (DBSearcher{DB: testDB(20, false)}).Search(ctx, "web", 1); err == nil {
		t.Fatal("search under a cancelled context succeeded")
	}
}
