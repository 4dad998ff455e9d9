package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// arrival is one request as a test server logged it on arrival.
type arrival struct {
	host, path string
	at         time.Time
}

// serverLog is a loopback server's log of arrivals (timed by now) and its
// peak number of requests in flight.
type serverLog struct {
	now func() time.Time

	mu       sync.Mutex
	arrivals []arrival
	cur      int
	peak     int
}

// wrap logs every request before h serves it.
func (l *serverLog) wrap(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.arrivals = append(l.arrivals, arrival{host: r.Host, path: r.URL.Path, at: l.now()})
		l.cur++
		l.peak = max(l.peak, l.cur)
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			l.cur--
			l.mu.Unlock()
		}()
		h(w, r)
	}
}

func (l *serverLog) sorted() []arrival {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.arrivals)
	slices.SortStableFunc(out, func(a, b arrival) int { return a.at.Compare(b.at) })
	return out
}

// minGap returns the smallest time between two consecutive arrivals and
// where it is.
func minGap(as []arrival) (time.Duration, int) {
	gap, at := time.Duration(1<<62), -1
	for i := 1; i < len(as); i++ {
		if d := as[i].at.Sub(as[i-1].at); d < gap {
			gap, at = d, i
		}
	}
	return gap, at
}

// labHosts returns n host names under lab.test and the --resolve map that
// sends them all to the loopback server at addr ("127.0.0.1:port").
func labHosts(t testing.TB, addr string, n int) ([]string, map[string]string) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	var names, entries []string
	for i := range n {
		name := fmt.Sprintf("site%d.lab.test", i)
		names = append(names, name+":"+port)
		entries = append(entries, name+":"+port+":"+host)
	}
	res, err := ParseResolve(entries)
	if err != nil {
		t.Fatal(err)
	}
	return names, res
}

// fetchAll fetches pages of every host, one goroutine per host, and fails
// the test on any error.
func fetchAll(t testing.TB, f *Fetcher, hosts []string, pages int) {
	t.Helper()
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Go(func() {
			for i := range pages {
				if _, err := f.Fetch(context.Background(), fmt.Sprintf("http://%s/p%d", h, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

// TestPolitePerIP fetches from several host names that --resolve sends to
// one loopback address, concurrently, on a fake clock. With per-address
// politeness the server never has two requests in flight and never sees
// two less than the delay apart (its log is timed by the fake clock, which
// only moves forward: a gap it records cannot be shorter than the pause
// taken); robots.txt is still fetched once per host. (That the hosts go in
// parallel without it is TestPolitePerIPOffParallel: on a fake clock
// shared by all, one host's pause moves every host's time.)
func TestPolitePerIP(t *testing.T) {
	const delay = time.Second
	clk := newFakeClock()
	log := &serverLog{now: clk.Now}
	srv := httptest.NewServer(log.wrap(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		html(r.Host)(w, r)
	}))
	defer srv.Close()
	hosts, res := labHosts(t, srv.Listener.Addr().String(), 3)
	f, _ := newTestFetcher(t, Options{Delay: delay, Resolve: res, PolitePerIP: true, Clock: clk})
	fetchAll(t, f, hosts, 3)

	as := log.sorted()
	if len(as) != 3*(1+3) {
		t.Fatalf("server saw %d requests, want %d (a robots.txt and 3 pages per host)", len(as), 3*4)
	}
	robots := map[string]int{}
	for _, a := range as {
		if a.path == "/robots.txt" {
			robots[a.host]++
		}
	}
	for _, h := range hosts {
		if robots[h] != 1 {
			t.Errorf("robots.txt of %s fetched %d times, want 1 (robots.txt stays per host)", h, robots[h])
		}
	}
	if gap, i := minGap(as); gap < delay {
		t.Errorf("requests %d (%s%s) and %d (%s%s) to one address arrived %v apart, want at least %v",
			i-1, as[i-1].host, as[i-1].path, i, as[i].host, as[i].path, gap, delay)
	}
	if log.peak != 1 {
		t.Errorf("peak requests in flight at the address = %d, want 1", log.peak)
	}
}

// TestPolitePerIPOffParallel checks, without timing, that two host names
// on one address are fetched in parallel when politeness is per host:
// the server holds each page until both hosts' pages have arrived.
func TestPolitePerIPOffParallel(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		arrived.Done()
		select {
		case <-both:
			html("ok")(w, r)
		case <-time.After(10 * time.Second): // a failure, not a measurement
			http.Error(w, "the other host's request never came", http.StatusGatewayTimeout)
		}
	}))
	defer srv.Close()
	hosts, res := labHosts(t, srv.Listener.Addr().String(), 2)
	f, _ := newTestFetcher(t, Options{Delay: time.Second, Resolve: res})
	fetchAll(t, f, hosts, 1)
}

// TestPolitePerIPRealTime is the end-to-end check on the real clock: two
// host names on one loopback address, a 1 s delay, two pages each fetched
// concurrently. No two requests may arrive less than the delay apart by
// the server's own clock. Only lower bounds are asserted: a slow machine
// makes the gaps longer, never shorter.
func TestPolitePerIPRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps about 3 s")
	}
	const delay = time.Second
	log := &serverLog{now: time.Now}
	srv := httptest.NewServer(log.wrap(html("x")))
	defer srv.Close()
	hosts, res := labHosts(t, srv.Listener.Addr().String(), 2)
	f, err := New(Options{Delay: delay, Resolve: res, PolitePerIP: true, AllowPrivate: true, IgnoreRobots: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fetchAll(t, f, hosts, 2)
	as := log.sorted()
	if len(as) != 4 {
		t.Fatalf("server saw %d requests, want 4", len(as))
	}
	for i := 1; i < len(as); i++ {
		gap := as[i].at.Sub(as[i-1].at)
		t.Logf("%s%s after %v", as[i].host, as[i].path, gap)
		if gap < delay {
			t.Errorf("requests %d (%s) and %d (%s) arrived %v apart, want at least %v", i-1, as[i-1].host, i, as[i].host, gap, delay)
		}
	}
}

// TestAddrOf checks which address a request is paced by, with a lookup
// stub (nothing is dialed).
func TestAddrOf(t *testing.T) {
	lookups := map[string][]netip.Addr{
		"multi.example":  {mustAddr("10.0.0.7"), mustAddr("192.0.2.1"), mustAddr("8.8.4.4"), mustAddr("8.8.8.8")},
		"mapped.example": {mustAddr("::ffff:8.8.8.8")},
		"inside.example": {mustAddr("10.0.0.7")},
	}
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := lookups[host]; ok {
			return slices.Clone(a), nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	res, _ := ParseResolve([]string{"moved.example:443:9.9.9.9", "*.lab.test:80:127.0.0.1"})
	tests := []struct {
		url          string
		allowPrivate bool
		testbed      bool
		want         string // "" for none
	}{
		{url: "http://multi.example/", want: "8.8.4.4"},                      // the first the policy allows
		{url: "http://multi.example/", allowPrivate: true, want: "10.0.0.7"}, // the first of all
		{url: "http://MAPPED.example/", want: "8.8.8.8"},
		{url: "http://inside.example/", want: ""}, // the dial will be refused: nothing to pace
		{url: "https://moved.example/", want: "9.9.9.9"},
		{url: "http://moved.example/", want: ""}, // the entry is for port 443 only: lookup fails
		{url: "http://a.lab.test/", allowPrivate: true, want: "127.0.0.1"},
		{url: "http://[2001:4860:4860::8888]:8080/", want: "2001:4860:4860::8888"},
		{url: "http://abcdefghijklmnop.onion/", want: ""},
		{url: "http://unknown.example/", want: ""},
		{url: "http://multi.example/", testbed: true, want: ""},
	}
	for _, tt := range tests {
		opt := Options{PolitePerIP: true, Resolve: res, LookupIP: lookup, AllowPrivate: tt.allowPrivate,
			Clock: newFakeClock(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if tt.testbed {
			opt.Transport, opt.AllowHost = handlerTransport{http.NotFoundHandler()}, func(string) bool { return true }
		}
		f, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(tt.url)
		a, ok := f.addrOf(context.Background(), u)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("%s (allow-private %v, testbed %v): address %q, want %q", tt.url, tt.allowPrivate, tt.testbed, got, tt.want)
		}
	}
}

// TestLookupCache checks that a name is looked up once per addrTTL and
// that failures are not kept.
func TestLookupCache(t *testing.T) {
	clk := newFakeClock()
	var calls atomic.Int32
	fail := atomic.Bool{}
	c := newLookupCache(&Options{Clock: clk, MaxHosts: 2, LookupIP: func(_ context.Context, host string) ([]netip.Addr, error) {
		calls.Add(1)
		if fail.Load() {
			return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
		}
		return []netip.Addr{mustAddr("127.0.0.1")}, nil
	}})
	ctx := context.Background()
	steps := []struct {
		host      string
		advance   time.Duration
		fail      bool
		wantCalls int32
		wantErr   bool
	}{
		{host: "a.test", wantCalls: 1},
		{host: "A.test", advance: addrTTL - time.Second, wantCalls: 1}, // cached, case-insensitive
		{host: "a.test", advance: time.Second, wantCalls: 2},           // expired
		{host: "b.test", fail: true, wantCalls: 3, wantErr: true},
		{host: "b.test", fail: true, wantCalls: 4, wantErr: true}, // the failure was not kept
		{host: "b.test", wantCalls: 5},
		{host: "c.test", wantCalls: 6}, // over MaxHosts: an entry is forgotten, the new one kept
		{host: "c.test", wantCalls: 6},
	}
	for i, s := range steps {
		clk.Advance(s.advance)
		fail.Store(s.fail)
		_, err := c.addrs(ctx, s.host)
		if (err != nil) != s.wantErr {
			t.Errorf("step %d (%s): err = %v, want error %v", i, s.host, err, s.wantErr)
		}
		if n := calls.Load(); n != s.wantCalls {
			t.Errorf("step %d (%s): %d lookups, want %d", i, s.host, n, s.wantCalls)
		}
	}
	if len(c.m) > 2 {
		t.Errorf("cache holds %d names, want at most MaxHosts 2", len(c.m))
	}
}

// TestPolitePerIPDialsPacedAddress checks that with per-address
// politeness the connection goes to the address the request was paced by:
// the name resolves (lookup stub) to two loopback addresses that both
// serve the port, and the one listed first gets the request.
func TestPolitePerIPDialsPacedAddress(t *testing.T) {
	var got sync.Map // listener address → host name served
	serve := func(addr string) string {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("listen %s: %v", addr, err)
		}
		srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.Store(r.Host, l.Addr().(*net.TCPAddr).IP.String())
			html("x")(w, r)
		})}}
		srv.Start()
		t.Cleanup(srv.Close)
		return l.Addr().String()
	}
	_, port, _ := net.SplitHostPort(serve("127.0.0.1:0"))
	serve("127.0.0.2:" + port)
	order := map[string][]netip.Addr{
		"two-first.test":  {mustAddr("127.0.0.2"), mustAddr("127.0.0.1")},
		"one-first.test":  {mustAddr("127.0.0.1"), mustAddr("127.0.0.2")},
		"dead-first.test": {mustAddr("127.0.0.3"), mustAddr("127.0.0.1")}, // nothing listens on .3: next one
	}
	f, _ := newTestFetcher(t, Options{PolitePerIP: true, IgnoreRobots: true, LookupIP: func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := order[host]; ok {
			return slices.Clone(a), nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}})
	for host, want := range map[string]string{"two-first.test": "127.0.0.2", "one-first.test": "127.0.0.1", "dead-first.test": "127.0.0.1"} {
		if _, err := f.Fetch(context.Background(), "http://"+host+":"+port+"/"); err != nil {
			t.Fatal(err)
		}
		if served, _ := got.Load(host + ":" + port); served != want {
			t.Errorf("%s was served on %v, want %s", host, served, want)
		}
	}
	f.mu.Lock()
	var paced []string
	for a := range f.addrs {
		paced = append(paced, a.String())
	}
	f.mu.Unlock()
	slices.Sort(paced)
	if want := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}; !slices.Equal(paced, want) {
		t.Errorf("addresses paced by = %v, want %v", paced, want)
	}
	// an unknown name fails as the dial's DNS error, not as a politeness one
	if _, err := f.Fetch(context.Background(), "http://unknown.test:"+port+"/"); Cause(err) != "dns" {
		t.Errorf("unknown name: err = %v (cause %q), want cause dns", err, Cause(err))
	}
}

// TestRetryAfterSlowsHost checks that a 429 or 503 keeps the host's next
// request, to another URL, waiting even when the URL itself is not
// retried, and that the slowdown is logged; per-address politeness does
// not pass it on to the other hosts on the address.
func TestRetryAfterSlowsHost(t *testing.T) {
	const delay = time.Second
	tests := []struct {
		name     string
		status   int
		retryHdr string
		// want is the least and most time between the failed request
		// and the next one to the host
		wantMin, wantMax time.Duration
		logged           bool
	}{
		{name: "429 retry-after", status: 429, retryHdr: "20", wantMin: 20 * time.Second, wantMax: 20 * time.Second, logged: true},
		{name: "503 retry-after date", status: 503, retryHdr: "Mon, 01 Jan 2024 00:00:30 GMT", wantMin: 25 * time.Second, wantMax: 30 * time.Second, logged: true},
		{name: "503 backoff", status: 503, wantMin: 4 * time.Second, wantMax: 8 * time.Second, logged: true},
		{name: "retry-after capped", status: 429, retryHdr: "3600", wantMin: 2 * time.Minute, wantMax: 2 * time.Minute, logged: true},
		// the address's delay after the other host's request, no more
		{name: "500 not slowed", status: 500, wantMin: 2 * delay, wantMax: 2 * delay},
		{name: "502 retry-after", status: 502, retryHdr: "9", wantMin: 9 * time.Second, wantMax: 9 * time.Second, logged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("seed %d", testSeed)
			clk := newFakeClock()
			log := &serverLog{now: clk.Now}
			srv := httptest.NewServer(log.wrap(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/busy" {
					if tt.retryHdr != "" {
						w.Header().Set("Retry-After", tt.retryHdr)
					}
					w.WriteHeader(tt.status)
					return
				}
				html("ok")(w, r)
			}))
			defer srv.Close()
			hosts, res := labHosts(t, srv.Listener.Addr().String(), 2)
			var logBuf syncBuffer
			f, _ := newTestFetcher(t, Options{Delay: delay, Retries: 0, BackoffBase: 8 * time.Second, MaxRetryAfter: 2 * time.Minute,
				Resolve: res, PolitePerIP: true, IgnoreRobots: true, Clock: clk})
			f.opt.Logger = slog.New(slog.NewTextHandler(&logBuf, nil))
			ctx := context.Background()
			var se *StatusError
			if _, err := f.Fetch(ctx, "http://"+hosts[0]+"/busy"); !errors.As(err, &se) || se.Code != tt.status {
				t.Fatalf("busy: err = %v, want status %d", err, tt.status)
			}
			for _, u := range []string{"http://" + hosts[1] + "/other", "http://" + hosts[0] + "/next"} {
				if _, err := f.Fetch(ctx, u); err != nil {
					t.Fatal(err)
				}
			}
			as := log.arrivals // in order: the fetches were sequential
			if len(as) != 3 {
				t.Fatalf("server saw %d requests, want 3", len(as))
			}
			if gap := as[1].at.Sub(as[0].at); gap != delay {
				t.Errorf("the other host on the address waited %v after the %d, want the delay %v", gap, tt.status, delay)
			}
			if gap := as[2].at.Sub(as[0].at); gap < tt.wantMin || gap > tt.wantMax {
				t.Errorf("the host's next request came %v after the %d, want %v..%v", gap, tt.status, tt.wantMin, tt.wantMax)
			}
			if got := strings.Contains(logBuf.String(), "host slowed down"); got != tt.logged {
				t.Errorf("slowdown logged = %v, want %v; log:\n%s", got, tt.logged, logBuf.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHTTP2 checks that a server offering HTTP/2 (TLS with ALPN) is
// fetched over HTTP/2, through the fetcher's own dialer and --resolve.
func TestHTTP2(t *testing.T) {
	var protos sync.Map
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos.Store(r.URL.Path, r.Proto)
		html("h2")(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res, _ := ParseResolve([]string{"h2.lab.test:" + port + ":127.0.0.1"})
	for _, perIP := range []bool{false, true} {
		f, _ := newTestFetcher(t, Options{Resolve: res, PolitePerIP: perIP, IgnoreRobots: true})
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		// the test certificate names example.com; the URL's lab name only
		// picks the --resolve entry
		f.owned.TLSClientConfig = &tls.Config{RootCAs: pool, ServerName: "example.com"}
		path := fmt.Sprintf("/per-ip-%v", perIP)
		resp, err := f.Fetch(context.Background(), "https://h2.lab.test:"+port+path)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Proto != "HTTP/2.0" {
			t.Errorf("per-ip %v: Response.Proto = %q, want HTTP/2.0", perIP, resp.Proto)
		}
		if p, _ := protos.Load(path); p != "HTTP/2.0" {
			t.Errorf("per-ip %v: the server saw %v, want HTTP/2.0", perIP, p)
		}
		req, _ := http.NewRequest(http.MethodGet, "https://h2.lab.test:"+port+"/do", nil)
		hr, err := f.Do(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if hr.Proto != "HTTP/2.0" || hr.ProtoMajor != 2 {
			t.Errorf("per-ip %v: Do's Proto = %q (%d), want HTTP/2.0", perIP, hr.Proto, hr.ProtoMajor)
		}
	}
}
