package crawl

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// maxEvidence bounds the anchor and text evidence kept per site.
const maxEvidence = 600

// addLink adds a link to a site's evidence: the anchors and text around the
// links to the site (which the site ranker scores) and its site frequency.
func addLink(ev *frontier.Evidence, anchor, around string) {
	if len(ev.Anchor) < maxEvidence {
		ev.Anchor = strings.TrimSpace(ev.Anchor + " " + anchor)
	}
	if len(ev.Around) < maxEvidence {
		ev.Around = strings.TrimSpace(ev.Around + " " + around)
	}
	ev.SF++
}

// twoStage runs smartcrawler and scdi: workers take sites from the site
// frontier and explore one site each.
type twoStage struct {
	scheduler
	e     *Engine
	smart bool // smartcrawler (reverse search, adaptive learning) vs scdi
	sf    *frontier.SiteFrontier
	rk    *rankers
	// known holds every site seen: queued ones with their evidence, explored
	// ones with deep set when they hold a relevant form.
	known    map[string]*knownSite
	reversed map[string]bool // sites already reverse-searched
	reverse  bool            // a reverse search is running
	lastRev  int64           // deep sites when reverse search last found nothing
	// delegated: the engine explores sites for a coordinator (SiteExplorer);
	// outcomes holds what each exploration found until Explore returns it.
	delegated bool
	outcomes  map[string]SiteOutcome
}

type knownSite struct {
	data     frontier.Evidence // of the links to it seen so far
	explored bool
	started  bool // an exploration of this run has begun
	counted  bool // in the sites counter: its exploration began (maybe in an earlier run)
	deep     bool
	seed     bool
	sim      *simMemo         // of data, while queued (nil before a link to it)
	status   store.SiteStatus // as the store had it when this run began
	// entries are pages below the site's root that other sites link to,
	// up to maxEntries, kept until its exploration begins.
	entries []string
	// redo is set for a site an earlier run explored and this run explores
	// again to retry its failed pages: what it already counted is not
	// counted twice.
	redo bool
}

func (e *Engine) runTwoStage(ctx context.Context) error {
	t := &twoStage{e: e, smart: e.opt.Strategy == SmartCrawler, known: map[string]*knownSite{}, reversed: map[string]bool{}, lastRev: -1}
	t.init()
	t.sf = frontier.NewSiteFrontier(e.db)
	var err error
	if t.rk, err = newRankers(e, t.smart); err != nil {
		return err
	}
	if err := t.restore(ctx); err != nil {
		return err
	}
	// a site leaves the stored frontier with the batch that begins its
	// exploring (begin), not in a commit of its own
	pop := func() (frontier.Item, bool, error) {
		it, ok, err := t.sf.PopKeep()
		if ok {
			t.updateFrontierStats()
		}
		return it, ok, err
	}
	process, busy := t.explore, func() bool { return t.reverse }
	if e.coord != nil {
		process, busy = t.exploreRemote, t.remoteBusy
		e.coord.start(t)
	}
	return t.run(ctx, e, e.opt.Workers, queue{pop: pop, refill: t.refill, busy: busy}, process)
}

// restore loads the site frontier and the known sites of an earlier run, and
// queues the seeds of a fresh crawl.
func (t *twoStage) restore(ctx context.Context) error {
	e := t.e
	if _, err := t.sf.Load(); err != nil {
		return fmt.Errorf("crawl: loading site frontier: %w", err)
	}
	var unfinished []store.Site
	err := e.db.ScanSites(func(s store.Site) error {
		k := &knownSite{deep: s.Deep, seed: s.From == "seed", status: s.Status, entries: s.Entries}
		switch s.Status {
		case store.SiteRelevant, store.SiteIrrelevant, store.SiteFailed:
			k.explored, k.counted = true, true
		case store.SiteCut:
			// counted as relevant by the run the budget stopped: explored
			// again, its recorded pages replayed, the rest fetched
			k.counted, k.redo, k.status = true, true, store.SiteRelevant
			unfinished = append(unfinished, s)
		case store.SiteExploring, store.SiteVisited:
			k.counted = true
			unfinished = append(unfinished, s)
		}
		t.known[s.URL] = k
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: restoring sites: %w", err)
	}
	if err := t.restoreReverse(); err != nil {
		return err
	}
	if err := t.requeueFailed(); err != nil {
		return err
	}
	for _, s := range unfinished {
		// explored when the last run stopped: explore again; its fetched
		// pages are replayed from the store, not fetched.
		if err := t.sf.Push(frontier.Item{URL: s.URL, Site: s.URL, Score: s.Score + 1000}, true); err != nil {
			return err
		}
	}
	if len(t.known) == 0 {
		b := e.db.NewBatch()
		defer b.Close()
		for _, raw := range e.opt.Seeds {
			u, err := canon.Canonical(raw)
			if err != nil {
				e.log.Warn("bad seed", "seed", raw, "err", err)
				continue
			}
			site := canon.Site(u)
			if _, dup := t.known[site]; dup {
				continue
			}
			t.known[site] = &knownSite{seed: true}
			if err := b.SetSite(store.Site{URL: site, Host: canon.Host(site), Domain: e.prof.Domain, Status: store.SiteQueued, Queue: store.QueueHigh, FirstSeen: time.Now(), From: "seed"}); err != nil {
				return err
			}
			if err := t.sf.Push(frontier.Item{URL: site, Site: site, Score: 1000}, true); err != nil {
				return err
			}
		}
		if err := b.Commit(true); err != nil {
			return fmt.Errorf("crawl: recording seeds: %w", err)
		}
	}
	t.updateFrontierStats()
	return nil
}

// requeueFailed queues again the explored sites of an earlier run with
// pages that failed in fewer than MaxFailedRuns runs (a seed whose homepage
// could not be fetched, pages lost to an outage): exploring such a site
// replays its recorded pages and fetches the failed ones again.
func (t *twoStage) requeueFailed() error {
	retry := map[string]bool{}
	err := t.e.db.ScanFailures("", func(f store.Failure) error {
		if f.Runs < MaxFailedRuns && f.Cause != CauseScope {
			retry[f.Site] = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: reading failures: %w", err)
	}
	sites := make([]string, 0, len(retry))
	for s := range retry {
		if k := t.known[s]; k != nil && k.explored {
			sites = append(sites, s)
		}
	}
	sort.Strings(sites)
	for _, s := range sites {
		k := t.known[s]
		k.explored, k.redo = false, true
		if err := t.sf.Push(frontier.Item{URL: s, Site: s, Score: 1000}, true); err != nil {
			return err
		}
	}
	if len(sites) > 0 {
		t.e.log.Info("retrying sites with failed pages", "sites", len(sites))
	}
	return nil
}

// updateFrontierStats sets the frontier gauge.
func (t *twoStage) updateFrontierStats() {
	h, l := t.sf.Len()
	t.e.stats.frontierSites.Store(int64(h + l))
}

// refill runs reverse search when the site frontier is low (Algorithm 1).
// Called with t.mu held; releases it while searching.
func (t *twoStage) refill(ctx context.Context) bool {
	h, l := t.sf.Len()
	if !t.smart || t.e.deps.Reverse == nil || t.reverse || h+l >= t.e.prof.Reverse.Threshold || !t.reverseWorthwhile() {
		return false
	}
	t.reverse = true
	t.mu.Unlock()
	n, err := t.reverseSearch(ctx)
	t.mu.Lock()
	t.reverse = false
	if n == 0 {
		t.lastRev = t.e.stats.get(cDeep)
	}
	if err != nil && !errors.Is(err, ErrBudget) && ctx.Err() == nil {
		// the search engine's failures are logged query by query; what
		// comes back is the store's
		t.fail(fmt.Errorf("crawl: reverse search: %w", err))
	}
	t.cond.Broadcast()
	return true
}

// outLink is an out-of-site link collected while exploring a site: to is
// the page it names.
type outLink struct {
	site, anchor, around, from, to string
}

// maxEntries bounds the entry pages remembered per site.
const maxEntries = 3

// addEntry remembers u, the target of a link to site, as an entry page of
// the site when it names a page below the root, and reports whether it
// was new. A site directory, a blog post or a forum links to the page that
// searches (/players/) as often as to the root, and the root may lead
// nowhere (a script page, links marked nofollow).
func (k *knownSite) addEntry(u, site string) bool {
	if len(k.entries) >= maxEntries || len(u) <= len(site)+1 || !strings.HasPrefix(u, site) || u[len(site)] != '/' {
		return false
	}
	if slices.Contains(k.entries, u) {
		return false
	}
	k.entries = append(k.entries, u)
	return true
}

// explore is stage two for one site: the homepage, the site classifier,
// then in-site exploring of a relevant site; finally the out-of-site links
// go back to stage one.
func (t *twoStage) explore(ctx context.Context, it frontier.Item) error {
	e := t.e
	site := it.URL
	k, counted, entries, first := t.startSite(site)
	if !first {
		// queued twice (high and low priority, or before a seed was
		// explored): one exploration only
		if t.delegated {
			return nil
		}
		return t.unqueue(site)
	}
	rec := store.Site{URL: site, Host: canon.Host(site), Domain: e.prof.Domain, Status: store.SiteExploring, Score: it.Score, FirstSeen: time.Now(), From: from(it.Evidence), Entries: entries}
	if k.seed {
		rec.From = "seed"
	}
	// an explorer's site comes from its coordinator, not its own frontier
	if err := t.begin(rec, !counted, !t.delegated); err != nil {
		return err
	}

	x := &siteExploration{t: t, site: site, entries: entries}
	hv, err := e.visit(ctx, site+"/", "", 0, nil, x.stageExample(nil))
	if err != nil {
		return err
	}
	x.add(hv)
	relevant, homeText := false, ""
	if hv.Page != nil {
		var ferr error
		if relevant, homeText, err, ferr = x.fromHome(ctx, hv, k.seed); ferr != nil {
			return ferr
		}
	}
	rec.Pages, rec.Forms, rec.Deep = x.pages, x.searchable, x.relevant > 0
	rec.VisitedAt = time.Now()
	switch {
	case hv.Page == nil:
		rec.Status = store.SiteFailed
	case relevant && errors.Is(err, ErrBudget):
		rec.Status = store.SiteCut
	case relevant:
		rec.Status = store.SiteRelevant
	default:
		rec.Status = store.SiteIrrelevant
	}
	if t.delegated {
		return t.deliver(rec, homeText, x, err)
	}
	if rec.Deep && t.smart && homeText != "" && !(k.redo && k.deep) {
		// adaptive learning: the site classifier learns the homepages of
		// the deep sites found (portals whose vocabulary spans domains)
		if lp, ok := e.deps.Pages.(*learningPages); ok {
			lp.learnDeep(homeText)
		}
	}
	if err2 := t.finish(ctx, rec, hv, x.outs); err2 != nil {
		return err2
	}
	return err
}

// startSite marks site's exploration begun and returns its entry, whether
// its sites counter was counted already and its entry pages; first is
// false when it was begun or done before.
func (t *twoStage) startSite(site string) (k *knownSite, counted bool, entries []string, first bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k = t.known[site]
	if k == nil {
		k = &knownSite{}
		t.known[site] = k
	}
	if k.explored || k.started {
		return k, false, nil, false
	}
	k.started = true
	counted = k.counted
	k.counted = true
	// not appended to once started (stageSites)
	return k, counted, k.entries, true
}

// fromHome judges the site by its fetched homepage hv (seed: a seed site,
// relevant whatever it says) and explores it when relevant. It returns
// the verdict, the homepage's text, the error that cut the in-site
// exploration short (ErrBudget) and any other error.
func (x *siteExploration) fromHome(ctx context.Context, hv *visited, seed bool) (relevant bool, homeText string, cut, err error) {
	e := x.t.e
	x.collectOut(hv)
	homeText = hv.Page.Title + " " + hv.Page.Text + " " + strings.Join(canonTerms(x.site), " ")
	var p float64
	relevant, p = e.deps.Pages.Relevant(homeText)
	if seed {
		relevant, p = true, 1 // the profile vouches for its seed sites
	}
	e.siteP.Store(x.site, p)
	if hv.relevant() > 0 {
		// a relevant form on the homepage makes the site worth exploring;
		// another domain's form says nothing about this one (travel
		// portals and other domains' deep sites took ~12% of the pages)
		relevant = true
	}
	starts := []*visited{hv}
	if relevant {
		if err := x.learnForms(hv, nil); err != nil {
			return relevant, homeText, nil, err
		}
	} else if !x.leadsIn(hv) {
		// a homepage that leads nowhere says little about the site:
		// the page another site linked to judges it
		ev, err := x.judgeEntry(ctx)
		if err != nil {
			return relevant, homeText, nil, err
		}
		if ev != nil {
			relevant, starts = true, append(starts, ev)
		}
	}
	if relevant {
		if err := x.inSite(ctx, starts...); err != nil {
			if !errors.Is(err, ErrBudget) {
				return relevant, homeText, nil, err
			}
			return relevant, homeText, err, nil
		}
	}
	return relevant, homeText, nil, nil
}

// unqueue deletes the stored frontier entry of a site popped (PopKeep)
// that is not explored again.
func (t *twoStage) unqueue(site string) error {
	if err := t.e.db.DeleteFrontier(site); err != nil {
		return fmt.Errorf("crawl: unqueueing site %s: %w", site, err)
	}
	return nil
}

// begin records that the exploration of a site has begun, counting the
// site unless an earlier run did; popped, the site's frontier entry goes
// in the same batch (a crash before it leaves the site queued).
func (t *twoStage) begin(rec store.Site, count, popped bool) error {
	e := t.e
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.SetSite(rec); err != nil {
		return err
	}
	if popped {
		if err := b.DeleteFrontier(rec.URL); err != nil {
			return err
		}
	}
	var n tally
	if count {
		n.add(cSites, 1)
	}
	if err := e.commit(b, &n, e.db.SyncDue()); err != nil {
		return fmt.Errorf("crawl: recording site %s: %w", rec.URL, err)
	}
	return nil
}

// finish records the explored site, queues its out-of-site links in stage
// one and feeds the adaptive learner, in one batch: the site's record, its
// learning example and round, the sites it links to and the site
// frontier's changes land together. The links go to the high-priority
// queue when the site held a relevant form: a site whose searchable forms
// all belong to another topic (its own database, a site-search box) vouches
// no more for its neighbours than one without forms (on a web with 20 %
// off-topic databases this took auto from 198 to 215 forms at 10k pages).
func (t *twoStage) finish(ctx context.Context, rec store.Site, hv *visited, outs []outLink) error {
	e := t.e
	b := e.db.NewBatch()
	defer b.Close()
	t.mu.Lock()
	k := t.known[rec.URL]
	ev := k.data
	// a site explored again (failed pages retried) was counted as its
	// earlier status said
	wasRelevant := k.redo && k.status == store.SiteRelevant
	wasDeep := k.redo && k.deep
	t.mu.Unlock()
	// and keeps it: its forms are still recorded, even when this
	// exploration ended before reaching them (the budget spent); a site
	// the budget cut again stays cut, so the next run resumes it
	if wasRelevant && rec.Status != store.SiteCut {
		rec.Status = store.SiteRelevant
	}
	rec.Deep = rec.Deep || wasDeep
	if err := b.SetSite(rec); err != nil {
		return err
	}
	var n tally
	if (rec.Status == store.SiteRelevant || rec.Status == store.SiteCut) && !wasRelevant {
		n.add(cRelSites, 1)
	}
	if rec.Deep && !wasDeep {
		n.add(cDeep, 1)
	}
	// adaptive learning: a deep site is an example for FSS
	var example *rank.Features
	if l := t.rk.learn; rec.Deep && !wasDeep && l != nil && hv.Page != nil {
		f := rank.SiteFeatures(rec.URL, ev.Anchor, ev.Around)
		if err := l.stage(b, rank.SpaceFSS, rec.URL, f); err != nil {
			return err
		}
		example = &f
	}
	sync := e.db.SyncDue()
	t.mu.Lock()
	k.explored, k.deep = true, rec.Deep
	k.data, k.sim = frontier.Evidence{}, nil // read for the last time above
	t.mu.Unlock()
	if rec.Deep && t.smart && hv.Page != nil {
		// site frequency: the sites a deep site links to count it (smartcrawler)
		t.rk.sf.MarkKnown(rec.URL)
	}
	var round *rank.Iteration
	if example != nil {
		if round = t.rk.learn.add(rank.SpaceFSS, *example); round != nil {
			if err := stageRound(b, *round, &n, cFSS); err != nil {
				return err
			}
			sync = sync || e.db.SyncsWrites()
		}
	}
	t.mu.Lock()
	if round != nil {
		if err := t.rescoreSites(b); err != nil {
			t.mu.Unlock()
			return err
		}
	}
	err := t.stageSites(b, outs, rec.Deep && t.smart)
	if err == nil {
		// committed under t.mu, as the site frontier changed in memory:
		// no other frontier write can come between
		err = e.commit(b, &n, false)
	}
	if err == nil {
		t.updateFrontierStats()
		t.cond.Broadcast()
	}
	t.mu.Unlock()
	if err == nil && sync {
		err = e.db.Sync()
	}
	if err != nil {
		return fmt.Errorf("crawl: recording site %s: %w", rec.URL, err)
	}
	// its links are counted; it cannot become known later
	t.rk.sf.Forget(rec.URL)
	return nil
}

// queueSites pushes newly seen sites (and new evidence for queued ones)
// into the site frontier, in one batch; n, if not nil, is counted with the
// sites recorded.
func (t *twoStage) queueSites(outs []outLink, high bool, n *tally) error {
	e := t.e
	t.mu.Lock()
	defer t.mu.Unlock()
	b := e.db.NewBatch()
	defer b.Close()
	if err := t.stageSites(b, outs, high); err != nil {
		return err
	}
	if err := e.commit(b, n, false); err != nil {
		return fmt.Errorf("crawl: recording sites: %w", err)
	}
	t.updateFrontierStats()
	t.cond.Broadcast()
	return nil
}

// stageSites stages in b the records of the sites first seen in outs and
// their pushes into the site frontier (which changes in memory at once:
// the caller commits b before releasing t.mu). Called with t.mu held.
func (t *twoStage) stageSites(b *store.Batch, outs []outLink, high bool) error {
	e := t.e
	touched := map[string]bool{}
	// the records of the sites first seen, written once their entry pages
	// are known; and the known sites that gained one
	var fresh []store.Site
	var grown []string
	for _, o := range outs {
		k := t.known[o.site]
		if k == nil {
			k = &knownSite{data: frontier.Evidence{From: o.from}}
			t.known[o.site] = k
			fresh = append(fresh, store.Site{URL: o.site, Host: canon.Host(o.site), Domain: e.prof.Domain, Status: store.SiteQueued, FirstSeen: time.Now(), From: o.from})
		}
		t.rk.sf.Link(canon.Site(o.from), o.site)
		if k.explored {
			continue
		}
		if !k.started && k.addEntry(o.to, o.site) {
			grown = append(grown, o.site)
		}
		before := k.data
		addLink(&k.data, o.anchor, o.around)
		if k.sim == nil {
			k.sim = &simMemo{}
		}
		k.sim.added(before, o.anchor, o.around)
		touched[o.site] = true
	}
	for i := range fresh {
		fresh[i].Entries = t.known[fresh[i].URL].entries
		if err := b.SetSite(fresh[i]); err != nil {
			return err
		}
	}
	if err := t.stageEntries(b, grown, fresh); err != nil {
		return err
	}
	// in a fixed order: the push order breaks ties between equal scores
	sites := slices.Sorted(maps.Keys(touched))
	items := make([]frontier.Item, 0, len(sites))
	for _, s := range sites {
		k := t.known[s]
		ev := k.data // the frontier keeps its own copy
		score := t.rk.siteMemo(s, ev, k.sim)
		items = append(items, frontier.Item{URL: s, Site: s, Score: score, Evidence: &ev})
	}
	if err := t.sf.PushAllIn(b, items, high); err != nil {
		return fmt.Errorf("crawl: queueing %d sites: %w", len(items), err)
	}
	return nil
}

// stageEntries stages in b the records of the known sites in grown (not
// those first seen, in fresh) with their entry pages. Called with t.mu
// held.
func (t *twoStage) stageEntries(b *store.Batch, grown []string, fresh []store.Site) error {
	slices.Sort(grown)
	for _, s := range slices.Compact(grown) {
		if slices.ContainsFunc(fresh, func(f store.Site) bool { return f.URL == s }) {
			continue
		}
		rec, ok, err := t.e.db.GetSite(s)
		if err != nil {
			return fmt.Errorf("crawl: reading site %s: %w", s, err)
		}
		if !ok {
			continue
		}
		rec.Entries = t.known[s].entries
		if err := b.SetSite(rec); err != nil {
			return err
		}
	}
	return nil
}

// rescoreSites re-ranks the site frontier after FSS was rebuilt, staging
// the new scores in b. Called with t.mu held.
func (t *twoStage) rescoreSites(b *store.Batch) error {
	err := t.sf.RescoreIn(b, func(it *frontier.Item) float64 {
		var ev frontier.Evidence
		if it.Evidence != nil {
			ev = *it.Evidence
		}
		if k := t.known[it.URL]; k != nil && k.sim != nil && k.data.Anchor == ev.Anchor && k.data.Around == ev.Around {
			// queued with the evidence known now (not one an earlier run
			// stored): its terms are kept, not stemmed again
			return t.rk.siteMemo(it.URL, ev, k.sim)
		}
		return t.rk.site(it.URL, ev.Anchor, ev.Around, ev.SF)
	})
	if err != nil {
		return fmt.Errorf("crawl: re-ranking the site frontier: %w", err)
	}
	return nil
}

// canonTerms are the URL terms of a site key.
func canonTerms(site string) []string { return urlWords(site) }
