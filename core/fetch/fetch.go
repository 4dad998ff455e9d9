package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/canon"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/retry"
	"golang.org/x/net/html/charset"
)

// Response is the outcome of Fetch. Fetch returns one even when it fails,
// filled as far as the fetch got, so the failure can be recorded.
type Response struct {
	// URL is the final URL after redirects, canonical.
	URL string
	// Status is the HTTP status of the final response (0 if none arrived).
	Status int
	// Header is the final response's header.
	Header http.Header
	// Proto is the protocol of the final response: "HTTP/1.1", or
	// "HTTP/2.0" where the server offers HTTP/2 (over TLS).
	Proto string
	// Body is the body decoded to UTF-8, at most Options.MaxBody bytes of
	// the original. Parse it as UTF-8 (page.Parse with ContentType
	// "text/html; charset=utf-8"), not with the original charset.
	Body []byte
	// Truncated is set when the body was longer than Options.MaxBody.
	Truncated bool
	// ContentType is the media type, lower case, without parameters.
	ContentType string
	// Charset is the name of the encoding Body was decoded from.
	Charset string
	// Redirects lists the URLs that redirected, in order, starting with the
	// requested one; empty without redirects.
	Redirects []string
	// Duration is the wall time of the fetch, waits included.
	Duration time.Duration
	// Attempts counts HTTP requests over all hops (robots.txt excluded).
	Attempts int
}

// Fetcher fetches pages politely. It is safe for concurrent use; requests
// to different hosts proceed in parallel, requests to one host one at a
// time.
type Fetcher struct {
	opt   Options
	rt    http.RoundTripper
	owned *http.Transport // the transport we built (nil in testbed mode)

	mu    sync.Mutex
	hosts map[string]*hostState
	addrs map[netip.Addr]*hostState // Options.PolitePerIP: a slot per address

	lookups *lookupCache // Options.PolitePerIP on the real transport

	retry *retry.Backoff
	net   netSetup // proxy of the real transport

	archiveErrs atomic.Int64
}

// New returns a Fetcher with opt (defaults filled in). Transport without
// AllowHost is an error: testbed mode must say which hosts are the
// testbed's.
func New(opt Options) (*Fetcher, error) {
	opt.fill()
	f := &Fetcher{opt: opt, hosts: map[string]*hostState{}, retry: retry.New(retry.Policy{
		Retries: opt.Retries, Base: opt.BackoffBase, Max: opt.BackoffMax, MaxRetryAfter: opt.MaxRetryAfter,
		MaxElapsed: opt.RetryMaxElapsed, Seed: opt.Seed, Classify: classify, Clock: opt.Clock,
	})}
	if opt.Transport != nil {
		if opt.AllowHost == nil {
			return nil, errors.New("fetch: testbed Transport given without AllowHost")
		}
		f.rt = opt.Transport
		return f, nil
	}
	f.net = newNetSetup(&f.opt)
	if opt.PolitePerIP {
		f.addrs = map[netip.Addr]*hostState{}
		f.lookups = newLookupCache(&f.opt)
	}
	d := newPolicyDialer(&f.opt, f.net, f.lookups)
	f.owned = &http.Transport{
		// with a proxy the target is checked before the request is sent
		// (checkProxied): the proxy, not our dialer, connects to it
		Proxy:       f.net.proxy,
		DialContext: d.DialContext,
		// HTTP/2 where the server offers it (ALPN): a custom DialContext
		// turns Go's automatic HTTP/2 off unless forced
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: opt.Timeout,
		ExpectContinueTimeout: time.Second,
	}
	f.rt = f.owned
	return f, nil
}

// Options returns the fetcher's options with defaults filled in.
func (f *Fetcher) Options() Options { return f.opt }

// Close releases idle connections.
func (f *Fetcher) Close() {
	if f.owned != nil {
		f.owned.CloseIdleConnections()
	}
}

// mode says what a round trip is for.
type mode int

const (
	modePage   mode = iota // Fetch: content-type filter, bodies of 2xx only
	modeRobots             // robots.txt: bodies of 2xx only
	modeRaw                // Do: every body, no filter
	modeFile               // FetchFile: as a page, any content type, no decoding
)

// exchange is what a round trip (with its retries) produced.
type exchange struct {
	status                 int
	header                 http.Header
	body                   []byte
	truncated              bool
	mediaType              string
	attempts               int
	proto                  string // of the response, "HTTP/1.1"
	protoMajor, protoMinor int
}

// Fetch GETs rawURL as a crawler does: robots.txt, politeness, retries,
// redirects, size and type limits, charset decoding. The error, if any,
// wraps one of the package's sentinel errors or the network error; the
// Response is never nil.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (resp *Response, err error) {
	return f.fetch(ctx, rawURL, modePage)
}

// fetch is Fetch or FetchFile (m).
func (f *Fetcher) fetch(ctx context.Context, rawURL string, m mode) (resp *Response, err error) {
	start := f.opt.Clock.Now()
	resp = &Response{URL: rawURL}
	defer func() { resp.Duration = f.opt.Clock.Now().Sub(start) }()
	u, err := parseURL(rawURL)
	if err != nil {
		return resp, err
	}
	resp.URL = u.String()
	for hops := 0; ; hops++ {
		if err := f.checkHost(u.Hostname()); err != nil {
			return resp, fmt.Errorf("fetch %s: %w", u, err)
		}
		req, err := f.newRequest(ctx, http.MethodGet, u, nil)
		if err != nil {
			return resp, err
		}
		ex, err := f.hostRoundTrip(ctx, req, m)
		resp.Attempts += ex.attempts
		resp.Status, resp.Header, resp.Proto = ex.status, ex.header, ex.proto
		if err != nil {
			return resp, fmt.Errorf("fetch %s: %w", u, err)
		}
		if next, ok, err := f.followRedirect(u, ex, resp, hops); err != nil {
			return resp, fmt.Errorf("fetch %s: %w", resp.Redirects[0], err)
		} else if ok {
			u = next
			continue
		}
		if ex.status < 200 || ex.status > 299 {
			return resp, fmt.Errorf("fetch %s: %w", u, &StatusError{Code: ex.status})
		}
		resp.ContentType, resp.Truncated = ex.mediaType, ex.truncated
		if m == modeFile {
			resp.Body = ex.body
			return resp, nil
		}
		resp.Body, resp.Charset = decodeBody(ex.body, ex.header.Get("Content-Type"))
		return resp, nil
	}
}

// followRedirect decides whether ex is a redirect to follow and returns the
// next URL, recording the hop in resp.Redirects.
func (f *Fetcher) followRedirect(u *url.URL, ex *exchange, resp *Response, hops int) (*url.URL, bool, error) {
	loc := ex.header.Get("Location")
	if !isRedirect(ex.status) || loc == "" {
		return nil, false, nil
	}
	resp.Redirects = append(resp.Redirects, u.String())
	if hops >= f.opt.MaxRedirects {
		return nil, false, fmt.Errorf("more than %d redirects: %w", f.opt.MaxRedirects, ErrTooManyRedirects)
	}
	ref, err := u.Parse(loc)
	if err != nil {
		return nil, false, fmt.Errorf("redirect to %q: %w", loc, ErrBadURL)
	}
	next, err := parseURL(ref.String())
	if err != nil {
		return nil, false, fmt.Errorf("redirect: %w", err)
	}
	ns := next.String()
	for _, seen := range resp.Redirects {
		if seen == ns {
			return nil, false, fmt.Errorf("%s redirects back to %s: %w", u, ns, ErrRedirectLoop)
		}
	}
	resp.URL = ns
	return next, true, nil
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// hostRoundTrip performs req holding its host's slot: robots.txt first (page
// mode), then the request with pacing and retries.
func (f *Fetcher) hostRoundTrip(ctx context.Context, req *http.Request, m mode) (*exchange, error) {
	h, err := f.acquire(ctx, req.URL.Host)
	if err != nil {
		return &exchange{}, err
	}
	defer f.release(h)
	if (m == modePage || m == modeFile) && !f.opt.IgnoreRobots {
		rec, err := f.robotsLocked(ctx, h, req.URL)
		if err != nil {
			return &exchange{}, err
		}
		if p := req.URL.RequestURI(); !rec.rules.Allowed(p) {
			if rec.rules == DisallowAll {
				var se *StatusError
				if rec.why != nil && !errors.As(rec.why, &se) {
					// the host could not be reached at all: say why, not
					// that robots.txt forbids it
					return &exchange{}, fmt.Errorf("robots.txt of %s could not be fetched: %w", req.URL.Host, rec.why)
				}
				if rec.why != nil {
					return &exchange{}, fmt.Errorf("robots.txt of %s unavailable (%w): %w", req.URL.Host, rec.why, ErrDisallowed)
				}
				return &exchange{}, fmt.Errorf("robots.txt of %s unavailable: %w", req.URL.Host, ErrDisallowed)
			}
			return &exchange{}, fmt.Errorf("%s: %w", p, ErrDisallowed)
		}
	}
	return f.roundTrip(ctx, h, req, m)
}

// roundTrip performs req with pacing and retries; the caller holds h. The
// wait before a retry (the retry policy's backoff or the server's
// Retry-After) is folded into the host's next slot, so it also delays the
// host's other requests; so is a 429 or 503 that is not retried (see
// slowHost). With PolitePerIP each attempt also holds the slot of the
// address it goes to, taken once the host's own pause is over, so that a
// host's long pause (crawl-delay, Retry-After) does not hold up the other
// hosts on its address.
func (f *Fetcher) roundTrip(ctx context.Context, h *hostState, req *http.Request, m mode) (*exchange, error) {
	ex := &exchange{}
	start := f.opt.Clock.Now()
	for {
		if err := f.pace(ctx, h.next); err != nil {
			return ex, err
		}
		var a *hostState
		if f.addrs != nil {
			var err error
			if a, err = f.acquireAddr(ctx, req.URL); err != nil {
				return ex, err
			}
			if a != nil {
				if err := f.pace(ctx, a.next); err != nil {
					f.release(a)
					return ex, err
				}
			}
		}
		ex.attempts++
		err := f.attempt(ctx, req, m, ex)
		now := f.opt.Clock.Now()
		h.next = now.Add(h.delay)
		if a != nil {
			a.next = now.Add(f.opt.Delay)
			f.release(a)
		}
		if err == nil || ctx.Err() != nil {
			return ex, err
		}
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			f.slowHost(h, req, err, ex.attempts, now, 0)
			return ex, err // the body cannot be sent again
		}
		wait, stop := f.retry.Next(ex.attempts, now.Sub(start), err)
		if stop != nil {
			f.slowHost(h, req, err, ex.attempts, now, 0)
			return ex, stop
		}
		f.slowHost(h, req, err, ex.attempts, now, wait)
		f.opt.Logger.Debug("fetch retry", "url", canon.Redacted(req.URL.String()), "attempt", ex.attempts, "wait", wait, "err", err)
		if t := now.Add(wait); t.After(h.next) {
			h.next = t
		}
	}
}

// slowHost keeps the host's next request (any URL) waiting after a 429 or
// 503, or any retryable status with Retry-After, whether the URL is
// retried or not: for the Retry-After, or without one the backoff of the
// retry (retryWait, 0 when the URL is not retried: the backoff a retry
// would have waited), at most Options.MaxRetryAfter (a server asking for
// more is given that much; its URL fails at once). It is logged: an
// operator wants to know a site is pushing back.
func (f *Fetcher) slowHost(h *hostState, req *http.Request, err error, attempt int, now time.Time, retryWait time.Duration) {
	var se *StatusError
	if !errors.As(err, &se) || (se.Code != http.StatusTooManyRequests && se.Code != http.StatusServiceUnavailable && se.RetryAfter <= 0) {
		return
	}
	wait := se.RetryAfter
	switch {
	case wait > 0:
	case retryWait > 0:
		wait = retryWait
	default:
		wait = f.retry.Delay(attempt)
	}
	wait = min(wait, f.opt.MaxRetryAfter)
	if t := now.Add(wait); t.After(h.next) {
		h.next = t
		f.opt.Logger.Info("host slowed down", "host", req.URL.Host, "status", se.Code, "retry_after", se.RetryAfter, "wait", wait,
			"url", canon.Redacted(req.URL.String()))
	}
}

// attempt performs one HTTP request into ex. Its error, if any, is
// classified by classify: a *StatusError for a retryable status, a
// transport error, or a final one.
func (f *Fetcher) attempt(ctx context.Context, req *http.Request, m mode, ex *exchange) error {
	ex.status, ex.header, ex.body, ex.truncated, ex.mediaType, ex.proto = 0, nil, nil, false, "", ""
	actx, cancel := context.WithTimeout(ctx, f.opt.Timeout)
	defer cancel()
	r := req.Clone(actx)
	if ex.attempts > 1 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return retry.Permanent(fmt.Errorf("rewind request body: %w", err))
		}
		r.Body = body
	}
	if err := f.checkProxied(actx, r); err != nil {
		return f.netErr(ctx, actx, err)
	}
	if jar := f.opt.Jar; jar != nil && r.Header.Get("Cookie") == "" {
		for _, c := range jar.Cookies(r.URL) {
			r.AddCookie(c)
		}
	}
	var remote string
	sent := f.opt.Clock.Now()
	if f.opt.Archiver != nil {
		r = traceRemote(r, &remote)
	}
	hr, err := f.rt.RoundTrip(r)
	if err != nil {
		return f.netErr(ctx, actx, err)
	}
	defer hr.Body.Close()
	if jar := f.opt.Jar; jar != nil {
		if cs := hr.Cookies(); len(cs) > 0 {
			jar.SetCookies(r.URL, cs)
		}
	}
	ex.status, ex.header = hr.StatusCode, hr.Header
	ex.proto = hr.Proto
	if f.opt.Archiver != nil {
		// the archive keeps every response whole (up to the body limit),
		// whatever the crawl needs of it
		defer func() { f.archive(ctx, r, hr, ex.body, ex.truncated, remote, sent) }()
		if m != modeRaw && (retry.Status(hr.StatusCode) || hr.StatusCode < 200 || hr.StatusCode > 299) {
			ex.body, ex.truncated, _ = readBody(hr.Body, f.opt.MaxBody, hr.ContentLength)
		}
	}
	if retry.Status(hr.StatusCode) {
		if m == modeRaw {
			ex.body, ex.truncated, _ = readBody(hr.Body, f.opt.MaxBody, hr.ContentLength)
		} else {
			drainSmall(hr)
		}
		return &StatusError{Code: hr.StatusCode, RetryAfter: retryAfter(hr.Header, f.opt.Clock.Now())}
	}
	if m != modeRaw && (hr.StatusCode < 200 || hr.StatusCode > 299) {
		drainSmall(hr) // redirects and errors: no body needed
		return nil
	}
	limit := f.opt.MaxBody
	if m == modeRobots {
		limit = f.opt.MaxRobotsSize
	}
	ex.mediaType = mediaType(hr.Header.Get("Content-Type"))
	if m == modePage && ex.mediaType != "" && !f.accepts(ex.mediaType) {
		if f.opt.Archiver != nil {
			ex.body, ex.truncated, _ = readBody(hr.Body, limit, hr.ContentLength)
		}
		return fmt.Errorf("%s: %w", ex.mediaType, ErrContentType)
	}
	ex.body, ex.truncated, err = readBody(hr.Body, limit, hr.ContentLength)
	if err != nil {
		return f.netErr(ctx, actx, fmt.Errorf("read body: %w", err))
	}
	if ex.mediaType == "" {
		ex.mediaType = mediaType(http.DetectContentType(ex.body))
		if m == modePage && !f.accepts(ex.mediaType) {
			return fmt.Errorf("%s (sniffed): %w", ex.mediaType, ErrContentType)
		}
	}
	return nil
}

// netErr labels a transport error: the caller's cancellation as is, the
// attempt's own deadline as a timeout.
func (f *Fetcher) netErr(ctx, actx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	if actx.Err() != nil {
		return fmt.Errorf("after %s: %w: %w", f.opt.Timeout, errTimeout, err)
	}
	return err
}

func readBody(r io.Reader, limit, size int64) ([]byte, bool, error) {
	if size < 0 || size > limit {
		size = 512 // unknown: io.ReadAll's start
	}
	// io.ReadAll from a buffer of the declared size (+1 to see the end):
	// one allocation instead of a series of doubling ones
	b := make([]byte, 0, size+1)
	lr := io.LimitReader(r, limit+1)
	var err error
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		var n int
		n, err = lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			break
		}
	}
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, err
}

// drainSmall reads the rest of a small body the crawl does not need, so
// that closing it keeps the connection for the next request: the Transport
// closes a connection whose body was closed unread, and every redirect, 404
// robots.txt or sitemap then cost a new TCP connection on both ends. A body
// declared larger than 4 KiB is cheaper to drop with its connection.
func drainSmall(hr *http.Response) {
	if hr.ContentLength > 4<<10 {
		return
	}
	_, _ = io.CopyN(io.Discard, hr.Body, 4<<10)
}

// retryAfter parses a Retry-After header (seconds or an HTTP date).
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, 1<<31)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		mt = strings.TrimSpace(mt)
	}
	return strings.ToLower(mt)
}

// accepts reports whether mt matches one of Options.ContentTypes.
func (f *Fetcher) accepts(mt string) bool {
	for _, p := range f.opt.ContentTypes {
		switch {
		case p == "*/*" || p == "*" || p == mt:
			return true
		case strings.HasSuffix(p, "/*") && strings.HasPrefix(mt, p[:len(p)-1]):
			return true
		}
	}
	return false
}

// decodeBody converts body to UTF-8 from the charset given by the BOM, the
// Content-Type header, a <meta> tag, or detection, and names that charset.
func decodeBody(body []byte, contentType string) ([]byte, string) {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	switch {
	case name == "utf-8":
		return bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), name
	case !strings.HasPrefix(name, "utf-16") && isASCII(body):
		return body, name // every other supported charset is ASCII-compatible
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body, name
	}
	return out, name
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// newRequest builds a request to u with the crawler's headers.
func (f *Fetcher) newRequest(ctx context.Context, method string, u *url.URL, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w: %w", u, ErrBadURL, err)
	}
	req.Header.Set("User-Agent", f.opt.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
	req.Header.Set("Accept-Language", "en;q=1.0,*;q=0.5")
	for k, v := range f.opt.Header {
		if http.CanonicalHeaderKey(k) != "User-Agent" {
			req.Header[http.CanonicalHeaderKey(k)] = v
		}
	}
	return req, nil
}

// parseURL parses and canonicalises an absolute http(s) URL: lower-case
// scheme and host, no default port, no fragment, "/" for an empty path.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q: %w: %w", raw, ErrBadURL, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q: scheme %q: %w", raw, u.Scheme, ErrBadURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%q: no host: %w", raw, ErrBadURL)
	}
	c, err := canonicalize(u.String())
	if err != nil {
		return nil, fmt.Errorf("%q: %w: %w", raw, ErrBadURL, err)
	}
	return url.Parse(c)
}
