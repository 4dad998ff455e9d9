package plugins

// The search-engine plugin contract and its Go adapter.
//
// A search plugin (plugins/search/<name>.lua) returns
//
//	dw.plugin{
//	  kind = "search", name = "<name>", version = "1.2.0", description = "...",
//	  env = { "BRAVE_API_KEY", "BRAVE_SEARCH_URL" }, -- the environment variables dw.env may read
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
// retried after retry_after or an exponential backoff with jitter (package
// retry); "config" (missing or rejected API key), "unsupported" and
// "failed" are not. A raised Lua error (a transport error from dw.http, a
// timeout, a bug) is treated as transient and retried, except the memory
// limit. Without a link function the adapter sends search("link:" .. url);
// without site, search("site:" .. host).
//
// The table and every result are decoded strictly (script.Decode): an
// unknown key or a wrong type is an error naming the key
// ("results[2].title: expected string, got number"), positioned at the
// key's line in the file or at the function that returned the value.

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/retry"
	"github.com/dwcrawl/dwcrawl/core/script"
)

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
	// Jitter is the random fraction of each backoff wait (see
	// retry.Policy): 0 means half, negative none; Seed seeds it.
	Jitter float64
	Seed   uint64
	// MaxRetryAfter is the longest retry_after honoured; a longer one (a
	// daily quota) fails the call at once with ErrRateLimited. Default 2m.
	MaxRetryAfter time.Duration
	// Logger receives a warning per failed attempt; nil means slog.Default().
	Logger *slog.Logger
}

// callOptions are the options in the form the adapters' caller takes.
func (o SearchOptions) callOptions() callOptions {
	retries := o.Retries
	switch {
	case retries == 0:
		retries = 3
	case retries < 0:
		retries = 0
	}
	backoff := o.Backoff
	if backoff <= 0 {
		backoff = time.Second
	}
	return callOptions{budget: o.Budget, minInterval: o.MinInterval, logger: o.Logger, retry: retry.Policy{
		Retries: retries, Base: backoff, Max: o.MaxBackoff, Jitter: o.Jitter, Seed: o.Seed, MaxRetryAfter: o.MaxRetryAfter,
	}}
}

// searchDecl is the table a search plugin returns (the contract above).
type searchDecl struct {
	header
	MinInterval *float64    `lua:"min_interval"`
	MaxPage     *int        `lua:"max_page"`
	Search      script.Func `lua:"search"`
	Link        script.Func `lua:"link"`
	Site        script.Func `lua:"site"`
	Check       script.Func `lua:"check"`
}

// check validates the values the decoder can't.
func (d *searchDecl) check(c *script.Chunk) error {
	if !d.Search.Defined() {
		return c.Errorf("search", "a search plugin must define search = function(query, page) ... end")
	}
	if d.MaxPage != nil && *d.MaxPage < 1 {
		return c.Errorf("max_page", "must be a positive integer, got %d", *d.MaxPage)
	}
	return checkInterval(c, d.MinInterval)
}

// SearchEngine runs a search plugin with retries, backoff, a minimum
// interval between queries and a query budget. It is safe for concurrent
// use: calls are serialised (one Lua state, and the interval applies across
// callers anyway). It never panics; every failure is an *Error.
type SearchEngine struct {
	*caller
	maxPage int
}

// OpenSearchEngine loads search plugin ref ("search/brave", "brave" or a
// file path; userDirs are searched first) in a state of pool and wraps it.
// pool should be built with PoolOptions so the plugin's helpers resolve.
func OpenSearchEngine(ctx context.Context, pool *script.Pool, ref string, opt SearchOptions, userDirs ...string) (*SearchEngine, error) {
	p, err := loadRef(ctx, pool, "search", ref, userDirs)
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

// loadRef loads plugin ref of kind: "kind/name", a bare name, or a file path.
func loadRef(ctx context.Context, pool *script.Pool, kind, ref string, userDirs []string) (*Plugin, error) {
	name := ref
	if k, n, ok := strings.Cut(ref, "/"); ok && k == kind && !strings.HasSuffix(ref, ".lua") {
		name = n
	}
	return Load(ctx, pool, kind, name, userDirs...)
}

// NewSearchEngine wraps a loaded search plugin. The engine owns p from now
// on: Close closes it.
func NewSearchEngine(p *Plugin, opt SearchOptions) (*SearchEngine, error) {
	var own time.Duration
	if p != nil && p.search != nil {
		own = interval(p.search.MinInterval)
	}
	c, err := newCaller(p, "search", own, opt.callOptions())
	if err != nil {
		return nil, err
	}
	e := &SearchEngine{caller: c}
	if mp := p.search.MaxPage; mp != nil {
		e.maxPage = *mp
	}
	return e, nil
}

// Info describes the plugin behind the engine.
func (e *SearchEngine) Info() Info { return e.p.Info }

// Env lists the environment variables the plugin declares; it reads no
// others.
func (e *SearchEngine) Env() []string { return append([]string(nil), e.env...) }

// Stats returns the counters so far.
func (e *SearchEngine) Stats() Stats { return e.statsNow() }

// Close releases the plugin's state; later calls fail.
func (e *SearchEngine) Close() { e.close() }

// Check asks the plugin whether it is usable (its check function: API keys
// present, base URL set) without sending a query; nil when it has no check.
func (e *SearchEngine) Check(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.check(ctx)
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
	page = max(page, 1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed && e.maxPage > 0 && page > e.maxPage {
		return SearchPage{Total: -1}, nil // the engine serves no deeper page
	}
	r := request{op: op, key: op, query: query, page: page}
	arg := query
	if !e.closed {
		var ok bool
		if r.fn, ok = e.p.fn(op); !ok && op != "search" {
			r.key, arg = "search", op+":"+query
			r.fn, _ = e.p.fn(r.key)
		}
	}
	r.args = []any{arg, page}
	var sp SearchPage
	err := e.caller.run(ctx, r, func(v script.Value) (*errorReply, int, error) {
		var rep searchReply
		if err := v.Decode(&rep); err != nil {
			return nil, 0, err
		}
		if rep.Error != "" {
			return &rep.errorReply, 0, nil
		}
		var err error
		sp, err = rep.page()
		return nil, len(sp.Results), err
	})
	if err != nil {
		return SearchPage{Total: -1}, err
	}
	return sp, nil
}

// searchReply is what search, link and site return: a result page or the
// error table.
type searchReply struct {
	errorReply
	Results *[]searchItem `lua:"results"`
	Next    bool          `lua:"next"`
	Total   *int          `lua:"total"`
}

type searchItem struct {
	URL     string `lua:"url"`
	Title   string `lua:"title"`
	Snippet string `lua:"snippet"`
}

// page checks a decoded result page: results present, every result with a
// URL, total not negative. Results whose URL is not an absolute http(s) URL
// are dropped, and repeated URLs kept once.
func (rep *searchReply) page() (SearchPage, error) {
	if rep.Results == nil {
		return SearchPage{}, resultf("results: missing (return results = {} when nothing matched)")
	}
	sp := SearchPage{Next: rep.Next, Total: -1}
	if rep.Total != nil {
		if *rep.Total < 0 {
			return SearchPage{}, resultf("total: expected a non-negative integer or nil, got %d", *rep.Total)
		}
		sp.Total = *rep.Total
	}
	seen := map[string]bool{}
	for i, it := range *rep.Results {
		u := strings.TrimSpace(it.URL)
		if u == "" {
			return SearchPage{}, resultf("results[%d].url: missing", i+1)
		}
		if !webURL(u) || seen[u] {
			continue
		}
		seen[u] = true
		sp.Results = append(sp.Results, SearchResult{URL: u, Title: it.Title, Snippet: it.Snippet})
	}
	return sp, nil
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
