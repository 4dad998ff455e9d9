package plugins

// The machinery shared by the plugin adapters (SearchEngine,
// KeywordInterface): one Lua state per adapter with calls serialised, a
// minimum interval between calls, a query budget, retries with backoff or
// the plugin's retry_after, strict decoding of the error tables of the
// contract, and errors positioned in the plugin file.

import (
	"context"
	"errors"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
	lua "github.com/yuin/gopher-lua"
)

// Errors of the plugin adapters, matched with errors.Is on an *Error.
var (
	// ErrRateLimited: the service kept refusing for rate or quota reasons
	// after the retries, or asked for a wait longer than MaxRetryAfter.
	ErrRateLimited = errors.New("plugin rate limited")
	// ErrUnavailable: the service or the network failed on every attempt.
	ErrUnavailable = errors.New("plugin service unavailable")
	// ErrConfig: the plugin is not usable as configured (an API key, base
	// URL or variable is missing or rejected); retrying will not help.
	ErrConfig = errors.New("plugin not configured")
	// ErrUnsupported: the service can't answer this kind of query.
	ErrUnsupported = errors.New("operation not supported by the plugin")
	// ErrBudgetExhausted: the adapter's query budget is spent.
	ErrBudgetExhausted = errors.New("query budget exhausted")
	// ErrBadResult: the plugin returned a value that breaks the contract.
	ErrBadResult = errors.New("plugin returned an invalid result")
)

// Error codes a plugin may return in {error = code}.
const (
	CodeRateLimited = "rate_limited"
	CodeUnavailable = "unavailable"
	CodeConfig      = "config"
	CodeUnsupported = "unsupported"
	CodeFailed      = "failed"
)

// Codes the adapters put in Error.Code besides the Code* constants.
const (
	codeRaised  = "error"   // a Lua error raised by the plugin (retried)
	codeInvalid = "invalid" // a contract violation (ErrBadResult)
	codeBudget  = "budget"  // the budget is spent (ErrBudgetExhausted)
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

// Error is the error of a failed adapter call (a search, a fetch, a check).
// Err carries the position in the plugin (a *script.Error "file:line: ...")
// or a sentinel; errors.Is also matches the sentinel of Code.
type Error struct {
	Plugin   string // "search/brave", "keyword/dblp"
	Op       string // "search", "link", "site", "fetch", "check" or "open"
	Query    string // the query, URL, host or record
	Page     int    // result page, 0 when the operation has none
	Code     string // a Code* constant, "error" for a raised Lua error, "budget", "invalid"
	Attempts int    // plugin calls made for this request
	Err      error
}

// Error renders "search/brave: link "https://x/" page 1 (3 attempts): file:line: msg".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Plugin, e.Op)
	if e.Op != "check" && e.Op != "open" {
		fmt.Fprintf(&b, " %q", e.Query)
	}
	if e.Page > 0 {
		fmt.Fprintf(&b, " page %d", e.Page)
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
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	switch e.Code {
	case codeBudget:
		errs = append(errs, ErrBudgetExhausted)
	case codeInvalid:
		errs = append(errs, ErrBadResult)
	case codeRaised:
		errs = append(errs, ErrUnavailable)
	default:
		if c, ok := codeErr[e.Code]; ok && c.err != nil {
			errs = append(errs, c.err)
		}
	}
	return errs
}

// Stats counts an adapter's work.
type Stats struct {
	Queries     int // budgeted plugin calls made (search, link, site; retries included)
	Fetches     int // fetch calls made (retries included); not in the budget
	Pages       int // queries that returned a result page
	Results     int // results (records) returned
	Errors      int // failed attempts
	RateLimited int // attempts answered with rate_limited
	Retries     int // attempts that were retries
	Failed      int // requests that failed after their retries
}

// policy is the retry, pacing and budget policy of an adapter, defaults
// applied (see SearchOptions for the meaning of each field).
type policy struct {
	budget        int
	minInterval   time.Duration
	retries       int
	backoff       time.Duration
	maxBackoff    time.Duration
	maxRetryAfter time.Duration
	logger        *slog.Logger
}

func newPolicy(budget int, minInterval time.Duration, retries int, backoff, maxBackoff, maxRetryAfter time.Duration, logger *slog.Logger) policy {
	o := policy{budget: budget, minInterval: minInterval, retries: retries, backoff: backoff, maxBackoff: maxBackoff, maxRetryAfter: maxRetryAfter, logger: logger}
	if o.retries == 0 {
		o.retries = 3
	} else if o.retries < 0 {
		o.retries = 0
	}
	if o.backoff <= 0 {
		o.backoff = time.Second
	}
	if o.maxBackoff <= 0 {
		o.maxBackoff = 30 * time.Second
	}
	if o.maxBackoff < o.backoff {
		o.maxBackoff = o.backoff
	}
	if o.maxRetryAfter <= 0 {
		o.maxRetryAfter = 2 * time.Minute
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	return o
}

// caller owns a loaded plugin and runs its functions under a policy. Its
// methods that call the plugin expect mu to be held by the adapter method
// that uses them: one Lua state serves every caller of the adapter.
type caller struct {
	p        *Plugin
	opt      policy
	ref      string
	env      []string
	interval time.Duration
	sleep    func(ctx context.Context, d time.Duration) error
	now      func() time.Time

	mu     sync.Mutex
	last   time.Time // start of the previous call
	stats  Stats
	closed bool
}

// newCaller checks the parts of the contract both adapters share (env,
// min_interval, the optional functions funcs) and wraps p, which must be of
// kind kind.
func newCaller(p *Plugin, kind string, opt policy, funcs ...string) (*caller, error) {
	if p == nil || p.Table == nil {
		return nil, fmt.Errorf("plugins: %s adapter: plugin is nil or closed", kind)
	}
	c := p.chunk
	if p.Kind != kind {
		return nil, c.Errorf("kind", "is %q; the adapter needs a %s plugin", p.Kind, kind)
	}
	cl := &caller{p: p, opt: opt, ref: p.Ref(), sleep: fetch.SystemClock{}.Sleep, now: time.Now}
	switch x := p.Field("env").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		for i := 1; i <= x.Len(); i++ {
			s, ok := x.RawGetInt(i).(lua.LString)
			if !ok {
				return nil, c.Errorf(fmt.Sprintf("env[%d]", i), "expected the name of an environment variable, got %s", x.RawGetInt(i).Type())
			}
			cl.env = append(cl.env, string(s))
		}
	default:
		return nil, c.Errorf("env", "expected a list of environment variable names, got %s", x.Type())
	}
	for _, key := range funcs {
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
		cl.interval = time.Duration(float64(x) * float64(time.Second))
	default:
		return nil, c.Errorf("min_interval", "expected a number of seconds, got %s", x.Type())
	}
	cl.interval = max(cl.interval, opt.minInterval)
	return cl, nil
}

// statsNow returns the counters so far.
func (c *caller) statsNow() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// close releases the plugin's state; later calls fail.
func (c *caller) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.p.Close()
	}
}

// request is one adapter operation: a plugin function and its arguments.
type request struct {
	op    string // search, link, site, fetch: names the operation in errors
	key   string // the plugin function called
	fn    *lua.LFunction
	query string // what the operation is about, for errors and logs
	page  int    // 0 when the operation has no page
	args  []lua.LValue
	free  bool // not counted in the budget (fetch)
}

// fail counts a failed request and builds its error.
func (c *caller) fail(r request, code string, attempts int, err error) error {
	c.stats.Failed++
	return &Error{Plugin: c.ref, Op: r.op, Query: r.query, Page: r.page, Code: code, Attempts: attempts, Err: err}
}

// run performs r with retries, pacing and the budget; decode reads a result
// table that is not an error table and returns the number of results in it,
// or a message for a contract violation. c.mu must be held.
func (c *caller) run(ctx context.Context, r request, decode func(*lua.LTable) (int, error)) error {
	if c.closed {
		return c.fail(r, CodeFailed, 0, errors.New("adapter is closed"))
	}
	if r.fn == nil {
		return c.fail(r, codeInvalid, 0, c.posError(nil, r.key, "plugin does not define this function"))
	}
	budget := c.opt.budget
	if r.free {
		budget = 0
	}
	backoff := c.opt.backoff
	for attempt := 1; ; attempt++ {
		if budget > 0 && c.stats.Queries >= budget {
			return c.fail(r, codeBudget, attempt-1, fmt.Errorf("%w after %d queries", ErrBudgetExhausted, c.stats.Queries))
		}
		if err := c.waitTurn(ctx); err != nil {
			return c.fail(r, CodeFailed, attempt-1, err)
		}
		c.last = c.now()
		if r.free {
			c.stats.Fetches++
		} else {
			c.stats.Queries++
		}
		if attempt > 1 {
			c.stats.Retries++
		}
		code, wait, err := c.attempt(ctx, r, decode)
		if err == nil {
			return nil
		}
		c.stats.Errors++
		if code == CodeRateLimited {
			c.stats.RateLimited++
		}
		c.opt.logger.Warn("plugin call failed", "plugin", c.ref, "op", r.op, "query", r.query, "page", r.page, "attempt", attempt, "code", code, "err", err)
		if ctx.Err() != nil {
			return c.fail(r, code, attempt, err)
		}
		retry := code == codeRaised
		if ce, ok := codeErr[code]; ok {
			retry = ce.retry
		}
		if wait > c.opt.maxRetryAfter {
			retry = false
			err = fmt.Errorf("%w (the service asks to wait %v, more than the %v allowed)", err, wait.Round(time.Second), c.opt.maxRetryAfter)
		}
		if !retry || attempt > c.opt.retries {
			return c.fail(r, code, attempt, err)
		}
		if budget > 0 && c.stats.Queries >= budget {
			return c.fail(r, codeBudget, attempt, fmt.Errorf("%w after %d queries; last error: %w", ErrBudgetExhausted, c.stats.Queries, err))
		}
		if wait <= 0 {
			wait = backoff
			backoff = min(2*backoff, c.opt.maxBackoff)
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return c.fail(r, code, attempt, fmt.Errorf("%w (while waiting to retry: %w)", err, serr))
		}
	}
}

// waitTurn sleeps until the minimum interval since the previous call has
// passed.
func (c *caller) waitTurn(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.interval <= 0 || c.last.IsZero() {
		return nil
	}
	if d := c.interval - c.now().Sub(c.last); d > 0 {
		return c.sleep(ctx, d)
	}
	return nil
}

// attempt makes one plugin call and decodes its answer. code is empty on
// success, a Code* constant for a returned error table, codeRaised for a
// raised error and codeInvalid for a contract violation; wait is the
// plugin's retry_after.
func (c *caller) attempt(ctx context.Context, r request, decode func(*lua.LTable) (int, error)) (code string, wait time.Duration, err error) {
	v, err := c.protectedCall(ctx, r.fn, r.args...)
	if err != nil {
		return codeRaised, 0, err
	}
	tb, ok := v.(*lua.LTable)
	if !ok {
		return codeInvalid, 0, c.posError(r.fn, r.key, fmt.Sprintf("must return a table (a result page or {error=}), got %s", v.Type()))
	}
	if ev := tb.RawGetString("error"); ev != lua.LNil {
		return c.errorTable(r, tb, ev)
	}
	n, err := decode(tb)
	if err != nil {
		return codeInvalid, 0, c.posError(r.fn, r.key, err.Error())
	}
	if !r.free {
		c.stats.Pages++
	}
	c.stats.Results += n
	return "", 0, nil
}

// errorTable decodes {error=code, message=, retry_after=}.
func (c *caller) errorTable(r request, tb *lua.LTable, ev lua.LValue) (string, time.Duration, error) {
	code, ok := ev.(lua.LString)
	if !ok {
		return codeInvalid, 0, c.posError(r.fn, r.key, "error: expected a string code, got "+ev.Type().String())
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
		return codeInvalid, 0, c.posError(r.fn, r.key, "retry_after: expected a number of seconds, got "+ra.Type().String())
	}
	s := string(code)
	if _, known := codeErr[s]; !known {
		return codeInvalid, 0, c.posError(r.fn, r.key, fmt.Sprintf("unknown error code %q (want rate_limited, unavailable, config, unsupported or failed): %s", s, msg))
	}
	text := strings.ReplaceAll(s, "_", " ")
	if msg != "" {
		text += ": " + msg
	}
	return s, wait, c.posError(r.fn, r.key, text)
}

// check calls the plugin's check function, if any: nil or true when usable,
// false or a message when not. c.mu must be held.
func (c *caller) check(ctx context.Context, args ...lua.LValue) error {
	r := request{op: "check", key: "check"}
	fail := func(code string, attempts int, err error) error {
		return &Error{Plugin: c.ref, Op: r.op, Code: code, Attempts: attempts, Err: err}
	}
	if c.closed {
		return fail(CodeFailed, 0, errors.New("adapter is closed"))
	}
	fn, ok := c.p.Func("check")
	if !ok {
		return nil
	}
	v, err := c.protectedCall(ctx, fn, args...)
	if err != nil {
		return fail(codeRaised, 1, err)
	}
	switch x := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		if x {
			return nil
		}
		return fail(CodeConfig, 1, c.posError(fn, "check", "plugin is not usable"))
	case lua.LString:
		return fail(CodeConfig, 1, c.posError(fn, "check", string(x)))
	default:
		return fail(codeInvalid, 1, c.posError(fn, "check", "must return nil or a message, got "+v.Type().String()))
	}
}

// protectedCall calls fn in the plugin's state, turning any Go panic into an
// error (gopher-lua recovers Lua errors itself; this guards the rest).
func (c *caller) protectedCall(ctx context.Context, fn *lua.LFunction, args ...lua.LValue) (v lua.LValue, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = lua.LNil, fmt.Errorf("%s: panic in plugin call: %v", c.p.Path, r)
		}
	}()
	return script.CallFunc(ctx, c.p.L, fn, args...)
}

// posError is an error positioned at the definition of fn in the plugin
// (the function that returned the bad value), or at the plugin's table.
func (c *caller) posError(fn *lua.LFunction, key, msg string) error {
	se := &script.Error{File: c.p.Path, Line: c.p.chunk.KeyLine(key), Key: key, Msg: msg}
	if fn != nil && fn.Proto != nil && fn.Proto.SourceName != "" {
		se.File, se.Line = fn.Proto.SourceName, fn.Proto.LineDefined
	}
	return se
}

// eachKey calls f for every key of a result table, stopping at the first
// error; a key that is not a string is an error naming what the table may
// hold (want).
func eachKey(tb *lua.LTable, where, want string, f func(key string, v lua.LValue) error) error {
	var err error
	tb.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		ks, ok := k.(lua.LString)
		if !ok {
			err = fmt.Errorf("%s: unexpected key %s (want %s)", where, k.String(), want)
			return
		}
		err = f(string(ks), v)
	})
	return err
}

// optBool reads a boolean or nil.
func optBool(key string, v lua.LValue) (bool, error) {
	switch b := v.(type) {
	case lua.LBool:
		return bool(b), nil
	case *lua.LNilType:
		return false, nil
	}
	return false, fmt.Errorf("%s: expected boolean, got %s", key, v.Type())
}

// count reads a non-negative number (a count reported by a service),
// capped to an int32.
func count(key string, v lua.LValue) (int, error) {
	n, ok := v.(lua.LNumber)
	if !ok || n < 0 || math.IsNaN(float64(n)) {
		return 0, fmt.Errorf("%s: expected a non-negative number or nil, got %s", key, v.String())
	}
	return int(math.Min(float64(n), math.MaxInt32)), nil
}

// pageKey is a key a result page may hold besides its list, next and total.
type pageKey struct {
	name string
	read func(lua.LValue) error
}

// decodePage reads a result page strictly: the list under listKey
// (required; read by list), next, total and the extra keys. Any other key is
// an error naming the keys a page may hold.
func decodePage(tb *lua.LTable, listKey string, list func(lua.LValue) error, extra ...pageKey) (next bool, total int, err error) {
	names := []string{listKey, "next", "total"}
	for _, k := range extra {
		names = append(names, k.name)
	}
	want := strings.Join(names, ", ")
	total = -1
	err = eachKey(tb, "result table", want, func(key string, v lua.LValue) (err error) {
		switch key {
		case listKey:
			return list(v)
		case "next":
			next, err = optBool("next", v)
			return err
		case "total":
			total, err = count("total", v)
			return err
		}
		for _, k := range extra {
			if k.name == key {
				return k.read(v)
			}
		}
		return fmt.Errorf("unknown key %q in the result table (want %s, or error)", key, want)
	})
	if err == nil && tb.RawGetString(listKey) == lua.LNil {
		err = fmt.Errorf("%s: missing (return %s = {} when nothing matched)", listKey, listKey)
	}
	if err != nil {
		return false, -1, err
	}
	return next, total, nil
}

// decodeList reads the list of a result page (key): each item is a table
// (of the given shape, for errors) that item decodes, returning the item and
// its identity; an item without identity, or whose identity came earlier on
// the page, is dropped. An empty table counts as a list.
func decodeList[T any](key, shape string, v lua.LValue, item func(key string, tb *lua.LTable) (T, string, error)) ([]T, error) {
	list, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%s: expected a list, got %s", key, v.Type())
	}
	n := list.Len()
	if n == 0 {
		if k, _ := list.Next(lua.LNil); k != lua.LNil {
			return nil, fmt.Errorf("%s: expected a list, got a table with keys", key)
		}
	}
	out := make([]T, 0, n)
	seen := make(map[string]bool, n)
	for i := 1; i <= n; i++ {
		ik := fmt.Sprintf("%s[%d]", key, i)
		tb, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			return nil, fmt.Errorf("%s: expected a table %s, got %s", ik, shape, list.RawGetInt(i).Type())
		}
		x, id, err := item(ik, tb)
		if err != nil {
			return nil, err
		}
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, x)
	}
	return out, nil
}

// webURL reports whether s is an absolute http(s) URL.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// optString reads a string or nil.
func optString(key string, v lua.LValue) (string, error) {
	switch s := v.(type) {
	case lua.LString:
		return string(s), nil
	case *lua.LNilType:
		return "", nil
	}
	return "", fmt.Errorf("%s: expected string, got %s", key, v.Type())
}
