// Package fetch is dwcrawl's HTTP fetcher: the one place that talks to web
// servers during a crawl, shared by every strategy (smartcrawler, scdi, ache,
// bestfirst) so that comparisons between them are fair, and by the Lua
// runtime as its HTTP client (Fetcher.Do satisfies script.HTTPDoer).
//
// It implements the fetching requirements of DESIGN.md ("Discover") and of
// the SmartCrawler crawler architecture (Zhao et al., IEEE TSC 2016, §3: the
// page fetcher of both stages):
//
//   - robots.txt (RFC 9309) with its own parser: user-agent groups (groups
//     naming the crawler are merged, else the "*" groups), allow/disallow with
//     "*" and "$", longest match wins and allow wins ties, crawl-delay,
//     sitemaps. Rules are cached per scheme and host with an expiry; a 4xx
//     robots.txt allows everything, a 5xx or an unreachable one disallows the
//     host for a short while.
//   - politeness per host: one request in flight per host and a minimum
//     delay between requests to it (the larger of Options.Delay and the
//     host's crawl-delay, capped by Options.MaxCrawlDelay); with
//     Options.PolitePerIP also per IP address (one request in flight and
//     Options.Delay between requests to the address a host is dialed at,
//     taken after the host's own pause), so host names on one server are
//     paced as one. A 429 or 503 (or a Retry-After) slows the whole host
//     for the Retry-After or the backoff, at most Options.MaxRetryAfter,
//     whether the URL is retried or not. docs/politeness.md tells it all.
//   - retries under the project's one retry policy (package retry):
//     exponential backoff with seeded jitter for 5xx, 429 and 408 responses
//     (Retry-After honoured up to Options.MaxRetryAfter), timeouts, resets
//     and refused connections; 4xx, robots.txt, the address policy and
//     certificate errors are final. The wait is folded into the host's
//     politeness slot. After the last attempt the failure is returned as an
//     error that keeps its cause (%w), named by Reason and, finer, by Cause
//     ("dns", "refused", "reset", "tls", "timeout", "http-503", "robots",
//     "blocked" ...), never a panic.
//   - redirects followed by hand, each hop checked against robots.txt and the
//     address policy, with a limit and loop detection.
//   - a maximum body size (the body is truncated and Response.Truncated
//     set), a content-type filter (HTML and XHTML by default) and charset
//     decoding to UTF-8 (golang.org/x/net/html/charset).
//   - the address policy: by default loopback, private, link-local and other
//     non-public addresses are refused. The check runs on the resolved IP at
//     dial time (net.Dialer.Control), so a host name that resolves, or
//     re-resolves, to an internal address cannot bypass it.
//     Options.AllowPrivate lifts it; in testbed mode (Options.Transport set)
//     the caller's transport serves every request and only the hosts
//     accepted by Options.AllowHost may be fetched.
//   - HTTP/2 where an HTTPS server offers it (ALPN), the custom dialer
//     notwithstanding (Transport.ForceAttemptHTTP2); Response.Proto says.
//   - the real web's plumbing: curl-style host:port → address mapping
//     (Options.Resolve, ParseResolve; the policy judges the mapped
//     address), proxies (Options.Proxy: http, https, socks5, socks5h, or
//     HTTP_PROXY/HTTPS_PROXY/NO_PROXY with Options.ProxyEnv; a proxied
//     target is resolved and checked against the policy before it is sent,
//     the proxy's own address is exempt), extra request headers, a cookie
//     jar that can be saved and restored (Jar), robots.txt's Sitemap: lines
//     (Sitemaps) and files of any type (FetchFile).
//   - an archive seam: Options.Archiver receives every exchange (robots.txt,
//     retries and redirects included), e.g. a warc.Writer; its failures are
//     counted, never fatal.
//
// Time is read through a Clock so that tests of politeness and backoff run
// on a fake clock, without sleeping and without timing assertions.
package fetch
