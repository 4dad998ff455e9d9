package app

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/script"
	"github.com/dwcrawl/dwcrawl/plugins"
)

// testbedEngine is the search plugin of the simulated web.
const testbedEngine = "search/simweb"

// ReverseFactory builds the reverse searcher of a crawl over the crawl's
// fetcher.
type ReverseFactory = func(ctx context.Context, f *fetch.Fetcher) (crawl.ReverseSearcher, error)

// reverseSearcher is a search plugin run for reverse search, with the Lua
// state pool it owns.
type reverseSearcher struct {
	plugins.LinkLister
	pool *script.Pool
	ref  string
}

// Close releases the plugin and its states.
func (r *reverseSearcher) Close() {
	r.Engine.Close()
	r.pool.Close()
}

// ReverseOffError says why a crawl runs without reverse search; NewCrawl
// records it (Crawl.ReverseOff) instead of failing.
type ReverseOffError struct{ Why string }

func (e *ReverseOffError) Error() string { return "reverse search off: " + e.Why }

// Name is the plugin reverse search runs, for the start of a crawl.
func (r *reverseSearcher) Name() string { return r.ref }

// Reverse returns how to build the reverse searcher of a crawl: the first
// of the profile's engines (reverse.plugin, else reverse.plugins) whose
// configuration is in place (its check passes: API key or instance URL set
// in the environment), or the simulated engine in testbed mode, looked up
// in pluginDirs before the bundled plugins. The plugin's HTTP requests go
// through the crawl's fetcher (politeness, address policy, retries). When
// no engine can be used the factory returns a *ReverseOffError naming why.
func Reverse(p *profile.Profile, testbed bool, pluginDirs []string, log *slog.Logger) ReverseFactory {
	refs := p.Reverse.Engines()
	interval := time.Second
	if testbed {
		refs, interval = []string{testbedEngine}, 0
	}
	return func(ctx context.Context, f *fetch.Fetcher) (crawl.ReverseSearcher, error) {
		if len(refs) == 0 {
			return nil, &ReverseOffError{Why: "the profile names no search engine (set reverse.plugins)"}
		}
		var why []string
		for _, ref := range refs {
			if ref == testbedEngine && !testbed {
				why = append(why, ref+": the simulated web's engine exists only with --testbed")
				continue
			}
			rs, err := openReverse(ctx, f, ref, interval, pluginDirs, log)
			if err == nil {
				return rs, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			why = append(why, ref+": "+err.Error())
		}
		return nil, &ReverseOffError{Why: strings.Join(why, "; ")}
	}
}

// openReverse opens one search plugin for reverse search and checks that it
// is configured.
func openReverse(ctx context.Context, f *fetch.Fetcher, ref string, interval time.Duration, pluginDirs []string, log *slog.Logger) (*reverseSearcher, error) {
	pool := script.NewPool(plugins.PoolOptions(script.Options{HTTP: f, Logger: log}, pluginDirs...))
	eng, err := plugins.OpenSearchEngine(ctx, pool, ref, plugins.SearchOptions{Logger: log, MinInterval: interval, Backoff: 200 * time.Millisecond}, pluginDirs...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := eng.Check(ctx); err != nil {
		eng.Close()
		pool.Close()
		return nil, err
	}
	return &reverseSearcher{LinkLister: plugins.LinkLister{Engine: eng, Pages: 2}, pool: pool, ref: ref}, nil
}
