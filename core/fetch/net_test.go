package fetch

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/warc"
)

func TestParseResolve(t *testing.T) {
	tests := []struct {
		in      []string
		want    map[string]string
		wantErr string
	}{
		{in: []string{"Wiki.Lab.Test:8080:127.0.0.1"}, want: map[string]string{"wiki.lab.test:8080": "127.0.0.1"}},
		{in: []string{"a.test:443:[::1]", "a.test:443:::1"}, want: map[string]string{"a.test:443": "::1"}},
		{in: []string{"a.test:80"}, wantErr: "HOST:PORT:ADDR"},
		{in: []string{"a.test:http:127.0.0.1"}, wantErr: "bad port"},
		{in: []string{"a.test:80:localhost"}, wantErr: "IP address"},
		{in: []string{"*.lab.test:8470:127.0.0.1", "*:80:127.0.0.2"}, want: map[string]string{"*.lab.test:8470": "127.0.0.1", "*:80": "127.0.0.2"}},
		{in: []string{"a*.test:80:127.0.0.1"}, wantErr: "wildcard"},
	}
	for _, tt := range tests {
		got, err := ParseResolve(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseResolve(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("ParseResolve(%q) = %v, %v", tt.in, got, err)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("ParseResolve(%q)[%s] = %q, want %q", tt.in, k, got[k], v)
			}
		}
	}
	for raw, ok := range map[string]bool{"socks5://127.0.0.1:9050": true, "socks5h://tor:9050": true, "proxy:3128": true, "ftp://x": false, "http://": false} {
		if _, err := ParseProxy(raw); (err == nil) != ok {
			t.Errorf("ParseProxy(%q) error %v", raw, err)
		}
	}
}

func TestResolvedWildcards(t *testing.T) {
	m, err := ParseResolve([]string{"*.lab.test:80:127.0.0.1", "wiki.lab.test:80:127.0.0.2", "*.deep.lab.test:80:127.0.0.3", "*:443:127.0.0.4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ host, port, want string }{
		{"blog.lab.test", "80", "127.0.0.1"},
		{"WIKI.lab.test", "80", "127.0.0.2"},
		{"x.deep.lab.test", "80", "127.0.0.3"},
		{"lab.test", "80", ""}, // *.lab.test wants a subdomain
		{"blog.lab.test", "8080", ""},
		{"anything.example", "443", "127.0.0.4"},
	} {
		got, _ := resolved(m, tt.host, tt.port)
		if got != tt.want {
			t.Errorf("resolved(%s:%s) = %q, want %q", tt.host, tt.port, got, tt.want)
		}
	}
}

// TestResolveDials checks that a --resolve entry is dialed in place of the
// name and that the address policy judges the mapped address.
func TestResolveDials(t *testing.T) {
	var hosts sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts.Store(r.Host, true)
		html("mapped")(w, r)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res, err := ParseResolve([]string{"wiki.lab.test:" + port + ":127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	target := "http://wiki.lab.test:" + port + "/page"

	f, _ := newTestFetcher(t, Options{Resolve: res})
	resp, err := f.Fetch(context.Background(), target)
	if err != nil || !strings.Contains(string(resp.Body), "mapped") {
		t.Fatalf("Fetch through --resolve: %v (%+v)", err, resp)
	}
	if _, ok := hosts.Load("wiki.lab.test:" + port); !ok {
		t.Error("the server did not see the mapped host name in Host")
	}

	strict := strictFetcher(t, Options{Resolve: res})
	_, err = strict.Fetch(context.Background(), target)
	if Cause(err) != "blocked" {
		t.Errorf("mapped to loopback without AllowPrivate: Cause(%v) = %q, want blocked", err, Cause(err))
	}
	if err != nil && strings.Contains(err.Error(), "disallowed by robots.txt") {
		t.Errorf("a refused address reads as a robots.txt refusal: %v", err)
	}
}

// proxyServer is a forward HTTP proxy on loopback that answers every
// request itself and records the absolute URLs it was asked for.
type proxyServer struct {
	*httptest.Server
	mu   sync.Mutex
	urls []string
}

func newProxyServer(t *testing.T) *proxyServer {
	p := &proxyServer{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.urls = append(p.urls, r.URL.String())
		p.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		html("via proxy "+r.URL.Host)(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *proxyServer) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.urls...)
}

// fakeLookup resolves every name to addr (or fails), counting calls; no
// DNS query leaves the test.
type fakeLookup struct {
	addr  string
	fail  bool
	calls []string
}

func (l *fakeLookup) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	l.calls = append(l.calls, host)
	if l.fail {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(l.addr)}, nil
}

// strictFetcher is a fetcher with the default address policy (no
// AllowPrivate) on a fake clock.
func strictFetcher(t *testing.T, opt Options) *Fetcher {
	t.Helper()
	opt.Clock = newFakeClock()
	f, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func TestProxyKeepsAddressPolicy(t *testing.T) {
	p := newProxyServer(t)
	pu, _ := ParseProxy(p.URL)
	// The target's addresses come from a fake resolver and are never
	// dialed: the loopback proxy answers for the target.
	tests := []struct {
		name, url string
		lookup    *fakeLookup
		want      string // Cause
		reached   bool   // the proxy got the page request
	}{
		{"public target", "http://shop.example.test/item", &fakeLookup{addr: "93.184.216.34"}, "", true},
		{"private target", "http://intranet.example.test/item", &fakeLookup{addr: "10.1.2.3"}, "blocked", false},
		{"literal loopback", "http://127.0.0.1:9/item", &fakeLookup{addr: "93.184.216.34"}, "blocked", false},
		{"unresolvable", "http://gone.example.test/item", &fakeLookup{fail: true}, "dns", false},
		{"onion", "http://abcdefghijklmnop.onion/item", &fakeLookup{fail: true}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(p.seen())
			f := strictFetcher(t, Options{Proxy: pu, LookupIP: tt.lookup.lookup})
			resp, err := f.Fetch(context.Background(), tt.url)
			if got := Cause(err); got != tt.want {
				t.Fatalf("Cause(%v) = %q, want %q", err, got, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "disallowed by robots.txt") {
				t.Errorf("error reads as a robots.txt refusal: %v", err)
			}
			got := p.seen()[before:]
			if reached := slices.Contains(got, tt.url); reached != tt.reached {
				t.Errorf("proxy saw %v; page request reached it: %v, want %v", got, reached, tt.reached)
			}
			if tt.reached && !strings.Contains(string(resp.Body), "via proxy") {
				t.Errorf("body %q", resp.Body)
			}
			if strings.HasSuffix(tt.url, ".onion/item") && len(tt.lookup.calls) > 0 {
				t.Errorf(".onion looked up locally: %v", tt.lookup.calls)
			}
		})
	}
}

func TestProxyFromEnvironment(t *testing.T) {
	p := newProxyServer(t)
	t.Setenv("HTTP_PROXY", p.URL)
	t.Setenv("http_proxy", p.URL)
	t.Setenv("NO_PROXY", "direct.example.test")
	t.Setenv("no_proxy", "direct.example.test")
	lk := &fakeLookup{addr: "93.184.216.34"}
	f := strictFetcher(t, Options{ProxyEnv: true, LookupIP: lk.lookup,
		Resolve: map[string]string{"direct.example.test:80": "127.0.0.1"}})
	if _, err := f.Fetch(context.Background(), "http://shop.example.test/env"); err != nil {
		t.Fatalf("through HTTP_PROXY: %v", err)
	}
	if !slices.Contains(p.seen(), "http://shop.example.test/env") {
		t.Errorf("HTTP_PROXY not used: proxy saw %v", p.seen())
	}
	// NO_PROXY: dialed directly, so the dial-time policy refuses loopback
	_, err := f.Fetch(context.Background(), "http://direct.example.test/x")
	if Cause(err) != "blocked" {
		t.Errorf("NO_PROXY host mapped to loopback: Cause(%v) = %q, want blocked", err, Cause(err))
	}
	if slices.Contains(p.seen(), "http://direct.example.test/x") {
		t.Error("a NO_PROXY host went through the proxy")
	}
}

// socksServer is a minimal SOCKS5 server (no authentication, CONNECT)
// that records the requested targets and connects every one to backend.
type socksServer struct {
	ln      net.Listener
	mu      sync.Mutex
	targets []string
}

func newSocksServer(t *testing.T, backend string) *socksServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &socksServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c, backend)
		}
	}()
	return s
}

func (s *socksServer) serve(c net.Conn, backend string) {
	defer c.Close()
	r := bufio.NewReader(c)
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(r, hdr); err != nil || hdr[0] != 5 {
		return
	}
	if _, err := io.ReadFull(r, make([]byte, hdr[1])); err != nil {
		return
	}
	c.Write([]byte{5, 0}) // no authentication
	req := make([]byte, 4)
	if _, err := io.ReadFull(r, req); err != nil || req[1] != 1 {
		return
	}
	var host string
	switch req[3] {
	case 1:
		b := make([]byte, 4)
		io.ReadFull(r, b)
		host = net.IP(b).String()
	case 3:
		n, _ := r.ReadByte()
		b := make([]byte, n)
		io.ReadFull(r, b)
		host = string(b)
	default:
		return
	}
	pb := make([]byte, 2)
	io.ReadFull(r, pb)
	s.mu.Lock()
	s.targets = append(s.targets, net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(pb)))))
	s.mu.Unlock()
	up, err := net.Dial("tcp", backend)
	if err != nil {
		c.Write([]byte{5, 1, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	go io.Copy(up, r)
	io.Copy(c, up)
}

func TestSocks5Proxy(t *testing.T) {
	backend := httptest.NewServer(html("behind socks"))
	defer backend.Close()
	s := newSocksServer(t, backend.Listener.Addr().String())
	pu, err := ParseProxy("socks5h://" + s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	lk := &fakeLookup{addr: "93.184.216.34"}
	f := strictFetcher(t, Options{Proxy: pu, LookupIP: lk.lookup})
	resp, err := f.Fetch(context.Background(), "http://shop.example.test/socks")
	if err != nil || !strings.Contains(string(resp.Body), "behind socks") {
		t.Fatalf("through socks5: %v %q", err, resp.Body)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.targets, "shop.example.test:80") {
		t.Errorf("socks server was asked for %v, want the host name (resolved by the proxy)", s.targets)
	}
	if !slices.Contains(lk.calls, "shop.example.test") {
		t.Error("the target was not checked against the address policy before going through the proxy")
	}
}

func TestHeadersAndCookieJar(t *testing.T) {
	s := newSite(t, "")
	var mu sync.Mutex
	var got http.Header
	s.mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "abc", Path: "/", MaxAge: 3600})
		http.SetCookie(w, &http.Cookie{Name: "tmp", Value: "1", Path: "/"})
		html("in")(w, r)
	})
	s.mux.HandleFunc("/check", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		html("ok")(w, r)
	})
	var saved []SavedCookie
	var savedHost string
	jar := NewJar(func(host string, cs []SavedCookie) { savedHost, saved = host, cs }, nil)
	f, _ := newTestFetcher(t, Options{Jar: jar, Header: http.Header{"Accept-Language": {"de"}, "X-Probe": {"1"}, "User-Agent": {"spoof"}}})
	ctx := context.Background()
	if _, err := f.Fetch(ctx, s.URL+"/login"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(ctx, s.URL+"/check"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if got.Get("Accept-Language") != "de" || got.Get("X-Probe") != "1" || !strings.HasPrefix(got.Get("User-Agent"), "dwcrawl/") {
		t.Errorf("headers sent: %v", got)
	}
	if c := got.Get("Cookie"); !strings.Contains(c, "sid=abc") || !strings.Contains(c, "tmp=1") {
		t.Errorf("Cookie sent = %q, want sid and tmp", c)
	}
	mu.Unlock()
	u, _ := url.Parse(s.URL)
	if savedHost != u.Host || len(saved) != 2 || saved[0].Name != "sid" || saved[0].Expires.IsZero() || !saved[1].Expires.IsZero() {
		t.Fatalf("saved %s: %+v", savedHost, saved)
	}

	// a resumed crawl: a new jar restored from what was saved sends them again
	jar2 := NewJar(nil, nil)
	jar2.Restore(savedHost, saved)
	f2, _ := newTestFetcher(t, Options{Jar: jar2})
	if _, err := f2.Fetch(ctx, s.URL+"/check"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if c := got.Get("Cookie"); !strings.Contains(c, "sid=abc") {
		t.Errorf("restored jar sent Cookie %q", c)
	}
	mu.Unlock()

	// expired cookies are not restored
	old := NewJar(nil, func() time.Time { return time.Now().Add(2 * time.Hour) })
	old.Restore(savedHost, saved)
	if old.Len() != 1 {
		t.Errorf("restoring two hours later kept %d cookies, want the session cookie only", old.Len())
	}
}

// memArchive collects exchanges; it fails the ones whose URL contains fail.
type memArchive struct {
	mu   sync.Mutex
	ex   []warc.Exchange
	fail string
}

func (a *memArchive) Record(_ context.Context, ex warc.Exchange) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail != "" && strings.Contains(ex.URL, a.fail) {
		return errors.New("disk full")
	}
	a.ex = append(a.ex, ex)
	return nil
}

func TestArchiver(t *testing.T) {
	s := newSite(t, "User-agent: *\nDisallow: /private\n")
	busy := 0
	s.mux.HandleFunc("/page", html("archived page"))
	s.mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		if busy++; busy == 1 {
			http.Error(w, "try later", 503)
			return
		}
		html("now")(w, r)
	})
	s.mux.HandleFunc("/bad", html("x"))
	a := &memArchive{fail: "/bad"}
	f, _ := newTestFetcher(t, Options{Archiver: a, Retries: 1})
	ctx := context.Background()
	for _, p := range []string{"/page", "/busy", "/bad"} {
		if _, err := f.Fetch(ctx, s.URL+p); err != nil {
			t.Fatalf("%s: %v (an archive failure must not fail the fetch)", p, err)
		}
	}
	var got []string
	for _, ex := range a.ex {
		got = append(got, strings.TrimPrefix(ex.URL, s.URL)+" "+strconv.Itoa(ex.Status))
		if ex.RemoteIP != "127.0.0.1" || ex.RequestHeader.Get("User-Agent") == "" {
			t.Errorf("exchange %s: remote %q, request header %v", ex.URL, ex.RemoteIP, ex.RequestHeader)
		}
	}
	want := []string{"/robots.txt 200", "/page 200", "/busy 503", "/busy 200"}
	if !slices.Equal(got, want) {
		t.Errorf("archived %v, want %v", got, want)
	}
	if strings.Contains(string(a.ex[1].ResponseBody), "archived page") == false || !strings.Contains(string(a.ex[2].ResponseBody), "try later") {
		t.Errorf("bodies not archived whole: %q / %q", a.ex[1].ResponseBody, a.ex[2].ResponseBody)
	}
	if f.ArchiveErrors() != 1 {
		t.Errorf("ArchiveErrors = %d, want 1", f.ArchiveErrors())
	}
}

// roundTripFunc is an http.RoundTripper from a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (fn roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return fn(r) }

// TestUnreachableRobotsIsNotARobotsRefusal: a host that does not resolve
// fails with its DNS error, never "disallowed by robots.txt".
func TestUnreachableRobotsIsNotARobotsRefusal(t *testing.T) {
	dns := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: r.URL.Hostname(), IsNotFound: true}}
	})
	f, _ := newTestFetcher(t, Options{Transport: dns, AllowHost: func(string) bool { return true }})
	for i := 0; i < 2; i++ { // the second from the robots cache
		_, err := f.Fetch(context.Background(), "http://nowhere.example.test/")
		if Cause(err) != "dns" || errors.Is(err, ErrDisallowed) || strings.Contains(err.Error(), "disallowed") {
			t.Fatalf("fetch %d: Cause(%v) = %q, want dns and no robots refusal", i, err, Cause(err))
		}
		if Reason(err) == "robots" {
			t.Errorf("Reason = robots for %v", err)
		}
	}
}

func TestSitemapsAndFetchFile(t *testing.T) {
	s := newSite(t, "")
	s.robots.Store("User-agent: *\nDisallow: /secret\nSitemap: /sitemap.xml\nSitemap: https://cdn.example.test/map.xml.gz\n")
	s.mux.HandleFunc("/sitemap.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, "<urlset/>")
	})
	s.mux.HandleFunc("/secret/map.xml", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<urlset/>") })
	f, _ := newTestFetcher(t, Options{})
	ctx := context.Background()
	maps, err := f.Sitemaps(ctx, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{s.URL + "/sitemap.xml", "https://cdn.example.test/map.xml.gz"}; !slices.Equal(maps, want) {
		t.Errorf("Sitemaps = %v, want %v", maps, want)
	}
	resp, err := f.FetchFile(ctx, s.URL+"/sitemap.xml")
	if err != nil || string(resp.Body) != "<urlset/>" || resp.ContentType != "application/xml" {
		t.Errorf("FetchFile = %+v, %v", resp, err)
	}
	if _, err := f.Fetch(ctx, s.URL+"/sitemap.xml"); !errors.Is(err, ErrContentType) {
		t.Errorf("Fetch of XML: %v, want the content-type refusal", err)
	}
	if _, err := f.FetchFile(ctx, s.URL+"/secret/map.xml"); !errors.Is(err, ErrDisallowed) {
		t.Errorf("FetchFile ignores robots.txt: %v", err)
	}
}
