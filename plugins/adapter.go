package plugins

// The machinery shared by the plugin adapters (SearchEngine,
// KeywordInterface): one Lua state per adapter with calls serialised, a
// minimum interval between calls, a query budget, retries under the
// project's retry policy (package retry: backoff with jitter, or the
// plugin's retry_after up to a cap), strict decoding of what the plugin
// returns (script.Value.Decode), and errors positioned in the plugin file.

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

	"github.com/dwcrawl/dwcrawl/core/retry"
	"github.com/dwcrawl/dwcrawl/core/script"
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

// callOptions are the settings both adapters share (see SearchOptions for
// the meaning of each).
type callOptions struct {
	budget      int
	minInterval time.Duration
	retry       retry.Policy
	logger      *slog.Logger
}

// caller owns a loaded plugin and runs its functions under the options. Its
// methods that call the plugin expect mu to be held by the adapter method
// that uses them: one Lua state serves every caller of the adapter.
type caller struct {
	p        *Plugin
	opt      callOptions
	backoff  *retry.Backoff
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

// newCaller wraps p, which must be an open plugin of kind kind, whose own
// min_interval is interval.
func newCaller(p *Plugin, kind string, interval time.Duration, opt callOptions) (*caller, error) {
	if p == nil || p.inst == nil {
		return nil, fmt.Errorf("plugins: %s adapter: plugin is nil or closed", kind)
	}
	if p.Kind != kind {
		return nil, p.inst.Chunk().Errorf("kind", "is %q; the adapter needs a %s plugin", p.Kind, kind)
	}
	if opt.logger == nil {
		opt.logger = slog.Default()
	}
	opt.retry.Classify = classify
	return &caller{p: p, opt: opt, backoff: retry.New(opt.retry), ref: p.Ref(), env: p.Env(),
		interval: max(interval, opt.minInterval), sleep: retry.SystemClock{}.Sleep, now: time.Now}, nil
}

// classify is the adapters' retry classifier: rate_limited and unavailable
// answers are retried (after the plugin's retry_after, if any), and so is a
// raised Lua error (a transport error from dw.http, a timeout), except the
// memory limit, which the next attempt would reach again; config,
// unsupported, failed and contract violations are final.
func classify(err error) (bool, time.Duration) {
	var ae *attemptError
	if !errors.As(err, &ae) {
		return false, 0
	}
	switch ae.code {
	case codeRaised:
		return !errors.Is(err, script.ErrMemoryLimit), 0
	case CodeRateLimited, CodeUnavailable:
		return true, ae.after
	}
	return false, 0
}

// attemptError is the error of one failed attempt, with its code and the
// wait the plugin asked for.
type attemptError struct {
	code  string
	after time.Duration
	err   error
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

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
	fn    script.Func
	query string // what the operation is about, for errors and logs
	page  int    // 0 when the operation has no page
	args  []any
	free  bool // not counted in the budget (fetch)
}

// fail counts a failed request and builds its error.
func (c *caller) fail(r request, code string, attempts int, err error) error {
	c.stats.Failed++
	return &Error{Plugin: c.ref, Op: r.op, Query: r.query, Page: r.page, Code: code, Attempts: attempts, Err: err}
}

// decoder reads a plugin's answer: the error table of the contract, or a
// result (returned as the number of results in it), or a contract
// violation.
type decoder func(script.Value) (*errorReply, int, error)

// errorReply is the error table of the contract, {error=, message=,
// retry_after=}; a result table embeds it, so one strict decoding reads
// either.
type errorReply struct {
	Error      string   `lua:"error"`
	Message    string   `lua:"message"`
	RetryAfter *float64 `lua:"retry_after"`
}

// run performs r with retries, pacing and the budget. c.mu must be held.
func (c *caller) run(ctx context.Context, r request, decode decoder) error {
	if c.closed {
		return c.fail(r, CodeFailed, 0, errors.New("adapter is closed"))
	}
	if !r.fn.Defined() {
		return c.fail(r, codeInvalid, 0, c.posError(r.fn, r.key, "plugin does not define this function"))
	}
	budget := c.opt.budget
	if r.free {
		budget = 0
	}
	start := c.now()
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
		err := c.attempt(ctx, r, decode)
		if err == nil {
			return nil
		}
		code := err.code
		c.stats.Errors++
		if code == CodeRateLimited {
			c.stats.RateLimited++
		}
		c.opt.logger.Warn("plugin call failed", "plugin", c.ref, "op", r.op, "query", r.query, "page", r.page, "attempt", attempt, "code", code, "err", err)
		if ctx.Err() != nil {
			return c.fail(r, code, attempt, err.err)
		}
		wait, stop := c.backoff.Next(attempt, c.now().Sub(start), err)
		if stop != nil {
			return c.fail(r, code, attempt, unwrapAttempt(stop))
		}
		if budget > 0 && c.stats.Queries >= budget {
			return c.fail(r, codeBudget, attempt, fmt.Errorf("%w after %d queries; last error: %w", ErrBudgetExhausted, c.stats.Queries, err.err))
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return c.fail(r, code, attempt, fmt.Errorf("%w (while waiting to retry: %w)", err.err, serr))
		}
	}
}

// unwrapAttempt drops the attemptError layer from the error retry.Next
// returned (which may wrap it with why retrying stopped).
func unwrapAttempt(err error) error {
	if ae, ok := err.(*attemptError); ok {
		return ae.err
	}
	return err
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

// attempt makes one plugin call and decodes its answer: nil on success,
// else an *attemptError whose code is a Code* constant for a returned error
// table, codeRaised for a raised error and codeInvalid for a contract
// violation, with the plugin's retry_after.
func (c *caller) attempt(ctx context.Context, r request, decode decoder) *attemptError {
	v, err := c.p.inst.Call(ctx, r.fn, r.args...)
	if err != nil {
		return &attemptError{code: codeRaised, err: err}
	}
	if t := v.Type(); t != "table" {
		return &attemptError{code: codeInvalid, err: c.posError(r.fn, r.key, "must return a table (a result page or {error=}), got "+t)}
	}
	er, n, err := decode(v)
	switch {
	case err != nil:
		return &attemptError{code: codeInvalid, err: c.resultError(r, err)}
	case er != nil:
		return c.errorTable(r, er)
	}
	if !r.free {
		c.stats.Pages++
	}
	c.stats.Results += n
	return nil
}

// errorTable turns {error=code, message=, retry_after=} into an
// attemptError.
func (c *caller) errorTable(r request, er *errorReply) *attemptError {
	code := er.Error
	if _, known := codeErr[code]; !known {
		return &attemptError{code: codeInvalid, err: c.posError(r.fn, r.key, fmt.Sprintf("unknown error code %q (want rate_limited, unavailable, config, unsupported or failed): %s", code, er.Message))}
	}
	var wait time.Duration
	if ra := er.RetryAfter; ra != nil && *ra > 0 && !math.IsNaN(*ra) {
		wait = time.Duration(math.Min(*ra, 1e6) * float64(time.Second))
	}
	text := strings.ReplaceAll(code, "_", " ")
	if er.Message != "" {
		text += ": " + er.Message
	}
	return &attemptError{code: code, after: wait, err: c.posError(r.fn, r.key, text)}
}

// check calls the plugin's check function, if any: nil or true when usable,
// false or a message when not. c.mu must be held.
func (c *caller) check(ctx context.Context, args ...any) error {
	r := request{op: "check", key: "check"}
	fail := func(code string, attempts int, err error) error {
		return &Error{Plugin: c.ref, Op: r.op, Code: code, Attempts: attempts, Err: err}
	}
	if c.closed {
		return fail(CodeFailed, 0, errors.New("adapter is closed"))
	}
	fn, ok := c.p.fn("check")
	if !ok {
		return nil
	}
	v, err := c.p.inst.Call(ctx, fn, args...)
	if err != nil {
		return fail(codeRaised, 1, err)
	}
	switch x := v.Go().(type) {
	case nil:
		return nil
	case bool:
		if x {
			return nil
		}
		return fail(CodeConfig, 1, c.posError(fn, "check", "plugin is not usable"))
	case string:
		return fail(CodeConfig, 1, c.posError(fn, "check", x))
	}
	return fail(codeInvalid, 1, c.posError(fn, "check", "must return nil or a message, got "+v.Type()))
}

// posError is an error positioned at the definition of fn in the plugin
// (the function that returned the bad value), or at the plugin's table.
func (c *caller) posError(fn script.Func, key, msg string) error {
	se := &script.Error{File: c.p.Path, Line: c.p.inst.Chunk().KeyLine(key), Key: key, Msg: msg}
	if file, line := fn.Pos(); file != "" {
		se.File, se.Line = file, line
	}
	return se
}

// resultError positions a problem of a returned value (a decoding error
// naming the key inside it, or a check of the adapter) at the function.
func (c *caller) resultError(r request, err error) error {
	var se *script.Error
	if errors.As(err, &se) && se.Key != "" {
		return c.posError(r.fn, r.key, se.Key+": "+se.Msg)
	}
	if errors.As(err, &se) {
		return c.posError(r.fn, r.key, se.Msg)
	}
	return c.posError(r.fn, r.key, err.Error())
}

// resultf is a problem of a returned value found by an adapter's checks.
func resultf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// webURL reports whether s is an absolute http(s) URL.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
