package crawl

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/frontier"
)

// scheduler hands frontier items to a fixed set of workers. A worker that
// finds the frontier empty waits while others are busy (they may add items);
// the crawl ends when the frontier is empty and no worker is busy, the
// budget is spent, the context is cancelled or a worker fails.
type scheduler struct {
	mu     sync.Mutex // also guards the runner's own state
	cond   *sync.Cond
	active int
	done   bool
	err    error
	// pendingSince is when a coordinator began waiting for pages its
	// explorers hold (awaitPending), pendingLogged when it last said so.
	pendingSince, pendingLogged time.Time
}

func (s *scheduler) init() { s.cond = sync.NewCond(&s.mu) }

// queue is what a runner gives the scheduler, called with s.mu held.
type queue struct {
	// pop returns the next item, ok false when the frontier is empty.
	pop func() (frontier.Item, bool, error)
	// refill, if set, may add items when the frontier runs low (it may
	// release and retake s.mu); true means look at the frontier again.
	refill func(ctx context.Context) bool
	// busy reports extra work in progress that may add items.
	busy func() bool
}

// next returns the next item to process.
func (s *scheduler) next(ctx context.Context, e *Engine, q queue) (frontier.Item, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.done || ctx.Err() != nil {
			s.stop()
			return frontier.Item{}, false
		}
		// a coordinator's sites still out may give pages back (an
		// explorer's unused lease, a page two explorers fetched): it waits
		// for them before taking the budget for spent
		exhausted := e.exhausted()
		if exhausted && (e.coord == nil || s.active == 0) {
			if e.coord != nil && s.awaitPending(ctx, e) {
				continue
			}
			s.stop()
			return frontier.Item{}, false
		}
		s.pendingSince = time.Time{}
		if !exhausted {
			if q.refill != nil && q.refill(ctx) {
				continue
			}
			it, ok, err := q.pop()
			if err != nil {
				s.fail(err)
				return frontier.Item{}, false
			}
			if ok {
				s.active++
				return it, true
			}
			if s.active == 0 && (q.busy == nil || !q.busy()) {
				s.stop()
				return frontier.Item{}, false
			}
		}
		if e.turns != nil {
			// waiting here would hold the turn the busy workers need
			s.mu.Unlock()
			e.turns.yield(ctx)
			s.mu.Lock()
			continue
		}
		s.cond.Wait()
	}
}

// pendingPoll is how often a coordinator whose budget is spent looks
// again for pages its explorers took and it has not recorded;
// pendingPatience how long it waits for them before it ends the crawl
// without them (an explorer that neither records nor gives back pages
// it holds, nor dies: it should not happen).
const pendingPoll = 200 * time.Millisecond

var pendingPatience = 5 * time.Minute // a variable for the tests

// awaitPending reports whether a coordinator whose budget is spent should
// wait for pages other engines took and it has not recorded yet (an
// explorer still fetching, a page published and not yet imported), and
// if so waits a moment; called with s.mu held, which it releases
// meanwhile. It gives up, with a warning, after pendingPatience.
func (s *scheduler) awaitPending(ctx context.Context, e *Engine) bool {
	pb, ok := e.deps.Budget.(PendingBudget)
	if !ok {
		return false
	}
	s.mu.Unlock()
	n, err := pb.Pending(ctx)
	s.mu.Lock()
	if err == nil && n <= 0 || ctx.Err() != nil {
		// a worker may have taken an item meanwhile (a page given back)
		return s.active > 0 || s.done
	}
	now := time.Now()
	if s.pendingSince.IsZero() {
		s.pendingSince, s.pendingLogged = now, now
	}
	if waited := now.Sub(s.pendingSince); waited > pendingPatience {
		e.log.Warn("the budget is spent and pages explorers took are still not recorded; ending without them", "pages", n, "err", err, "waited", waited.Round(time.Second))
		return false
	}
	if now.Sub(s.pendingLogged) >= 10*time.Second {
		s.pendingLogged = now
		e.log.Info("the budget is spent: waiting for the pages explorers still hold", "pages", n, "err", err)
	}
	s.mu.Unlock()
	t := time.NewTimer(pendingPoll)
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	t.Stop()
	s.mu.Lock()
	return true
}

func (s *scheduler) stop() {
	s.done = true
	s.cond.Broadcast()
}

// fail ends the crawl with err; called with s.mu held.
func (s *scheduler) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.stop()
}

// run starts n workers that process items until the crawl ends, and waits
// for them. A spent budget ends the crawl without an error.
func (s *scheduler) run(ctx context.Context, e *Engine, n int, q queue, process func(context.Context, frontier.Item) error) error {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(ctx context.Context) {
			defer wg.Done()
			if e.turns != nil {
				ctx = withSlot(ctx, i)
				e.turns.acquire(i)
				defer e.turns.leave(i)
			}
			for {
				it, ok := s.next(ctx, e, q)
				if !ok {
					return
				}
				err := process(ctx, it)
				s.mu.Lock()
				s.active--
				switch {
				case err == nil, errors.Is(err, context.Canceled):
				case errors.Is(err, ErrBudget):
					s.done = true
				default:
					s.fail(err)
				}
				s.cond.Broadcast()
				s.mu.Unlock()
			}
		}(ctx)
	}
	wg.Wait()
	return s.err
}

// turns makes a crawl with several workers reproducible page for page
// (Options.Reproducible): the workers take turns in a fixed ring, and a
// worker holds its turn for everything that reads or changes the crawl's
// state (taking an item, choosing and recording pages, ranking, learning)
// and gives it up only while it fetches and parses a page. The state
// changes therefore happen in an order that depends on the seed, never on
// timing; fetches still overlap. A slow fetch holds up the ring, so the
// crawl is slower than a free-running one.
type turns struct {
	mu   sync.Mutex
	cond *sync.Cond
	turn int
	gone []bool
}

func newTurns(n int) *turns {
	t := &turns{gone: make([]bool, n)}
	t.cond = sync.NewCond(&t.mu)
	return t
}

type slotKey struct{}

// withSlot records a worker's slot in its context.
func withSlot(ctx context.Context, slot int) context.Context {
	return context.WithValue(ctx, slotKey{}, slot)
}

// slotOf returns the worker slot of ctx, -1 outside a worker.
func slotOf(ctx context.Context) int {
	if s, ok := ctx.Value(slotKey{}).(int); ok {
		return s
	}
	return -1
}

// acquire waits for slot's turn.
func (t *turns) acquire(slot int) {
	t.mu.Lock()
	for t.turn != slot {
		t.cond.Wait()
	}
	t.mu.Unlock()
}

// release gives the turn to the next slot still working.
func (t *turns) release(slot int) {
	t.mu.Lock()
	t.passLocked(slot)
	t.mu.Unlock()
}

func (t *turns) passLocked(slot int) {
	if t.turn != slot {
		return
	}
	n := len(t.gone)
	for i := 1; i <= n; i++ {
		if next := (slot + i) % n; !t.gone[next] {
			t.turn = next
			break
		}
	}
	t.cond.Broadcast()
}

// leave takes slot out of the ring (its worker is done), passing its turn.
func (t *turns) leave(slot int) {
	t.mu.Lock()
	t.gone[slot] = true
	t.passLocked(slot)
	t.mu.Unlock()
}

// yield lets the other slots have their turns once.
func (t *turns) yield(ctx context.Context) {
	if slot := slotOf(ctx); slot >= 0 {
		t.release(slot)
		t.acquire(slot)
	}
}

// pause gives up the turn of ctx's worker while it waits for the network;
// resume takes it back. Both do nothing in a free-running crawl or outside
// a worker.
func (e *Engine) pause(ctx context.Context) {
	if slot := slotOf(ctx); e.turns != nil && slot >= 0 {
		e.turns.release(slot)
	}
}

func (e *Engine) resume(ctx context.Context) {
	if slot := slotOf(ctx); e.turns != nil && slot >= 0 {
		e.turns.acquire(slot)
	}
}
