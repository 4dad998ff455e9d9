package fetch

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// nonPublic lists the prefixes the default address policy refuses besides
// what netip.Addr's own predicates catch (loopback, private, link-local,
// multicast, unspecified).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:10::/28"),    // ORCHID
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
}

// PublicAddr reports whether ip is a public unicast address, the only kind
// the default address policy lets the fetcher connect to.
func PublicAddr(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// checkHost applies the host part of the policy before any connection: the
// testbed allow-list or the AllowHost filter, and, without AllowPrivate, a
// refusal of literal non-public IPs and of "localhost" names. The dial-time
// check (dialControl) is the one that cannot be bypassed; this one only
// fails early with a clearer message.
func (f *Fetcher) checkHost(host string) error {
	if f.opt.AllowHost != nil && !f.opt.AllowHost(host) {
		if f.opt.Transport != nil {
			return fmt.Errorf("host %s is not a testbed host: %w", host, ErrBlocked)
		}
		return fmt.Errorf("host %s: %w", host, ErrBlocked)
	}
	if f.opt.Transport != nil || f.opt.AllowPrivate {
		return nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("host %s: %w", host, ErrBlocked)
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !PublicAddr(ip) {
		return fmt.Errorf("address %s: %w", ip, ErrBlocked)
	}
	return nil
}

// dialControl runs after name resolution, on the exact address about to be
// connected to, so a DNS answer (or a re-resolution) pointing at an internal
// address is refused too.
func dialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s %s: unparsable address: %w", network, address, ErrBlocked)
	}
	if !PublicAddr(ap.Addr()) {
		return fmt.Errorf("dial %s %s: non-public address: %w", network, address, ErrBlocked)
	}
	return nil
}

// newDialer returns the dialer of the default transport: with the address
// policy in Control unless private addresses are allowed.
func newDialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = dialControl
	}
	return d
}
