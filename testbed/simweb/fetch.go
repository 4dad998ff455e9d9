package simweb

import (
	"net/http"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
)

// FetchOptions adapts fetcher options to the web w served at the loopback
// address addr: every request goes there, only w's hosts are allowed, no
// politeness delay and short retries. w may be nil when the crawler does not
// hold the web (another process serves it): the caller then sets AllowHost.
func FetchOptions(fo fetch.Options, w *Web, addr string) fetch.Options {
	fo.Transport = newOneServer(addr)
	if w != nil {
		fo.AllowHost = w.HasHost
	}
	fo.Delay = 0
	fo.BackoffBase = 20 * time.Millisecond
	fo.BackoffMax = 200 * time.Millisecond
	fo.MaxRetryAfter = 2 * time.Second
	fo.Timeout = 10 * time.Second
	return fo
}

// oneServer carries the requests for every simulated host to the one
// server that serves them all, over one pool of kept-alive connections (as
// a crawler behind a forward proxy does): keyed by host, as a plain
// Transport keys them, each of the thousands of hosts a crawl visits once
// would cost a connection of its own to open and close on both ends.
type oneServer struct {
	addr string
	t    *http.Transport
}

func newOneServer(addr string) *oneServer {
	return &oneServer{addr: addr, t: &http.Transport{DialContext: LoopbackDialer(addr),
		MaxIdleConns: 64, MaxIdleConnsPerHost: 32, IdleConnTimeout: 10 * time.Second}}
}

// RoundTrip sends r to the server with r's host in the Host header.
func (o *oneServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := new(http.Request)
	*r2 = *r // a RoundTripper must not modify its request
	u := *r.URL
	if r2.Host == "" {
		r2.Host = u.Host
	}
	u.Host = o.addr
	r2.URL = &u
	resp, err := o.t.RoundTrip(r2)
	if resp != nil {
		resp.Request = r
	}
	return resp, err
}

// CloseIdleConnections closes the pool's idle connections.
func (o *oneServer) CloseIdleConnections() { o.t.CloseIdleConnections() }
