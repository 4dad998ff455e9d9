package app

import (
	"fmt"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/store"
)

// AddSeeds queues more seeds in the store of a crawl that is not running,
// where the strategy's next run takes them: the site frontier's high queue
// for the two-stage strategies (a site record marked as a seed, like the
// seeds of a fresh crawl), the first level of the link frontier for ACHE and
// best-first. Seeds the crawl already knows are skipped; added counts the
// others. domain is the profile's domain, recorded on the new sites.
//
// The engine reads its frontiers only when a run starts, so a running crawl
// is stopped first and resumed after (the server does this).
func AddSeeds(db *store.DB, strategy, domain string, seeds []string) (added int, err error) {
	var urls []string
	for _, raw := range seeds {
		u, err := canon.Canonical(raw)
		if err != nil {
			return 0, fmt.Errorf("seed %q: %w", raw, err)
		}
		urls = append(urls, u)
	}
	switch strategy {
	case crawl.SmartCrawler, crawl.SCDI:
		sf := frontier.NewSiteFrontier(db)
		if _, err := sf.Load(); err != nil {
			return 0, fmt.Errorf("add seeds: loading the site frontier: %w", err)
		}
		for _, u := range urls {
			site := canon.Site(u)
			if _, known, err := db.GetSite(site); err != nil {
				return added, err
			} else if known || sf.Contains(site) {
				continue
			}
			if err := db.PutSite(store.Site{URL: site, Host: canon.Host(site), Domain: domain, Status: store.SiteQueued,
				Queue: store.QueueHigh, FirstSeen: time.Now(), From: "seed"}); err != nil {
				return added, err
			}
			if err := sf.Push(frontier.Item{URL: site, Site: site, Score: 1000}, true); err != nil {
				return added, fmt.Errorf("add seeds: %w", err)
			}
			added++
		}
	case crawl.ACHE, crawl.BestFirst:
		// the link runner's frontier queues are named after the strategy
		// (Prefix+":"+level); level 1 is taken first
		lf := frontier.NewLevelFrontier(db, frontier.LevelOptions{Levels: 1, Prefix: strategy})
		for _, u := range urls {
			if _, known, err := db.GetURL(u); err != nil {
				return added, err
			} else if known {
				continue
			}
			if err := lf.Push(frontier.Item{URL: u, Site: canon.Site(u), Score: 1}, 1); err != nil {
				return added, fmt.Errorf("add seeds: %w", err)
			}
			added++
		}
	default:
		return 0, fmt.Errorf("add seeds: unknown strategy %q", strategy)
	}
	return added, db.Sync()
}
