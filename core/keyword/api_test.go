package keyword

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestNewAPISearcher(t *testing.T) {
	cases := []struct {
		base     string
		endpoint string // "" when the URL is refused
	}{
		{"http://127.0.0.1:8080/db", "http://127.0.0.1:8080/db/api/search"},
		{"http://127.0.0.1:8080/db/", "http://127.0.0.1:8080/db/api/search"},
		{"https://h.example/db/api/search", "https://h.example/db/api/search"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/api/search"},
		{"ftp://x/db", ""},
		{"http://", ""},
		{"/db", ""},
		{"::", ""},
	}
	for _, c := range cases {
		t.Run(c.base, func(t *testing.T) {
			s, err := NewAPISearcher(c.base)
			if c.endpoint == "" {
				if err == nil || !strings.Contains(err.Error(), c.base) {
					t.Fatalf("err = %v, want one naming %q", err, c.base)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.endpoint(); got != c.endpoint {
				t.Fatalf("endpoint %q, want %q", got, c.endpoint)
			}
		})
	}
}

func TestAPISearcherTopK(t *testing.T) {
	cases := []struct {
		name       string
		answer     string // the body of every 200 answer
		status     int    // of every answer, 0 for 200
		search     bool   // a search before TopK
		wantK      int
		wantErr    string
		wantProbes []string // the queries sent, in order
		permanent  bool
	}{
		{"probed with the empty query", `{"records":[],"total":0,"next":false,"k":25}`, 0, false, 25, "", []string{""}, false},
		{"remembered from a search", `{"records":[],"total":0,"next":false,"k":25}`, 0, true, 25, "", []string{"web"}, false},
		{"not declared", `{"records":[],"total":0,"next":false}`, 0, false, 0, "declares no result limit k", []string{"", ""}, true},
		{"HTTP error", "", http.StatusNotFound, false, 0, "HTTP 404", []string{"", ""}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var queries []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				queries = append(queries, r.FormValue("q"))
				mu.Unlock()
				if c.status != 0 {
					http.Error(w, "nope", c.status)
					return
				}
				w.Write([]byte(c.answer))
			}))
			defer srv.Close()
			s := &APISearcher{Base: srv.URL, Client: srv.Client()}
			ctx := context.Background()
			if c.search {
				if _, err := s.Search(ctx, "web", 1); err != nil {
					t.Fatal(err)
				}
			}
			// twice: a known k is not asked again
			for i := 0; i < 2; i++ {
				k, err := s.TopK(ctx)
				if k != c.wantK || (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
					t.Fatalf("TopK = %d, %v; want %d, %q", k, err, c.wantK, c.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), srv.URL) {
					t.Fatalf("error %v does not name the URL", err)
				}
				if err != nil && isPermanent(err) != c.permanent {
					t.Fatalf("error %v: permanent %v, want %v", err, !c.permanent, c.permanent)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(queries, ",") != strings.Join(c.wantProbes, ",") || len(queries) != len(c.wantProbes) {
				t.Fatalf("queries sent %q, want %q", queries, c.wantProbes)
			}
		})
	}
}

func TestAPISearcherErrors(t *testing.T) {
	cases := []struct {
		name      string
		handler   http.HandlerFunc
		want      string
		status    int // of the HTTPError, 0 when none
		retryWait time.Duration
		permanent bool
	}{
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "HTTP 404: 404 page not found", 404, 0, false},
		{"429 with Retry-After", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, "HTTP 429: slow down", 429, 3 * time.Second, false},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }, "decode", 0, 0, true},
		{"cut short", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"records":[`)) }, "decode", 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			s := &APISearcher{Base: srv.URL + "/db", Client: srv.Client()}
			_, err := s.Search(context.Background(), "q", 1)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), srv.URL+"/db/api/search?") {
				t.Fatalf("err = %v, want %q naming the URL", err, c.want)
			}
			var he *HTTPError
			if errors.As(err, &he) != (c.status != 0) || (he != nil && (he.Status != c.status || he.RetryAfter != c.retryWait)) {
				t.Fatalf("err = %#v, want status %d, Retry-After %v", err, c.status, c.retryWait)
			}
			if isPermanent(err) != c.permanent {
				t.Fatalf("error %v: permanent %v, want %v", err, !c.permanent, c.permanent)
			}
		})
	}
	// a refused connection: a transport error naming the URL
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	var calls atomic.Int32
	s := &APISearcher{Base: base, Client: doerFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return http.DefaultClient.Do(r)
	})}
	if _, err := s.Search(context.Background(), "q", 1); err == nil || !strings.Contains(err.Error(), base) || calls.Load() != 1 {
		t.Fatalf("closed server: err = %v after %d calls", err, calls.Load())
	}
}

func isPermanent(err error) bool {
	var p Permanent
	return errors.As(err, &p)
}

// doerFunc adapts a function to HTTPDoer.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 3 ", 3 * time.Second},
		{"-1", 0},
		{"Wed, 01 Jan 2025 12:00:10 GMT", 10 * time.Second},
		{"Wed, 01 Jan 2025 11:59:00 GMT", 0},
		{"garbage", 0},
	}
	for _, c := range cases {
		if got := ParseRetryAfter(c.in, now); got != c.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
