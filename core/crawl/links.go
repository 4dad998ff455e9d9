package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

// The evidence of a link in the frontier (frontier.Evidence) is where it was
// found and its anchor and surrounding text, so that a relearned classifier
// can re-score it and the ACHE learner can walk back from a form page to
// the links that led to it.

// linkPolicy is what distinguishes the single-frontier strategies.
type linkPolicy interface {
	// name prefixes the persistent queues.
	name() string
	// levels is the number of frontier levels.
	levels() int
	// follow decides whether the links of a fetched page are queued.
	follow(v *visited, relevant bool, p float64) bool
	// score places one link of a followed page.
	score(v *visited, pageP float64, l page.Link, ev *frontier.Evidence) (level int, score float64)
	// rescore re-places a persisted link after learning (nil: keep).
	rescore() frontier.Classifier
	// formPage tells the policy that v holds relevant forms; it may relearn.
	formPage(ctx context.Context, r *linkRunner, v *visited) error
}

// fetchObserver is a policy that learns which link led to each page fetched
// (ACHE's backward paths).
type fetchObserver interface {
	fetched(u string, ev *frontier.Evidence)
}

// siteCount holds the per-site counts the stop criteria read.
type siteCount struct {
	pages, noForm, forms int
	deep                 bool
	counted              bool // in the sites counter: a page of it is recorded
}

// linkRunner runs ache and bestfirst: workers pop links from one frontier.
type linkRunner struct {
	scheduler
	e     *Engine
	pol   linkPolicy
	lf    *frontier.LevelFrontier
	seen  map[uint64]struct{}
	sites map[string]*siteCount
	// seeds are the seed URLs: on topic whatever the page classifier says.
	seeds map[string]bool
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func (e *Engine) runLinks(ctx context.Context) error {
	var pol linkPolicy = bestFirstPolicy{}
	if e.opt.Strategy == ACHE {
		var err error
		if pol, err = newACHEPolicy(e); err != nil {
			return err
		}
	}
	r := &linkRunner{e: e, pol: pol, seen: map[uint64]struct{}{}, sites: map[string]*siteCount{}, seeds: map[string]bool{}}
	for _, s := range e.opt.Seeds {
		if u, err := canon.Canonical(s); err == nil {
			r.seeds[u] = true
		}
	}
	r.init()
	r.lf = frontier.NewLevelFrontier(e.db, frontier.LevelOptions{Levels: pol.levels(), Prefix: pol.name(), Capacity: 20000})
	if c := pol.rescore(); c != nil {
		r.lf.SetClassifier(c)
	}
	if err := r.restore(ctx); err != nil {
		return err
	}
	pop := func() (frontier.Item, bool, error) {
		it, _, ok, err := r.lf.Pop()
		if ok {
			r.e.stats.frontierLinks.Store(int64(r.lf.Len()))
		}
		return it, ok, err
	}
	return r.run(ctx, e, e.opt.Workers, queue{pop: pop}, r.process)
}

// restore rebuilds the seen set and the per-site counts from the store and
// loads the persistent frontier; a fresh crawl queues its seeds.
func (r *linkRunner) restore(ctx context.Context) error {
	e := r.e
	inflight := 0
	err := e.db.ScanURLs("", func(st store.URLState) error {
		r.seen[hash64(st.URL)] = struct{}{}
		if st.State == store.StateQueued && st.FrontierKey == nil {
			// popped but never recorded: in flight when the last run stopped
			if err := r.lf.Push(frontier.Item{URL: st.URL, Site: st.Site, Depth: st.Depth, Score: 1}, 1); err != nil {
				return err
			}
			inflight++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: restoring URL states: %w", err)
	}
	if n, err := r.lf.Load(); err != nil {
		return fmt.Errorf("crawl: loading frontier: %w", err)
	} else if n > 0 || inflight > 0 {
		e.log.Info("resuming crawl", "frontier", n, "in_flight", inflight)
	}
	// URLs that failed in fewer than MaxFailedRuns runs are fetched again
	if err := e.db.ScanFailures("", func(f store.Failure) error {
		if f.Runs >= MaxFailedRuns || f.Cause == CauseScope {
			return nil
		}
		return r.lf.Push(frontier.Item{URL: f.URL, Site: f.Site, Depth: f.Depth, Score: 1}, 1)
	}); err != nil {
		return fmt.Errorf("crawl: queueing failed URLs again: %w", err)
	}
	if err := e.db.ScanJSON(store.TagPages, nil, func(key []byte, val []byte) error {
		var rec pageRecord
		if err := json.Unmarshal(val, &rec); err != nil {
			return fmt.Errorf("page record %s: %w", key, err)
		}
		sc := r.site(rec.Site)
		sc.counted = true
		sc.pages++
		nf := 0
		for _, f := range rec.Forms {
			if f.Searchable {
				nf++
			}
		}
		sc.forms += nf
		if nf == 0 {
			sc.noForm++
		}
		for _, f := range rec.Forms {
			sc.deep = sc.deep || f.Relevant
		}
		return nil
	}); err != nil {
		return fmt.Errorf("crawl: restoring site counts: %w", err)
	}
	// the sites counter counts the sites with a recorded page; crawls
	// recorded before it was kept in the store lack it
	if n := int64(len(r.sites)) - e.stats.get(cSites); n > 0 {
		if err := e.count(tally{cSites: n}); err != nil {
			return err
		}
	}
	if r.lf.Len() == 0 && len(r.seen) == 0 {
		for _, s := range e.opt.Seeds {
			u, err := canon.Canonical(s)
			if err != nil {
				e.log.Warn("bad seed", "seed", s, "err", err)
				continue
			}
			r.seen[hash64(u)] = struct{}{}
			if err := r.lf.Push(frontier.Item{URL: u, Site: canon.Site(u), Score: 1, Depth: 0}, 1); err != nil {
				return err
			}
		}
	}
	e.stats.frontierLinks.Store(int64(r.lf.Len()))
	return nil
}

func (r *linkRunner) site(s string) *siteCount {
	sc := r.sites[s]
	if sc == nil {
		sc = &siteCount{}
		r.sites[s] = sc
	}
	return sc
}

// allowed applies the stop criteria that bound a site: SC1 (depth), the
// per-site page budget and SC5 (pages without a searchable form).
func (r *linkRunner) allowed(it frontier.Item) bool {
	st := r.e.prof.Stop
	if st.MaxDepth > 0 && it.Depth > st.MaxDepth {
		return false
	}
	sc := r.site(it.Site)
	if st.MaxPagesPerSite > 0 && sc.pages >= st.MaxPagesPerSite {
		return false
	}
	if st.MaxPagesNoForm > 0 && sc.forms == 0 && sc.noForm >= st.MaxPagesNoForm {
		return false
	}
	return true
}

func (r *linkRunner) process(ctx context.Context, it frontier.Item) error {
	r.mu.Lock()
	ok := r.allowed(it)
	r.mu.Unlock()
	if !ok {
		return r.e.db.MarkURL(store.URLState{URL: it.URL, Site: it.Site, State: store.StateSkipped, Depth: it.Depth})
	}
	v, err := r.e.visit(ctx, it.URL, from(it.Evidence), it.Depth, nil, r.countPage(it.Site))
	if err != nil {
		return err
	}
	if o, ok := r.pol.(fetchObserver); ok {
		o.fetched(it.URL, it.Evidence)
	}
	if v.Dup || v.Page == nil {
		return nil
	}
	relevant, p := r.e.deps.Pages.Relevant(v.Page.Title + " " + v.Page.Text)
	if r.seeds[it.URL] {
		relevant = true // the profile vouches for its seed sites
	}
	if v.relevant() > 0 {
		if err := r.pol.formPage(ctx, r, v); err != nil {
			return err
		}
	}
	if !r.pol.follow(v, relevant, p) {
		return nil
	}
	return r.pushLinks(v, p)
}

// countPage updates the counts of site with a page being recorded, and
// counts, in the page's batch, the site when this is its first page and the
// site as deep when this is its first relevant form. A page replayed from
// the store was counted when the crawl resumed (restore).
func (r *linkRunner) countPage(site string) stager {
	return func(_ *store.Batch, v *visited, n *tally) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		sc := r.site(site)
		if !sc.counted {
			sc.counted = true
			n.add(cSites, 1)
		}
		sc.pages++
		if f := v.searchable(); f > 0 {
			sc.forms += f
		} else {
			sc.noForm++
		}
		if v.relevant() > 0 && !sc.deep {
			sc.deep = true
			n.add(cDeep, 1)
		}
		return nil
	}
}

// pushLinks queues the new links of v, placed by the policy.
func (r *linkRunner) pushLinks(v *visited, p float64) error {
	type placed struct {
		it    frontier.Item
		level int
	}
	var out []placed
	for _, l := range v.Page.Links {
		if l.NoFollow {
			continue
		}
		ev := &frontier.Evidence{From: v.URL, Anchor: l.Anchor, Around: l.Before + " " + l.After}
		site := canon.Site(l.URL)
		depth := 0
		if site == v.Site {
			depth = v.Depth + 1
		}
		level, score := r.pol.score(v, p, l, ev)
		out = append(out, placed{frontier.Item{URL: l.URL, Site: site, Depth: depth, Score: score, Evidence: ev}, level})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pl := range out {
		h := hash64(pl.it.URL)
		if _, dup := r.seen[h]; dup {
			continue
		}
		if !r.allowedDepth(pl.it) {
			continue
		}
		r.seen[h] = struct{}{}
		if err := r.lf.Push(pl.it, pl.level); err != nil {
			return fmt.Errorf("crawl: queueing %s: %w", pl.it.URL, err)
		}
	}
	r.e.stats.frontierLinks.Store(int64(r.lf.Len()))
	r.cond.Broadcast()
	return nil
}

// allowedDepth drops links beyond SC1 before they reach the frontier.
func (r *linkRunner) allowedDepth(it frontier.Item) bool {
	md := r.e.prof.Stop.MaxDepth
	return md <= 0 || it.Depth <= md
}

// bestFirstPolicy is the focused-crawler baseline: a page classifier only,
// every link of a relevant page followed, best page first.
type bestFirstPolicy struct{}

func (bestFirstPolicy) name() string                                { return "bestfirst" }
func (bestFirstPolicy) levels() int                                 { return 1 }
func (bestFirstPolicy) rescore() frontier.Classifier                { return nil }
func (bestFirstPolicy) follow(_ *visited, rel bool, _ float64) bool { return rel }
func (bestFirstPolicy) score(_ *visited, p float64, _ page.Link, _ *frontier.Evidence) (int, float64) {
	return 1, p
}
func (bestFirstPolicy) formPage(context.Context, *linkRunner, *visited) error { return nil }
