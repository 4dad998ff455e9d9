package crawl

import (
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

// pushSeedPages queues the site's deep seeds one link below its homepage.
func (x *siteExploration) pushSeedPages(lf *frontier.LinkFrontier) error {
	for _, u := range x.t.e.deepSeeds[x.site] {
		if _, dup := x.queued[u]; dup {
			continue
		}
		x.queued[u] = struct{}{}
		it := frontier.Item{URL: u, Site: x.site, Depth: 1, Score: seedPageScore, Evidence: &frontier.Evidence{}}
		if _, err := lf.Push(it); err != nil {
			return fmt.Errorf("crawl: queueing seed %s: %w", u, err)
		}
	}
	return nil
}
