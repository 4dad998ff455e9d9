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
	// Every simulated host is a pool of its own to the Transport and a
	// crawl rarely returns to a host once its site is done: a small total
	// of idle connections keeps thousands of them (8 KiB of buffers each,
	// on both ends) from piling up.
	fo.Transport = &http.Transport{DialContext: LoopbackDialer(addr), MaxIdleConns: 64, MaxIdleConnsPerHost: 4, IdleConnTimeout: 10 * time.Second}
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
