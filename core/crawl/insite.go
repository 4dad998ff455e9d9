package crawl

import (
	"context"
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// siteExploration is stage two for one site: what it visited and found.
type siteExploration struct {
	t    *twoStage
	site string
	// queued holds the in-site URLs already pushed, so that the navigation
	// links every page repeats are ranked once.
	queued map[string]struct{}
	// outs are the out-of-site links found, for stage one.
	outs []outLink
	// entries are the site's pages that other sites link to (knownSite).
	entries []string
	// pages visited (the homepage included, duplicates not), and the
	// searchable and relevant forms they held.
	pages, searchable, relevant int
	// example is the FSL example staged with the page being recorded.
	example *rank.Features
}

// add counts a visited page.
func (x *siteExploration) add(v *visited) {
	x.pages++
	x.searchable += v.searchable()
	x.relevant += v.relevant()
}

// collectOut keeps the out-of-site links of v.
func (x *siteExploration) collectOut(v *visited) {
	x.outs = appendOutLinks(x.outs, v, x.site)
}

// appendOutLinks appends the links of v that leave site.
func appendOutLinks(outs []outLink, v *visited, site string) []outLink {
	sites := v.linkSites()
	for i, l := range v.Page.Links {
		if l.NoFollow {
			continue
		}
		s := sites[i]
		if s == "" || s == site {
			continue
		}
		outs = append(outs, outLink{site: s, anchor: l.Anchor, around: l.Before + " " + l.After, from: v.URL, to: l.URL})
	}
	return outs
}

// stopAction is what the stop-early criteria decide after a page.
type stopAction int

const (
	keepExploring stopAction = iota
	skipDepth                // SC3 or SC4: the rest of this depth is not needed
	leaveSite                // SC5: the site is not worth more pages
)

// siteStop applies the stop-early criteria of in-site exploring that depend
// on what the pages held (Zhao et al. §3.3): SC3, enough searchable forms at
// a depth; SC4, too many pages without one at a depth; SC5, too many pages
// of the site without one. The link frontier applies the others (SC1 the
// depth, SC2 the pages per depth, and the pages per site). The homepage is
// not fed to it: the counts start with the first in-site link.
type siteStop struct {
	rules profile.Stop
	depth int // of the last page; -1 before any
	// over the site
	forms, noForm int
	// at the current depth
	depthForms, depthNoForm int
}

func newSiteStop(rules profile.Stop) siteStop { return siteStop{rules: rules, depth: -1} }

// page records a visited page of the given depth holding n searchable forms
// and says whether exploring goes on, skips the rest of the depth, or
// leaves the site.
func (s *siteStop) page(depth, n int) stopAction {
	if depth != s.depth {
		s.depth, s.depthForms, s.depthNoForm = depth, 0, 0
	}
	if n == 0 {
		s.noForm++
		s.depthNoForm++
	} else {
		s.forms += n
		s.depthForms += n
	}
	r := s.rules
	switch {
	case r.MaxPagesNoForm > 0 && s.forms == 0 && s.noForm >= r.MaxPagesNoForm:
		return leaveSite
	case r.MaxFormsPerDepth > 0 && s.depthForms >= r.MaxFormsPerDepth,
		r.MaxPagesNoFormPerDepth > 0 && s.depthNoForm >= r.MaxPagesNoFormPerDepth:
		return skipDepth
	}
	return keepExploring
}

// inSite explores a relevant site breadth-first by depth through its link
// frontier (link tree with balanced merge, link ranker), under SC1–SC5,
// starting from the links of the pages visited already (the homepage, and
// the entry page that judged the site when the homepage could not), then
// its deep seeds and entry pages.
func (x *siteExploration) inSite(ctx context.Context, starts ...*visited) (err error) {
	e := x.t.e
	st := e.prof.Stop
	// the frontier's writes go with the records of the pages, at no
	// commit of their own: a page's links with it, the pops and skips with
	// the next page's
	lf := frontier.NewLinkFrontier(x.site, e.db, frontier.LinkOptions{MaxPages: st.MaxPagesPerSite, MaxPerDepth: st.MaxPagesPerDepth, MaxDepth: st.MaxDepth, Deferred: true})
	if _, err := lf.Load(); err != nil {
		return err
	}
	defer func() {
		// leftovers leave the store with the site: a resumed crawl explores
		// an unfinished site again from its homepage
		_, derr := lf.Drain()
		if derr == nil {
			derr = lf.Flush()
		}
		if err == nil {
			err = derr
		}
	}()
	pending := func(b *store.Batch) error { return lf.Stage(b) }
	// the homepage was recorded before the site was found relevant: its
	// links (and the deep seeds) are written now, as are the sitemaps'
	// URLs once fetched
	if x.queued == nil {
		x.queued = make(map[string]struct{}, len(starts))
	}
	for _, v := range starts {
		x.queued[v.URL] = struct{}{}
	}
	for _, v := range starts {
		if err := x.push(lf, v); err != nil {
			return err
		}
	}
	if err := x.pushSeedPages(lf); err != nil {
		return err
	}
	if err := lf.Flush(); err != nil {
		return err
	}
	if err := x.pushSitemaps(ctx, lf); err != nil {
		return err
	}
	if err := lf.Flush(); err != nil {
		return err
	}
	stop := newSiteStop(st)
	for {
		it, ok, err := lf.Next()
		if err != nil || !ok {
			return err
		}
		v, err := e.visit(ctx, it.URL, from(it.Evidence), it.Depth, pending, x.stagePage(lf, it.Evidence))
		if err != nil {
			return err
		}
		if v.Dup {
			continue
		}
		x.add(v)
		if v.Page != nil {
			x.collectOut(v)
			if v.Replayed {
				// recorded before: learnt from and pushed as stagePage
				// does, in writes of their own
				if err := x.learnForms(v, it.Evidence); err != nil {
					return err
				}
				if err := x.push(lf, v); err != nil {
					return err
				}
				if err := lf.Flush(); err != nil {
					return err
				}
			}
		}
		switch stop.page(it.Depth, v.searchable()) {
		case leaveSite:
			return nil
		case skipDepth:
			if _, err := lf.SkipDepth(); err != nil {
				return err
			}
		}
	}
}

// from is the page a frontier item was found on ("" if unknown).
func from(ev *frontier.Evidence) string {
	if ev == nil {
		return ""
	}
	return ev.From
}

// push queues the in-site links of v, ranked by the link ranker.
func (x *siteExploration) push(lf *frontier.LinkFrontier, v *visited) error {
	rk := x.t.rk
	if x.queued == nil {
		x.queued = map[string]struct{}{v.URL: {}}
	}
	var items []frontier.Item
	sites := v.linkSites()
	for i, l := range v.Page.Links {
		if l.NoFollow || sites[i] != x.site {
			continue
		}
		if _, dup := x.queued[l.URL]; dup {
			continue
		}
		x.queued[l.URL] = struct{}{}
		ev := &frontier.Evidence{From: v.URL, Anchor: l.Anchor, Around: l.Before + " " + l.After}
		items = append(items, frontier.Item{URL: l.URL, Site: x.site, Depth: v.Depth + 1, Score: rk.link(l.URL, ev.Anchor, ev.Around), Evidence: ev})
	}
	// one write for the page's links
	_, err := lf.PushAll(items)
	return err
}

// stagePage returns the stager of an in-site page reached by the link
// whose evidence is ev: with the page, its learning example (stageExample)
// and the round it completes, and its links, pushed into lf; so a page
// and what it adds to the crawl are stored together, in one commit.
func (x *siteExploration) stagePage(lf *frontier.LinkFrontier, ev *frontier.Evidence) stager {
	example := x.stageExample(ev)
	return func(b *store.Batch, v *visited, t *tally) error {
		if example != nil {
			if err := example(b, v, t); err != nil {
				return err
			}
		}
		if v.Page == nil {
			return nil
		}
		if err := x.learnStaged(b, v, t); err != nil {
			return err
		}
		if err := x.push(lf, v); err != nil {
			return err
		}
		return lf.Stage(b)
	}
}

// learnStaged feeds the example staged with a fetched page (stageExample)
// to the adaptive link learner (FSL), and stages the round it completes in
// b, counted in t.
func (x *siteExploration) learnStaged(b *store.Batch, v *visited, t *tally) error {
	l := x.t.rk.learn
	f := x.example
	x.example = nil
	if l == nil || f == nil || v.relevant() == 0 || x.t.delegated {
		// an explorer's examples go to its coordinator with its pages
		return nil
	}
	if it := l.add(rank.SpaceFSL, *f); it != nil {
		return stageRound(b, *it, t, cFSL)
	}
	return nil
}

// stageExample returns the stager that records a fetched page with
// relevant forms, reached by the link whose evidence is ev (nil for the
// homepage), as an FSL example of the adaptive learner (smartcrawler), in
// the page's batch.
func (x *siteExploration) stageExample(ev *frontier.Evidence) stager {
	l := x.t.rk.learn
	if l == nil {
		return nil
	}
	return func(b *store.Batch, v *visited, _ *tally) error {
		if v.relevant() == 0 {
			return nil
		}
		f := formExample(v.URL, ev)
		if err := l.stage(b, rank.SpaceFSL, v.URL, f); err != nil {
			return err
		}
		x.example, v.example = &f, &f
		return nil
	}
}

func formExample(u string, ev *frontier.Evidence) rank.Features {
	var anchor, around string
	if ev != nil {
		anchor, around = ev.Anchor, ev.Around
	}
	return rank.LinkFeatures(u, anchor, around)
}

// learnForms feeds a page with relevant forms to the adaptive link learner
// (FSL) and records the round it completes. A fetched page's example was
// staged with it; a replayed page was learnt from before, unless it was
// recorded by reverse search (a centre page that is this site's homepage).
func (x *siteExploration) learnForms(v *visited, ev *frontier.Evidence) error {
	l := x.t.rk.learn
	f := x.example
	x.example = nil
	if l == nil || v.relevant() == 0 || x.t.delegated {
		// an explorer's examples go to its coordinator with its pages
		return nil
	}
	if f == nil {
		known, err := l.known(rank.SpaceFSL, v.URL)
		if err != nil || known {
			return err
		}
		ex := formExample(v.URL, ev)
		b := x.t.e.db.NewBatch()
		defer b.Close()
		if err := l.stage(b, rank.SpaceFSL, v.URL, ex); err != nil {
			return err
		}
		if err := b.Commit(x.t.e.db.SyncDue()); err != nil {
			return fmt.Errorf("crawl: recording the learning example %s: %w", v.URL, err)
		}
		f = &ex
	}
	if it := l.add(rank.SpaceFSL, *f); it != nil {
		return x.t.e.saveRound(*it, cFSL)
	}
	return nil
}
