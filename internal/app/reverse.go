package app

import (
	"context"
	"log/slog"
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
}

// Close releases the plugin and its states.
func (r *reverseSearcher) Close() {
	r.Engine.Close()
	r.pool.Close()
}

// Reverse returns how to build the reverse searcher of a crawl: the
// profile's search plugin, or the simulated engine's in testbed mode,
// looked up in pluginDirs before the bundled plugins. The plugin's HTTP
// requests go through the crawl's fetcher (politeness, address policy,
// retries). nil when the profile names no plugin.
func Reverse(p *profile.Profile, testbed bool, pluginDirs []string, log *slog.Logger) ReverseFactory {
	ref := p.Reverse.Plugin
	interval := time.Second
	if testbed {
		ref, interval = testbedEngine, 0
	}
	if ref == "" {
		return nil
	}
	if !testbed && (ref == testbedEngine || ref == "simweb") {
		log.Warn("reverse search disabled: the profile's search plugin is the simulated web's engine, which only exists with --testbed; set reverse.plugin to a real engine (search/searxng, search/brave, search/google)", "profile", p.Path)
		return nil
	}
	return func(ctx context.Context, f *fetch.Fetcher) (crawl.ReverseSearcher, error) {
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
		return &reverseSearcher{LinkLister: plugins.LinkLister{Engine: eng, Pages: 2}, pool: pool}, nil
	}
}
