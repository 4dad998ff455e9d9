package keyword

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
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
		{"Retry-After over the cap gives up", []string{"429", ok}, "3600", false, 1, true, true, 0},
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
			s := Retrying(&APISearcher{Base: srv.URL, Client: srv.Client()}, RetryOptions{Backoff: 100 * time.Millisecond, Jitter: -1, Sleep: func(_ context.Context, d time.Duration) error {
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
		{"attempt timeout retried", context.DeadlineExceeded, false, 3},
		{"cancelled context", transport, true, 1},
		{"unknown host", &net.DNSError{Err: "no such host", Name: "db.invalid", IsNotFound: true}, false, 1},
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

func TestRetryingJitter(t *testing.T) {
	const seed = 11
	t.Logf("seed %d", seed)
	waits := func() []time.Duration {
		var got []time.Duration
		f := &fails{err: errors.New("connection reset")}
		s := Retrying(f, RetryOptions{Attempts: 5, Backoff: 100 * time.Millisecond, Seed: seed, Sleep: func(_ context.Context, d time.Duration) error {
			got = append(got, d)
			return nil
		}})
		s.Search(context.Background(), "q", 1)
		return got
	}
	got := waits()
	if len(got) != 4 {
		t.Fatalf("waits %v, want 4", got)
	}
	for i, d := range got {
		full := 100 * time.Millisecond << i
		if d < full/2 || d > full {
			t.Errorf("wait %d = %v, want in [%v, %v]", i+1, d, full/2, full)
		}
	}
	if again := waits(); !reflect.DeepEqual(got, again) {
		t.Errorf("seed %d gave %v then %v", seed, got, again)
	}
}

// deadlineSearcher fails with its context's error, as a client does when
// the caller's deadline passes.
type deadlineSearcher struct{ calls int }

func (d *deadlineSearcher) Search(ctx context.Context, _ string, _ int) (Page, error) {
	d.calls++
	<-ctx.Done()
	return Page{Total: -1}, ctx.Err()
}

func TestRetryingCallerDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	d := &deadlineSearcher{}
	_, err := Retrying(d, RetryOptions{Attempts: 3}).Search(ctx, "q", 1)
	if !errors.Is(err, context.DeadlineExceeded) || d.calls != 1 {
		t.Fatalf("err %v after %d calls, want the deadline after 1", err, d.calls)
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
