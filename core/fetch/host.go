package fetch

import (
	"context"
	"time"
)

// hostState is the politeness and robots.txt state of one host (authority
// "host[:port]"), or with Options.PolitePerIP of one IP address (then only
// sem, refs and next are used). Everything but sem and refs is guarded by
// holding sem, which also enforces one request in flight per host.
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
	h := slotLocked(f, f.hosts, host)
	f.mu.Unlock()
	return f.hold(ctx, h)
}

// slotLocked returns the state of key in m, made when absent (forgetting
// idle ones first when m is full), with a reference taken for the caller.
// Caller holds f.mu.
func slotLocked[K comparable](f *Fetcher, m map[K]*hostState, key K) *hostState {
	h := m[key]
	if h == nil {
		if len(m) >= f.opt.MaxHosts {
			evictLocked(m, f.opt.Clock.Now())
		}
		h = &hostState{sem: make(chan struct{}, 1), delay: f.opt.Delay}
		m[key] = h
	}
	h.refs++
	return h
}

// hold waits for h's slot; the caller has a reference on h, which is given
// back when ctx ends first.
func (f *Fetcher) hold(ctx context.Context, h *hostState) (*hostState, error) {
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

// evictLocked forgets up to a few hundred hosts (or addresses) that nobody
// is using and whose politeness pause is over, so the table stays bounded
// on long crawls. Caller holds f.mu.
func evictLocked[K comparable](m map[K]*hostState, now time.Time) {
	n := 0
	for k, h := range m {
		if n >= 256 {
			break
		}
		if h.refs == 0 && !h.next.After(now) {
			delete(m, k)
			n++
		}
	}
}

// pace sleeps until next, the earliest start of a request to a host or an
// address.
func (f *Fetcher) pace(ctx context.Context, next time.Time) error {
	if wait := next.Sub(f.opt.Clock.Now()); wait > 0 {
		return f.opt.Clock.Sleep(ctx, wait)
	}
	return ctx.Err()
}
