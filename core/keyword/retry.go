package keyword

import (
	"context"
	"errors"
	"time"

	"github.com/dwcrawl/dwcrawl/core/retry"
)

// RetryOptions configures Retrying; the policy is the project's one retry
// policy (package retry).
type RetryOptions struct {
	// Attempts is the number of tries per call (default 4).
	Attempts int
	// Backoff is the first wait, doubled after each failure (default 500ms);
	// the upper half of each wait is random (Jitter).
	Backoff time.Duration
	// MaxWait caps a single wait and is the longest Retry-After honoured:
	// a server asking for more fails the call at once (default 1 minute).
	MaxWait time.Duration
	// Jitter is the random fraction of each backoff (see retry.Policy):
	// 0 means half, negative none. Seed seeds it.
	Jitter float64
	Seed   uint64
	// Sleep waits (tests replace it); default honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Retrying wraps a Searcher with retries: temporary HTTP errors (408, 429,
// 5xx) and transport errors (timeouts, resets) are retried with exponential
// backoff and jitter, a server's Retry-After is honoured; Permanent errors,
// other HTTP errors, certificate errors, unknown hosts and the end of the
// caller's context fail at once. When s is a TopKer the result is one too,
// retried alike.
func Retrying(s Searcher, o RetryOptions) Searcher {
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.MaxWait <= 0 {
		o.MaxWait = time.Minute
	}
	clock := retry.Clock(retry.SystemClock{})
	if o.Sleep != nil {
		clock = sleepClock(o.Sleep)
	}
	r := &retrying{s: s, b: retry.New(retry.Policy{
		Retries: o.Attempts - 1, Base: o.Backoff, Max: o.MaxWait, MaxRetryAfter: o.MaxWait,
		Jitter: o.Jitter, Seed: o.Seed, Classify: classify, Clock: clock,
	})}
	if tk, ok := s.(TopKer); ok {
		return &retryingTopK{retrying: r, tk: tk}
	}
	return r
}

// sleepClock is a retry.Clock that sleeps with a replaced function.
type sleepClock func(ctx context.Context, d time.Duration) error

func (sleepClock) Now() time.Time                                     { return time.Now() }
func (c sleepClock) Sleep(ctx context.Context, d time.Duration) error { return c(ctx, d) }

type retrying struct {
	s Searcher
	b *retry.Backoff
}

func (r *retrying) Search(ctx context.Context, q string, page int) (Page, error) {
	var pg Page
	err := r.b.Do(ctx, func(ctx context.Context) (err error) {
		pg, err = r.s.Search(ctx, q, page)
		return err
	})
	return pg, err
}

type retryingTopK struct {
	*retrying
	tk TopKer
}

func (r *retryingTopK) TopK(ctx context.Context) (int, error) {
	var k int
	err := r.b.Do(ctx, func(ctx context.Context) (err error) {
		k, err = r.tk.TopK(ctx)
		return err
	})
	return k, err
}

// classify is Retrying's retry.Classifier: Permanent errors are final, an
// HTTPError is retried when its status is (with its Retry-After), anything
// else as the retry package decides for transport errors.
func classify(err error) (bool, time.Duration) {
	var p Permanent
	if errors.As(err, &p) {
		return false, 0
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Temporary(), he.RetryAfter
	}
	return retry.Classify(err)
}

// Permanent marks an error that retrying cannot fix.
type Permanent struct{ Err error }

// Error is the wrapped error's message.
func (p Permanent) Error() string { return p.Err.Error() }

// Unwrap returns the wrapped error.
func (p Permanent) Unwrap() error { return p.Err }

// Limited wraps a Searcher with a budget of requests: after max requests
// every search fails with Permanent{ErrBudget} (max ≤ 0: unlimited).
func Limited(s Searcher, max int) Searcher {
	if max <= 0 {
		return s
	}
	return &limited{s: s, left: max}
}

type limited struct {
	s    Searcher
	left int
}

func (l *limited) Search(ctx context.Context, q string, page int) (Page, error) {
	if l.left <= 0 {
		return Page{}, Permanent{ErrBudget}
	}
	l.left--
	return l.s.Search(ctx, q, page)
}
