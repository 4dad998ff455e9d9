package surface

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestAPISearcher(t *testing.T) {
	db := papersDB(t, 20, true)
	srv := httptest.NewServer(db.Handler("/db"))
	defer srv.Close()
	s := &APISearcher{Base: srv.URL + "/db", Client: srv.Client()}
	ctx := context.Background()
	var ids []string
	for page := 1; ; page++ {
		pg, err := s.Search(ctx, "web", page)
		if err != nil {
			t.Fatal(err)
		}
		if pg.Total != db.Count("web") {
			t.Fatalf("total %d, want %d", pg.Total, db.Count("web"))
		}
		for _, d := range pg.Docs {
			if d.Text == "" || d.URL == "" {
				t.Fatalf("record without text or URL: %+v", d)
			}
			ids = append(ids, d.ID)
		}
		if !pg.Next {
			break
		}
	}
	want := db.TopK("web")
	if len(ids) != len(want) {
		t.Fatalf("%d records over the pages, want the top %d", len(ids), len(want))
	}
	for i, x := range want {
		if db.Record(x).ID != ids[i] {
			t.Fatalf("result %d is %s, want %s", i, ids[i], db.Record(x).ID)
		}
	}
}

func TestRetrying(t *testing.T) {
	cases := []struct {
		name      string
		statuses  []int
		retryHdr  string
		wantCalls int32
		wantErr   bool
		wantWait  time.Duration
	}{
		{"ok", []int{200}, "", 1, false, 0},
		{"429 with Retry-After", []int{429, 200}, "7", 2, false, 7 * time.Second},
		{"5xx backoff", []int{503, 502, 200}, "", 3, false, 100*time.Millisecond + 200*time.Millisecond},
		{"4xx is final", []int{404}, "", 1, true, 0},
		{"gives up", []int{500, 500, 500, 500, 500}, "", 4, true, 700 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := atomic.AddInt32(&calls, 1)
				st := c.statuses[n-1]
				if st != 200 {
					if c.retryHdr != "" {
						w.Header().Set("Retry-After", c.retryHdr)
					}
					http.Error(w, "nope", st)
					return
				}
				w.Write([]byte(`{"records":[{"id":"1","text":"a"}],"total":null,"next":false}`))
			}))
			defer srv.Close()
			var waited time.Duration
			s := Retrying(&APISearcher{Base: srv.URL, Client: srv.Client()}, RetryOptions{Backoff: 100 * time.Millisecond, Sleep: func(_ context.Context, d time.Duration) error {
				waited += d
				return nil
			}})
			pg, err := s.Search(context.Background(), "q", 1)
			if (err != nil) != c.wantErr || calls != c.wantCalls || waited != c.wantWait {
				t.Fatalf("err %v, %d calls, waited %v", err, calls, waited)
			}
			if err == nil && (len(pg.Docs) != 1 || pg.Total != -1) {
				t.Fatalf("page %+v", pg)
			}
			var he *HTTPError
			if c.wantErr && !errors.As(err, &he) {
				t.Fatalf("error %v is not an HTTPError", err)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"Wed, 01 Jan 2025 12:00:10 GMT": 10 * time.Second,
		"garbage":                       0,
	}
	for in, want := range cases {
		if got := ParseRetryAfter(in, now); got != want {
			t.Fatalf("ParseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}
