package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/script"
	"github.com/dwcrawl/dwcrawl/plugins"
)

// OpenInterface opens a keyword interface of a hidden database: the http(s)
// URL of its JSON search API (hiddendb's /api/search; the client retries
// transport errors, 429 and 5xx twice), or a Lua keyword plugin spec (see
// parseKeywordSpec): "keyword/simweb?url=http://127.0.0.1:8080/db",
// "dblp", "./mine.lua?token_var=X". A plugin's searcher is an io.Closer.
//
// Requests go through a fetch.Fetcher with net's settings (address policy,
// --resolve, proxy); an interface whose URLs are all on loopback (a local
// test server, `dwcrawl testbed`) may reach loopback hosts, and only them,
// without AllowPrivate. The searcher is an io.Closer.
func OpenInterface(ctx context.Context, spec string, net NetOptions) (keyword.Searcher, error) {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		f, err := interfaceFetcher(map[string]string{"url": spec}, net, nil)
		if err != nil {
			return nil, err
		}
		s, err := keyword.NewAPISearcher(spec)
		if err != nil {
			f.Close()
			return nil, err
		}
		s.Client = fetcherDoer{f}
		return apiSearcher{keyword.Retrying(s, keyword.RetryOptions{Attempts: 3, Backoff: 200 * time.Millisecond}), f}, nil
	}
	ki, err := openKeywordPluginFetch(ctx, spec, plugins.KeywordOptions{}, nil, net, nil)
	if err != nil {
		return nil, err
	}
	return pluginSearcher{ki}, nil
}

// apiSearcher is a JSON search API client with the fetcher it owns.
type apiSearcher struct {
	keyword.Searcher
	f *fetch.Fetcher
}

// Close releases the fetcher.
func (a apiSearcher) Close() error {
	a.f.Close()
	return nil
}

// TopK implements keyword.TopKer when the client does.
func (a apiSearcher) TopK(ctx context.Context) (int, error) {
	if tk, ok := a.Searcher.(keyword.TopKer); ok {
		return tk.TopK(ctx)
	}
	return 0, ErrNoK
}

// interfaceFetcher is the fetcher of a keyword interface whose variables
// are vars: the adapter retries, so the fetcher does not; an interface on
// loopback only may reach loopback hosts without AllowPrivate, with no
// delay; otherwise the real web's policy and politeness with net applied.
func interfaceFetcher(vars map[string]string, net NetOptions, arch fetch.Archiver) (*fetch.Fetcher, error) {
	fo := fetch.DefaultOptions()
	fo.Retries = 0
	if loopbackOnly(vars) {
		fo = fetch.Options{AllowPrivate: true, AllowHost: isLoopbackHost}
	}
	if err := net.apply(&fo); err != nil {
		return nil, err
	}
	fo.Archiver = arch
	return fetch.New(fo)
}

// keywordPlugin is an opened keyword plugin with the Lua states and the
// fetcher it owns.
type keywordPlugin struct {
	*plugins.KeywordInterface
	pool    *script.Pool
	fetcher *fetch.Fetcher
}

// Close releases the plugin, its states and its fetcher.
func (k *keywordPlugin) Close() error {
	k.KeywordInterface.Close()
	k.pool.Close()
	if k.fetcher != nil {
		k.fetcher.Close()
	}
	return nil
}

// parseKeywordSpec splits a keyword-interface spec, a plugin reference
// ("keyword/dblp", "dblp") or a .lua path optionally followed by
// "?var=value&..." (URL query syntax: escape '&', '+', '%' and ';' in
// values), into the reference and the plugin's variables.
func parseKeywordSpec(spec string) (ref string, vars map[string]string, err error) {
	ref, query, _ := strings.Cut(strings.TrimSpace(spec), "?")
	if ref == "" || strings.Contains(ref, "://") {
		return "", nil, fmt.Errorf("keyword interface %q: want an http(s) URL of a JSON search API, a plugin name (keyword/NAME) or a .lua file, optionally ?var=value&...", spec)
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return "", nil, fmt.Errorf("keyword interface %q: variables: %w", spec, err)
	}
	vars = map[string]string{}
	for k, vs := range vals {
		if len(vs) > 1 {
			return "", nil, fmt.Errorf("keyword interface %q: variable %s given %d times", spec, k, len(vs))
		}
		vars[k] = vs[0]
	}
	return ref, vars, nil
}

// lateDoer sends dw.http requests through a fetcher chosen once the
// plugin's variables are known.
type lateDoer struct{ f *fetch.Fetcher }

func (d *lateDoer) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	if d.f == nil {
		return nil, errors.New("keyword plugin: HTTP is not available while the plugin loads")
	}
	return d.f.Do(ctx, req)
}

// openKeywordPlugin opens the keyword plugin of spec (see parseKeywordSpec).
// Its HTTP requests go through a fetch.Fetcher with the real web's address
// policy, except when every URL among its variables is on loopback (a local
// test server, `dwcrawl testbed`): then only loopback hosts may be reached.
// The adapter, not the fetcher, retries (rate limits, budget), as opt says;
// opt.Vars is replaced by the spec's variables.
func openKeywordPlugin(ctx context.Context, spec string, opt plugins.KeywordOptions, userDirs ...string) (*keywordPlugin, error) {
	return openKeywordPluginFetch(ctx, spec, opt, nil, NetOptions{}, nil, userDirs...)
}

// openKeywordPluginFetch is openKeywordPlugin with the fetcher options of the
// plugin's dw.http given (nil: derived from the plugin's variables and net,
// see interfaceFetcher) and every exchange given to arch (nil: none).
func openKeywordPluginFetch(ctx context.Context, spec string, opt plugins.KeywordOptions, fetchOpt *fetch.Options, net NetOptions, arch fetch.Archiver, userDirs ...string) (*keywordPlugin, error) {
	ref, vars, err := parseKeywordSpec(spec)
	if err != nil {
		return nil, err
	}
	doer := &lateDoer{}
	pool := script.NewPool(plugins.PoolOptions(script.Options{HTTP: doer}, userDirs...))
	opt.Vars = vars
	ki, err := plugins.OpenKeywordInterface(ctx, pool, ref, opt, userDirs...)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("keyword interface %q: %w", spec, err)
	}
	var f *fetch.Fetcher
	if fetchOpt != nil {
		fo := *fetchOpt
		fo.Archiver = arch
		f, err = fetch.New(fo)
	} else {
		f, err = interfaceFetcher(ki.Vars(), net, arch)
	}
	if err != nil {
		ki.Close()
		pool.Close()
		return nil, err
	}
	doer.f = f
	return &keywordPlugin{KeywordInterface: ki, pool: pool, fetcher: f}, nil
}

// loopbackOnly reports whether vars hold at least one http(s) URL and every
// such URL names a loopback host.
func loopbackOnly(vars map[string]string) bool {
	n := 0
	for _, v := range vars {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		if !isLoopbackHost(u.Hostname()) {
			return false
		}
		n++
	}
	return n > 0
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pluginSearcher is a keyword plugin as a keyword.Searcher (and TopKer,
// and io.Closer) for enrich and surface; the plugin adapter already
// retries, paces and counts the budget.
type pluginSearcher struct{ *keywordPlugin }

// Search implements keyword.Searcher.
func (s pluginSearcher) Search(ctx context.Context, query string, page int) (keyword.Page, error) {
	kp, err := s.KeywordInterface.Search(ctx, query, page)
	if err != nil {
		if errors.Is(err, plugins.ErrBudgetExhausted) {
			// a spent budget ends a harvest normally
			return keyword.Page{Total: -1}, keyword.Permanent{Err: keyword.ErrBudget}
		}
		return keyword.Page{Total: -1}, err
	}
	p := keyword.Page{Total: kp.Total, Next: kp.Next, Docs: make([]keyword.Doc, len(kp.Records))}
	for i, r := range kp.Records {
		p.Docs[i] = keyword.Doc{ID: r.ID, URL: r.URL, Text: r.Text, Fields: r.Fields}
	}
	return p, nil
}

// TopK implements keyword.TopKer: the k the plugin declares, else the one
// the site reports in answer to a probe (an empty query).
func (s pluginSearcher) TopK(ctx context.Context) (int, error) {
	if k := s.Info().K; k > 0 {
		return k, nil
	}
	if _, err := s.KeywordInterface.Search(ctx, "", 1); err != nil {
		return 0, err
	}
	if k := s.Info().K; k > 0 {
		return k, nil
	}
	return 0, fmt.Errorf("keyword plugin %s declares no result limit k", s.Info().Ref())
}

// ResultLimit implements surface.ResultLimiter: the k the plugin declares
// or learned from the site's answers.
func (s pluginSearcher) ResultLimit() int { return s.Info().K }
