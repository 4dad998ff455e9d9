package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/dwcrawl/dwcrawl/cluster/clustertest"
	"github.com/dwcrawl/dwcrawl/core/clock"
	"github.com/dwcrawl/dwcrawl/core/crawl"
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

// TestPageBudgetPending checks what a coordinator counts as pending: the
// pages another engine holds (leased or being fetched, not yet published)
// and the results its consumer has not applied yet.
func TestPageBudgetPending(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx := context.Background()
	c := connect(t, ts)
	coord := newPageBudget(ctx, c, "pending", 1000)
	coord.single = true
	w := newPageBudget(ctx, connect(t, ts), "pending", 1000)
	pending := func(want int64, when string) {
		t.Helper()
		n, err := coord.Pending(ctx)
		if err != nil || n != want {
			t.Errorf("%s: %d pages pending (%v), want %d", when, n, err, want)
		}
	}
	pending(0, "before any engine")
	for range 3 {
		if !w.Reserve() {
			t.Fatal("no page")
		}
	}
	lease := w.lease + 3
	pending(lease, "a lease taken")
	w.Published()
	w.Published()
	w.Release()
	if err := w.returnLease(ctx); err != nil {
		t.Fatal(err)
	}
	pending(0, "two pages published, one given back")

	cons, err := c.js.CreateOrUpdateConsumer(ctx, StreamResults, jetstream.ConsumerConfig{Durable: coordConsumer("pending"),
		FilterSubject: "dwcrawl.*.pending.>", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := c.publish(ctx, pageSubject("pending", "http://a.test", w.holder), fmt.Sprintf("p%d", i), []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	// the consumer counts new messages a moment late: the count is then
	// at least one
	some := func(when string) {
		t.Helper()
		n, err := coord.Pending(ctx)
		if err != nil || n < 1 || n > 2 {
			t.Errorf("%s: %d pages pending (%v), want 1 or 2", when, n, err)
		}
	}
	some("two results published")
	for i := range 2 {
		m, err := cons.Next()
		if err != nil {
			t.Fatal(err)
		}
		some(fmt.Sprintf("result %d being applied", i+1))
		if err := m.DoubleAck(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pending(0, "both results applied")
}

// fakeSearcher answers every query with three result pages and fails the
// first page of every fifth query.
type fakeSearcher struct {
	n, failed atomic.Int64
}

var errFake = errors.New("answer lost")

func (f *fakeSearcher) Search(_ context.Context, query string, page int) (keyword.Page, error) {
	f.n.Add(1)
	if page == 1 && strings.HasSuffix(query, "4") {
		f.failed.Add(1)
		return keyword.Page{}, errFake
	}
	return keyword.Page{Docs: []keyword.Doc{{ID: fmt.Sprint(query, page)}}, Next: page < 3}, nil
}

// TestQueryBudget has two jobs spend one shared query budget at once,
// reading every result page of each query: the budget counts queries, not
// requests, and a query whose first page failed is not counted.
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
	var answered, sent, failed atomic.Int64
	for j := range 2 {
		c2 := connect(t, ts)
		q2, _ := c2.QueryBudget("dblp")
		f := &fakeSearcher{}
		s := q2.Searcher(f)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { sent.Add(f.n.Load()); failed.Add(f.failed.Load()) }()
			for i := 0; ; i++ {
				for page := 1; ; page++ {
					pg, err := s.Search(ctx, fmt.Sprintf("q%d-%d", j, i), page)
					if errors.Is(err, keyword.ErrBudget) {
						if page > 1 {
							t.Errorf("page %d of a query refused: %v", page, err)
						}
						return
					}
					if errors.Is(err, errFake) {
						break
					}
					if err != nil {
						t.Error(err)
						return
					}
					if page == 1 {
						answered.Add(1)
					}
					if !pg.Next {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	st, ok, err := qb.State(ctx)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if answered.Load() != 50 || st.Used != 50 || st.Left() != 0 {
		t.Errorf("%d queries answered, used %d, left %d; want 50, 50, 0", answered.Load(), st.Used, st.Left())
	}
	if want := 3*answered.Load() + failed.Load(); sent.Load() != want || failed.Load() == 0 {
		t.Errorf("%d requests sent, %d failed; want %d (three pages a query)", sent.Load(), failed.Load(), want)
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

// connectClock is connect with the page budget's clock set to clk.
func connectClock(t testing.TB, ts *clustertest.TestServer, clk *clock.Fake) *Conn {
	c := connect(t, ts)
	c.clock = clk
	return c
}

// TestPageBudgetReclaim has an engine die with a lease and pages in
// flight: the coordinator gives back what it took and did not publish,
// leaves a live engine alone (one late renewing its entry is asked, and
// answers), and forgets the dead engine's entry after a while with its
// recorded pages still counted. The engines' clock is a fake one the test
// advances.
func TestPageBudgetReclaim(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx := context.Background()
	clk := clock.NewFake(time.Now())
	coord := newPageBudget(ctx, connectClock(t, ts, clk), "reclaim", 10000)
	coord.single = true
	live := newPageBudget(ctx, connectClock(t, ts, clk), "reclaim", 10000)

	dc, err := Connect(ctx, ts.URL(), Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	dc.clock = clk
	dctx, kill := context.WithCancel(ctx)
	dead := newPageBudget(dctx, dc, "reclaim", 10000)
	sink := &pageSink{c: dc, ctx: dctx, crawl: "reclaim", log: quiet(), budget: dead}
	const fetched, recorded = 5, 3 // reserved, and published of those
	for i := range fetched {
		if !dead.Reserve() {
			t.Fatal("no page")
		}
		if i < recorded {
			rec := fmt.Sprintf(`{"url":"http://a.test/%d","site":"http://a.test"}`, i)
			if err := sink.RecordPage(crawl.PageResult{URL: fmt.Sprintf("http://a.test/%d", i), Site: "http://a.test", Record: []byte(rec)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 2 {
		if !live.Reserve() {
			t.Fatal("no page")
		}
	}
	before, _ := coord.c.PagesReserved(ctx, "reclaim")
	if before != 2*maxLease {
		t.Fatalf("%d pages reserved, want two leases", before)
	}

	// both engines are late renewing their entries, and both answer
	clk.Advance(holderLate)
	if n, err := coord.reclaim(ctx); err != nil || n != 0 {
		t.Errorf("reclaimed %d pages (%v) of engines that answer", n, err)
	}
	if !coord.suspect.Load() {
		t.Error("the budget does not suspect engines late renewing their entries")
	}
	if err := live.renewNow(ctx); err != nil {
		t.Fatal(err)
	}

	// the process dies: its connection closes, its renewals stop; the
	// server notices the closed connection a moment later
	kill()
	dc.Close()
	var back int64
	for attempt := 0; back == 0 && attempt < 20; attempt++ {
		if back, err = coord.reclaim(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if want := int64(maxLease - recorded); back != want {
		t.Errorf("%d pages given back, want %d (a lease of %d, %d recorded)", back, want, maxLease, recorded)
	}
	after, _ := coord.c.PagesReserved(ctx, "reclaim")
	if after != maxLease+recorded {
		t.Errorf("%d pages reserved after the reclaim, want %d (the live engine's lease and the dead one's pages)", after, maxLease+recorded)
	}
	if coord.suspect.Load() {
		t.Error("the budget suspects a live engine that renewed its entry")
	}
	// the live engine renews its entry: nothing of it is reclaimed
	for range 3 {
		clk.Advance(holderRenew)
		if err := live.renewNow(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := coord.reclaim(ctx); err != nil || n != 0 || coord.suspect.Load() {
			t.Errorf("reclaimed %d pages (%v) of a live engine, suspect %v", n, err, coord.suspect.Load())
		}
	}

	// long after, the dead engine's entry is forgotten; its pages stay
	clk.Advance(tombstoneTTL)
	if err := live.renewNow(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := coord.reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	var pc pageCounter
	if _, _, err := coord.c.getJSON(ctx, coord.c.budgets, coord.key, &pc); err != nil {
		t.Fatal(err)
	}
	if _, ok := pc.Holders[dead.holder]; ok || len(pc.Holders) != 1 || pc.Used != maxLease+recorded {
		t.Errorf("after the tombstone's time: %+v, want the live engine alone and %d pages", pc, maxLease+recorded)
	}
}

// TestPageBudgetRetry replays a lease's compare-and-set whose answer was
// lost (the server applied it, then restarted): the engine takes its lease
// again and the counter holds one lease, not two.
func TestPageBudgetRetry(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx := context.Background()
	c := connect(t, ts)
	b := newPageBudget(ctx, c, "retry", 1000)
	b.mu.Lock()
	if _, err := b.take(); err != nil {
		t.Fatal(err)
	}
	b.lease = 0 // the answer never came: the engine knows of no lease
	got, err := b.take()
	b.mu.Unlock()
	if err != nil || got == 0 {
		t.Fatalf("took %d pages (%v)", got, err)
	}
	n, err := c.PagesReserved(ctx, "retry")
	if err != nil || n != got {
		t.Errorf("counter %d (%v) after a retried lease of %d pages", n, err, got)
	}
	if err := b.giveBack(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := c.PagesReserved(ctx, "retry"); err != nil || n != 0 {
		t.Errorf("counter %d (%v) after giving the lease back", n, err)
	}
}

// TestPageBudgetDuplicatePage has two engines record the same page (a
// site explored twice at once): the page counts once, the second fetch
// goes back to the budget, and an engine's own publication retried is no
// duplicate.
func TestPageBudgetDuplicatePage(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx := context.Background()
	c := connect(t, ts)
	a := newPageBudget(ctx, c, "dup", 1000)
	b := newPageBudget(ctx, c, "dup", 1000)
	sa := &pageSink{c: c, ctx: ctx, crawl: "dup", log: quiet(), budget: a}
	sb := &pageSink{c: c, ctx: ctx, crawl: "dup", log: quiet(), budget: b}
	p := crawl.PageResult{URL: "http://a.test/x", Site: "http://a.test", Record: []byte(`{"url":"http://a.test/x","site":"http://a.test"}`)}
	for _, s := range []*pageSink{sa, sb, sa} {
		if !s.budget.Reserve() {
			t.Fatal("no page")
		}
		if err := s.RecordPage(p); err != nil {
			t.Fatal(err)
		}
	}
	if a.published != 2 || b.published != 0 || b.inflight != 0 {
		t.Errorf("published: %d by the first engine (want 2: its own retry), %d by the second (want 0), %d in flight", a.published, b.published, b.inflight)
	}
	if err := b.giveBack(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := c.PagesReserved(ctx, "dup"); err != nil || n != a.published+a.lease {
		t.Errorf("counter %d (%v), want the first engine's %d pages and %d leased", n, err, a.published, a.lease)
	}
}
