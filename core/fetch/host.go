package fetch

import (
	"context"
	"time"
)

// hostState is the politeness and robots.txt state of one host (authority
// "host[:port]"). Everything but sem and refs is guarded by holding sem,
// which also enforces one request in flight per host.
type hostState struct {
	sem  chan struct{}
	refs int // users between acquire and release; guarded by Fetcher.mu

	next   time.Time                // earliest start of the next request
	delay  time.Duration            // pause after each request (Delay or crawl-delay)
	robots map[string]*robotsRecord // by URL scheme
}

type robotsRecord struct {
	rules   *Rules
	expires time.Time
	why     error // why robots.txt is unavailable (rules is DisallowAll)
}

// acquire returns the state of host with its slot held, waiting for the
// request in flight to the host (if any) to finish.
func (f *Fetcher) acquire(ctx context.Context, host string) (*hostState, error) {
	f.mu.Lock()
	h := f.hosts[host]
	if h == nil {
		if len(f.hosts) >= f.opt.MaxHosts {
			f.evictLocked()
		}
		h = &hostState{sem: make(chan struct{}, 1), delay: f.opt.Delay}
		f.hosts[host] = h
	}
	h.refs++
	f.mu.Unlock()
	select {
	case h.sem <- struct{}{}:
		return h, nil
	case <-ctx.Done():
		f.mu.Lock()
		h.refs--
		f.mu.Unlock()
		return nil, ctx.Err()
	}
}

// release gives the host's slot back.
func (f *Fetcher) release(h *hostState) {
	<-h.sem
	f.mu.Lock()
	h.refs--
	f.mu.Unlock()
}

// evictLocked forgets up to a few hundred hosts that nobody is using and
// whose politeness pause is over, so the host table stays bounded on long
// crawls. Caller holds f.mu.
func (f *Fetcher) evictLocked() {
	now := f.opt.Clock.Now()
	n := 0
	for k, h := range f.hosts {
		if n >= 256 {
			break
		}
		if h.refs == 0 && !h.next.After(now) {
			delete(f.hosts, k)
			n++
		}
	}
}

// pace sleeps until the host may be contacted again.
func (f *Fetcher) pace(ctx context.Context, h *hostState) error {
	if wait := h.next.Sub(f.opt.Clock.Now()); wait > 0 {
		return f.opt.Clock.Sleep(ctx, wait)
	}
	return ctx.Err()
}
