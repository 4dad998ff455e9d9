package plugins

// The keyword-interface plugin contract and its Go adapter (used by surfacing
// and enrichment: the keyword interface of one hidden database).
//
// A keyword plugin (plugins/keyword/<name>.lua) returns
//
//	dw.plugin{
//	  kind = "keyword", name = "<name>", version = "1.0.0", description = "...",
//	  env  = { "DBLP_API_URL" },  -- the only variables dw.env may read (with the vars' env)
//	  vars = {                    -- optional: the variables it accepts (KeywordOptions.Vars)
//	    url    = { env = "DBLP_API_URL", default = "https://dblp.org/search/publ/api", help = "..." },
//	    action = { required = true, help = "..." },
//	    note   = "help text",     -- shorthand for { help = "help text" }
//	  },
//	  k           = 10000,  -- optional: the most results any query can reach (top-k); nil unknown
//	  page_size   = 100,    -- optional: results per page; nil unknown
//	  conjunctive = true,   -- optional (default true): a record matches only if it has every word
//	  stopwords   = true,   -- optional (default false): the interface ignores stop words
//	  min_interval = 1.0,   -- optional: seconds between two calls the service tolerates
//	  search = function(query, page, vars) ... end,  -- required; page counts from 1
//	  fetch  = function(record, vars) ... end,       -- optional: complete a record (detail page)
//	  check  = function(vars) ... end,               -- optional: nil when usable, else a message
//	}
//
// vars is a table of the resolved variables (strings): for each declared
// variable, the caller's value, else its environment variable, else its
// default. A required variable without a value fails OpenKeywordInterface
// with ErrConfig; a value for an undeclared variable is an error too.
//
// search returns a result page
//
//	{ records = { { id = "42", url = "https://...", fields = { title = "...", year = "2015" }, text = "..." }, ... },
//	  total = 311,       -- matches the site reports, nil when it hides them
//	  next  = true,      -- a further page exists (within the top k)
//	  k = 1000, page_size = 10 }  -- optional: limits the site reports (update Info)
//
// or an error table as in the search contract (rate_limited, unavailable,
// config, unsupported, failed; message; retry_after). A record needs an id
// or a url (the id defaults to the url); url, when given, is an absolute
// http(s) URL; fields values are strings (numbers and booleans are
// converted); text defaults to the field values joined in key order. A record
// id repeated on one page is kept once. fetch returns the record completed
// (typically with more fields) or an error table; missing parts keep the
// values of the record passed in, and returned fields are merged over the old
// ones.
//
// The adapter, not the plugin, handles failures: rate limits and unavailable
// services are retried after retry_after or an exponential backoff with
// jitter (package retry), a raised Lua error is retried as transient (but
// the memory limit), search calls are counted against the query budget, and
// calls are paced by the minimum interval. The table and every result are
// decoded strictly, as for search plugins.

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
)

// KeywordRecord is one record of a hidden database.
type KeywordRecord struct {
	ID     string // the site's record id, or the URL when it has none
	URL    string // detail page, "" when the interface has none
	Text   string // the record's searchable text
	Fields map[string]string
}

// KeywordPage is one result page of a keyword query.
type KeywordPage struct {
	Records []KeywordRecord
	// Total is the number of matches the interface reports, -1 when hidden.
	Total int
	// Next reports that a further result page exists.
	Next bool
}

// KeywordVar is a variable a keyword plugin accepts.
type KeywordVar struct {
	Name     string
	Help     string
	Env      string // environment variable read when the caller gives no value
	Default  string
	Required bool
}

// KeywordInfo describes a keyword interface.
type KeywordInfo struct {
	Info
	// K is the result limit (top-k) the plugin declares or the site last
	// reported, 0 when unknown.
	K int
	// PageSize is the number of results per page, 0 when unknown.
	PageSize int
	// Conjunctive: a record matches only when it contains every query word.
	Conjunctive bool
	// StopWords: the interface ignores stop words in queries.
	StopWords bool
	// Fetch: the plugin can complete a record (Fetch).
	Fetch bool
	// MinInterval is the pacing in force (the plugin's or the caller's).
	MinInterval time.Duration
	// Env lists the environment variables the plugin reads.
	Env []string
	// Vars are the variables the plugin accepts, sorted by name.
	Vars []KeywordVar
}

// KeywordOptions configures a KeywordInterface. Zero values mean the
// defaults, as in SearchOptions.
type KeywordOptions struct {
	// Budget is the most search calls (queries, retries included) the
	// interface may make over its life; 0 means unlimited. Fetch calls are
	// not counted.
	Budget int
	// MinInterval is the least time between the starts of two calls; the
	// plugin's own min_interval applies when larger.
	MinInterval time.Duration
	// Retries after the first attempt for retryable failures; 0 means 3,
	// negative means none.
	Retries int
	// Backoff is the first wait before a retry (doubling up to MaxBackoff)
	// when the plugin gives no retry_after; defaults 1s and 30s.
	Backoff, MaxBackoff time.Duration
	// Jitter is the random fraction of each backoff wait (see
	// retry.Policy): 0 means half, negative none; Seed seeds it.
	Jitter float64
	Seed   uint64
	// MaxRetryAfter is the longest retry_after honoured (default 2m).
	MaxRetryAfter time.Duration
	// Logger receives a warning per failed attempt; nil means slog.Default().
	Logger *slog.Logger
	// Vars are the plugin's variables (a base URL, a form's action ...);
	// each must be declared by the plugin.
	Vars map[string]string
}

// callOptions are the options in the form the adapters' caller takes.
func (o KeywordOptions) callOptions() callOptions {
	return SearchOptions{Budget: o.Budget, MinInterval: o.MinInterval, Retries: o.Retries, Backoff: o.Backoff,
		MaxBackoff: o.MaxBackoff, Jitter: o.Jitter, Seed: o.Seed, MaxRetryAfter: o.MaxRetryAfter, Logger: o.Logger}.callOptions()
}

// keywordDecl is the table a keyword plugin returns (the contract above).
type keywordDecl struct {
	header
	Vars        map[string]varDecl `lua:"vars"`
	K           *int               `lua:"k"`
	PageSize    *int               `lua:"page_size"`
	Conjunctive *bool              `lua:"conjunctive"`
	StopWords   bool               `lua:"stopwords"`
	MinInterval *float64           `lua:"min_interval"`
	Search      script.Func        `lua:"search"`
	Fetch       script.Func        `lua:"fetch"`
	Check       script.Func        `lua:"check"`
}

// varDecl is one entry of vars: {help=, env=, default=, required=}, or a
// help string.
type varDecl struct {
	Help     string `lua:"help"`
	Env      string `lua:"env"`
	Default  string `lua:"default"`
	Required bool   `lua:"required"`
}

// UnmarshalText reads the shorthand note = "help text".
func (v *varDecl) UnmarshalText(b []byte) error {
	v.Help = string(b)
	return nil
}

// check validates the values the decoder can't.
func (d *keywordDecl) check(c *script.Chunk) error {
	if !d.Search.Defined() {
		return c.Errorf("search", "a keyword plugin must define search = function(query, page, vars) ... end")
	}
	for key, n := range map[string]*int{"k": d.K, "page_size": d.PageSize} {
		if n != nil && *n < 1 {
			return c.Errorf(key, "must be a positive integer, got %d", *n)
		}
	}
	for _, v := range d.vars() {
		if !varNameRe.MatchString(v.Name) {
			return c.Errorf("vars."+v.Name, "variable names are lower-case identifiers, got %q", v.Name)
		}
		if v.Env != "" && !envNameRe.MatchString(v.Env) {
			return c.Errorf("vars."+v.Name+".env", "expected the name of an environment variable, got %q", v.Env)
		}
	}
	return checkInterval(c, d.MinInterval)
}

// vars lists the declared variables, sorted by name.
func (d *keywordDecl) vars() []KeywordVar {
	out := make([]KeywordVar, 0, len(d.Vars))
	for name, v := range d.Vars {
		out = append(out, KeywordVar{Name: name, Help: v.Help, Env: v.Env, Default: v.Default, Required: v.Required})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// KeywordInterface runs a keyword plugin: Search and Fetch with retries,
// backoff, pacing and a query budget, and strict validation of what the
// plugin returns. It is safe for concurrent use: calls are serialised on the
// plugin's one Lua state. Every failure is an *Error.
type KeywordInterface struct {
	*caller
	vars map[string]string // resolved values of the declared variables

	infoMu sync.Mutex
	info   KeywordInfo
}

var varNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// OpenKeywordInterface loads keyword plugin ref ("keyword/dblp", "dblp" or a
// file path; userDirs are searched first) in a state of pool and wraps it.
// pool should be built with PoolOptions so the plugin's helpers resolve; its
// Env option supplies the variables' environment.
func OpenKeywordInterface(ctx context.Context, pool *script.Pool, ref string, opt KeywordOptions, userDirs ...string) (*KeywordInterface, error) {
	p, err := loadRef(ctx, pool, "keyword", ref, userDirs)
	if err != nil {
		return nil, err
	}
	ki, err := NewKeywordInterface(p, opt)
	if err != nil {
		p.Close()
		return nil, err
	}
	return ki, nil
}

// NewKeywordInterface wraps a loaded keyword plugin, resolving its
// variables. The interface owns p from now on: Close closes it.
func NewKeywordInterface(p *Plugin, opt KeywordOptions) (*KeywordInterface, error) {
	var own time.Duration
	if p != nil && p.keyword != nil {
		own = interval(p.keyword.MinInterval)
	}
	c, err := newCaller(p, "keyword", own, opt.callOptions())
	if err != nil {
		return nil, err
	}
	d := p.keyword
	ki := &KeywordInterface{caller: c}
	info := KeywordInfo{Info: p.Info, Conjunctive: true, StopWords: d.StopWords, Fetch: d.Fetch.Defined(),
		MinInterval: c.interval, Env: p.Env(), Vars: d.vars()}
	if d.K != nil {
		info.K = *d.K
	}
	if d.PageSize != nil {
		info.PageSize = *d.PageSize
	}
	if d.Conjunctive != nil {
		info.Conjunctive = *d.Conjunctive
	}
	ki.info = info
	if ki.vars, err = resolveVars(p, info.Vars, opt.Vars); err != nil {
		return nil, &Error{Plugin: c.ref, Op: "open", Code: CodeConfig, Err: err}
	}
	return ki, nil
}

// resolveVars gives every declared variable its value: the caller's, else
// its environment variable's, else its default.
func resolveVars(p *Plugin, decl []KeywordVar, given map[string]string) (map[string]string, error) {
	byName := map[string]KeywordVar{}
	var names []string
	for _, v := range decl {
		byName[v.Name] = v
		names = append(names, v.Name)
	}
	for name := range given {
		if _, ok := byName[name]; !ok {
			known := "none"
			if len(names) > 0 {
				known = strings.Join(names, ", ")
			}
			return nil, p.inst.Chunk().Errorf("vars", "the plugin has no variable %q (it accepts: %s)", name, known)
		}
	}
	env := p.lookupEnv
	out := make(map[string]string, len(decl))
	for _, v := range decl {
		val := given[v.Name]
		if val == "" && v.Env != "" {
			val, _ = env(v.Env)
		}
		if val == "" {
			val = v.Default
		}
		if val == "" && v.Required {
			msg := "variable " + v.Name + " is required"
			if v.Env != "" {
				msg += " (or set " + v.Env + ")"
			}
			if v.Help != "" {
				msg += ": " + v.Help
			}
			return nil, p.inst.Chunk().Errorf("vars."+v.Name, "%s", msg)
		}
		out[v.Name] = val
	}
	return out, nil
}

// Info describes the interface: the plugin, its limits and variables.
func (ki *KeywordInterface) Info() KeywordInfo {
	ki.infoMu.Lock()
	defer ki.infoMu.Unlock()
	info := ki.info
	info.Env = append([]string(nil), info.Env...)
	info.Vars = append([]KeywordVar(nil), info.Vars...)
	return info
}

// Vars returns the resolved values of the plugin's variables.
func (ki *KeywordInterface) Vars() map[string]string {
	out := make(map[string]string, len(ki.vars))
	for k, v := range ki.vars {
		out[k] = v
	}
	return out
}

// Stats returns the counters so far.
func (ki *KeywordInterface) Stats() Stats { return ki.statsNow() }

// Close releases the plugin's state; later calls fail.
func (ki *KeywordInterface) Close() { ki.close() }

// varsArg is the vars argument: a copy of the resolved values (the plugin
// gets a fresh table per call and may change it).
func (ki *KeywordInterface) varsArg() map[string]string {
	out := make(map[string]string, len(ki.vars))
	for k, v := range ki.vars {
		out[k] = v
	}
	return out
}

// Check asks the plugin whether it is usable without sending a query (its
// check function); nil when it has none.
func (ki *KeywordInterface) Check(ctx context.Context) error {
	ki.mu.Lock()
	defer ki.mu.Unlock()
	return ki.check(ctx, ki.varsArg())
}

// Search sends query and returns its result page page (from 1).
func (ki *KeywordInterface) Search(ctx context.Context, query string, page int) (KeywordPage, error) {
	page = max(page, 1)
	ki.mu.Lock()
	defer ki.mu.Unlock()
	r := request{op: "search", key: "search", query: query, page: page}
	if !ki.closed {
		r.fn, _ = ki.p.fn("search")
		r.args = []any{query, page, ki.varsArg()}
	}
	var kp KeywordPage
	err := ki.run(ctx, r, func(v script.Value) (*errorReply, int, error) {
		var rep keywordReply
		if err := v.Decode(&rep); err != nil {
			return nil, 0, err
		}
		if rep.Error != "" {
			return &rep.errorReply, 0, nil
		}
		var err error
		if kp, err = rep.page(); err == nil {
			ki.learn(rep)
		}
		return nil, len(kp.Records), err
	})
	if err != nil {
		return KeywordPage{Total: -1}, err
	}
	return kp, nil
}

// learn records the limits a site reported.
func (ki *KeywordInterface) learn(rep keywordReply) {
	ki.infoMu.Lock()
	defer ki.infoMu.Unlock()
	if rep.K != nil {
		ki.info.K = *rep.K
	}
	if rep.PageSize != nil {
		ki.info.PageSize = *rep.PageSize
	}
}

// Fetch completes rec through the plugin's fetch function (its detail
// page). Fetches are paced and retried like searches but not counted in the
// budget. Without a fetch function it fails with ErrUnsupported.
func (ki *KeywordInterface) Fetch(ctx context.Context, rec KeywordRecord) (KeywordRecord, error) {
	ki.mu.Lock()
	defer ki.mu.Unlock()
	subject := rec.URL
	if subject == "" {
		subject = rec.ID
	}
	r := request{op: "fetch", key: "fetch", query: subject, free: true}
	if !ki.closed {
		var ok bool
		if r.fn, ok = ki.p.fn("fetch"); !ok {
			return rec, &Error{Plugin: ki.ref, Op: r.op, Query: subject, Code: CodeUnsupported, Err: ki.posError(r.fn, "fetch", "the plugin has no fetch function")}
		}
		r.args = []any{recordArg{ID: rec.ID, URL: rec.URL, Text: rec.Text, Fields: rec.Fields}, ki.varsArg()}
	}
	out := rec
	err := ki.run(ctx, r, func(v script.Value) (*errorReply, int, error) {
		var rep fetchReply
		if err := v.Decode(&rep); err != nil {
			return nil, 0, err
		}
		if rep.Error != "" {
			return &rep.errorReply, 0, nil
		}
		got, err := rep.recordItem.record("record")
		if err != nil {
			return nil, 0, err
		}
		out = mergeRecord(rec, got)
		return nil, 1, nil
	})
	if err != nil {
		return rec, err
	}
	return out, nil
}

// recordArg is a record as the table fetch receives ({id=, url=, text=,
// fields=}; no url when it has none).
type recordArg struct {
	ID     string            `lua:"id"`
	URL    string            `lua:"url,omitempty"`
	Text   string            `lua:"text"`
	Fields map[string]string `lua:"fields"`
}

// mergeRecord completes old with what fetch returned.
func mergeRecord(old, got KeywordRecord) KeywordRecord {
	out := old
	if got.ID != "" && got.ID != got.URL {
		out.ID = got.ID
	}
	if got.URL != "" {
		out.URL = got.URL
	}
	out.Fields = make(map[string]string, len(old.Fields)+len(got.Fields))
	for k, v := range old.Fields {
		out.Fields[k] = v
	}
	for k, v := range got.Fields {
		out.Fields[k] = v
	}
	if got.Text != "" {
		out.Text = got.Text
	}
	if out.ID == "" {
		out.ID = out.URL
	}
	return out
}

// keywordReply is what search returns: a result page, with the limits the
// site reports, or the error table.
type keywordReply struct {
	errorReply
	Records  *[]recordItem `lua:"records"`
	Total    *int          `lua:"total"`
	Next     bool          `lua:"next"`
	K        *int          `lua:"k"`
	PageSize *int          `lua:"page_size"`
}

// fetchReply is what fetch returns: the record, or the error table.
type fetchReply struct {
	errorReply
	recordItem
}

// recordItem is a record as a plugin returns it; ids, fields and numbers
// may be given as numbers or booleans (the "text" option).
type recordItem struct {
	ID     string            `lua:"id,text"`
	URL    string            `lua:"url"`
	Text   string            `lua:"text"`
	Fields map[string]string `lua:"fields,text"`
}

// page checks a decoded result page: records present, every record with
// an id or a url, counts in range. A record id repeated on the page is
// kept once.
func (rep *keywordReply) page() (KeywordPage, error) {
	if rep.Records == nil {
		return KeywordPage{}, resultf("records: missing (return records = {} when nothing matched)")
	}
	kp := KeywordPage{Next: rep.Next, Total: -1}
	if rep.Total != nil {
		if *rep.Total < 0 {
			return KeywordPage{}, resultf("total: expected a non-negative integer or nil, got %d", *rep.Total)
		}
		kp.Total = *rep.Total
	}
	for key, n := range map[string]*int{"k": rep.K, "page_size": rep.PageSize} {
		if n != nil && *n < 1 {
			return KeywordPage{}, resultf("%s: expected a positive integer, got %d", key, *n)
		}
	}
	seen := map[string]bool{}
	for i, it := range *rep.Records {
		key := fmt.Sprintf("records[%d]", i+1)
		r, err := it.record(key)
		if err != nil {
			return KeywordPage{}, err
		}
		if r.ID == "" {
			return KeywordPage{}, resultf("%s: needs an id or a url", key)
		}
		if seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		kp.Records = append(kp.Records, r)
	}
	return kp, nil
}

// record checks a decoded record (key names it in errors): the url, when
// given, is an absolute http(s) URL; the id defaults to the url and the
// text to the field values in key order.
func (it recordItem) record(key string) (KeywordRecord, error) {
	r := KeywordRecord{ID: it.ID, URL: strings.TrimSpace(it.URL), Text: it.Text, Fields: it.Fields}
	if r.URL != "" && !webURL(r.URL) {
		return r, resultf("%s.url: want an absolute http(s) URL, got %q", key, r.URL)
	}
	if r.ID == "" {
		r.ID = r.URL
	}
	if r.Text == "" && len(r.Fields) > 0 {
		names := make([]string, 0, len(r.Fields))
		for k := range r.Fields {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, 0, len(names))
		for _, k := range names {
			if r.Fields[k] != "" {
				parts = append(parts, r.Fields[k])
			}
		}
		r.Text = strings.Join(parts, " ")
	}
	return r, nil
}
