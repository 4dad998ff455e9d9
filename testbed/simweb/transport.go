package simweb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// HasHost reports whether host (with or without port) is served by the web:
// one of its sites or the search engine.
func (w *Web) HasHost(host string) bool {
	host = strings.ToLower(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == SearchEngineHost {
		return true
	}
	_, ok := w.hostIdx[host]
	return ok
}

func noSuchHost(host string) error {
	return &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// Transport returns an http.RoundTripper that serves every request
// in-process, without sockets. Hosts the web does not have fail as a DNS
// lookup would; a connection-reset fault fails the round trip with
// ECONNRESET.
func (w *Web) Transport() http.RoundTripper { return &inProcess{h: w.Handler(), w: w} }

// Client is an http.Client over Transport that does not follow redirects
// by itself more than 10 times (the net/http default).
func (w *Web) Client() *http.Client { return &http.Client{Transport: w.Transport()} }

type inProcess struct {
	h http.Handler
	w *Web
}

var errReset = &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}

func (t *inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	if !t.w.HasHost(host) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: noSuchHost(host)}
	}
	sreq := req.Clone(req.Context())
	sreq.Host = req.Host
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "127.0.0.1:1"
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	sreq.Proto, sreq.ProtoMajor, sreq.ProtoMinor = "HTTP/1.1", 1, 1
	pr, pw := io.Pipe()
	rw := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer func() {
			if v := recover(); v != nil {
				rw.abort = true
				rw.commit()
				pw.CloseWithError(errReset)
				if v != http.ErrAbortHandler {
					panic(v)
				}
				return
			}
			rw.commit()
			pw.Close()
		}()
		t.h.ServeHTTP(rw, sreq)
	}()
	select {
	case <-rw.ready:
	case <-req.Context().Done():
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	if rw.abort {
		return nil, errReset
	}
	resp := &http.Response{Status: fmt.Sprintf("%d %s", rw.code, http.StatusText(rw.code)), StatusCode: rw.code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: rw.sent, Body: pr, ContentLength: -1, Request: req}
	if cl := rw.sent.Get("Content-Length"); cl != "" {
		fmt.Sscan(cl, &resp.ContentLength)
	}
	if req.Method == http.MethodHead {
		pr.Close()
		resp.Body = http.NoBody
	}
	return resp, nil
}

// pipeWriter is a ResponseWriter that streams the body into a pipe and
// releases the response once the header is written.
type pipeWriter struct {
	header http.Header
	sent   http.Header
	code   int
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	abort  bool
}

func (p *pipeWriter) Header() http.Header { return p.header }

func (p *pipeWriter) WriteHeader(code int) {
	if p.code != 0 {
		return
	}
	p.code = code
	p.sent = p.header.Clone()
	p.once.Do(func() { close(p.ready) })
}

func (p *pipeWriter) commit() {
	if p.code == 0 && !p.abort {
		p.WriteHeader(http.StatusOK)
	}
	p.once.Do(func() { close(p.ready) })
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	if p.code == 0 {
		if p.header.Get("Content-Type") == "" {
			p.header.Set("Content-Type", http.DetectContentType(b))
		}
		p.WriteHeader(http.StatusOK)
	}
	return p.pw.Write(b)
}

func (p *pipeWriter) Flush() {}

// DialContext connects to the web's HTTP server through an in-memory pipe,
// whatever the address, for use as http.Transport.DialContext: the full
// HTTP/1.1 stack runs (keep-alive, hijacked resets) without sockets. Hosts
// the web does not have fail as a DNS lookup would.
func (w *Web) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if !w.HasHost(host) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: noSuchHost(host)}
	}
	w.pipeOnce.Do(func() {
		w.pipeLn = &pipeListener{ch: make(chan net.Conn), done: make(chan struct{})}
		srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: time.Minute}
		go srv.Serve(w.pipeLn)
	})
	c1, c2 := net.Pipe()
	select {
	case w.pipeLn.ch <- c2:
		return c1, nil
	case <-ctx.Done():
		c1.Close()
		c2.Close()
		return nil, ctx.Err()
	}
}

type pipeListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "simweb" }

// ServeOptions configures a listening server.
type ServeOptions struct {
	// Proxy accepts absolute-form requests ("GET http://host/ HTTP/1.1"), so
	// the server works as an HTTP forward proxy for browsers and curl -x.
	// CONNECT (https) is refused.
	Proxy bool
	// RequestLog, when set, receives one line per request as it arrives:
	// "METHOD http://HOST/PATH?QUERY" (the server's side of the count of
	// pages fetched: a crawler's duplicates show there).
	RequestLog io.Writer
}

// logRequests writes each request's method and absolute URL to w.
func logRequests(h http.Handler, w io.Writer) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		host := r.Host
		if r.URL.IsAbs() {
			host = r.URL.Host
		}
		line := r.Method + " http://" + host + r.URL.RequestURI() + "\n"
		mu.Lock()
		io.WriteString(w, line)
		mu.Unlock()
		h.ServeHTTP(rw, r)
	})
}

// Server is the web served on a TCP listener.
type Server struct {
	// Addr is the listening address (host:port).
	Addr string
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	err  error
}

// Listen serves the web on addr ("127.0.0.1:0" picks a free port) until Close.
func (w *Web) Listen(addr string, opt ServeOptions) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("simweb: listen %s: %w", addr, err)
	}
	h := w.Handler()
	if opt.Proxy {
		h = proxyHandler(h)
	} else {
		h = originHandler(h)
	}
	if opt.RequestLog != nil {
		h = logRequests(h, opt.RequestLog)
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}}
	go func() {
		err := s.srv.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
		close(s.done)
	}()
	return s, nil
}

// Close stops the server and its connections.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	if err == nil {
		err = s.err
	}
	return err
}

// Client returns an http.Client that reaches every host of the web through
// this server (its dialer connects to Addr whatever the host).
func (s *Server) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: LoopbackDialer(s.Addr), MaxIdleConnsPerHost: 4, DisableCompression: true}}
}

// LoopbackDialer returns a DialContext that connects every address to the
// simweb server at addr: the testbed way to reach generated hosts over a
// real socket.
func LoopbackDialer(addr string) func(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "tcp", addr)
	}
}

// Serve serves the web on addr until ctx is cancelled.
func (w *Web) Serve(ctx context.Context, addr string, opt ServeOptions) error {
	s, err := w.Listen(addr, opt)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return s.Close()
	case <-s.done:
		return s.err
	}
}

func proxyHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			http.Error(rw, "simweb: CONNECT is not supported; the simulated web is plain http://", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(rw, r)
	})
}

func originHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.IsAbs() || r.Method == http.MethodConnect {
			http.Error(rw, "simweb: proxy requests need the server started in proxy mode (--proxy)", http.StatusBadRequest)
			return
		}
		h.ServeHTTP(rw, r)
	})
}
