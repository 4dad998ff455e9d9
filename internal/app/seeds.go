package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// SeedsOptions configure the seed finder.
type SeedsOptions struct {
	Profile *profile.Profile
	// Web, when set, is the simulated web whose search engine is asked
	// (testbed mode); otherwise the profile's engines on the real web.
	Web *simweb.Web
	// Net are the real web's network settings.
	Net        NetOptions
	PluginDirs []string
	// Queries are what the engine is asked (default: the profile's
	// keywords).
	Queries []string
	// Pages is the result pages read per query (default 1).
	Pages int
	// Max bounds the candidates returned (default 50; 0 keeps the default).
	Max    int
	Logger *slog.Logger
}

// SeedCandidate is a site the engine returned for the profile's keywords.
type SeedCandidate struct {
	// URL is the site's homepage, ready for a profile's seeds.
	URL string `json:"url"`
	// Hits counts the results on the site; Queries the queries that found it.
	Hits    int      `json:"hits"`
	Queries []string `json:"queries"`
	// Title and Example are the first result on the site.
	Title   string `json:"title,omitempty"`
	Example string `json:"example"`
	// InProfile is set for a site among the profile's seeds already.
	InProfile bool `json:"in_profile,omitempty"`
}

// SeedsResult is what the seed finder found.
type SeedsResult struct {
	Profile string          `json:"profile"`
	Engine  string          `json:"engine"`
	Queries int             `json:"queries"`
	Results int             `json:"results"`
	Failed  int             `json:"failed_queries"`
	Seeds   []SeedCandidate `json:"seeds"`
}

// FindSeeds asks the profile's search engine (the first configured one, as
// reverse search picks it; the simulated engine with Web) for the profile's
// keywords and returns the sites of the results, the most often found
// first (ACHE's SeedFinder idea: a focused crawl starts from what a search
// engine knows about the topic).
func FindSeeds(ctx context.Context, opt SeedsOptions) (*SeedsResult, error) {
	p := opt.Profile
	if p == nil {
		return nil, errors.New("seeds: no profile")
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	queries := opt.Queries
	if len(queries) == 0 {
		queries = p.Keywords
	}
	pages := max(opt.Pages, 1)
	limit := opt.Max
	if limit <= 0 {
		limit = 50
	}
	fo := crawl.FetchOptions(p)
	fo.Logger = opt.Logger
	if opt.Web != nil {
		srv, err := opt.Web.Listen("127.0.0.1:0", simweb.ServeOptions{})
		if err != nil {
			return nil, fmt.Errorf("seeds: serving the simulated web: %w", err)
		}
		defer srv.Close()
		fo = simweb.FetchOptions(fo, opt.Web, srv.Addr)
	} else if err := opt.Net.apply(&fo); err != nil {
		return nil, err
	}
	f, err := fetch.New(fo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rs, err := Reverse(p, opt.Web != nil, opt.PluginDirs, opt.Logger)(ctx, f)
	var off *ReverseOffError
	if errors.As(err, &off) {
		return nil, fmt.Errorf("seeds: no search engine to ask: %s", off.Why)
	}
	if err != nil {
		return nil, fmt.Errorf("seeds: %w", err)
	}
	eng := rs.(*reverseSearcher)
	defer eng.Close()

	inProfile := map[string]bool{}
	for _, s := range p.Seeds {
		inProfile[canon.Site(s)] = true
	}
	res := &SeedsResult{Profile: p.Path, Engine: eng.ref}
	bySite := map[string]*SeedCandidate{}
	var order []string
	for _, q := range queries {
		res.Queries++
		for page := 1; page <= pages; page++ {
			sp, err := eng.Engine.Search(ctx, q, page)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				res.Failed++
				opt.Logger.Warn("seeds: query failed", "engine", eng.ref, "query", q, "err", err)
				break
			}
			for _, r := range sp.Results {
				u, err := canon.Canonical(r.URL)
				if err != nil {
					continue
				}
				res.Results++
				site := canon.Site(u)
				c := bySite[site]
				if c == nil {
					c = &SeedCandidate{URL: site + "/", Title: strings.TrimSpace(r.Title), Example: u, InProfile: inProfile[site]}
					bySite[site] = c
					order = append(order, site)
				}
				c.Hits++
				if len(c.Queries) == 0 || c.Queries[len(c.Queries)-1] != q {
					c.Queries = append(c.Queries, q)
				}
			}
			if !sp.Next {
				break
			}
		}
	}
	if res.Failed == res.Queries && res.Queries > 0 {
		return res, fmt.Errorf("seeds: every query to %s failed (see the warnings)", eng.ref)
	}
	for _, s := range order {
		res.Seeds = append(res.Seeds, *bySite[s])
	}
	sort.SliceStable(res.Seeds, func(i, j int) bool {
		a, b := res.Seeds[i], res.Seeds[j]
		if len(a.Queries) != len(b.Queries) {
			return len(a.Queries) > len(b.Queries)
		}
		return a.Hits > b.Hits
	})
	if len(res.Seeds) > limit {
		res.Seeds = res.Seeds[:limit]
	}
	return res, nil
}
