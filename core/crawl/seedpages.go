package crawl

import (
	"context"
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/frontier"
)

// deepSeedPages maps each seed site to its seeds below the homepage
// ("https://example.org/catalog/search"). The two-stage strategies enter a
// site by its homepage; a seed that names a deeper page is what its user
// wants crawled, so exploring the site fetches it too, linked from the
// homepage or not (gitweb, for one, marks its links nofollow).
func deepSeedPages(seeds []string) map[string][]string {
	m := map[string][]string{}
	seen := map[string]bool{}
	for _, raw := range seeds {
		u, err := canon.Canonical(raw)
		if err != nil || seen[u] {
			continue
		}
		seen[u] = true
		if site := canon.Site(u); u != site && u != site+"/" {
			m[site] = append(m[site], u)
		}
	}
	return m
}

// seedPageScore puts a site's deep seeds first among the pages one link
// below its homepage.
const seedPageScore = 1e6

// pushSeedPages queues the site's deep seeds and entry pages one link
// below its homepage.
func (x *siteExploration) pushSeedPages(lf *frontier.LinkFrontier) error {
	for _, pages := range [2][]string{x.t.e.deepSeeds[x.site], x.entries} {
		for _, u := range pages {
			if _, dup := x.queued[u]; dup {
				continue
			}
			x.queued[u] = struct{}{}
			it := frontier.Item{URL: u, Site: x.site, Depth: 1, Score: seedPageScore, Evidence: &frontier.Evidence{}}
			if _, err := lf.Push(it); err != nil {
				return fmt.Errorf("crawl: queueing %s: %w", u, err)
			}
		}
	}
	return nil
}

// leadsIn reports whether the page v (fetched) has a link to follow inside
// the site.
func (x *siteExploration) leadsIn(v *visited) bool {
	sites := v.linkSites()
	for i, l := range v.Page.Links {
		if !l.NoFollow && sites[i] == x.site {
			return true
		}
	}
	return false
}

// judgeEntry visits the site's entry pages in turn, for a homepage that
// leads nowhere, until one is relevant (by its text or a relevant form),
// and returns it; nil when none is.
func (x *siteExploration) judgeEntry(ctx context.Context) (*visited, error) {
	e := x.t.e
	for _, u := range x.entries {
		v, err := e.visit(ctx, u, "", 1, nil, x.stageExample(nil))
		if err != nil {
			return nil, err
		}
		if v.Dup {
			continue
		}
		x.add(v)
		if v.Page == nil {
			continue
		}
		x.collectOut(v)
		relevant, _ := e.deps.Pages.Relevant(v.Page.Title + " " + v.Page.Text)
		if relevant || v.relevant() > 0 {
			if err := x.learnForms(v, nil); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	return nil, nil
}
