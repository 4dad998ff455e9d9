package main

import (
	"context"
	"log/slog"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/urfave/cli/v2"
)

// reverseFactory returns how to build the reverse searcher of a crawl: the
// profile's search plugin (in testbed mode the simulated engine's plugin).
func reverseFactory(c *cli.Context, p *profile.Profile, testbed bool, log *slog.Logger) func(context.Context, *fetch.Fetcher) (crawl.ReverseSearcher, error) {
	return nil // wired to plugins.SearchEngine below once the search plugins land
}
