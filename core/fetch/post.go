package fetch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Post submits a form by POST (application/x-www-form-urlencoded) as a
// crawler fetches a page: the action's robots.txt rules, politeness,
// retries (a search form's POST is replayed like a GET: it changes
// nothing), the address policy, size and type limits and charset decoding
// all apply. A 301, 302 or 303 answer is followed with a GET (as browsers
// do), a 307 or 308 with the same POST. Only forms classified searchable
// are to be submitted; the caller decides that.
func (f *Fetcher) Post(ctx context.Context, rawURL string, form url.Values) (resp *Response, err error) {
	start := f.opt.Clock.Now()
	resp = &Response{URL: rawURL}
	defer func() { resp.Duration = f.opt.Clock.Now().Sub(start) }()
	u, err := parseURL(rawURL)
	if err != nil {
		return resp, err
	}
	resp.URL = u.String()
	body := form.Encode()
	method := http.MethodPost
	for hops := 0; ; hops++ {
		if err := f.checkHost(u.Hostname()); err != nil {
			return resp, fmt.Errorf("post %s: %w", u, err)
		}
		var rd io.Reader
		if method == http.MethodPost {
			rd = strings.NewReader(body)
		}
		req, err := f.newRequest(ctx, method, u, rd)
		if err != nil {
			return resp, err
		}
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
		}
		ex, err := f.hostRoundTrip(ctx, req, modePage)
		resp.Attempts += ex.attempts
		resp.Status, resp.Header, resp.Proto = ex.status, ex.header, ex.proto
		if err != nil {
			return resp, fmt.Errorf("post %s: %w", u, err)
		}
		next, ok, err := f.followRedirect(u, ex, resp, hops)
		if err != nil {
			return resp, fmt.Errorf("post %s: %w", resp.Redirects[0], err)
		}
		if ok {
			if ex.status != http.StatusTemporaryRedirect && ex.status != http.StatusPermanentRedirect {
				method = http.MethodGet
			}
			u = next
			continue
		}
		if ex.status < 200 || ex.status > 299 {
			return resp, fmt.Errorf("post %s: %w", u, &StatusError{Code: ex.status})
		}
		resp.ContentType, resp.Truncated = ex.mediaType, ex.truncated
		resp.Body, resp.Charset = decodeBody(ex.body, ex.header.Get("Content-Type"))
		return resp, nil
	}
}
