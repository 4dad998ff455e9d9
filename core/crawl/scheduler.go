package crawl

import (
	"context"
	"errors"
	"sync"

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
		if s.done || ctx.Err() != nil || e.exhausted() {
			s.stop()
			return frontier.Item{}, false
		}
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
		s.cond.Wait()
	}
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
		go func() {
			defer wg.Done()
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
		}()
	}
	wg.Wait()
	return s.err
}
