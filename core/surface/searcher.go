package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/hiddendb"
)

// DBSearcher searches a hiddendb.DB in process (tests, quick benchmarks).
type DBSearcher struct{ DB *hiddendb.DB }

// Search answers one page of the database's top-k results.
func (s DBSearcher) Search(ctx context.Context, q string, page int) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	r := s.DB.Search(q, page)
	pg := Page{Total: -1, Next: r.Next}
	if s.DB.Options().ShowTotal {
		pg.Total = r.Total
	}
	for _, h := range r.Records {
		pg.Docs = append(pg.Docs, Doc{ID: h.ID, Text: s.DB.Text(h.Index), Fields: h.Fields})
	}
	return pg, nil
}

// HTTPError is a non-2xx answer of a keyword interface.
type HTTPError struct {
	Status int
	// RetryAfter is the server's Retry-After, 0 when absent.
	RetryAfter time.Duration
	Body       string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body)
}

// Temporary reports whether retrying may help (429 and 5xx).
func (e *HTTPError) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// ParseRetryAfter reads a Retry-After header (seconds or HTTP date).
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// HTTPDoer sends requests; *http.Client satisfies it.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// APISearcher is the client of a hiddendb/simweb JSON search API:
// GET Base+"/api/search?q=…&page=…".
type APISearcher struct {
	Base   string // e.g. http://127.0.0.1:8080/db
	Client HTTPDoer
}

// Search fetches one result page.
func (s *APISearcher) Search(ctx context.Context, q string, page int) (Page, error) {
	u := strings.TrimRight(s.Base, "/") + "/api/search?" + url.Values{"q": {q}, "page": {strconv.Itoa(page)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Page{}, err
	}
	req.Header.Set("Accept", "application/json")
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return Page{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Page{}, &HTTPError{Status: resp.StatusCode, RetryAfter: ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), Body: strings.TrimSpace(string(b))}
	}
	var r hiddendb.APIResult
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return Page{}, fmt.Errorf("decode %s: %w", u, err)
	}
	pg := Page{Total: -1, Next: r.Next}
	if r.Total != nil {
		pg.Total = *r.Total
	}
	for _, rec := range r.Records {
		pg.Docs = append(pg.Docs, Doc{ID: rec.ID, URL: rec.URL, Text: rec.Text, Fields: rec.Fields})
	}
	return pg, nil
}

// RetryOptions configures Retrying.
type RetryOptions struct {
	// Attempts is the number of tries per page (default 4).
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
// and transport errors are retried with exponential backoff, a 429's
// Retry-After is honoured; other errors fail at once.
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
		o.Sleep = sleepCtx
	}
	return &retrying{s: s, o: o}
}

type retrying struct {
	s Searcher
	o RetryOptions
}

func (r *retrying) Search(ctx context.Context, q string, page int) (Page, error) {
	wait := r.o.Backoff
	var err error
	for a := 1; ; a++ {
		var pg Page
		pg, err = r.s.Search(ctx, q, page)
		if err == nil || ctx.Err() != nil || a >= r.o.Attempts {
			return pg, err
		}
		d := wait
		var he *HTTPError
		if errors.As(err, &he) {
			if !he.Temporary() {
				return pg, err
			}
			if he.RetryAfter > 0 {
				d = he.RetryAfter
			}
		} else if !retryable(err) {
			return pg, err
		}
		if d > r.o.MaxWait {
			d = r.o.MaxWait
		}
		if serr := r.o.Sleep(ctx, d); serr != nil {
			return pg, serr
		}
		wait *= 2
	}
}

// Permanent marks an error that retrying cannot fix.
type Permanent struct{ Err error }

func (p Permanent) Error() string { return p.Err.Error() }
func (p Permanent) Unwrap() error { return p.Err }

func retryable(err error) bool {
	var p Permanent
	if errors.As(err, &p) {
		return false
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Limited wraps a Searcher with a per-interface budget of requests: after
// max requests every search fails with ErrBudget (max ≤ 0: unlimited).
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
