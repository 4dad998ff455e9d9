package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/clock"
)

// newFakeClock is a fake clock that advances only when slept on or
// advanced, and records every sleep.
func newFakeClock() *clock.Fake { return clock.NewFake(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) }

const testSeed = 42

// newTestFetcher returns a fetcher for loopback test servers on a fake clock.
func newTestFetcher(t testing.TB, opt Options) (*Fetcher, *clock.Fake) {
	t.Helper()
	clk := newFakeClock()
	opt.AllowPrivate = true
	if opt.Clock == nil {
		opt.Clock = clk
	}
	opt.Seed = testSeed
	opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	f, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f, clk
}

// site is a test server whose robots.txt and pages are set per test.
type site struct {
	*httptest.Server
	robots     atomic.Value // string; "" → 404
	robotsHits atomic.Int32
	mux        *http.ServeMux
}

func newSite(t testing.TB, robots string) *site {
	t.Helper()
	s := &site{mux: http.NewServeMux()}
	s.robots.Store(robots)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			s.robotsHits.Add(1)
			body := s.robots.Load().(string)
			switch {
			case body == "":
				http.NotFound(w, r)
			case strings.HasPrefix(body, "STATUS "):
				var code int
				fmt.Sscanf(body, "STATUS %d", &code)
				w.WriteHeader(code)
			default:
				io.WriteString(w, body)
			}
			return
		}
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func html(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><body>"+body+"</body></html>")
	}
}

func TestFetchOK(t *testing.T) {
	s := newSite(t, "")
	var ua atomic.Value
	s.mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.Header.Get("User-Agent"))
		html("hello")(w, r)
	})
	f, _ := newTestFetcher(t, Options{})
	resp, err := f.Fetch(context.Background(), s.URL+"/page?b=2&a=1&jsessionid=0123456789ABCDEF#frag")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || resp.ContentType != "text/html" || resp.Charset != "utf-8" || resp.Attempts != 1 {
		t.Errorf("resp = %+v", resp)
	}
	if resp.URL != s.URL+"/page?a=1&b=2" {
		t.Errorf("URL = %q, want it canonical (query sorted, session id and fragment dropped)", resp.URL)
	}
	if !bytes.Contains(resp.Body, []byte("hello")) {
		t.Errorf("body = %q", resp.Body)
	}
	if got := ua.Load().(string); !strings.HasPrefix(got, "dwcrawl/") || !strings.Contains(got, "(+http") {
		t.Errorf("User-Agent = %q", got)
	}
}

func TestFetchCharset(t *testing.T) {
	s := newSite(t, "")
	latin1 := []byte("<html><body>caf\xe9 cr\xe8me</body></html>")
	s.mux.HandleFunc("/header", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
		w.Write(latin1)
	})
	s.mux.HandleFunc("/meta", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(append([]byte(`<meta charset="windows-1252">`), latin1...))
	})
	s.mux.HandleFunc("/sniff", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no header: sniffed
		io.WriteString(w, "<!DOCTYPE html><html><body>na\u00efve</body></html>")
	})
	f, _ := newTestFetcher(t, Options{})
	for _, tt := range []struct{ path, charset, want string }{
		{"/header", "windows-1252", "café crème"}, // the WHATWG name of ISO-8859-1
		{"/meta", "windows-1252", "café crème"},
		{"/sniff", "utf-8", "naïve"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := f.Fetch(context.Background(), s.URL+tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Charset != tt.charset || !strings.Contains(string(resp.Body), tt.want) || resp.ContentType != "text/html" {
				t.Errorf("charset %q content-type %q body %q", resp.Charset, resp.ContentType, resp.Body)
			}
		})
	}
}

func TestFetchRetries(t *testing.T) {
	tests := []struct {
		name      string
		fails     int           // failures before success (-1: always)
		status    int           // failure status
		retryHdr  string        // Retry-After on failures
		retries   int           // Options.Retries
		wantErr   error         // nil: success expected
		wantTries int           // attempts made
		wantSleep time.Duration // exact sleep expected before the 1st retry (0: backoff range)
	}{
		{name: "503 then ok", fails: 2, status: 503, retries: 3, wantTries: 3},
		{name: "500 always", fails: -1, status: 500, retries: 2, wantErr: ErrStatus, wantTries: 3},
		{name: "429 retry-after", fails: 1, status: 429, retryHdr: "7", retries: 3, wantTries: 2, wantSleep: 7 * time.Second},
		{name: "retry-after too long", fails: -1, status: 503, retryHdr: "3600", retries: 3, wantErr: ErrStatus, wantTries: 1},
		{name: "404 not retried", fails: -1, status: 404, retries: 3, wantErr: ErrStatus, wantTries: 1},
		{name: "no retries", fails: 1, status: 502, retries: 0, wantErr: ErrStatus, wantTries: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("seed %d", testSeed)
			s := newSite(t, "")
			var n atomic.Int32
			s.mux.HandleFunc("/p", func(w http.ResponseWriter, r *http.Request) {
				if k := n.Add(1); tt.fails < 0 || int(k) <= tt.fails {
					if tt.retryHdr != "" {
						w.Header().Set("Retry-After", tt.retryHdr)
					}
					w.WriteHeader(tt.status)
					return
				}
				html("ok")(w, r)
			})
			f, clk := newTestFetcher(t, Options{Retries: tt.retries, BackoffBase: time.Second, BackoffMax: 8 * time.Second})
			resp, err := f.Fetch(context.Background(), s.URL+"/p")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if resp.Attempts != tt.wantTries || int(n.Load()) != tt.wantTries {
				t.Errorf("attempts = %d (server saw %d), want %d", resp.Attempts, n.Load(), tt.wantTries)
			}
			if tt.wantErr != nil && resp.Status != tt.status {
				t.Errorf("status = %d, want %d", resp.Status, tt.status)
			}
			sleeps := clk.Sleeps()
			if len(sleeps) != tt.wantTries-1 {
				t.Fatalf("sleeps = %v, want %d", sleeps, tt.wantTries-1)
			}
			for i, d := range sleeps {
				base := time.Second << i // backoff doubles: [base/2, base]
				switch {
				case i == 0 && tt.wantSleep != 0:
					if d != tt.wantSleep {
						t.Errorf("sleep %d = %s, want %s", i, d, tt.wantSleep)
					}
				case d < base/2 || d > base:
					t.Errorf("sleep %d = %s, want in [%s, %s]", i, d, base/2, base)
				}
			}
		})
	}
}

func TestFetchTimeout(t *testing.T) {
	s := newSite(t, "")
	release := make(chan struct{})
	var n atomic.Int32
	s.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	f, _ := newTestFetcher(t, Options{Timeout: 50 * time.Millisecond, Retries: 1})
	resp, err := f.Fetch(context.Background(), s.URL+"/slow")
	if err == nil || Reason(err) != "timeout" {
		t.Fatalf("err = %v (reason %q), want a timeout", err, Reason(err))
	}
	if resp.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", resp.Attempts)
	}
}

// resetConn answers a request by resetting the TCP connection.
func resetConn(t testing.TB, w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) // close with RST
	}
	conn.Close()
}

func TestFetchReset(t *testing.T) {
	s := newSite(t, "")
	var n atomic.Int32
	s.mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			resetConn(t, w)
			return
		}
		html("made it")(w, r)
	})
	s.mux.HandleFunc("/dead", func(w http.ResponseWriter, r *http.Request) { resetConn(t, w) })
	f, _ := newTestFetcher(t, Options{Retries: 3})
	resp, err := f.Fetch(context.Background(), s.URL+"/flaky")
	if err != nil || !bytes.Contains(resp.Body, []byte("made it")) {
		t.Fatalf("flaky: err %v body %q", err, resp.Body)
	}
	// the server reset two requests; the Transport itself resends a
	// request reset on a kept-alive connection once, so the fetcher may
	// have counted only two attempts of its own
	if got := n.Load(); got != 3 || resp.Attempts < 2 {
		t.Errorf("server saw %d requests (want 3), fetcher attempts %d (want ≥ 2)", got, resp.Attempts)
	}
	resp, err = f.Fetch(context.Background(), s.URL+"/dead")
	if err == nil || Reason(err) != "network" || resp.Attempts != 4 {
		t.Errorf("dead: err %v (reason %q), attempts %d", err, Reason(err), resp.Attempts)
	}
}

func TestFetchLimits(t *testing.T) {
	s := newSite(t, "")
	big := bytes.Repeat([]byte("a"), 3<<20)
	s.mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(big)
	})
	s.mux.HandleFunc("/small", html("x"))
	s.mux.HandleFunc("/img", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG"))
	})
	s.mux.HandleFunc("/pdf-sniffed", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		w.Write([]byte("%PDF-1.4 ..."))
	})
	s.mux.HandleFunc("/xhtml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xhtml+xml")
		io.WriteString(w, "<html/>")
	})
	f, _ := newTestFetcher(t, Options{MaxBody: 1 << 20})
	tests := []struct {
		path      string
		wantErr   error
		truncated bool
		size      int
	}{
		{"/huge", nil, true, 1 << 20},
		{"/small", nil, false, -1},
		{"/img", ErrContentType, false, -1},
		{"/pdf-sniffed", ErrContentType, false, -1},
		{"/xhtml", nil, false, -1},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := f.Fetch(context.Background(), s.URL+tt.path)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if resp.Truncated != tt.truncated || (tt.size >= 0 && len(resp.Body) != tt.size) {
				t.Errorf("truncated %v, %d bytes", resp.Truncated, len(resp.Body))
			}
		})
	}
	all, _ := newTestFetcher(t, Options{ContentTypes: []string{"image/*"}})
	if _, err := all.Fetch(context.Background(), s.URL+"/img"); err != nil {
		t.Errorf("image/* filter refused image/png: %v", err)
	}
}

func TestFetchRedirects(t *testing.T) {
	s := newSite(t, "")
	redirect := func(to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
	}
	s.mux.HandleFunc("/a", redirect("/b"))
	s.mux.HandleFunc("/b", redirect("/a"))
	s.mux.HandleFunc("/self", redirect("/self"))
	s.mux.HandleFunc("/old", redirect("/hop?x=1"))
	s.mux.HandleFunc("/hop", redirect("new#top"))
	s.mux.HandleFunc("/new", html("arrived"))
	for i := 0; i < 12; i++ {
		s.mux.HandleFunc(fmt.Sprintf("/chain%d", i), redirect(fmt.Sprintf("/chain%d", i+1)))
	}
	s.mux.HandleFunc("/chain12", html("end of chain"))
	f, _ := newTestFetcher(t, Options{MaxRedirects: 5})
	tests := []struct {
		path    string
		wantErr error
		final   string
		hops    int
	}{
		{"/old", nil, "/new", 2},
		{"/a", ErrRedirectLoop, "", 2},
		{"/self", ErrRedirectLoop, "", 1},
		{"/chain0", ErrTooManyRedirects, "", 6},
		{"/chain8", nil, "/chain12", 4},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := f.Fetch(context.Background(), s.URL+tt.path)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if len(resp.Redirects) != tt.hops || resp.Redirects[0] != s.URL+tt.path {
				t.Errorf("redirects = %v, want %d starting at %s", resp.Redirects, tt.hops, tt.path)
			}
			if tt.final != "" && resp.URL != s.URL+tt.final {
				t.Errorf("final URL = %s, want %s", resp.URL, s.URL+tt.final)
			}
		})
	}
}

func TestFetchRobots(t *testing.T) {
	s := newSite(t, "User-agent: *\nDisallow: /private\n")
	s.mux.HandleFunc("/", html("page"))
	s.mux.HandleFunc("/goprivate", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/private/x", http.StatusMovedPermanently)
	})
	f, clk := newTestFetcher(t, Options{RobotsTTL: time.Hour, RobotsErrorTTL: time.Minute})
	ctx := context.Background()
	tests := []struct {
		path    string
		wantErr error
	}{
		{"/public", nil},
		{"/private/x", ErrDisallowed},
		{"/goprivate", ErrDisallowed}, // the redirect target is checked too
		{"/privateer", ErrDisallowed},
		{"/p", nil},
	}
	for _, tt := range tests {
		if _, err := f.Fetch(ctx, s.URL+tt.path); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("%s: err = %v, want %v", tt.path, err, tt.wantErr)
		}
	}
	if n := s.robotsHits.Load(); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1 (cached)", n)
	}
	// Expiry: a new robots.txt is read after the TTL.
	s.robots.Store("User-agent: *\nDisallow: /public\n")
	clk.Advance(2 * time.Hour)
	if _, err := f.Fetch(ctx, s.URL+"/public"); !errors.Is(err, ErrDisallowed) {
		t.Errorf("after expiry: err = %v, want ErrDisallowed", err)
	}
	// 5xx: the host is disallowed for RobotsErrorTTL, then asked again.
	s.robots.Store("STATUS 503")
	clk.Advance(2 * time.Hour)
	if _, err := f.Fetch(ctx, s.URL+"/p"); !errors.Is(err, ErrDisallowed) {
		t.Errorf("robots 503: err = %v, want ErrDisallowed", err)
	}
	s.robots.Store("STATUS 404")
	if _, err := f.Fetch(ctx, s.URL+"/p"); !errors.Is(err, ErrDisallowed) {
		t.Errorf("robots 503 still cached: err = %v, want ErrDisallowed", err)
	}
	clk.Advance(2 * time.Minute)
	if _, err := f.Fetch(ctx, s.URL+"/p"); err != nil {
		t.Errorf("robots 404 after error TTL: err = %v, want allowed", err)
	}
	// IgnoreRobots.
	s.robots.Store("User-agent: *\nDisallow: /\n")
	ig, _ := newTestFetcher(t, Options{IgnoreRobots: true})
	if _, err := ig.Fetch(ctx, s.URL+"/p"); err != nil {
		t.Errorf("IgnoreRobots: %v", err)
	}
}

func TestFetchPoliteness(t *testing.T) {
	tests := []struct {
		name   string
		robots string
		delay  time.Duration
		maxCD  time.Duration
		want   time.Duration // pause between consecutive requests
	}{
		{"crawl-delay", "User-agent: *\nCrawl-delay: 2\n", 0, 0, 2 * time.Second},
		{"option delay wins", "User-agent: *\nCrawl-delay: 1\n", 3 * time.Second, 0, 3 * time.Second},
		{"crawl-delay capped", "User-agent: *\nCrawl-delay: 100\n", 0, 5 * time.Second, 5 * time.Second},
		{"no delay", "", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.robots)
			var mu sync.Mutex
			var starts []time.Time
			var clk *clock.Fake
			s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				starts = append(starts, clk.Now())
				mu.Unlock()
				html("x")(w, r)
			})
			var f *Fetcher
			f, clk = newTestFetcher(t, Options{Delay: tt.delay, MaxCrawlDelay: tt.maxCD})
			for i := 0; i < 4; i++ {
				if _, err := f.Fetch(context.Background(), fmt.Sprintf("%s/p%d", s.URL, i)); err != nil {
					t.Fatal(err)
				}
			}
			for i := 1; i < len(starts); i++ {
				if gap := starts[i].Sub(starts[i-1]); gap != tt.want {
					t.Errorf("gap %d = %s, want %s", i, gap, tt.want)
				}
			}
		})
	}
}

// TestFetchOneInFlight checks that concurrent fetches of one host never
// overlap while fetches of another host are not held up by them.
func TestFetchOneInFlight(t *testing.T) {
	s := newSite(t, "")
	var cur, peak atomic.Int32
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		cur.Add(-1)
		html("x")(w, r)
	})
	f, _ := newTestFetcher(t, Options{})
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Go(func() {
			if _, err := f.Fetch(context.Background(), fmt.Sprintf("%s/p%d", s.URL, i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p != 1 {
		t.Errorf("peak concurrency on one host = %d, want 1", p)
	}
}

func TestFetchCancel(t *testing.T) {
	s := newSite(t, "")
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	f, _ := newTestFetcher(t, Options{Retries: 5})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err := f.Fetch(ctx, s.URL+"/x")
	if !errors.Is(err, context.Canceled) || Reason(err) != "canceled" {
		t.Errorf("err = %v (reason %q), want canceled", err, Reason(err))
	}
}

func TestAddressPolicy(t *testing.T) {
	s := newSite(t, "")
	s.mux.HandleFunc("/", html("internal"))
	f, err := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, _ := url.Parse(s.URL)
	for _, raw := range []string{
		s.URL + "/", // 127.0.0.1 literal
		"http://localhost:" + u.Port() + "/",
		"http://[::1]:" + u.Port() + "/",
		"http://10.1.2.3/",
		"http://169.254.169.254/latest/meta-data/",
	} {
		if _, err := f.Fetch(context.Background(), raw); !errors.Is(err, ErrBlocked) {
			t.Errorf("%s: err = %v, want ErrBlocked", raw, err)
		}
	}
	// The dial-time check: a name that resolves to loopback is refused
	// after resolution, whatever the early check thought of the name.
	conn, err := f.owned.DialContext(context.Background(), "tcp", "localhost:"+u.Port())
	if err == nil {
		conn.Close()
		t.Fatal("dialing localhost succeeded, want refusal")
	}
	if !errors.Is(err, ErrBlocked) {
		t.Errorf("dial err = %v, want ErrBlocked", err)
	}
	if Reason(err) != "blocked" {
		t.Errorf("Reason = %q", Reason(err))
	}
	// The same through a whole request, bypassing the early check.
	req, _ := http.NewRequest("GET", "http://localhost:"+u.Port()+"/", nil)
	if _, err := f.rt.RoundTrip(req); !errors.Is(err, ErrBlocked) || Cause(err) != "blocked" {
		t.Errorf("round trip err = %v (cause %q), want ErrBlocked", err, Cause(err))
	} else if retry, _ := classify(err); retry {
		t.Errorf("round trip err = %v is retried", err)
	}
}

func TestPublicAddr(t *testing.T) {
	for _, tt := range []struct {
		ip   string
		want bool
	}{
		{"8.8.8.8", true}, {"2606:4700::1111", true}, {"127.0.0.1", false}, {"::1", false},
		{"10.0.0.1", false}, {"172.16.5.4", false}, {"192.168.1.1", false}, {"169.254.1.1", false},
		{"fe80::1", false}, {"fc00::1", false}, {"0.0.0.0", false}, {"100.64.0.1", false},
		{"::ffff:127.0.0.1", false}, {"::ffff:8.8.8.8", true}, {"224.0.0.1", false}, {"255.255.255.255", false},
	} {
		if got := PublicAddr(mustAddr(tt.ip)); got != tt.want {
			t.Errorf("PublicAddr(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
}

// handlerTransport serves requests in process, as simweb's transport does.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

func TestTestbed(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		html("host "+r.Host)(w, r)
	})
	if _, err := New(Options{Transport: handlerTransport{mux}}); err == nil {
		t.Error("New with Transport and no AllowHost succeeded")
	}
	f, err := New(Options{
		Transport: handlerTransport{mux},
		AllowHost: func(h string) bool { return strings.HasSuffix(h, ".test") },
		Clock:     newFakeClock(),
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := f.Fetch(context.Background(), "http://cars.test/")
	if err != nil || !bytes.Contains(resp.Body, []byte("host cars.test")) {
		t.Fatalf("testbed fetch: %v %q", err, resp.Body)
	}
	if _, err := f.Fetch(context.Background(), "http://example.com/"); !errors.Is(err, ErrBlocked) {
		t.Errorf("non-testbed host: err = %v, want ErrBlocked", err)
	}
}

func TestDo(t *testing.T) {
	s := newSite(t, "User-agent: *\nDisallow: /\n") // Do ignores robots.txt
	var n atomic.Int32
	s.mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"q":%q,"ua":%q}`, r.URL.Query().Get("q"), r.Header.Get("User-Agent"))
	})
	s.mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api?q=moved", http.StatusSeeOther)
	})
	s.mux.HandleFunc("/missing", http.NotFound)
	f, clk := newTestFetcher(t, Options{Retries: 2})
	req, _ := http.NewRequest("GET", s.URL+"/api?q=cars", nil)
	req.Header.Set("User-Agent", "plugin/1")
	resp, err := f.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != `{"q":"cars","ua":"plugin/1"}` {
		t.Errorf("Do: %d %s", resp.StatusCode, body)
	}
	if s := clk.Sleeps(); len(s) != 1 || s[0] != time.Second {
		t.Errorf("sleeps = %v, want [1s]", s)
	}
	req, _ = http.NewRequest("POST", s.URL+"/moved", strings.NewReader("a=1"))
	resp, err = f.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"q":"moved"`) {
		t.Errorf("after 303: %s", body)
	}
	req, _ = http.NewRequest("GET", s.URL+"/missing", nil)
	if resp, err = f.Do(context.Background(), req); err != nil || resp.StatusCode != 404 {
		t.Errorf("404 through Do: %v, %v", resp, err)
	}
	// a key in the query string stays out of the error (plugins log them)
	s.mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop?"+r.URL.RawQuery, http.StatusFound)
	})
	req, _ = http.NewRequest("GET", s.URL+"/loop?q=a&api_key=s3cr3t", nil)
	_, err = f.Do(context.Background(), req)
	if !errors.Is(err, ErrRedirectLoop) || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "api_key=REDACTED") {
		t.Errorf("redirect loop error: %v", err)
	}
}

func TestReason(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("x: %w", ErrDisallowed), "robots"},
		{fmt.Errorf("x: %w", ErrStatus), "status"},
		{fmt.Errorf("x: %w", errTimeout), "timeout"},
		{context.Canceled, "canceled"},
		{errors.New("connection reset"), "network"},
	} {
		if got := Reason(tt.err); got != tt.want {
			t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

// readBody returns the body up to the limit whatever size the response
// declared (exact, unknown, too small, too large).
func TestReadBodySizes(t *testing.T) {
	body := strings.Repeat("x", 3000)
	tests := []struct {
		name      string
		limit     int64
		size      int64
		want      int
		truncated bool
	}{
		{"exact", 10000, 3000, 3000, false},
		{"unknown", 10000, -1, 3000, false},
		{"declared smaller", 10000, 100, 3000, false},
		{"declared larger", 10000, 9000, 3000, false},
		{"over the limit", 1000, 3000, 1000, true},
		{"at the limit", 3000, 3000, 3000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, trunc, err := readBody(strings.NewReader(body), tt.limit, tt.size)
			if err != nil || len(b) != tt.want || trunc != tt.truncated || string(b) != body[:tt.want] {
				t.Errorf("got %d bytes, truncated %v, err %v; want %d, %v", len(b), trunc, err, tt.want, tt.truncated)
			}
		})
	}
}

// TestConnectionKeptAfterUnreadBody checks that responses whose body the
// crawl does not need (robots.txt 404, error pages, redirects) leave their
// connection open for the next request when small, and are dropped with it
// when declared large.
func TestConnectionKeptAfterUnreadBody(t *testing.T) {
	big := strings.Repeat("x", 8<<10)
	for _, tc := range []struct {
		name  string
		path  string
		conns int32 // connections opened for robots.txt + two fetches
	}{
		{"small 404", "/missing", 1},
		{"small 410", "/gone", 1},
		{"redirect", "/moved", 1},
		{"large 404", "/big-missing", 2}, // the first one closes robots.txt's connection
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt", "/missing":
					http.NotFound(w, r)
				case "/gone":
					http.Error(w, "gone", http.StatusGone)
				case "/moved":
					http.Redirect(w, r, "/page", http.StatusMovedPermanently)
				case "/big-missing":
					w.Header().Set("Content-Length", strconv.Itoa(len(big)))
					w.WriteHeader(http.StatusNotFound)
					io.WriteString(w, big)
				default:
					html("page")(w, r)
				}
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			f, _ := newTestFetcher(t, Options{})
			for i := 0; i < 2; i++ {
				_, _ = f.Fetch(context.Background(), srv.URL+tc.path)
			}
			if got := conns.Load(); got != tc.conns {
				t.Errorf("%s: %d connections opened, want %d", tc.path, got, tc.conns)
			}
		})
	}
}
