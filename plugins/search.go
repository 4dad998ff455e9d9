package plugins

// The search-engine plugin contract and its Go adapter.
//
// A search plugin (plugins/search/<name>.lua) returns
//
//	dw.plugin{
//	  kind = "search", name = "<name>", version = "1.2.0", description = "...",
//	  env = { "BRAVE_API_KEY", "BRAVE_SEARCH_URL" }, -- environment variables it reads (documentation)
//	  min_interval = 1.0, -- optional: seconds between two queries the engine tolerates
//	  max_page = 10,      -- optional: deepest result page the engine serves
//	  search = function(query, page) ... end,  -- required; page counts from 1
//	  link   = function(url, page) ... end,    -- optional: pages linking to url (reverse search)
//	  site   = function(host, page) ... end,   -- optional: pages of the site host
//	  check  = function() ... end,             -- optional: nil when usable, else a message
//	}
//
// search, link and site return either a result page
//
//	{ results = {{url=, title=, snippet=}, ...}, next = bool, total = n|nil }
//
// or an error table (the one way a plugin signals a failure it understands)
//
//	{ error = "rate_limited"|"unavailable"|"config"|"unsupported"|"failed",
//	  message = "...", retry_after = seconds|nil }
//
// "rate_limited" (HTTP 429, quota) and "unavailable" (5xx, garbled reply) are
// retried after retry_after or an exponential backoff; "config" (missing or
// rejected API key), "unsupported" and "failed" are not. A raised Lua error
// (a transport error from dw.http, a bug) is treated as transient and
// retried. Without a link function the adapter sends search("link:" .. url);
// without site, search("site:" .. host).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
	lua "github.com/yuin/gopher-lua"
)

// Errors of the search adapter, matched with errors.Is on a *SearchError.
var (
	// ErrRateLimited: the engine kept refusing for rate or quota reasons
	// after the retries, or asked for a wait longer than MaxRetryAfter.
	ErrRateLimited = errors.New("search engine rate limited")
	// ErrUnavailable: the engine or the network failed on every attempt.
	ErrUnavailable = errors.New("search engine unavailable")
	// ErrConfig: the plugin is not usable as configured (an API key or base
	// URL is missing or rejected); retrying will not help.
	ErrConfig = errors.New("search plugin not configured")
	// ErrUnsupported: the engine can't answer this kind of query.
	ErrUnsupported = errors.New("search operation not supported")
	// ErrBudgetExhausted: the engine's query budget is spent.
	ErrBudgetExhausted = errors.New("search query budget exhausted")
	// ErrBadResult: the plugin returned a value that breaks the contract.
	ErrBadResult = errors.New("search plugin returned an invalid result")
)

// Error codes a plugin may return in {error = code}.
const (
	CodeRateLimited = "rate_limited"
	CodeUnavailable = "unavailable"
	CodeConfig      = "config"
	CodeUnsupported = "unsupported"
	CodeFailed      = "failed"
)

// codeErr maps a code to its sentinel; retryable codes are marked.
var codeErr = map[string]struct {
	err   error
	retry bool
}{
	CodeRateLimited: {ErrRateLimited, true},
	CodeUnavailable: {ErrUnavailable, true},
	CodeConfig:      {ErrConfig, false},
	CodeUnsupported: {ErrUnsupported, false},
	CodeFailed:      {nil, false},
}

// SearchResult is one hit of a search engine.
type SearchResult struct {
	URL     string // absolute http(s) URL
	Title   string
	Snippet string
}

// SearchPage is one page of results.
type SearchPage struct {
	Results []SearchResult
	// Next reports that a following page may hold more results.
	Next bool
	// Total is the engine's estimate of the number of results, -1 unknown.
	Total int
}

// SearchError is the error of a failed Search, Links, Site or Check call.
// Err carries the position in the plugin (a *script.Error "file:line: ...")
// or a sentinel; errors.Is also matches the sentinel of Code.
type SearchError struct {
	Engine   string // "search/brave"
	Op       string // "search", "link", "site" or "check"
	Query    string // the query, URL or host
	Page     int
	Code     string // a Code* constant, "error" for a raised Lua error, "budget", "invalid"
	Attempts int    // plugin calls made for this request
	Err      error
}

// Error renders "search/brave: link "https://x/" page 1 (3 attempts): file:line: msg".
func (e *SearchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Engine, e.Op)
	if e.Op != "check" {
		fmt.Fprintf(&b, " %q page %d", e.Query, e.Page)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (%d attempts)", e.Attempts)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause and the sentinel of the code.
func (e *SearchError) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	switch e.Code {
	case "budget":
		errs = append(errs, ErrBudgetExhausted)
	case "invalid":
		errs = append(errs, ErrBadResult)
	case "error":
		errs = append(errs, ErrUnavailable)
	default:
		if c, ok := codeErr[e.Code]; ok && c.err != nil {
			errs = append(errs, c.err)
		}
	}
	return errs
}

// SearchOptions configures a SearchEngine. Zero values mean the defaults.
type SearchOptions struct {
	// Budget is the most plugin calls (queries, retries included) the
	// engine may make over its life; 0 means unlimited.
	Budget int
	// MinInterval is the least time between the starts of two queries; the
	// plugin's own min_interval applies when larger.
	MinInterval time.Duration
	// Retries after the first attempt for retryable failures; 0 means 3,
	// negative means none.
	Retries int
	// Backoff is the first wait before a retry (doubled each time, up to
	// MaxBackoff) when the plugin gives no retry_after; default 1s.
	Backoff    time.Duration
	MaxBackoff time.Duration // default 30s
	// MaxRetryAfter is the longest retry_after honoured; a longer one (a
	// daily quota) fails the call at once with ErrRateLimited. Default 2m.
	MaxRetryAfter time.Duration
	// Logger receives a warning per failed attempt; nil means slog.Default().
	Logger *slog.Logger
}

func (o SearchOptions) withDefaults() SearchOptions {
	if o.Retries == 0 {
		o.Retries = 3
	} else if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = o.Backoff
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 2 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// SearchStats counts an engine's work.
type SearchStats struct {
	Queries     int // plugin calls made (attempts, retries included)
	Pages       int // calls that returned a result page
	Results     int // results returned
	Errors      int // failed attempts
	RateLimited int // attempts answered with rate_limited
	Retries     int // attempts that were retries
	Failed      int // requests that failed after their retries
}

// SearchEngine runs a search plugin with retries, backoff, a minimum
// interval between queries and a query budget. It is safe for concurrent
// use: calls are serialised (one Lua state, and the interval applies across
// callers anyway). It never panics; every failure is a *SearchError.
type SearchEngine struct {
	p        *Plugin
	opt      SearchOptions
	ref      string
	env      []string
	interval time.Duration
	maxPage  int
	sleep    func(ctx context.Context, d time.Duration) error
	now      func() time.Time
	mu       sync.Mutex
	last     time.Time // start of the previous query
	stats    SearchStats
	closed   bool
}

// OpenSearchEngine loads search plugin ref ("search/brave", "brave" or a
// file path; userDirs are searched first) in a state of pool and wraps it.
// pool should be built with PoolOptions so the plugin's helpers resolve.
func OpenSearchEngine(ctx context.Context, pool *script.Pool, ref string, opt SearchOptions, userDirs ...string) (*SearchEngine, error) {
	name := ref
	if k, n, ok := strings.Cut(ref, "/"); ok && k == "search" && !strings.HasSuffix(ref, ".lua") {
		name = n
	}
	p, err := Load(ctx, pool, "search", name, userDirs...)
	if err != nil {
		return nil, err
	}
	e, err := NewSearchEngine(p, opt)
	if err != nil {
		p.Close()
		return nil, err
	}
	return e, nil
}

// NewSearchEngine wraps a loaded search plugin, checking the optional parts
// of the contract (env, min_interval, max_page, link, site, check). The
// engine owns p from now on: Close closes it.
func NewSearchEngine(p *Plugin, opt SearchOptions) (*SearchEngine, error) {
	if p == nil || p.Table == nil {
		return nil, errors.New("plugins.NewSearchEngine: plugin is nil or closed")
	}
	if p.Kind != "search" {
		return nil, p.chunk.Errorf("kind", "is %q; a search engine needs a search plugin", p.Kind)
	}
	e := &SearchEngine{p: p, opt: opt.withDefaults(), ref: p.Ref(), sleep: sleepCtx, now: time.Now}
	c := p.chunk
	switch x := p.Field("env").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		for i := 1; i <= x.Len(); i++ {
			s, ok := x.RawGetInt(i).(lua.LString)
			if !ok {
				return nil, c.Errorf(fmt.Sprintf("env[%d]", i), "expected the name of an environment variable, got %s", x.RawGetInt(i).Type())
			}
			e.env = append(e.env, string(s))
		}
	default:
		return nil, c.Errorf("env", "expected a list of environment variable names, got %s", x.Type())
	}
	for _, key := range []string{"link", "site", "check"} {
		switch x := p.Field(key).(type) {
		case *lua.LNilType, *lua.LFunction:
		default:
			return nil, c.Errorf(key, "expected function, got %s", x.Type())
		}
	}
	switch x := p.Field("min_interval").(type) {
	case *lua.LNilType:
	case lua.LNumber:
		if x < 0 || math.IsNaN(float64(x)) || x > 3600 {
			return nil, c.Errorf("min_interval", "must be seconds in [0, 3600], got %v", x)
		}
		e.interval = time.Duration(float64(x) * float64(time.Second))
	default:
		return nil, c.Errorf("min_interval", "expected a number of seconds, got %s", x.Type())
	}
	if e.opt.MinInterval > e.interval {
		e.interval = e.opt.MinInterval
	}
	switch x := p.Field("max_page").(type) {
	case *lua.LNilType:
	case lua.LNumber:
		if x < 1 || float64(x) != math.Trunc(float64(x)) {
			return nil, c.Errorf("max_page", "must be a positive integer, got %v", x)
		}
		e.maxPage = int(x)
	default:
		return nil, c.Errorf("max_page", "expected integer, got %s", x.Type())
	}
	return e, nil
}

// Info describes the plugin behind the engine.
func (e *SearchEngine) Info() Info { return e.p.Info }

// Env lists the environment variables the plugin declares it reads.
func (e *SearchEngine) Env() []string { return append([]string(nil), e.env...) }

// Stats returns the counters so far.
func (e *SearchEngine) Stats() SearchStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// Close releases the plugin's state; later calls fail.
func (e *SearchEngine) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		e.p.Close()
	}
}

// Check asks the plugin whether it is usable (its check function: API keys
// present, base URL set) without sending a query; nil when it has no check.
func (e *SearchEngine) Check(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return &SearchError{Engine: e.ref, Op: "check", Code: CodeFailed, Err: errors.New("engine is closed")}
	}
	fn, ok := e.p.Func("check")
	if !ok {
		return nil
	}
	v, err := e.protectedCall(ctx, fn)
	if err != nil {
		return &SearchError{Engine: e.ref, Op: "check", Code: "error", Attempts: 1, Err: err}
	}
	switch x := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		if x {
			return nil
		}
		return &SearchError{Engine: e.ref, Op: "check", Code: CodeConfig, Attempts: 1, Err: e.posError(fn, "check", "plugin is not usable")}
	case lua.LString:
		return &SearchError{Engine: e.ref, Op: "check", Code: CodeConfig, Attempts: 1, Err: e.posError(fn, "check", string(x))}
	default:
		return &SearchError{Engine: e.ref, Op: "check", Code: "invalid", Attempts: 1, Err: e.posError(fn, "check", "must return nil or a message, got "+v.Type().String())}
	}
}

// Search sends a keyword query and returns result page page (from 1).
func (e *SearchEngine) Search(ctx context.Context, query string, page int) (SearchPage, error) {
	return e.run(ctx, "search", query, page)
}

// Links returns pages linking to rawURL (reverse search, SmartCrawler
// Algorithm 1): the plugin's link function, or search("link:" .. rawURL).
func (e *SearchEngine) Links(ctx context.Context, rawURL string, page int) (SearchPage, error) {
	return e.run(ctx, "link", rawURL, page)
}

// Site returns pages of the site host: the plugin's site function, or
// search("site:" .. host).
func (e *SearchEngine) Site(ctx context.Context, host string, page int) (SearchPage, error) {
	return e.run(ctx, "site", host, page)
}

// run performs operation op (search, link, site) with retries: it calls the
// plugin function of that name, or search with the operator prefixed.
func (e *SearchEngine) run(ctx context.Context, op, query string, page int) (SearchPage, error) {
	if page < 1 {
		page = 1
	}
	fail := func(code string, attempts int, err error) (SearchPage, error) {
		return SearchPage{Total: -1}, &SearchError{Engine: e.ref, Op: op, Query: query, Page: page, Code: code, Attempts: attempts, Err: err}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return fail(CodeFailed, 0, errors.New("engine is closed"))
	}
	if e.maxPage > 0 && page > e.maxPage {
		return SearchPage{Total: -1}, nil // the engine serves no deeper page
	}
	key, arg := op, query
	fn, ok := e.p.Func(op)
	if !ok && op != "search" {
		key, arg = "search", op+":"+query
		fn, ok = e.p.Func(key)
	}
	if !ok {
		return fail("invalid", 0, e.posError(nil, key, "plugin does not define this function"))
	}
	backoff := e.opt.Backoff
	for attempt := 1; ; attempt++ {
		if e.opt.Budget > 0 && e.stats.Queries >= e.opt.Budget {
			e.stats.Failed++
			return fail("budget", attempt-1, fmt.Errorf("%w after %d queries", ErrBudgetExhausted, e.stats.Queries))
		}
		if err := e.waitTurn(ctx); err != nil {
			e.stats.Failed++
			return fail(CodeFailed, attempt-1, err)
		}
		e.last = e.now()
		e.stats.Queries++
		if attempt > 1 {
			e.stats.Retries++
		}
		sp, code, wait, err := e.attempt(ctx, fn, key, arg, page)
		if err == nil {
			e.stats.Pages++
			e.stats.Results += len(sp.Results)
			return sp, nil
		}
		e.stats.Errors++
		if code == CodeRateLimited {
			e.stats.RateLimited++
		}
		e.opt.Logger.Warn("search plugin call failed", "engine", e.ref, "op", op, "query", query, "page", page, "attempt", attempt, "code", code, "err", err)
		if ctx.Err() != nil {
			e.stats.Failed++
			return fail(code, attempt, err)
		}
		retry := code == "error"
		if c, ok := codeErr[code]; ok {
			retry = c.retry
		}
		if wait > e.opt.MaxRetryAfter {
			retry = false
			err = fmt.Errorf("%w (engine asks to wait %v, more than the %v allowed)", err, wait.Round(time.Second), e.opt.MaxRetryAfter)
		}
		if !retry || attempt > e.opt.Retries {
			e.stats.Failed++
			return fail(code, attempt, err)
		}
		if e.opt.Budget > 0 && e.stats.Queries >= e.opt.Budget {
			e.stats.Failed++
			return fail("budget", attempt, fmt.Errorf("%w after %d queries; last error: %w", ErrBudgetExhausted, e.stats.Queries, err))
		}
		if wait <= 0 {
			wait = backoff
			backoff = min(2*backoff, e.opt.MaxBackoff)
		}
		if serr := e.sleep(ctx, wait); serr != nil {
			e.stats.Failed++
			return fail(code, attempt, fmt.Errorf("%w (while waiting to retry: %w)", err, serr))
		}
	}
}

// waitTurn sleeps until the minimum interval since the previous query has
// passed.
func (e *SearchEngine) waitTurn(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.interval <= 0 || e.last.IsZero() {
		return nil
	}
	if d := e.interval - e.now().Sub(e.last); d > 0 {
		return e.sleep(ctx, d)
	}
	return nil
}

// attempt makes one plugin call and decodes its answer. code is empty on
// success, a Code* constant for a returned error table, "error" for a raised
// error and "invalid" for a contract violation; wait is the plugin's
// retry_after.
func (e *SearchEngine) attempt(ctx context.Context, fn *lua.LFunction, key, arg string, page int) (sp SearchPage, code string, wait time.Duration, err error) {
	v, err := e.protectedCall(ctx, fn, lua.LString(arg), lua.LNumber(page))
	if err != nil {
		return sp, "error", 0, err
	}
	tb, ok := v.(*lua.LTable)
	if !ok {
		return sp, "invalid", 0, e.posError(fn, key, fmt.Sprintf("must return a table {results=, next=} or {error=}, got %s", v.Type()))
	}
	if ev := tb.RawGetString("error"); ev != lua.LNil {
		return e.errorTable(fn, key, tb, ev)
	}
	sp, err = decodeSearchPage(tb)
	if err != nil {
		return sp, "invalid", 0, e.posError(fn, key, err.Error())
	}
	return sp, "", 0, nil
}

// errorTable decodes {error=code, message=, retry_after=}.
func (e *SearchEngine) errorTable(fn *lua.LFunction, key string, tb *lua.LTable, ev lua.LValue) (SearchPage, string, time.Duration, error) {
	sp := SearchPage{Total: -1}
	code, ok := ev.(lua.LString)
	if !ok {
		return sp, "invalid", 0, e.posError(fn, key, "error: expected a string code, got "+ev.Type().String())
	}
	msg := ""
	if m, ok := tb.RawGetString("message").(lua.LString); ok {
		msg = string(m)
	}
	var wait time.Duration
	switch ra := tb.RawGetString("retry_after").(type) {
	case *lua.LNilType:
	case lua.LNumber:
		if ra > 0 && !math.IsNaN(float64(ra)) {
			wait = time.Duration(math.Min(float64(ra), 1e6) * float64(time.Second))
		}
	default:
		return sp, "invalid", 0, e.posError(fn, key, "retry_after: expected a number of seconds, got "+ra.Type().String())
	}
	c := string(code)
	if _, known := codeErr[c]; !known {
		return sp, "invalid", 0, e.posError(fn, key, fmt.Sprintf("unknown error code %q (want rate_limited, unavailable, config, unsupported or failed): %s", c, msg))
	}
	text := strings.ReplaceAll(c, "_", " ")
	if msg != "" {
		text += ": " + msg
	}
	return sp, c, wait, e.posError(fn, key, text)
}

// protectedCall calls fn in the plugin's state, turning any Go panic into an
// error (gopher-lua recovers Lua errors itself; this guards the rest).
func (e *SearchEngine) protectedCall(ctx context.Context, fn *lua.LFunction, args ...lua.LValue) (v lua.LValue, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = lua.LNil, fmt.Errorf("%s: panic in plugin call: %v", e.p.Path, r)
		}
	}()
	return script.CallFunc(ctx, e.p.L, fn, args...)
}

// posError is an error positioned at the definition of fn in the plugin
// (the function that returned the bad value), or at the plugin's table.
func (e *SearchEngine) posError(fn *lua.LFunction, key, msg string) error {
	se := &script.Error{File: e.p.Path, Line: e.p.chunk.KeyLine(key), Key: key, Msg: msg}
	if fn != nil && fn.Proto != nil && fn.Proto.SourceName != "" {
		se.File, se.Line = fn.Proto.SourceName, fn.Proto.LineDefined
	}
	return se
}

// decodeSearchPage reads {results = {{url=, title=, snippet=}}, next=, total=}
// strictly: unknown keys and wrong types are errors naming the key. Results
// whose URL is not an absolute http(s) URL are dropped, and repeated URLs
// kept once.
func decodeSearchPage(tb *lua.LTable) (SearchPage, error) {
	sp := SearchPage{Total: -1}
	var err error
	tb.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		ks, ok := k.(lua.LString)
		if !ok {
			err = fmt.Errorf("result table: unexpected key %s (want results, next, total)", k.String())
			return
		}
		switch string(ks) {
		case "results":
			sp.Results, err = decodeResults(v)
		case "next":
			b, ok := v.(lua.LBool)
			if !ok {
				err = fmt.Errorf("next: expected boolean, got %s", v.Type())
				return
			}
			sp.Next = bool(b)
		case "total":
			n, ok := v.(lua.LNumber)
			if !ok || n < 0 || math.IsNaN(float64(n)) {
				err = fmt.Errorf("total: expected a non-negative number or nil, got %s", v.String())
				return
			}
			sp.Total = int(math.Min(float64(n), math.MaxInt32))
		default:
			err = fmt.Errorf("unknown key %q in the result table (want results, next, total, or error)", string(ks))
		}
	})
	if err != nil {
		return SearchPage{Total: -1}, err
	}
	if tb.RawGetString("results") == lua.LNil {
		return SearchPage{Total: -1}, errors.New("results: missing (return results = {} when nothing matched)")
	}
	return sp, nil
}

func decodeResults(v lua.LValue) ([]SearchResult, error) {
	list, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("results: expected a list, got %s", v.Type())
	}
	n := list.Len()
	out := make([]SearchResult, 0, n)
	seen := make(map[string]bool, n)
	for i := 1; i <= n; i++ {
		key := fmt.Sprintf("results[%d]", i)
		item, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			return nil, fmt.Errorf("%s: expected a table {url=, title=, snippet=}, got %s", key, list.RawGetInt(i).Type())
		}
		var r SearchResult
		var err error
		item.ForEach(func(k, v lua.LValue) {
			if err != nil {
				return
			}
			s, isStr := v.(lua.LString)
			switch lua.LVAsString(k) {
			case "url":
				if !isStr {
					err = fmt.Errorf("%s.url: expected string, got %s", key, v.Type())
				}
				r.URL = strings.TrimSpace(string(s))
			case "title":
				if !isStr && v != lua.LNil {
					err = fmt.Errorf("%s.title: expected string, got %s", key, v.Type())
				}
				r.Title = string(s)
			case "snippet":
				if !isStr && v != lua.LNil {
					err = fmt.Errorf("%s.snippet: expected string, got %s", key, v.Type())
				}
				r.Snippet = string(s)
			default:
				err = fmt.Errorf("%s: unknown key %s (want url, title, snippet)", key, k.String())
			}
		})
		if err != nil {
			return nil, err
		}
		if r.URL == "" {
			return nil, fmt.Errorf("%s.url: missing", key)
		}
		u, perr := url.Parse(r.URL)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || seen[r.URL] {
			continue
		}
		seen[r.URL] = true
		out = append(out, r)
	}
	if list.Len() == 0 {
		// A table with non-list keys is not a list of results.
		if k, _ := list.Next(lua.LNil); k != lua.LNil {
			return nil, errors.New("results: expected a list, got a table with keys")
		}
	}
	return out, nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// LinkLister adapts a SearchEngine to consumers that want only the URLs of
// the pages linking to a URL (such as the crawl's reverse searcher): Links
// reads result pages 1..Pages (default 1) while the engine reports more.
type LinkLister struct {
	Engine *SearchEngine
	Pages  int
}

// Links returns the distinct result URLs for pages linking to rawURL. A
// failure on the first page is returned; a failure on a later page ends the
// listing with the URLs gathered so far.
func (l LinkLister) Links(ctx context.Context, rawURL string) ([]string, error) {
	pages := max(l.Pages, 1)
	var out []string
	seen := map[string]bool{}
	for page := 1; page <= pages; page++ {
		sp, err := l.Engine.Links(ctx, rawURL, page)
		if err != nil {
			if page == 1 {
				return nil, err
			}
			break
		}
		for _, r := range sp.Results {
			if !seen[r.URL] {
				seen[r.URL] = true
				out = append(out, r.URL)
			}
		}
		if !sp.Next || len(sp.Results) == 0 {
			break
		}
	}
	return out, nil
}
