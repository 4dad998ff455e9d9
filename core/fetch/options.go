package fetch

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/dwcrawl/dwcrawl/core/retry"
)

// Version is the dwcrawl version announced in the default User-Agent.
var Version = "0.1.0-dev"

// InfoURL is the page named in the default User-Agent, where site owners
// learn what the crawler is and how to keep it out.
const InfoURL = "https://github.com/dwcrawl/dwcrawl"

// DefaultUserAgent returns "dwcrawl/VERSION (+InfoURL)".
func DefaultUserAgent() string { return "dwcrawl/" + Version + " (+" + InfoURL + ")" }

// DefaultContentTypes are the media types Fetch accepts unless
// Options.ContentTypes says otherwise.
var DefaultContentTypes = []string{"text/html", "application/xhtml+xml"}

// Options configure a Fetcher. Zero limits (MaxBody, Timeout, MaxRedirects,
// backoff, TTLs) take the defaults shown; Delay and Retries mean what they
// say when zero (no delay, no retries): start from DefaultOptions for real
// web crawling.
type Options struct {
	// UserAgent is sent with every request. Default DefaultUserAgent().
	UserAgent string
	// RobotsAgent is the product token looked up in robots.txt user-agent
	// lines (case-insensitive). Default "dwcrawl".
	RobotsAgent string
	// IgnoreRobots skips robots.txt entirely (testbed experiments only).
	IgnoreRobots bool

	// Delay is the minimum time between the end of one request to a host and
	// the start of the next. A robots.txt crawl-delay larger than Delay wins.
	Delay time.Duration
	// MaxCrawlDelay caps the crawl-delay a robots.txt may impose. Default 30s.
	MaxCrawlDelay time.Duration
	// PolitePerIP keeps a politeness slot per IP address as well as per
	// host: each attempt also waits for the address its host is dialed at
	// (one request in flight per address, Delay between the end of one and
	// the start of the next), so host names on one server (virtual hosts)
	// are paced as one. Off by default, as in Heritrix and StormCrawler: a
	// CDN puts unrelated sites on one address. The address is the one the
	// dialer connects to (Resolve, or the first one of the name's lookup
	// the address policy allows; lookups are cached for a minute); robots.txt
	// rules, crawl-delay and Retry-After stay per host. Without an address
	// (testbed Transport, a name only the proxy resolves, a failed lookup)
	// the host's slot alone applies.
	PolitePerIP bool

	// Timeout bounds one attempt (connect, headers and body). Default 30s.
	Timeout time.Duration
	// Retries is the number of extra attempts after a retryable failure
	// (5xx, 429, 408, timeout, connection reset; see package retry).
	Retries int
	// BackoffBase is the backoff before the first retry; it doubles on each
	// retry up to BackoffMax, and half of it is random jitter. Defaults
	// 500ms and 30s.
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter is the longest Retry-After the fetcher waits for; a
	// server asking for more fails the fetch at once. Default 2m. It also
	// bounds how long a 429 or 503 keeps the host's other requests waiting.
	MaxRetryAfter time.Duration
	// RetryMaxElapsed, when positive, stops retrying a request once this
	// much time has passed since its first attempt.
	RetryMaxElapsed time.Duration
	// Seed seeds the backoff jitter.
	Seed uint64

	// MaxBody is the largest body read; longer bodies are truncated and
	// flagged. Default 4 MiB.
	MaxBody int64
	// MaxRedirects is the longest redirect chain followed. Default 10.
	MaxRedirects int
	// ContentTypes lists the media types Fetch accepts ("text/*" and "*/*"
	// patterns allowed). Default DefaultContentTypes. Do ignores it.
	ContentTypes []string

	// RobotsTTL is how long robots.txt rules are cached. Default 24h.
	RobotsTTL time.Duration
	// RobotsErrorTTL is how long a host whose robots.txt answered 5xx or
	// could not be fetched stays disallowed. Default 10m.
	RobotsErrorTTL time.Duration
	// MaxRobotsSize is the largest robots.txt read. Default 500 KiB.
	MaxRobotsSize int64

	// AllowPrivate lets the fetcher reach loopback, private and link-local
	// addresses (tests against local servers, intranet crawls).
	AllowPrivate bool
	// Transport, when set, carries every request (testbed mode: simweb's
	// in-process transport); no dialing happens and the address policy is
	// replaced by AllowHost, which is then required.
	Transport http.RoundTripper
	// AllowHost decides which host names (lower-case, without port) may be
	// fetched. Required with Transport; optional otherwise (an extra filter).
	AllowHost func(host string) bool

	// Resolve maps "host:port" to the address to connect to instead of
	// resolving host, as curl's --resolve does (lab host names, a site
	// moved to a new server). The address policy applies to the mapped
	// address. Keys are lower-case "host:port", "*.domain:port" or
	// "*:port"; see ParseResolve.
	Resolve map[string]string
	// Proxy is the proxy every request goes through: http://, https://,
	// socks5:// or socks5h:// (the proxy resolves the host name: Tor).
	// When nil and ProxyEnv is set, HTTP_PROXY, HTTPS_PROXY and NO_PROXY
	// (or their lower-case forms) decide. With a proxy the target is not
	// dialed by the fetcher: before a request is sent through a proxy its
	// host is resolved here (LookupIP, or Resolve) and every address must
	// pass the address policy; the proxy's own address is exempt (the user
	// chose it). What the proxy then connects to is beyond the policy (a
	// name that resolves differently at the proxy, DNS rebinding). .onion
	// names, which only the proxy can resolve, are not looked up.
	Proxy    *url.URL
	ProxyEnv bool
	// LookupIP resolves a host name for the address policy of proxied
	// requests and, with PolitePerIP, for the address a host is paced and
	// dialed at. Default net.DefaultResolver.LookupNetIP("ip").
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)

	// Header holds extra request headers sent with every request (a
	// profile's politeness.headers); they replace the crawler's defaults of
	// the same name (Accept, Accept-Language), never User-Agent, which is
	// UserAgent. Do keeps the headers its caller set.
	Header http.Header
	// Jar, when set, receives the cookies of every response and sends them
	// back with the requests they apply to (a request that already carries
	// a Cookie header keeps it). See NewJar for one that can be persisted.
	Jar http.CookieJar
	// Archiver, when set, is given every HTTP exchange (robots.txt, pages,
	// retries, redirects, plugin requests) once it completes; an error it
	// returns is logged and counted (ArchiveErrors), never fails the fetch.
	Archiver Archiver

	// MaxHosts bounds the per-host state kept (politeness, robots cache),
	// and with PolitePerIP the per-address state and the lookup cache;
	// idle hosts beyond it are forgotten. Default 4096: a crawl works on a
	// few hosts at a time, and at ~1.5 KB a host 100,000 hosts held 150 MB
	// (a forgotten host's robots.txt is fetched again if it is visited again).
	MaxHosts int

	// Clock reads time and sleeps. Default the system clock.
	Clock Clock
	// Logger receives debug logs of retries and robots decisions. Default
	// slog.Default().
	Logger *slog.Logger
}

// DefaultOptions returns the settings for crawling the real web: a one
// second delay per host and three retries.
func DefaultOptions() Options {
	return Options{Delay: time.Second, Retries: 3}
}

func (o *Options) fill() {
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent()
	}
	if o.RobotsAgent == "" {
		o.RobotsAgent = "dwcrawl"
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.MaxCrawlDelay, 30*time.Second)
	def(&o.Timeout, 30*time.Second)
	def(&o.BackoffBase, 500*time.Millisecond)
	def(&o.BackoffMax, 30*time.Second)
	def(&o.MaxRetryAfter, 2*time.Minute)
	def(&o.RobotsTTL, 24*time.Hour)
	def(&o.RobotsErrorTTL, 10*time.Minute)
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Delay < 0 {
		o.Delay = 0
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 4 << 20
	}
	if o.MaxRobotsSize <= 0 {
		o.MaxRobotsSize = 500 << 10
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = 10
	}
	if o.ContentTypes == nil {
		o.ContentTypes = DefaultContentTypes
	}
	if o.MaxHosts <= 0 {
		o.MaxHosts = 4096
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Clock is the fetcher's source of time (the retry package's). Tests use a
// fake clock whose Sleep advances Now instantly, so politeness and backoff
// are checked exactly.
type Clock = retry.Clock

// SystemClock is the real clock.
type SystemClock = retry.SystemClock
