package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// ParseResolve parses curl-style --resolve entries, "HOST:PORT:ADDR" (ADDR
// an IP address, an IPv6 one optionally in brackets), into the map of
// Options.Resolve. HOST may be "*.domain" (every name under domain) or "*"
// (every name); an exact entry wins over a wildcard, a longer domain over a
// shorter one. A later entry for the same HOST:PORT replaces an earlier.
func ParseResolve(entries []string) (map[string]string, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		host, rest, ok := strings.Cut(strings.TrimSpace(e), ":")
		port, addr, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || host == "" || port == "" || addr == "" {
			return nil, fmt.Errorf("resolve %q: want HOST:PORT:ADDR, e.g. wiki.lab.test:8080:127.0.0.1", e)
		}
		if strings.Contains(host, "*") && host != "*" && (!strings.HasPrefix(host, "*.") || strings.Count(host, "*") > 1) {
			return nil, fmt.Errorf("resolve %q: a wildcard HOST is \"*\" or \"*.domain\"", e)
		}
		if _, err := netip.ParseAddrPort("0.0.0.0:" + port); err != nil {
			return nil, fmt.Errorf("resolve %q: bad port %q", e, port)
		}
		ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]"))
		if err != nil {
			return nil, fmt.Errorf("resolve %q: ADDR must be an IP address: %w", e, err)
		}
		m[net.JoinHostPort(strings.ToLower(host), port)] = ip.String()
	}
	return m, nil
}

// ParseProxy parses a proxy URL as --proxy takes it: http://, https://,
// socks5:// or socks5h://, with a host and optional user:password; a bare
// "host:port" means http://.
func ParseProxy(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("proxy %q: %w", raw, err)
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("proxy %q: scheme %q: want http, https, socks5 or socks5h", raw, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("proxy %q: no host", raw)
	}
	return u, nil
}

// resolved returns the address Resolve maps host:port to: the exact
// entry, else the longest matching "*.domain" entry, else "*".
func resolved(m map[string]string, host, port string) (string, bool) {
	if len(m) == 0 {
		return "", false
	}
	host = strings.ToLower(host)
	if to, ok := m[net.JoinHostPort(host, port)]; ok {
		return to, true
	}
	for h := host; ; {
		i := strings.IndexByte(h, '.')
		if i < 0 {
			break
		}
		h = h[i+1:]
		if to, ok := m[net.JoinHostPort("*."+h, port)]; ok {
			return to, true
		}
	}
	to, ok := m[net.JoinHostPort("*", port)]
	return to, ok
}

// netSetup is what the real transport needs from the network options.
type netSetup struct {
	proxy func(*http.Request) (*url.URL, error) // nil: no proxy
	// proxies are the proxies' "host:port" addresses, dialed without the
	// address policy.
	proxies map[string]bool
}

// newNetSetup reads the proxy options.
func newNetSetup(opt *Options) netSetup {
	ns := netSetup{proxies: map[string]bool{}}
	switch {
	case opt.Proxy != nil:
		p := opt.Proxy
		ns.proxy = func(*http.Request) (*url.URL, error) { return p, nil }
		ns.proxies[proxyAddr(p)] = true
	case opt.ProxyEnv:
		cfg := httpproxy.FromEnvironment()
		if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" {
			break
		}
		fn := cfg.ProxyFunc()
		ns.proxy = func(r *http.Request) (*url.URL, error) { return fn(r.URL) }
		for _, s := range []string{cfg.HTTPProxy, cfg.HTTPSProxy} {
			if u, err := ParseProxy(s); err == nil && s != "" {
				ns.proxies[proxyAddr(u)] = true
			}
		}
	}
	return ns
}

// proxyAddr is the "host:port" a proxy URL is dialed at.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// dialer dials with the Resolve map, and with the address policy except
// toward a configured proxy.
type dialer struct {
	policy, free *net.Dialer
	resolve      map[string]string
	proxies      map[string]bool
	// lookups, with Options.PolitePerIP, resolves the names of direct
	// connections, so they go to the address the request was paced by.
	lookups *lookupCache
}

func newPolicyDialer(opt *Options, ns netSetup, lookups *lookupCache) *dialer {
	return &dialer{policy: newDialer(opt.AllowPrivate), free: newDialer(true), resolve: opt.Resolve, proxies: ns.proxies, lookups: lookups}
}

// DialContext maps addr through Resolve (or, with PolitePerIP, the lookup
// cache) and dials it; the policy's Control check sees the address
// actually connected to.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nd := d.policy
	if d.proxies[strings.ToLower(addr)] {
		nd = d.free
	}
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if to, ok := resolved(d.resolve, host, port); ok {
			addr = net.JoinHostPort(to, port)
		} else if _, err := netip.ParseAddr(host); err != nil && d.lookups != nil && nd == d.policy {
			addrs, err := d.lookups.addrs(ctx, host)
			if err != nil {
				return nil, &net.OpError{Op: "dial", Net: network, Err: err}
			}
			return dialAddrs(ctx, nd, network, addrs, port)
		}
	}
	return nd.DialContext(ctx, network, addr)
}

// checkProxied applies the address policy to the target of a request that
// goes through a proxy: the fetcher does not dial the target, so it
// resolves the host itself and refuses the request if any address is not
// public. A request that goes direct is checked at dial time instead.
func (f *Fetcher) checkProxied(ctx context.Context, req *http.Request) error {
	if f.net.proxy == nil || f.opt.AllowPrivate {
		return nil
	}
	pu, err := f.net.proxy(req)
	if err != nil || pu == nil {
		return err
	}
	host := strings.ToLower(req.URL.Hostname())
	if strings.HasSuffix(host, ".onion") {
		return nil // only the proxy (Tor) can resolve it
	}
	port := req.URL.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[req.URL.Scheme]
	}
	var addrs []netip.Addr
	if to, ok := resolved(f.opt.Resolve, host, port); ok {
		addrs = []netip.Addr{netip.MustParseAddr(to)}
	} else if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		lookup := f.opt.lookupIP()
		if f.lookups != nil {
			lookup = f.lookups.addrs
		}
		if addrs, err = lookup(ctx, host); err != nil {
			return fmt.Errorf("resolving %s for the address policy (proxied request): %w", host, err)
		}
	}
	for _, ip := range addrs {
		if !PublicAddr(ip) {
			return fmt.Errorf("%s resolves to non-public address %s (proxied request): %w", host, ip, ErrBlocked)
		}
	}
	return nil
}
