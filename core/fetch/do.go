package fetch

import (
	"bytes"
	"context"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/canon"
	"io"
	"net/http"
	"strconv"
)

// Do sends req as an HTTP client would, for API calls made by Lua plugins
// (it satisfies script.HTTPDoer): the address policy, per-host politeness,
// retries (when the body can be replayed), redirects (limit and loop
// detection) and the body limit apply; robots.txt and the content-type filter
// do not, and an HTTP error status is not an error. The User-Agent is set
// when req has none. The returned body is already read into memory (at most
// Options.MaxBody bytes) and needs no draining.
func (f *Fetcher) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	if req.URL == nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return nil, fmt.Errorf("fetch: do %s: %w", redacted(req), ErrBadURL)
	}
	req = req.Clone(ctx)
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", f.opt.UserAgent)
	}
	var chain []string
	for hops := 0; ; hops++ {
		if err := f.checkHost(req.URL.Hostname()); err != nil {
			return nil, fmt.Errorf("fetch: do %s: %w", redacted(req), err)
		}
		ex, err := f.hostRoundTrip(ctx, req, modeRaw)
		if ex.status == 0 {
			if err == nil {
				err = fmt.Errorf("no response")
			}
			return nil, fmt.Errorf("fetch: do %s %s: %w", req.Method, redacted(req), err) // transport errors do not quote the URL
		}
		loc := ex.header.Get("Location")
		if !isRedirect(ex.status) || loc == "" {
			return ex.response(req), nil
		}
		chain = append(chain, req.URL.String())
		if hops >= f.opt.MaxRedirects {
			return nil, fmt.Errorf("fetch: do %s: more than %d redirects: %w", canon.Redacted(chain[0]), f.opt.MaxRedirects, ErrTooManyRedirects)
		}
		next, err := req.URL.Parse(loc)
		if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
			return nil, fmt.Errorf("fetch: do %s: redirect to %q: %w", redacted(req), canon.Redacted(loc), ErrBadURL)
		}
		for _, seen := range chain {
			if seen == next.String() {
				return nil, fmt.Errorf("fetch: do %s: back to %s: %w", canon.Redacted(chain[0]), canon.Redacted(seen), ErrRedirectLoop)
			}
		}
		req, err = redirectRequest(ctx, req, next.String(), ex.status)
		if err != nil {
			return nil, err
		}
	}
}

// redacted is req's URL for an error message, without credentials.
func redacted(req *http.Request) string {
	if req.URL == nil {
		return "<nil URL>"
	}
	return canon.Redacted(req.URL.String())
}

// redirectRequest builds the request that follows a redirect, the way
// net/http's client does: 303 (and 301/302 after anything but GET/HEAD)
// becomes a GET without a body; 307/308 repeat the method and body.
func redirectRequest(ctx context.Context, prev *http.Request, to string, status int) (*http.Request, error) {
	method, keepBody := prev.Method, true
	if status == http.StatusSeeOther || ((status == http.StatusMovedPermanently || status == http.StatusFound) &&
		prev.Method != http.MethodGet && prev.Method != http.MethodHead) {
		method, keepBody = http.MethodGet, false
		if prev.Method == http.MethodHead {
			method = http.MethodHead
		}
	}
	var body io.Reader
	if keepBody && prev.GetBody != nil {
		rc, err := prev.GetBody()
		if err != nil {
			return nil, fmt.Errorf("fetch: redirect %s: rewind body: %w", to, err)
		}
		body = rc
	} else if keepBody && prev.Body != nil && prev.Body != http.NoBody {
		return nil, fmt.Errorf("fetch: redirect %s: status %d needs the request body again: %w", to, status, ErrStatus)
	}
	req, err := http.NewRequestWithContext(ctx, method, to, body)
	if err != nil {
		return nil, fmt.Errorf("fetch: redirect %s: %w: %w", to, ErrBadURL, err)
	}
	if keepBody {
		req.GetBody = prev.GetBody
		req.ContentLength = prev.ContentLength
	}
	for k, v := range prev.Header {
		if k == "Authorization" || k == "Cookie" {
			if req.URL.Host != prev.URL.Host {
				continue // credentials stay with their host
			}
		}
		if !keepBody && (k == "Content-Type" || k == "Content-Length") {
			continue
		}
		req.Header[k] = v
	}
	return req, nil
}

// response turns an exchange into the *http.Response Do returns.
func (ex *exchange) response(req *http.Request) *http.Response {
	major, minor, ok := http.ParseHTTPVersion(ex.proto)
	if !ok { // a testbed transport's response may not say
		ex.proto, major, minor = "HTTP/1.1", 1, 1
	}
	return &http.Response{
		Status:        strconv.Itoa(ex.status) + " " + http.StatusText(ex.status),
		StatusCode:    ex.status,
		Proto:         ex.proto,
		ProtoMajor:    major,
		ProtoMinor:    minor,
		Header:        ex.header,
		Body:          io.NopCloser(bytes.NewReader(ex.body)),
		ContentLength: int64(len(ex.body)),
		Request:       req,
	}
}
