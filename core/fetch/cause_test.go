package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

func TestCauseOfErrors(t *testing.T) {
	tests := []struct {
		err   error
		want  string
		retry bool
	}{
		{nil, "", false},
		{fmt.Errorf("fetch x: %w", ErrBadURL), "bad-url", false},
		{fmt.Errorf("dial tcp 10.0.0.1:80: %w", ErrBlocked), "blocked", false},
		{fmt.Errorf("fetch x: /private: %w", ErrDisallowed), "robots", false},
		{fmt.Errorf("fetch x: %w", &StatusError{Code: 404}), "http-404", false},
		{fmt.Errorf("fetch x: %w", &StatusError{Code: 503}), "http-503", true},
		{fmt.Errorf("fetch x: %w", &StatusError{Code: 429, RetryAfter: time.Second}), "http-429", true},
		{fmt.Errorf("fetch x: image/png: %w", ErrContentType), "content-type", false},
		{fmt.Errorf("fetch x: %w", ErrRedirectLoop), "redirect-loop", false},
		{fmt.Errorf("fetch x: %w", ErrTooManyRedirects), "redirects", false},
		{fmt.Errorf("after 30s: %w: %w", errTimeout, context.DeadlineExceeded), "timeout", true},
		{&net.OpError{Op: "dial", Err: &timeoutErr{}}, "timeout", true},
		{fmt.Errorf("get: %w", context.Canceled), "canceled", false},
		{&net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}, "dns", false},
		{&net.DNSError{Err: "server misbehaving", Name: "x.example", IsTemporary: true}, "dns", true},
		{&net.DNSError{Err: "i/o timeout", Name: "x.example", IsTimeout: true}, "timeout", true},
		{&net.OpError{Op: "dial", Err: &net.AddrError{Err: "x"}}, "network", true},
		{fmt.Errorf("robots.txt of a.example unavailable (%w): %w", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, ErrDisallowed), "refused", false},
		{fmt.Errorf("robots.txt of a.example unavailable (%w): %w", &StatusError{Code: 503}, ErrDisallowed), "robots", false},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, "refused", true},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, "reset", true},
		{fmt.Errorf("read body: %w", io.ErrUnexpectedEOF), "reset", true},
		{&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, "tls", false},
		{x509.HostnameError{Host: "a.example", Certificate: &x509.Certificate{}}, "tls", false},
		{tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, "tls", true},
		{errors.New("something else"), "network", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			if got := Cause(tt.err); got != tt.want {
				t.Errorf("Cause = %q, want %q", got, tt.want)
			}
			if retry, _ := classify(tt.err); retry != tt.retry && tt.err != nil {
				t.Errorf("retried = %v, want %v", retry, tt.retry)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestCauseOfFetches produces each cause with a real fetch over loopback.
func TestCauseOfFetches(t *testing.T) {
	s := newSite(t, "User-agent: *\nDisallow: /private\n")
	s.mux.HandleFunc("/ok", html("fine"))
	s.mux.HandleFunc("/gone", http.NotFound)
	s.mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	s.mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG"))
	})
	s.mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) })
	s.mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	s.mux.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) { resetConn(t, w) })
	release := make(chan struct{})
	defer close(release)
	s.mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	tlsSrv := httptest.NewTLSServer(html("secret"))
	defer tlsSrv.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + closed.Addr().String() + "/"
	closed.Close()

	// Only /slow needs a short timeout; the others get a long one so a
	// loaded machine (the race detector in CI) does not turn a TLS
	// handshake or a reset into a timeout.
	quick, _ := newTestFetcher(t, Options{Retries: 1, Timeout: 100 * time.Millisecond})
	f, _ := newTestFetcher(t, Options{Retries: 1, Timeout: 10 * time.Second})
	raw, _ := newTestFetcher(t, Options{Retries: 1, IgnoreRobots: true})
	// the TLS row needs a handshake, which takes more than f's 100ms
	// under the race detector
	slowOK, _ := newTestFetcher(t, Options{Retries: 1})
	strict, _ := newTestFetcher(t, Options{})
	strict.opt.AllowPrivate = false
	tests := []struct {
		f        *Fetcher
		url      string
		want     string
		attempts int
	}{
		{f, s.URL + "/ok", "", 1},
		{f, s.URL + "/gone", "http-404", 1},
		{f, s.URL + "/busy", "http-503", 2},
		{f, s.URL + "/private", "robots", 0},
		{f, s.URL + "/png", "content-type", 1},
		{f, s.URL + "/loop", "redirect-loop", 2},
		{f, s.URL + "/reset", "reset", 2},
		{quick, s.URL + "/slow", "timeout", 2},
		{f, refusedURL, "refused", 0}, // robots.txt unreachable: the page is not requested
		{slowOK, tlsSrv.URL + "/", "tls", 0},
		{raw, refusedURL, "refused", 2},
		{raw, tlsSrv.URL + "/", "tls", 1},
		{f, "ftp://example.com/", "bad-url", 0},
		{strict, s.URL + "/ok", "blocked", 0},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			resp, err := tt.f.Fetch(context.Background(), tt.url)
			if got := Cause(err); got != tt.want {
				t.Errorf("Cause(%v) = %q, want %q", err, got, tt.want)
			}
			if resp.Attempts != tt.attempts {
				t.Errorf("%d attempts, want %d (err %v)", resp.Attempts, tt.attempts, err)
			}
		})
	}
}
