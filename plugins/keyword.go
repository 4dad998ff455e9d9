package plugins

// The keyword-interface plugin contract and its Go adapter (used by surfacing
// and enrichment: the keyword interface of one hidden database).
//
// A keyword plugin (plugins/keyword/<name>.lua) returns
//
//	dw.plugin{
//	  kind = "keyword", name = "<name>", version = "1.0.0", description = "...",
//	  env  = { "DBLP_API_URL" },  -- environment variables it reads (documentation)
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
// services are retried after retry_after or an exponential backoff, a raised
// Lua error is retried as transient, search calls are counted against the
// query budget, and calls are paced by the minimum interval.

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
	lua "github.com/yuin/gopher-lua"
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
	// MaxRetryAfter is the longest retry_after honoured (default 2m).
	MaxRetryAfter time.Duration
	// Logger receives a warning per failed attempt; nil means slog.Default().
	Logger *slog.Logger
	// Vars are the plugin's variables (a base URL, a form's action ...);
	// each must be declared by the plugin.
	Vars map[string]string
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

// NewKeywordInterface wraps a loaded keyword plugin, checking the optional
// parts of the contract and resolving its variables. The interface owns p
// from now on: Close closes it.
func NewKeywordInterface(p *Plugin, opt KeywordOptions) (*KeywordInterface, error) {
	pol := newPolicy(opt.Budget, opt.MinInterval, opt.Retries, opt.Backoff, opt.MaxBackoff, opt.MaxRetryAfter, opt.Logger)
	c, err := newCaller(p, "keyword", pol, "fetch", "check")
	if err != nil {
		return nil, err
	}
	ki := &KeywordInterface{caller: c}
	info := KeywordInfo{Info: p.Info, Conjunctive: true, MinInterval: c.interval, Env: append([]string(nil), c.env...)}
	_, info.Fetch = p.Func("fetch")
	for key, dst := range map[string]*int{"k": &info.K, "page_size": &info.PageSize} {
		if n, ok := p.Field(key).(lua.LNumber); ok { // type and range checked by Load
			*dst = int(n)
		}
	}
	for key, dst := range map[string]*bool{"conjunctive": &info.Conjunctive, "stopwords": &info.StopWords} {
		switch x := p.Field(key).(type) {
		case *lua.LNilType:
		case lua.LBool:
			*dst = bool(x)
		default:
			return nil, p.chunk.Errorf(key, "expected boolean, got %s", x.Type())
		}
	}
	if info.Vars, err = declaredVars(p); err != nil {
		return nil, err
	}
	for _, v := range info.Vars {
		if v.Env != "" && !contains(info.Env, v.Env) {
			info.Env = append(info.Env, v.Env)
		}
	}
	ki.info = info
	if ki.vars, err = resolveVars(p, info.Vars, opt.Vars); err != nil {
		return nil, &Error{Plugin: c.ref, Op: "open", Code: CodeConfig, Err: err}
	}
	return ki, nil
}

// declaredVars reads the plugin's vars table.
func declaredVars(p *Plugin) ([]KeywordVar, error) {
	c := p.chunk
	var out []KeywordVar
	switch x := p.Field("vars").(type) {
	case *lua.LNilType:
		return nil, nil
	case *lua.LTable:
		var err error
		x.ForEach(func(k, v lua.LValue) {
			if err != nil {
				return
			}
			name, ok := k.(lua.LString)
			if !ok || !varNameRe.MatchString(string(name)) {
				err = c.Errorf("vars", "variable names are lower-case identifiers, got %s", k.String())
				return
			}
			var kv KeywordVar
			kv, err = declaredVar(c, string(name), v)
			out = append(out, kv)
		})
		if err != nil {
			return nil, err
		}
	default:
		return nil, c.Errorf("vars", "expected a table of variables, got %s", x.Type())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// declaredVar reads one entry of vars: a help string, or {help=, env=,
// default=, required=}.
func declaredVar(c *script.Chunk, name string, v lua.LValue) (KeywordVar, error) {
	kv := KeywordVar{Name: name}
	key := "vars." + name
	switch x := v.(type) {
	case lua.LString:
		kv.Help = string(x)
		return kv, nil
	case *lua.LTable:
	default:
		return kv, c.Errorf(key, "expected a help string or {help=, env=, default=, required=}, got %s", v.Type())
	}
	err := eachKey(v.(*lua.LTable), key, "help, env, default, required", func(k string, v lua.LValue) (err error) {
		switch k {
		case "help":
			kv.Help, err = optString(k, v)
		case "env":
			kv.Env, err = optString(k, v)
		case "default":
			kv.Default, err = optString(k, v)
		case "required":
			kv.Required, err = optBool(k, v)
		default:
			err = fmt.Errorf("unknown key %q (want help, env, default, required)", k)
		}
		return err
	})
	if err != nil {
		return kv, c.Errorf(key, "%v", err)
	}
	return kv, nil
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
			return nil, p.chunk.Errorf("vars", "the plugin has no variable %q (it accepts: %s)", name, known)
		}
	}
	env := p.pool.Options().Env
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
			return nil, p.chunk.Errorf("vars."+v.Name, "%s", msg)
		}
		out[v.Name] = val
	}
	return out, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
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

// varsTable builds the vars argument (a fresh table per call: a plugin may
// change it). ki.mu must be held and the interface open.
func (ki *KeywordInterface) varsTable() lua.LValue {
	if ki.closed {
		return lua.LNil
	}
	tb := ki.p.L.CreateTable(0, len(ki.vars))
	for k, v := range ki.vars {
		tb.RawSetString(k, lua.LString(v))
	}
	return tb
}

// Check asks the plugin whether it is usable without sending a query (its
// check function); nil when it has none.
func (ki *KeywordInterface) Check(ctx context.Context) error {
	ki.mu.Lock()
	defer ki.mu.Unlock()
	return ki.check(ctx, ki.varsTable())
}

// Search sends query and returns its result page page (from 1).
func (ki *KeywordInterface) Search(ctx context.Context, query string, page int) (KeywordPage, error) {
	page = max(page, 1)
	ki.mu.Lock()
	defer ki.mu.Unlock()
	r := request{op: "search", key: "search", query: query, page: page}
	if !ki.closed {
		r.fn, _ = ki.p.Func("search")
		r.args = []lua.LValue{lua.LString(query), lua.LNumber(page), ki.varsTable()}
	}
	var kp KeywordPage
	err := ki.run(ctx, r, func(tb *lua.LTable) (int, error) {
		var lim limits
		var err error
		kp, lim, err = decodeKeywordPage(tb)
		if err == nil {
			ki.learn(lim)
		}
		return len(kp.Records), err
	})
	if err != nil {
		return KeywordPage{Total: -1}, err
	}
	return kp, nil
}

// learn records the limits a site reported.
func (ki *KeywordInterface) learn(lim limits) {
	ki.infoMu.Lock()
	defer ki.infoMu.Unlock()
	if lim.k > 0 {
		ki.info.K = lim.k
	}
	if lim.pageSize > 0 {
		ki.info.PageSize = lim.pageSize
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
		if r.fn, ok = ki.p.Func("fetch"); !ok {
			return rec, &Error{Plugin: ki.ref, Op: r.op, Query: subject, Code: CodeUnsupported, Err: ki.posError(nil, "fetch", "the plugin has no fetch function")}
		}
		r.args = []lua.LValue{recordTable(ki.p.L, rec), ki.varsTable()}
	}
	out := rec
	err := ki.run(ctx, r, func(tb *lua.LTable) (int, error) {
		got, err := decodeRecord("record", tb)
		if err != nil {
			return 0, err
		}
		out = mergeRecord(rec, got)
		return 1, nil
	})
	if err != nil {
		return rec, err
	}
	return out, nil
}

// recordTable is rec as the Lua table fetch receives.
func recordTable(L *lua.LState, rec KeywordRecord) *lua.LTable {
	tb := L.CreateTable(0, 4)
	tb.RawSetString("id", lua.LString(rec.ID))
	if rec.URL != "" {
		tb.RawSetString("url", lua.LString(rec.URL))
	}
	tb.RawSetString("text", lua.LString(rec.Text))
	f := L.CreateTable(0, len(rec.Fields))
	for k, v := range rec.Fields {
		f.RawSetString(k, lua.LString(v))
	}
	tb.RawSetString("fields", f)
	return tb
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

// limits are the k and page size a result page reported.
type limits struct{ k, pageSize int }

// decodeKeywordPage reads {records=, total=, next=, k=, page_size=}
// strictly.
func decodeKeywordPage(tb *lua.LTable) (KeywordPage, limits, error) {
	var kp KeywordPage
	var lim limits
	var err error
	kp.Next, kp.Total, err = decodePage(tb, "records", func(v lua.LValue) (err error) {
		kp.Records, err = decodeList("records", "{id=, url=, fields=, text=}", v, func(key string, tb *lua.LTable) (KeywordRecord, string, error) {
			r, err := decodeRecord(key, tb)
			if err == nil && r.ID == "" {
				err = fmt.Errorf("%s: needs an id or a url", key)
			}
			return r, r.ID, err
		})
		return err
	},
		pageKey{"k", func(v lua.LValue) (err error) { lim.k, err = positive("k", v); return err }},
		pageKey{"page_size", func(v lua.LValue) (err error) { lim.pageSize, err = positive("page_size", v); return err }})
	if err != nil {
		return KeywordPage{Total: -1}, limits{}, err
	}
	return kp, lim, nil
}

// positive reads a positive integer.
func positive(key string, v lua.LValue) (int, error) {
	n, ok := v.(lua.LNumber)
	if !ok || n < 1 || float64(n) != math.Trunc(float64(n)) || n > math.MaxInt32 {
		return 0, fmt.Errorf("%s: expected a positive integer, got %s", key, v.String())
	}
	return int(n), nil
}

// decodeRecord reads {id=, url=, fields=, text=}; the id defaults to the
// url and the text to the field values.
func decodeRecord(key string, tb *lua.LTable) (KeywordRecord, error) {
	var r KeywordRecord
	err := eachKey(tb, key, "id, url, fields, text", func(k string, v lua.LValue) (err error) {
		switch k {
		case "id":
			r.ID, err = scalar(key+".id", v)
		case "url":
			r.URL, err = optString(key+".url", v)
			if r.URL = strings.TrimSpace(r.URL); err == nil && r.URL != "" && !webURL(r.URL) {
				err = fmt.Errorf("%s.url: want an absolute http(s) URL, got %q", key, r.URL)
			}
		case "text":
			r.Text, err = optString(key+".text", v)
		case "fields":
			r.Fields, err = decodeFields(key+".fields", v)
		default:
			err = fmt.Errorf("%s: unknown key %s (want id, url, fields, text)", key, k)
		}
		return err
	})
	if err != nil {
		return r, err
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

func decodeFields(key string, v lua.LValue) (map[string]string, error) {
	switch v.(type) {
	case *lua.LNilType:
		return nil, nil
	case *lua.LTable:
	default:
		return nil, fmt.Errorf("%s: expected a table of name = value, got %s", key, v.Type())
	}
	out := map[string]string{}
	err := eachKey(v.(*lua.LTable), key, "field names", func(k string, v lua.LValue) (err error) {
		out[k], err = scalar(key+"."+k, v)
		return err
	})
	return out, err
}

// scalar reads a string, number or boolean as text; integers print without
// a decimal point.
func scalar(key string, v lua.LValue) (string, error) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), nil
	case lua.LNumber, lua.LBool:
		return x.String(), nil
	}
	return "", fmt.Errorf("%s: expected a string, number or boolean, got %s", key, v.Type())
}
