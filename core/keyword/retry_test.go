package keyword

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func TestRetrying(t *testing.T) {
	const ok = `{"records":[{"id":"1","text":"a"}],"total":null,"next":false,"k":10}`
	cases := []struct {
		name      string
		answers   []string // status code or body of each answer, in order
		retryHdr  string
		topK      bool // call TopK instead of Search
		wantCalls int32
		wantErr   bool
		wantHTTP  bool // the error is an HTTPError
		wantWait  time.Duration
	}{
		{"ok", []string{ok}, "", false, 1, false, false, 0},
		{"429 with Retry-After", []string{"429", ok}, "7", false, 2, false, false, 7 * time.Second},
		{"Retry-After capped", []string{"429", ok}, "3600", false, 2, false, false, time.Minute},
		{"5xx backoff", []string{"503", "502", ok}, "", false, 3, false, false, 100*time.Millisecond + 200*time.Millisecond},
		{"4xx is final", []string{"404"}, "", false, 1, true, true, 0},
		{"gives up", []string{"500", "500", "500", "500", "500"}, "", false, 4, true, true, 700 * time.Millisecond},
		{"not JSON is final", []string{"<html>", ok}, "", false, 1, true, false, 0},
		{"cut answer retried", []string{`{"records":[`, ok}, "", false, 2, false, false, 100 * time.Millisecond},
		{"TopK probe retried", []string{"503", ok}, "", true, 2, false, false, 100 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				a := c.answers[calls.Add(1)-1]
				if st, err := strconv.Atoi(a); err == nil {
					if c.retryHdr != "" {
						w.Header().Set("Retry-After", c.retryHdr)
					}
					http.Error(w, "nope", st)
					return
				}
				w.Write([]byte(a))
			}))
			defer srv.Close()
			var waited time.Duration
			s := Retrying(&APISearcher{Base: srv.URL, Client: srv.Client()}, RetryOptions{Backoff: 100 * time.Millisecond, Sleep: func(_ context.Context, d time.Duration) error {
				waited += d
				return nil
			}})
			var err error
			if c.topK {
				var k int
				k, err = s.(TopKer).TopK(context.Background())
				if err == nil && k != 10 {
					t.Fatalf("TopK = %d, want 10", k)
				}
			} else {
				var pg Page
				pg, err = s.Search(context.Background(), "q", 1)
				if err == nil && (len(pg.Docs) != 1 || pg.Total != -1) {
					t.Fatalf("page %+v", pg)
				}
			}
			if (err != nil) != c.wantErr || calls.Load() != c.wantCalls || waited != c.wantWait {
				t.Fatalf("err %v, %d calls, waited %v; want error %v, %d calls, %v", err, calls.Load(), waited, c.wantErr, c.wantCalls, c.wantWait)
			}
			var he *HTTPError
			if errors.As(err, &he) != c.wantHTTP {
				t.Fatalf("error %v: HTTPError %v, want %v", err, !c.wantHTTP, c.wantHTTP)
			}
		})
	}
}

// fails is a Searcher failing with err, counting its calls.
type fails struct {
	err   error
	calls int
}

func (f *fails) Search(context.Context, string, int) (Page, error) {
	f.calls++
	return Page{Total: -1}, f.err
}

func TestRetryingErrors(t *testing.T) {
	transport := errors.New("connection reset")
	cases := []struct {
		name      string
		err       error
		cancel    bool
		wantCalls int
	}{
		{"transport error retried", transport, false, 3},
		{"permanent", Permanent{transport}, false, 1},
		{"permanent 503", Permanent{&HTTPError{Status: 503}}, false, 1},
		{"budget", Permanent{ErrBudget}, false, 1},
		{"context", context.DeadlineExceeded, false, 1},
		{"cancelled context", transport, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.cancel {
				cancel()
			}
			f := &fails{err: c.err}
			s := Retrying(f, RetryOptions{Attempts: 3, Backoff: time.Millisecond})
			if _, ok := s.(TopKer); ok {
				t.Fatal("Retrying made a TopKer of a searcher that is not one")
			}
			if _, err := s.Search(ctx, "q", 1); !errors.Is(err, c.err) && !(c.cancel && errors.Is(err, context.Canceled)) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if f.calls != c.wantCalls {
				t.Fatalf("%d calls, want %d", f.calls, c.wantCalls)
			}
		})
	}
}

func TestLimited(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		max, ok int
	}{{0, 5}, {-1, 5}, {3, 3}}
	for _, c := range cases {
		s := Limited(answering{}, c.max)
		n := 0
		for i := 0; i < 5; i++ {
			_, err := s.Search(ctx, "web", 1)
			if err == nil {
				n++
				continue
			}
			var p Permanent
			if !errors.Is(err, ErrBudget) || !errors.As(err, &p) {
				t.Fatalf("max %d: err = %v, want a permanent ErrBudget", c.max, err)
			}
		}
		if n != c.ok {
			t.Fatalf("max %d: %d searches answered, want %d", c.max, n, c.ok)
		}
	}
}
