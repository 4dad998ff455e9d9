package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// pageBudget is a crawl's page budget shared by every engine of the crawl
// (crawl.Budget). The key pages.<crawl> of BucketBudgets holds a
// pageCounter: the pages reserved so far and, per engine (holder), the
// pages it took. Each engine reserves small leases of pages from it with
// compare-and-set, so that the count is a few KV operations per dozen
// pages and never exceeds the limit.
//
// A holder that dies (kill -9, a lost machine) leaves pages it took and
// never recorded: its unused lease and the pages it was fetching. Its
// pages are published on subjects ending in its holder id, so the pages it
// recorded are the messages of those subjects; the coordinator gives the
// rest back to the budget (reclaim) once the holder stopped renewing its
// entry and no longer answers on its subject. The budget is then exact, as
// on one machine: the crawl records as many pages as it may reserve.
type pageBudget struct {
	c      *Conn
	ctx    context.Context
	crawl  string
	key    string
	holder string // this engine's id in the counter and in page subjects
	log    *slog.Logger
	limit  atomic.Int64 // 0: none
	used   atomic.Int64 // the counter as last seen
	mu     sync.Mutex
	lease  int64 // pages reserved and not yet taken
	// inflight counts the pages reserved and neither released nor
	// published; published those published (both guarded by mu).
	inflight, published int64
	registered          bool // the counter holds this holder's entry
	// single: reserve one page at a time, no lease (the coordinator, whose
	// own fetches are few and whose Exhausted must see the crawl's end)
	single bool
	// suspect: a holder stopped renewing its entry and its pages are not
	// reclaimed yet (the coordinator's budget is not spent meanwhile)
	suspect atomic.Bool
}

// pageCounter is the value of pages.<crawl>.
type pageCounter struct {
	Used    int64                 `json:"used"`
	Holders map[string]pageHolder `json:"holders,omitempty"`
}

// pageHolder is one engine's entry in a pageCounter.
type pageHolder struct {
	// Taken counts the pages the holder holds: those it published, fetches
	// under way and its unused lease.
	Taken int64 `json:"taken"`
	// Published counts the pages of Taken the holder published (as of
	// its last write): Taken minus Published are the pages it is
	// fetching or holds leased.
	Published int64     `json:"published,omitempty"`
	Until     time.Time `json:"until"` // renewed every holderRenew
	// Gone marks a holder whose pages were reclaimed: Taken is then the
	// pages it had published, which stay counted. The entry stays until
	// Until (tombstoneTTL) so that a holder wrongly thought dead (a long
	// pause, a partition) can count its pages exactly when it comes back.
	Gone bool `json:"gone,omitempty"`
}

const (
	// maxLease bounds the pages one lease takes.
	maxLease = 8
	// holderRenew is how often a holder renews its entry; holderTTL how
	// long an entry lives unrenewed before its pages are reclaimed, and
	// holderLate how late a renewal may be before the holder is asked
	// whether it is alive (a dead process answers no more at once).
	holderRenew = time.Second
	holderTTL   = 10 * time.Second
	holderLate  = 3 * holderRenew
	// tombstoneTTL is how long the entry of a reclaimed holder is kept.
	tombstoneTTL = 10 * time.Minute
	// reconnectGrace is how long after its own reconnection the reclaimer
	// does not take a holder's silence on its subject for its death: after
	// a server restart the other clients may not have reconnected yet.
	reconnectGrace = holderTTL / 2
)

func newPageBudget(ctx context.Context, c *Conn, crawl string, limit int) *pageBudget {
	b := &pageBudget{c: c, ctx: ctx, crawl: crawl, key: "pages." + crawl, holder: nuid.Next(), log: c.log}
	b.limit.Store(int64(limit))
	// a holder answers on its subject while its process lives
	sub, err := c.nc.Subscribe(holderSubject(crawl, b.holder), func(m *nats.Msg) { m.Respond(nil) })
	if err != nil {
		b.log.Warn("page budget: no liveness subject; a death is seen when the entry expires", "err", err)
	} else {
		context.AfterFunc(ctx, func() { sub.Unsubscribe() })
	}
	return b
}

func holderSubject(crawl, holder string) string { return "dwcrawl.holder." + crawl + "." + holder }

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
		b.inflight++
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
	b.inflight++
	return true
}

// take moves a lease from the shared counter (0 when the budget is spent)
// and renews the holder's entry; called with mu held.
func (b *pageBudget) take() (int64, error) {
	var got int64
	_, err := b.update(b.ctx, func(free int64) int64 {
		limit := b.limit.Load()
		switch {
		case limit <= 0:
			got = maxLease
		case free <= 0:
			got = 0
		default:
			got = min(free, leaseSize(free, limit))
		}
		if b.single {
			got = min(got, 1)
		}
		return got
	})
	return got, err
}

// update writes this holder's entry with compare-and-set, renewed: Taken
// becomes the pages the holder holds (published, being fetched and its
// lease, which lease, when not nil, sets from the pages still free), and
// Used changes by as much as Taken. Writing what the holder knows, rather
// than adding to what the server holds, makes a retry harmless: an update
// the server applied and whose answer was lost (the server restarting) is
// not counted twice. A holder whose pages were reclaimed while it lived
// (thought dead: a long pause, a partition) counts its published pages and
// fetches again; its lease was given back with the reclaim. Called with mu
// held.
func (b *pageBudget) update(ctx context.Context, lease func(free int64) int64) (pageCounter, error) {
	lost := false
	var newLease int64
	pc, err := updateJSON(ctx, b.c, b.c.budgets, b.key, func(pc *pageCounter) (bool, error) {
		if pc.Holders == nil {
			pc.Holders = map[string]pageHolder{}
		}
		h, ok := pc.Holders[b.holder]
		lost = b.registered && (!ok || h.Gone)
		if !ok && b.registered {
			// reclaimed and forgotten: what it published stayed counted
			h.Taken = b.published
		}
		others := pc.Used - h.Taken
		held := b.published + b.inflight
		newLease = b.lease
		if lost {
			newLease = 0
		}
		if lease != nil {
			newLease = lease(b.limit.Load() - others - held)
		}
		taken := held + newLease
		now := b.c.clock.Now()
		if ok && !h.Gone && h.Taken == taken && h.Published == b.published && h.Until.Sub(now) > holderTTL-holderRenew {
			b.used.Store(pc.Used)
			return false, nil // nothing to change, renewed lately
		}
		h = pageHolder{Taken: taken, Published: b.published, Until: now.Add(holderTTL).UTC()}
		pc.Holders[b.holder] = h
		pc.Used = others + taken
		b.used.Store(pc.Used)
		return true, nil
	})
	if err != nil {
		return pc, err
	}
	b.registered = true
	if lost {
		b.log.Warn("page budget: this engine's pages were reclaimed while it lived; its lease is dropped", "key", b.key, "holder", b.holder, "lease", b.lease, "fetching", b.inflight)
	}
	b.lease = newLease
	return pc, nil
}

// Release gives an unused page back to the lease.
func (b *pageBudget) Release() {
	b.mu.Lock()
	b.lease++
	b.inflight--
	b.mu.Unlock()
}

// Published records that a page reserved here was published: it is no
// longer in flight.
func (b *pageBudget) Published() {
	b.mu.Lock()
	b.inflight--
	b.published++
	b.mu.Unlock()
}

// Exhausted reports whether the budget is spent as far as this engine
// knows: no lease left and the counter at the limit when last seen, with
// no dead holder's pages about to come back.
func (b *pageBudget) Exhausted() bool {
	limit := b.limit.Load()
	if limit <= 0 {
		return false
	}
	b.mu.Lock()
	lease := b.lease
	b.mu.Unlock()
	if lease != 0 || b.used.Load() < limit || b.suspect.Load() {
		return false
	}
	if b.single {
		// the coordinator ends the crawl on this answer: the watcher's
		// view may lag pages given back just now
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		err := b.refresh(ctx)
		cancel()
		if err == nil && b.used.Load() < limit {
			return false
		}
	}
	return true
}

// Pending counts the pages the crawl's other engines took that the
// coordinator has not recorded yet: those they hold (being fetched, or
// leased), by their entries, and those published that its results
// consumer has not applied. A dead engine's pages count until they are
// reclaimed (they then go back to the budget).
func (b *pageBudget) Pending(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var pc pageCounter
	if _, _, err := b.c.getJSON(ctx, b.c.budgets, b.key, &pc); err != nil {
		return 0, err
	}
	var n int64
	for id, h := range pc.Holders {
		if id != b.holder && !h.Gone {
			n += max(0, h.Taken-h.Published)
		}
	}
	var pending int64
	err := b.c.do(ctx, func(ctx context.Context) error {
		pending = 0
		cons, err := b.c.results.Consumer(ctx, coordConsumer(b.crawl))
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil // not consuming yet: nothing applied, nothing pending
		}
		if err != nil {
			return err
		}
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		waiting := int64(info.NumPending) + int64(info.NumAckPending)
		if waiting == 0 {
			// the consumer learns of a new message a moment after the
			// stream stored it: a result past its ack floor is pending too
			last, err := b.c.results.GetLastMsgForSubject(ctx, "dwcrawl.*."+b.crawl+".>")
			switch {
			case errors.Is(err, jetstream.ErrMsgNotFound):
			case err != nil:
				return err
			case last.Sequence > info.AckFloor.Stream:
				waiting = 1
			}
		}
		pending += waiting
		return nil
	})
	return n + pending, err
}

// refresh reads the shared counter (the watcher's view may lag, or have
// stopped while the server was away).
func (b *pageBudget) refresh(ctx context.Context) error {
	n, err := b.c.PagesReserved(ctx, b.crawl)
	if err == nil {
		b.observe(n)
	}
	return err
}

// observe records the counter's value (a watcher's update).
func (b *pageBudget) observe(used int64) { b.used.Store(used) }

// returnLease gives the unused lease back to the shared counter (an
// explorer between sites: a lease kept idle is pages nobody fetches).
func (b *pageBudget) returnLease(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.registered || b.lease == 0 {
		return nil
	}
	_, err := b.update(ctx, func(int64) int64 { return 0 })
	return err
}

// giveBack returns the unused lease to the shared counter (an engine that
// closes) and, when nothing is in flight, removes the holder's entry (its
// published pages stay counted).
func (b *pageBudget) giveBack(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.registered {
		return nil
	}
	done := b.inflight == 0
	_, err := updateJSON(ctx, b.c, b.c.budgets, b.key, func(pc *pageCounter) (bool, error) {
		if pc.Holders == nil {
			pc.Holders = map[string]pageHolder{}
		}
		h, ok := pc.Holders[b.holder]
		if !ok {
			h.Taken = b.published // reclaimed and forgotten
		}
		others := pc.Used - h.Taken
		if done {
			delete(pc.Holders, b.holder)
			pc.Used = others + b.published
			return true, nil
		}
		h = pageHolder{Taken: b.published + b.inflight, Published: b.published, Until: b.c.clock.Now().Add(holderTTL).UTC()}
		pc.Holders[b.holder] = h
		pc.Used = others + h.Taken
		return true, nil
	})
	if err == nil {
		b.lease = 0
		b.registered = !done
	}
	return err
}

// watch keeps the budget's view of the counter current and the holder's
// entry renewed until ctx ends.
func (b *pageBudget) watch(ctx context.Context) {
	go b.renew(ctx)
	watchKey(ctx, b.c, b.c.budgets, b.key, func(v []byte) {
		if n, err := parseCounter(v); err == nil {
			b.observe(n.Used)
		}
	})
}

// renew renews the holder's entry every holderRenew until ctx ends.
func (b *pageBudget) renew(ctx context.Context) {
	t := time.NewTicker(holderRenew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := b.renewNow(ctx); err != nil && ctx.Err() == nil {
			b.log.Debug("page budget: renewing", "key", b.key, "err", err)
		}
	}
}

// renewNow renews the holder's entry once (when it has one).
func (b *pageBudget) renewNow(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.registered {
		return nil
	}
	actx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	_, err := b.update(actx, nil)
	return err
}

// reclaim gives the budget back the pages of dead holders: pages taken
// and never published. A holder is dead once its entry expired, or once it
// is late renewing it and nobody answers on its subject (its connection
// is gone; not believed shortly after this engine reconnected, when the
// others may still be reconnecting). It returns the pages reclaimed, and
// marks the budget suspect while a late holder keeps pages the crawl may
// get back.
func (b *pageBudget) reclaim(ctx context.Context) (int64, error) {
	var pc pageCounter
	if _, ok, err := b.c.getJSON(ctx, b.c.budgets, b.key, &pc); err != nil || !ok {
		return 0, err
	}
	now := b.c.clock.Now()
	suspect := false
	var total int64
	for id, h := range pc.Holders {
		if id == b.holder {
			continue
		}
		if h.Gone {
			if now.After(h.Until) {
				b.forget(ctx, id, h)
			}
			continue
		}
		if now.Before(h.Until.Add(holderLate - holderTTL)) {
			continue
		}
		if now.Before(h.Until) {
			if b.c.sinceReconnect() < reconnectGrace {
				suspect = suspect || h.Taken > 0
				continue
			}
			pctx, cancel := context.WithTimeout(ctx, time.Second)
			_, err := b.c.nc.RequestWithContext(pctx, holderSubject(b.crawl, id), nil)
			cancel()
			if !errors.Is(err, nats.ErrNoResponders) {
				suspect = suspect || h.Taken > 0
				continue
			}
		}
		published, err := b.c.holderPages(ctx, b.crawl, id)
		if err != nil {
			return total, err
		}
		var back int64
		_, err = updateJSON(ctx, b.c, b.c.budgets, b.key, func(cur *pageCounter) (bool, error) {
			back = 0
			hh, ok := cur.Holders[id]
			if !ok || hh != h {
				return false, nil // renewed, given back or reclaimed meanwhile
			}
			back = max(0, hh.Taken-published)
			cur.Used = max(0, cur.Used-back)
			cur.Holders[id] = pageHolder{Taken: hh.Taken - back, Until: b.c.clock.Now().Add(tombstoneTTL).UTC(), Gone: true}
			return true, nil
		})
		if err != nil {
			return total, err
		}
		if back > 0 {
			b.log.Info("pages of a dead engine given back to the budget", "crawl", b.crawl, "holder", id, "taken", h.Taken, "recorded", published, "pages", back)
		}
		total += back
	}
	b.suspect.Store(suspect)
	return total, nil
}

// forget removes the entry of a holder reclaimed long ago; its pages stay
// counted.
func (b *pageBudget) forget(ctx context.Context, id string, h pageHolder) {
	_, err := updateJSON(ctx, b.c, b.c.budgets, b.key, func(cur *pageCounter) (bool, error) {
		if cur.Holders[id] != h {
			return false, nil
		}
		delete(cur.Holders, id)
		return true, nil
	})
	if err != nil && ctx.Err() == nil {
		b.log.Debug("page budget: forgetting a dead engine", "holder", id, "err", err)
	}
}

// holderPages counts the pages holder published for crawl.
func (c *Conn) holderPages(ctx context.Context, crawl, holder string) (int64, error) {
	var n int
	err := c.do(ctx, func(ctx context.Context) (err error) {
		n, err = subjectCount(ctx, c.results, "dwcrawl.page."+crawl+".*."+holder)
		return err
	})
	return int64(n), err
}

// parseCounter reads a pageCounter.
func parseCounter(v []byte) (pageCounter, error) {
	var pc pageCounter
	err := json.Unmarshal(v, &pc)
	return pc, err
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

// Refund gives back one query spent with Take that was never answered.
func (q *QueryBudget) Refund(ctx context.Context) error {
	_, err := updateJSON(ctx, q.c, q.c.budgets, q.key(), func(s *QueryBudgetState) (bool, error) {
		if s.Used == 0 {
			return false, nil
		}
		s.Used--
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("cluster: query budget %s: %w", q.name, err)
	}
	return nil
}

// Searcher wraps s so that every query it answers spends one query of the
// budget, as the single-machine budgets of surfacing and enrichment count
// them: the first result page of a query takes the query, its further
// pages are free, and a query whose first page fails is refunded (it is
// not counted on one machine either). Once the budget is spent, new
// queries fail with keyword.ErrBudget (permanent), which ends a surfacing
// or enrichment run normally.
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
	if page > 1 {
		return b.s.Search(ctx, query, page)
	}
	ok, err := b.q.Take(ctx)
	if err != nil {
		return keyword.Page{}, keyword.Permanent{Err: err}
	}
	if !ok {
		return keyword.Page{}, keyword.Permanent{Err: keyword.ErrBudget}
	}
	pg, err := b.s.Search(ctx, query, page)
	if err != nil {
		// bounded: a cancelled run still gives its query back
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if rerr := b.q.Refund(rctx); rerr != nil {
			b.q.c.log.Warn("refunding an unanswered query", "budget", b.q.name, "err", rerr)
		}
		cancel()
	}
	return pg, err
}

// budgetedTopK keeps the wrapped searcher's result limit visible.
type budgetedTopK struct {
	*budgetedSearcher
	keyword.TopKer
}

// ProbeBudget is a crawl's budget of probe queries (the profile's
// probe.budget) shared by every engine of the crawl (crawl.ProbeBudget):
// probes.<crawl> in BucketBudgets counts the queries reserved, updated
// with compare-and-set once per probed form.
type ProbeBudget struct {
	c     *Conn
	ctx   context.Context
	key   string
	limit atomic.Int64 // 0: none
}

// probeCounter is the value of probes.<crawl>.
type probeCounter struct {
	Used int64 `json:"used"`
}

func newProbeBudget(ctx context.Context, c *Conn, crawl string) *ProbeBudget {
	return &ProbeBudget{c: c, ctx: ctx, key: "probes." + crawl}
}

// SetLimit sets the crawl's probe budget (0: none).
func (b *ProbeBudget) SetLimit(n int) { b.limit.Store(int64(n)) }

// ReserveProbes takes n probe queries; false when fewer are left (or the
// budget cannot be reached: no probe is better than one over budget).
func (b *ProbeBudget) ReserveProbes(n int64) bool {
	ok := false
	_, err := updateJSON(b.ctx, b.c, b.c.budgets, b.key, func(pc *probeCounter) (bool, error) {
		limit := b.limit.Load()
		ok = limit <= 0 || pc.Used+n <= limit
		if ok {
			pc.Used += n
		}
		return ok, nil
	})
	if err != nil {
		if b.ctx.Err() == nil {
			b.c.log.Warn("probe budget unreachable", "key", b.key, "err", err)
		}
		return false
	}
	return ok
}

// ReleaseProbes gives back n reserved queries that were not sent.
func (b *ProbeBudget) ReleaseProbes(n int64) {
	_, err := updateJSON(b.ctx, b.c, b.c.budgets, b.key, func(pc *probeCounter) (bool, error) {
		pc.Used = max(0, pc.Used-n)
		return true, nil
	})
	if err != nil && b.ctx.Err() == nil {
		b.c.log.Warn("probe budget unreachable", "key", b.key, "err", err)
	}
}

// atLeast raises the count to n (a resumed coordinator's probes).
func (b *ProbeBudget) atLeast(ctx context.Context, n int64) error {
	_, err := updateJSON(ctx, b.c, b.c.budgets, b.key, func(pc *probeCounter) (bool, error) {
		if pc.Used >= n {
			return false, nil
		}
		pc.Used = n
		return true, nil
	})
	return err
}
