package script

import (
	"context"
	"github.com/dwcrawl/dwcrawl/core/canon"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// dwHTTPGet is dw.http.get(url [, {headers=, timeout=}]).
func (p *Pool) dwHTTPGet(L *lua.LState) int {
	return p.dwHTTP(L, http.MethodGet, "dw.http.get", nil, "", 2)
}

// dwHTTPPost is dw.http.post(url, body [, opts]): a string body is sent as
// is (Content-Type from opts.headers, default
// application/x-www-form-urlencoded); a table body is form-encoded.
func (p *Pool) dwHTTPPost(L *lua.LState) int {
	var body string
	switch b := L.Get(2).(type) {
	case lua.LString:
		body = string(b)
	case *lua.LTable:
		q := url.Values{}
		n, err := setValues(q, b, false)
		if err != nil {
			raise(L, "dw.http.post: %v", err)
		}
		reserveL(L, 3*n, "dw.http.post")
		body = q.Encode()
	case *lua.LNilType:
	default:
		L.ArgError(2, "body must be a string or a table of form fields")
	}
	return p.dwHTTP(L, http.MethodPost, "dw.http.post", strings.NewReader(body), "application/x-www-form-urlencoded", 3)
}

// dwHTTP performs a request through the pool's HTTPDoer and pushes
// {status=, headers=, body=, url=}. Transport errors raise a Lua error; HTTP
// error statuses are returned for the script to handle.
func (p *Pool) dwHTTP(L *lua.LState, method, fn string, body io.Reader, contentType string, optIdx int) int {
	raw := L.CheckString(1)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		raise(L, "%s: %q is not an absolute http(s) URL", fn, raw)
	}
	if p.opt.HTTP == nil {
		raise(L, "%s: no HTTP client configured for scripts (dw.http is available only where the crawler provides its fetcher)", fn)
	}
	ctx := baseContext(L)
	headers := map[string]string{}
	if opts, ok := L.Get(optIdx).(*lua.LTable); ok {
		if h, ok := opts.RawGetString("headers").(*lua.LTable); ok {
			h.ForEach(func(k, v lua.LValue) {
				if s, ok := scalarString(v); ok {
					headers[keyString(k)] = s
				}
			})
		}
		switch t := opts.RawGetString("timeout").(type) {
		case lua.LNumber:
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(float64(t)*float64(time.Second)))
			defer cancel()
		case lua.LString:
			d, err := time.ParseDuration(string(t))
			if err != nil {
				raise(L, "%s: timeout: %v", fn, err)
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
	} else if L.Get(optIdx) != lua.LNil {
		L.ArgError(optIdx, "options must be a table")
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		raise(L, "%s: %v", fn, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := p.opt.HTTP.Do(ctx, req)
	if err != nil {
		raise(L, "%s %s: %s", fn, canon.Redacted(u.String()), canon.RedactIn(err.Error(), u.String()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, p.opt.MaxBodyBytes+1))
	if err != nil {
		raise(L, "%s %s: read body: %v", fn, canon.Redacted(u.String()), err)
	}
	if int64(len(data)) > p.opt.MaxBodyBytes {
		raise(L, "%s %s: response body larger than %d bytes", fn, canon.Redacted(u.String()), p.opt.MaxBodyBytes)
	}
	reserveL(L, int64(len(data)), fn)
	final := u.String()
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL.String()
	}
	tb := L.CreateTable(0, 4)
	tb.RawSetString("status", lua.LNumber(resp.StatusCode))
	tb.RawSetString("headers", headersTable(L, resp.Header))
	tb.RawSetString("body", lua.LString(data))
	tb.RawSetString("url", lua.LString(final))
	L.Push(tb)
	return 1
}
