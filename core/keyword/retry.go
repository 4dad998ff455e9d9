package keyword

import (
	"context"
	"errors"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"time"
)

// RetryOptions configures Retrying.
type RetryOptions struct {
	// Attempts is the number of tries per call (default 4).
	Attempts int
	// Backoff is the first wait, doubled after each failure (default 500ms).
	Backoff time.Duration
	// MaxWait caps a single wait, including a server's Retry-After
	// (default 1 minute).
	MaxWait time.Duration
	// Sleep waits (tests replace it); default honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Retrying wraps a Searcher with retries: temporary HTTP errors (429, 5xx)
// and transport errors are retried with exponential backoff, a server's
// Retry-After is honoured; Permanent, context and other HTTP errors fail at
// once. When s is a TopKer the result is one too, retried alike.
func Retrying(s Searcher, o RetryOptions) Searcher {
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.MaxWait <= 0 {
		o.MaxWait = time.Minute
	}
	if o.Sleep == nil {
		o.Sleep = fetch.SystemClock{}.Sleep
	}
	r := &retrying{s: s, o: o}
	if tk, ok := s.(TopKer); ok {
		return &retryingTopK{retrying: r, tk: tk}
	}
	return r
}

type retrying struct {
	s Searcher
	o RetryOptions
}

func (r *retrying) Search(ctx context.Context, q string, page int) (Page, error) {
	var pg Page
	err := r.do(ctx, func() (err error) {
		pg, err = r.s.Search(ctx, q, page)
		return err
	})
	return pg, err
}

// do calls call until it succeeds, fails for good or runs out of attempts.
func (r *retrying) do(ctx context.Context, call func() error) error {
	wait := r.o.Backoff
	for a := 1; ; a++ {
		err := call()
		if err == nil || ctx.Err() != nil || a >= r.o.Attempts || !retryable(err) {
			return err
		}
		d := wait
		var he *HTTPError
		if errors.As(err, &he) {
			if !he.Temporary() {
				return err
			}
			if he.RetryAfter > 0 {
				d = he.RetryAfter
			}
		}
		if serr := r.o.Sleep(ctx, min(d, r.o.MaxWait)); serr != nil {
			return serr
		}
		wait *= 2
	}
}

type retryingTopK struct {
	*retrying
	tk TopKer
}

func (r *retryingTopK) TopK(ctx context.Context) (int, error) {
	var k int
	err := r.do(ctx, func() (err error) {
		k, err = r.tk.TopK(ctx)
		return err
	})
	return k, err
}

// Permanent marks an error that retrying cannot fix.
type Permanent struct{ Err error }

// Error is the wrapped error's message.
func (p Permanent) Error() string { return p.Err.Error() }

// Unwrap returns the wrapped error.
func (p Permanent) Unwrap() error { return p.Err }

// retryable reports whether err may pass on retry: not Permanent, not the
// context's end.
func retryable(err error) bool {
	var p Permanent
	if errors.As(err, &p) {
		return false
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

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
