package crawl

import (
	"context"
	"sort"

	"github.com/dwcrawl/dwcrawl/core/canon"
)

// reverseWorthwhile reports whether reverse search has something new to
// search for: a deep (or seed) site not yet reverse-searched, and progress
// since the last round that found nothing. Called with t.mu held.
func (t *twoStage) reverseWorthwhile() bool {
	if t.lastRev >= 0 && t.e.stats.deep.Load() <= t.lastRev {
		return false
	}
	for s, k := range t.known {
		if (k.deep || k.seed) && !t.reversed[s] {
			return true
		}
	}
	return false
}

// reverseSearch is SmartCrawler's Algorithm 1: ask the search engine for
// pages linking to known deep sites (seeds first at bootstrap), fetch them,
// and keep the centre pages — those with a searchable form or linking to at
// least MinLinks known deep or seed sites — whose out-of-site links go to
// the high-priority site queue. It returns the number of sites queued.
func (t *twoStage) reverseSearch(ctx context.Context) (int, error) {
	e := t.e
	rv := e.prof.Reverse
	e.stats.reverseTriggers.Add(1)
	e.db.AddCounter(ctrReverse, 1)
	t.mu.Lock()
	var deep, seeds []string
	for s, k := range t.known {
		switch {
		case t.reversed[s]:
		case k.deep:
			deep = append(deep, s)
		case k.seed:
			seeds = append(seeds, s)
		}
	}
	// map order is random: sort each group so rounds are reproducible
	sort.Strings(deep)
	sort.Strings(seeds)
	targets := append(deep, seeds...)
	if max := rv.MaxQueries; max > 0 && len(targets) > max {
		targets = targets[:max]
	}
	for _, s := range targets {
		t.reversed[s] = true
	}
	t.mu.Unlock()
	e.log.Info("reverse search", "targets", len(targets))

	queued := 0
	seenResult := map[string]bool{}
	for _, target := range targets {
		if ctx.Err() != nil {
			return queued, ctx.Err()
		}
		e.stats.reverseQueries.Add(1)
		e.db.AddCounter(ctrRevQueries, 1)
		results, err := e.deps.Reverse.Links(ctx, target+"/")
		if err != nil {
			e.log.Warn("reverse search query failed", "site", target, "err", err)
			continue
		}
		for _, r := range results {
			u, err := canon.Canonical(r)
			if err != nil || seenResult[u] {
				continue
			}
			seenResult[u] = true
			if st, ok, _ := e.db.GetURL(u); ok && st.State != 0 {
				continue // fetched already (as a page of a site, or an earlier centre page)
			}
			v, err := e.visit(ctx, u, "reverse:"+target, 0, nil)
			if err != nil {
				return queued, err
			}
			if v.Page == nil {
				continue
			}
			known := 0
			ex := &siteExploration{t: t, site: v.Site}
			outs := ex.collectOut(v, nil)
			t.mu.Lock()
			counted := map[string]bool{}
			for _, o := range outs {
				if k := t.known[o.site]; k != nil && (k.deep || k.seed) && !counted[o.site] {
					counted[o.site] = true
					known++
				}
			}
			t.mu.Unlock()
			if v.searchable() == 0 && known < rv.MinLinks {
				continue
			}
			e.stats.centrePages.Add(1)
			e.db.AddCounter(ctrCentre, 1)
			before := e.stats.frontierSites.Load()
			if err := t.queueSites(outs, true); err != nil {
				return queued, err
			}
			queued += int(e.stats.frontierSites.Load() - before)
		}
	}
	return queued, nil
}
