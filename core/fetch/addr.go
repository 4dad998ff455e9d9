package fetch

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// addrTTL is how long a host name's addresses are reused for per-address
// politeness (and dialed, so that the address paced is the one connected
// to): long enough to spare a lookup per request, short enough to follow a
// site that moves.
const addrTTL = time.Minute

// lookupCache resolves host names for Options.PolitePerIP and caches the
// answers for addrTTL. Failures are not cached: the dial looks the name up
// again and reports the failure as its cause.
type lookupCache struct {
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	clock  Clock
	max    int

	mu sync.Mutex
	m  map[string]lookupEntry
}

type lookupEntry struct {
	addrs   []netip.Addr
	expires time.Time
}

func newLookupCache(opt *Options) *lookupCache {
	return &lookupCache{lookup: opt.lookupIP(), clock: opt.Clock, max: opt.MaxHosts, m: map[string]lookupEntry{}}
}

// addrs returns host's addresses in the resolver's order (the order the
// dialer tries them), from the cache when fresh.
func (c *lookupCache) addrs(ctx context.Context, host string) ([]netip.Addr, error) {
	host = strings.ToLower(host)
	now := c.clock.Now()
	c.mu.Lock()
	e, ok := c.m[host]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.addrs, nil
	}
	addrs, err := c.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	addrs = slices.Clone(addrs) // the resolver's, not ours to change
	for i, a := range addrs {
		addrs[i] = a.Unmap()
	}
	c.mu.Lock()
	if len(c.m) >= c.max { // forget the stale answers, then live ones if need be
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < c.max-c.max/16 {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[host] = lookupEntry{addrs: addrs, expires: now.Add(addrTTL)}
	c.mu.Unlock()
	return addrs, nil
}

// lookupIP returns Options.LookupIP or the default resolver's lookup.
func (o *Options) lookupIP() func(ctx context.Context, host string) ([]netip.Addr, error) {
	if o.LookupIP != nil {
		return o.LookupIP
	}
	return func(ctx context.Context, h string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", h)
	}
}

// defaultPort is the port of a URL without one.
func defaultPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// addrOf returns the address a request to u connects to, as the dialer
// picks it: the Resolve entry, the literal IP, or the first address of
// the (cached) lookup that the address policy allows. ok is false when
// there is none to pace by: in testbed mode, for a .onion name, when the
// lookup fails (the dial then reports why) or no address is allowed.
func (f *Fetcher) addrOf(ctx context.Context, u *url.URL) (netip.Addr, bool) {
	if f.opt.Transport != nil {
		return netip.Addr{}, false
	}
	host := strings.ToLower(u.Hostname())
	if to, ok := resolved(f.opt.Resolve, host, defaultPort(u)); ok {
		a, err := netip.ParseAddr(to)
		return a.Unmap(), err == nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap(), true
	}
	if strings.HasSuffix(host, ".onion") {
		return netip.Addr{}, false
	}
	addrs, err := f.lookups.addrs(ctx, host)
	if err != nil {
		f.opt.Logger.Debug("no address to pace by", "host", host, "err", err)
		return netip.Addr{}, false
	}
	for _, a := range addrs {
		if f.opt.AllowPrivate || PublicAddr(a) {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// acquireAddr returns the slot of the address a request to u connects to,
// held, or nil when there is no address to pace by (see addrOf).
func (f *Fetcher) acquireAddr(ctx context.Context, u *url.URL) (*hostState, error) {
	a, ok := f.addrOf(ctx, u)
	if !ok {
		return nil, ctx.Err()
	}
	f.mu.Lock()
	h := slotLocked(f, f.addrs, a)
	f.mu.Unlock()
	return f.hold(ctx, h)
}

// dialAddrs dials port at each of addrs in turn until one connects, as
// net.Dialer does with the addresses of a name (without its IPv4/IPv6
// race), so the first address the policy allows, the one paced by, is the
// one connected to while it answers. The error is the first one.
func dialAddrs(ctx context.Context, nd *net.Dialer, network string, addrs []netip.Addr, port string) (net.Conn, error) {
	var first error
	for _, a := range addrs {
		c, err := nd.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}
