package cluster

import (
	"context"
	"errors"
	"fmt"
	"github.com/dwcrawl/dwcrawl/cluster/clustertest"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func connect(t testing.TB, ts *clustertest.TestServer) *Conn {
	t.Helper()
	c, err := Connect(context.Background(), ts.URL(), Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestPageBudget has several engines reserve pages of one crawl at once,
// releasing some, and checks that the pages taken never pass the limit,
// that they reach it, and that what a closing engine gives back can be
// taken again.
func TestPageBudget(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx := context.Background()
	for _, limit := range []int{1, 37, 500} {
		c := connect(t, ts)
		name := fmt.Sprintf("budget%d", limit)
		var taken atomic.Int64
		var budgets []*pageBudget
		var wg sync.WaitGroup
		for i := range 4 {
			b := newPageBudget(ctx, c, name, limit)
			budgets = append(budgets, b)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					if !b.Reserve() {
						return
					}
					if (n+i)%7 == 0 {
						b.Release() // a fetch that did not happen
						continue
					}
					taken.Add(1)
				}
			}()
		}
		wg.Wait()
		if got := taken.Load(); got != int64(limit) {
			t.Errorf("limit %d: %d pages taken", limit, got)
		}
		for _, b := range budgets {
			if !b.Exhausted() {
				t.Errorf("limit %d: an engine does not see the budget spent", limit)
			}
		}
		n, err := c.PagesReserved(ctx, name)
		if err != nil || n != int64(limit) {
			t.Errorf("limit %d: counter %d (%v)", limit, n, err)
		}
		// a larger budget (a resumed crawl) gives more pages
		budgets[0].setLimit(limit + 3)
		more := 0
		for budgets[0].Reserve() {
			more++
		}
		if more != 3 {
			t.Errorf("limit %d raised by 3: %d more pages", limit, more)
		}
	}
}

// TestPageBudgetGiveBack checks that an engine closing with an unused
// lease returns it to the crawl.
func TestPageBudgetGiveBack(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx := context.Background()
	c := connect(t, ts)
	a := newPageBudget(ctx, c, "giveback", 1000)
	if !a.Reserve() {
		t.Fatal("no page")
	}
	if a.lease == 0 {
		t.Fatal("no lease taken")
	}
	if err := a.giveBack(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := c.PagesReserved(ctx, "giveback")
	if err != nil || n != 1 {
		t.Errorf("after giving back, %d pages reserved (%v), want 1", n, err)
	}
}

type fakeSearcher struct{ n atomic.Int64 }

func (f *fakeSearcher) Search(context.Context, string, int) (keyword.Page, error) {
	f.n.Add(1)
	return keyword.Page{}, nil
}

// TestQueryBudget has two jobs spend one shared query budget at once.
func TestQueryBudget(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx := context.Background()
	c := connect(t, ts)
	qb, err := c.QueryBudget("dblp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := qb.Take(ctx); !errors.Is(err, ErrNoBudget) {
		t.Fatalf("a budget nobody set: %v, want ErrNoBudget", err)
	}
	if _, err := qb.SetLimit(ctx, 50); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var sent atomic.Int64
	for range 2 {
		c2 := connect(t, ts)
		q2, _ := c2.QueryBudget("dblp")
		f := &fakeSearcher{}
		s := q2.Searcher(f)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_, err := s.Search(ctx, "q", 0)
				if errors.Is(err, keyword.ErrBudget) {
					break
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
			sent.Add(f.n.Load())
		}()
	}
	wg.Wait()
	st, ok, err := qb.State(ctx)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if sent.Load() != 50 || st.Used != 50 || st.Left() != 0 {
		t.Errorf("sent %d, used %d, left %d; want 50, 50, 0", sent.Load(), st.Used, st.Left())
	}
	if _, err := qb.SetLimit(ctx, 60); err != nil {
		t.Fatal(err)
	}
	if ok, err := qb.Take(ctx); !ok || err != nil {
		t.Errorf("after raising the limit: %v %v", ok, err)
	}
	if _, err := c.QueryBudget("no spaces allowed"); err == nil {
		t.Error("a bad budget name was accepted")
	}
}
