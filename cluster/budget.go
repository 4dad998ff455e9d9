package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/retry"
)

// pageBudget is a crawl's page budget shared by every engine of the crawl
// (crawl.Budget): the key pages.<crawl> of BucketBudgets counts the pages
// reserved so far, and each engine reserves small leases of pages from it
// with compare-and-set, so that the count is a few KV operations per dozen
// pages and never exceeds the limit. A lease a process takes and dies with
// is lost (at most maxLease pages, minus what it fetched).
type pageBudget struct {
	c     *Conn
	ctx   context.Context
	key   string
	log   *slog.Logger
	limit atomic.Int64 // 0: none
	used  atomic.Int64 // the counter as last seen
	mu    sync.Mutex
	lease int64 // pages reserved and not yet taken
	// single: reserve one page at a time, no lease (the coordinator, whose
	// own fetches are few and whose Exhausted must see the crawl's end)
	single bool
}

// maxLease bounds the pages one lease takes.
const maxLease = 8

func newPageBudget(ctx context.Context, c *Conn, crawl string, limit int) *pageBudget {
	b := &pageBudget{c: c, ctx: ctx, key: "pages." + crawl, log: c.log}
	b.limit.Store(int64(limit))
	return b
}

// setLimit changes the limit (a resumed crawl with a larger budget).
func (b *pageBudget) setLimit(n int) { b.limit.Store(int64(n)) }

// leaseSize is the lease to take when remaining pages are left: small near
// the end, so that idle leases do not starve the other engines.
func leaseSize(remaining, limit int64) int64 {
	if limit <= 0 {
		return maxLease
	}
	return max(1, min(maxLease, remaining/64))
}

// Reserve takes one page: from the lease, else from the shared counter.
func (b *pageBudget) Reserve() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lease > 0 {
		b.lease--
		return true
	}
	n, err := b.take()
	if err != nil {
		if b.ctx.Err() == nil {
			b.log.Warn("page budget unreachable", "key", b.key, "err", err)
		}
		return false
	}
	if n == 0 {
		return false
	}
	b.lease = n - 1
	return true
}

// take moves a lease from the shared counter; 0 when the budget is spent.
func (b *pageBudget) take() (int64, error) {
	var got int64
	_, err := updateCounter(b.ctx, b.c, b.key, func(used int64) (int64, bool) {
		b.used.Store(used)
		limit := b.limit.Load()
		if limit > 0 && used >= limit {
			got = 0
			return used, false
		}
		got = leaseSize(limit-used, limit)
		if b.single {
			got = 1
		}
		if limit > 0 {
			got = min(got, limit-used)
		}
		b.used.Store(used + got)
		return used + got, true
	})
	return got, err
}

// Release gives an unused page back to the lease.
func (b *pageBudget) Release() {
	b.mu.Lock()
	b.lease++
	b.mu.Unlock()
}

// Exhausted reports whether the budget is spent as far as this engine
// knows: no lease left and the counter at the limit when last seen.
func (b *pageBudget) Exhausted() bool {
	limit := b.limit.Load()
	if limit <= 0 {
		return false
	}
	b.mu.Lock()
	lease := b.lease
	b.mu.Unlock()
	return lease == 0 && b.used.Load() >= limit
}

// refresh reads the shared counter (the watcher's view may lag, or have
// stopped while the server was away).
func (b *pageBudget) refresh(ctx context.Context) error {
	n, err := b.c.PagesReserved(ctx, strings.TrimPrefix(b.key, "pages."))
	if err == nil {
		b.observe(n)
	}
	return err
}

// observe records the counter's value (a watcher's update).
func (b *pageBudget) observe(used int64) { b.used.Store(used) }

// giveBack returns the unused lease to the shared counter (an engine that
// closes).
func (b *pageBudget) giveBack(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lease == 0 {
		return nil
	}
	n := b.lease
	_, err := updateCounter(ctx, b.c, b.key, func(used int64) (int64, bool) { return max(0, used-n), true })
	if err == nil {
		b.lease = 0
	}
	return err
}

// watch keeps the budget's view of the counter current until ctx ends.
func (b *pageBudget) watch(ctx context.Context) {
	watchKey(ctx, b.c, b.c.budgets, b.key, func(v []byte) {
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			b.observe(n)
		}
	})
}

// updateCounter applies change to the integer counter key of
// BucketBudgets with compare-and-set.
func updateCounter(ctx context.Context, c *Conn, key string, change func(int64) (int64, bool)) (int64, error) {
	var out int64
	err := c.do(ctx, func(ctx context.Context) error {
		for {
			var cur int64
			var rev uint64
			e, err := c.budgets.Get(ctx, key)
			switch {
			case errors.Is(err, jetstream.ErrKeyNotFound):
			case err != nil:
				return err
			default:
				rev = e.Revision()
				if cur, err = strconv.ParseInt(string(e.Value()), 10, 64); err != nil {
					return retry.Permanent(fmt.Errorf("budget %s holds %q: %w", key, e.Value(), err))
				}
			}
			next, ok := change(cur)
			out = cur
			if !ok {
				return nil
			}
			v := []byte(strconv.FormatInt(next, 10))
			if rev == 0 {
				_, err = c.budgets.Create(ctx, key, v)
			} else {
				_, err = c.budgets.Update(ctx, key, v, rev)
			}
			if casConflict(err) {
				continue
			}
			if err == nil {
				out = next
			}
			return err
		}
	})
	return out, err
}

// watchKey calls fn with every value of key (the current one first) until
// ctx ends, watching again after an error.
func watchKey(ctx context.Context, c *Conn, kv jetstream.KeyValue, key string, fn func([]byte)) {
	watchKeyInit(ctx, c, kv, key, fn, func() {})
}

// watchKeyInit is watchKey that also calls init once the current value,
// if any, has been given to fn (or ctx ended first).
func watchKeyInit(ctx context.Context, c *Conn, kv jetstream.KeyValue, key string, fn func([]byte), init func()) {
	initDone := false
	defer func() {
		if !initDone {
			init()
		}
	}()
	for ctx.Err() == nil {
		w, err := kv.Watch(ctx, key)
		if err != nil {
			c.log.Debug("nats: watching", "key", key, "err", err)
			sleep(ctx, time.Second)
			continue
		}
		for e := range w.Updates() {
			if e == nil {
				if !initDone {
					initDone = true
					init()
				}
				continue
			}
			if e.Operation() == jetstream.KeyValuePut {
				fn(e.Value())
			}
		}
		w.Stop()
	}
}

// QueryBudget is a budget of queries shared by surfacing and enrichment
// jobs anywhere on the cluster: queries.<name> in BucketBudgets holds the
// limit and the queries spent.
type QueryBudget struct {
	c    *Conn
	name string
}

// QueryBudgetState is a query budget's limit and spending.
type QueryBudgetState struct {
	Limit int64 `json:"limit"`
	Used  int64 `json:"used"`
}

// Left is the number of queries left.
func (s QueryBudgetState) Left() int64 { return max(0, s.Limit-s.Used) }

// QueryBudget returns the shared query budget name.
func (c *Conn) QueryBudget(name string) (*QueryBudget, error) {
	if err := CheckName(name); err != nil {
		return nil, fmt.Errorf("cluster: budget: %w", err)
	}
	return &QueryBudget{c: c, name: name}, nil
}

func (q *QueryBudget) key() string { return "queries." + q.name }

// SetLimit sets the budget's limit, keeping what was spent.
func (q *QueryBudget) SetLimit(ctx context.Context, limit int64) (QueryBudgetState, error) {
	return updateJSON(ctx, q.c, q.c.budgets, q.key(), func(s *QueryBudgetState) (bool, error) {
		s.Limit = limit
		return true, nil
	})
}

// State returns the budget's limit and spending; ok is false when nobody
// set it.
func (q *QueryBudget) State(ctx context.Context) (QueryBudgetState, bool, error) {
	var s QueryBudgetState
	_, ok, err := q.c.getJSON(ctx, q.c.budgets, q.key(), &s)
	return s, ok, err
}

// ErrNoBudget is the error of a query budget nobody set.
var ErrNoBudget = errors.New("cluster: no such query budget")

// Take spends one query; false when the budget is spent.
func (q *QueryBudget) Take(ctx context.Context) (bool, error) {
	missing := false
	taken := false
	_, err := updateJSON(ctx, q.c, q.c.budgets, q.key(), func(s *QueryBudgetState) (bool, error) {
		taken = false
		if s.Limit == 0 && s.Used == 0 {
			missing = true
			return false, nil
		}
		if s.Used >= s.Limit {
			return false, nil
		}
		s.Used++
		taken = true
		return true, nil
	})
	if err != nil {
		return false, fmt.Errorf("cluster: query budget %s: %w", q.name, err)
	}
	if missing {
		return false, fmt.Errorf("%w: %s (set it with dwcrawl budget)", ErrNoBudget, q.name)
	}
	return taken, nil
}

// Searcher wraps s so that every request it sends spends one query of the
// budget: once the budget is spent, searches fail with keyword.ErrBudget
// (permanent), which ends a surfacing or enrichment run normally.
func (q *QueryBudget) Searcher(s keyword.Searcher) keyword.Searcher {
	b := &budgetedSearcher{s: s, q: q}
	if tk, ok := s.(keyword.TopKer); ok {
		return budgetedTopK{b, tk}
	}
	return b
}

type budgetedSearcher struct {
	s keyword.Searcher
	q *QueryBudget
}

func (b *budgetedSearcher) Search(ctx context.Context, query string, page int) (keyword.Page, error) {
	ok, err := b.q.Take(ctx)
	if err != nil {
		return keyword.Page{}, keyword.Permanent{Err: err}
	}
	if !ok {
		return keyword.Page{}, keyword.Permanent{Err: keyword.ErrBudget}
	}
	return b.s.Search(ctx, query, page)
}

// budgetedTopK keeps the wrapped searcher's result limit visible.
type budgetedTopK struct {
	*budgetedSearcher
	keyword.TopKer
}
