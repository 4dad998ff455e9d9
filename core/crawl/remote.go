package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// Cluster mode splits a two-stage crawl between processes. One engine, the
// coordinator (Deps.Dispatcher set), keeps stage one: the site frontier and
// its ranker, reverse search, adaptive learning and the crawl's counters. It
// hands each site to Dispatch instead of exploring it, imports the pages the
// explorers record (ImportPage) and applies what they found on the site
// (ApplyOutcome) as its own exploring would have. Other engines, the
// explorers (SiteExplorer), run stage two on the sites they are given, with
// the same in-site code as a single-machine crawl, and report every page
// they record (Deps.Sink) and the outcome of every site. A shared page
// budget (Deps.Budget) bounds them all. Package cluster carries these
// messages over NATS JetStream.

// SiteTask is a site a coordinator hands to an explorer.
type SiteTask struct {
	Site  string  `json:"site"`
	Score float64 `json:"score,omitempty"`
	// Seed marks a profile seed: relevant whatever the site classifier says.
	Seed bool `json:"seed,omitempty"`
	// Replay says that pages of the site may have been recorded already (by
	// an earlier dispatch, or by the coordinator's reverse search): an
	// explorer imports them and replays them instead of fetching them.
	Replay bool `json:"replay,omitempty"`
	// Entries are pages below the site's root that other sites link to:
	// exploring starts from them too.
	Entries []string `json:"entries,omitempty"`
}

// LinkText is the anchor and the surrounding text of one link.
type LinkText struct {
	Anchor string `json:"a,omitempty"`
	Around string `json:"t,omitempty"`
}

// OutLinks are the links an explored site holds to one other site, in page
// order: as many as the site evidence can keep (maxEvidence characters of
// anchors and of surrounding text), then only their number.
type OutLinks struct {
	Site  string     `json:"site"`
	From  string     `json:"from"` // the page of the first link
	Links []LinkText `json:"links,omitempty"`
	More  int        `json:"more,omitempty"`
	// Entries are the pages below the site's root the links name (a few).
	Entries []string `json:"entries,omitempty"`
}

// SiteOutcome is what exploring one site found, as an explorer reports it
// to its coordinator. The pages and forms were reported page by page.
type SiteOutcome struct {
	Site   string           `json:"site"`
	Status store.SiteStatus `json:"status"` // failed, relevant, cut or irrelevant
	Pages  int              `json:"pages"`
	Forms  int              `json:"forms"` // searchable forms
	Deep   bool             `json:"deep,omitempty"`
	// HomeText is the homepage text of a deep site (smartcrawler teaches it
	// to the site classifier).
	HomeText string     `json:"home_text,omitempty"`
	Out      []OutLinks `json:"out,omitempty"`
	// Unexplored: the page budget was spent before the homepage; the site
	// stays to explore in a resumed crawl.
	Unexplored bool `json:"unexplored,omitempty"`
	// Err says why exploring failed for good (Status failed).
	Err string `json:"err,omitempty"`
}

// PageResult is a page an engine recorded, as its Sink receives it and a
// coordinator imports it.
type PageResult struct {
	URL  string `json:"url"`
	Site string `json:"site"`
	// Record is the page record the store keeps (TagPages), enough to replay
	// the page without fetching it.
	Record json.RawMessage `json:"record"`
	// Forms are the searchable forms recorded with the page.
	Forms []store.Form `json:"forms,omitempty"`
	// Example is the page's FSL example, when it holds relevant forms.
	Example *rank.Features `json:"example,omitempty"`
}

// PageSink receives every page an engine records, before the record is
// committed: a page in the store has been given to the sink. It blocks
// until the page is safe with the sink; an error fails the page's visit.
type PageSink interface {
	RecordPage(PageResult) error
}

// Budget is a page budget shared with other engines.
type Budget interface {
	// Reserve takes one page; false when the budget is spent.
	Reserve() bool
	// Release gives back a reservation that was not fetched.
	Release()
	// Exhausted reports whether the budget is spent.
	Exhausted() bool
}

// PendingBudget is a Budget shared with engines elsewhere that can tell how
// many pages they took and this engine has not recorded yet: pages being
// fetched or leased, and pages published and not yet imported. A
// coordinator whose budget is one ends its crawl only once the budget is
// spent and nothing is pending, so that it records every page of the
// budget (an explorer still fetching a site redelivered to another, or a
// page on its way, would otherwise be counted and never recorded).
type PendingBudget interface {
	Budget
	Pending(ctx context.Context) (int64, error)
}

// Dispatcher hands a site to an explorer elsewhere. Dispatch returns once
// the task is safely queued; the outcome comes back through ApplyOutcome.
type Dispatcher interface {
	Dispatch(ctx context.Context, t SiteTask) error
}

// coordination is the stage-one state a coordinator shares with the
// goroutines that apply its explorers' results.
type coordination struct {
	ready chan struct{} // closed once stage one is restored
	t     *twoStage
	// waiting holds, per dispatched site, the channel closed when its
	// outcome is applied; applying counts outcomes being applied. Both
	// guarded by t.mu.
	waiting  map[string]chan struct{}
	applying int
	// revSite is the site of the page reverse search is fetching (guarded
	// by t.mu): it is not dispatched meanwhile (reverseVisit).
	revSite string
}

func newCoordination() *coordination {
	return &coordination{ready: make(chan struct{}), waiting: map[string]chan struct{}{}}
}

func (c *coordination) start(t *twoStage) {
	c.t = t
	close(c.ready)
}

// stageOne waits until the coordinator's Run has restored stage one.
func (e *Engine) stageOne(ctx context.Context) (*twoStage, error) {
	if e.coord == nil {
		return nil, errors.New("crawl: not a coordinator (no dispatcher)")
	}
	select {
	case <-e.coord.ready:
		return e.coord.t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Ready is closed once a coordinator's Run has restored its stage one and
// ImportPage and ApplyOutcome can proceed (nil for other engines).
func (e *Engine) Ready() <-chan struct{} {
	if e.coord == nil {
		return nil
	}
	return e.coord.ready
}

// remoteBusy reports outcomes being applied, which may queue sites; called
// with t.mu held.
func (t *twoStage) remoteBusy() bool { return t.reverse || t.e.coord.applying > 0 }

// exploreRemote is a coordinator's stage two: record that the site's
// exploring began, dispatch it and wait until its outcome is applied.
func (t *twoStage) exploreRemote(ctx context.Context, it frontier.Item) error {
	e := t.e
	site := it.URL
	t.mu.Lock()
	for e.coord.revSite == site && ctx.Err() == nil {
		t.cond.Wait()
	}
	k := t.known[site]
	if k == nil {
		k = &knownSite{}
		t.known[site] = k
	}
	if k.explored || k.started {
		t.mu.Unlock()
		return t.unqueue(site)
	}
	// a site counted by an earlier run may have been dispatched by it
	replay := k.counted
	k.started = true
	counted := k.counted
	k.counted = true
	seed, entries := k.seed, k.entries
	done := make(chan struct{})
	e.coord.waiting[site] = done
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if e.coord.waiting[site] == done {
			delete(e.coord.waiting, site)
		}
		t.mu.Unlock()
	}()
	rec := store.Site{URL: site, Host: canon.Host(site), Domain: e.prof.Domain, Status: store.SiteExploring, Score: it.Score, FirstSeen: time.Now(), From: from(it.Evidence)}
	if seed {
		rec.From = "seed"
	}
	if err := t.begin(rec, !counted, true); err != nil {
		return err
	}
	if !replay {
		var err error
		if replay, err = e.sitePages(site); err != nil {
			return err
		}
	}
	if err := e.deps.Dispatcher.Dispatch(ctx, SiteTask{Site: site, Score: it.Score, Seed: seed, Replay: replay, Entries: entries}); err != nil {
		return fmt.Errorf("crawl: dispatching %s: %w", site, err)
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// reverseVisit reports whether a coordinator's reverse search may fetch a
// page of site, and if so holds the site's dispatch until reverseVisited.
// A site handed to an explorer whose outcome is not applied yet is left to
// it: the explorer cannot see a page the coordinator records after the
// dispatch (nor the coordinator one the explorer has not reported yet), so
// both would fetch it, one page of the budget lost, and the host would have
// two crawlers at once.
func (t *twoStage) reverseVisit(site string) bool {
	if t.e.coord == nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := t.known[site]; k != nil && k.started && !k.explored {
		return false
	}
	t.e.coord.revSite = site
	return true
}

// reverseVisited lets the site of the last reverseVisit be dispatched: its
// page is recorded, and the dispatch tells the explorer to import it.
func (t *twoStage) reverseVisited() {
	if t.e.coord == nil {
		return
	}
	t.mu.Lock()
	t.e.coord.revSite = ""
	t.cond.Broadcast()
	t.mu.Unlock()
}

// errFound ends a scan early.
var errFound = errors.New("found")

// sitePages reports whether the store holds a fetched page of site.
func (e *Engine) sitePages(site string) (bool, error) {
	err := e.db.ScanURLs(site+"/", func(st store.URLState) error {
		if st.State == store.StateFetched || st.State == store.StateFailed {
			return errFound
		}
		return nil
	})
	if errors.Is(err, errFound) {
		return true, nil
	}
	return false, err
}

// Applied is what applying an outcome taught the coordinator.
type Applied struct {
	// Homepage is the homepage text the site classifier learnt ("" if none):
	// the explorers' site classifiers must learn it too.
	Homepage string
}

// ApplyOutcome records what an explorer found on a site, as the end of the
// coordinator's own exploring would: the site's record and counts, its
// out-of-site links in the site frontier, the adaptive learning of its
// deep-site example and homepage. An outcome for a site already explored
// (a site explored twice after a redelivery) changes nothing. It waits
// until Run has restored stage one.
func (e *Engine) ApplyOutcome(ctx context.Context, o SiteOutcome) (Applied, error) {
	var a Applied
	t, err := e.stageOne(ctx)
	if err != nil {
		return a, err
	}
	t.mu.Lock()
	k := t.known[o.Site]
	if k == nil || k.explored {
		t.mu.Unlock()
		return a, nil
	}
	if o.Unexplored {
		// the budget ran out first: the site stays "exploring" for a resume
		t.signal(o.Site)
		t.mu.Unlock()
		return a, nil
	}
	counted := k.counted
	k.started, k.counted = true, true
	e.coord.applying++
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		e.coord.applying--
		t.signal(o.Site)
		t.cond.Broadcast()
		t.mu.Unlock()
	}()
	rec, ok, err := e.db.GetSite(o.Site)
	if err != nil {
		return a, err
	}
	if !ok {
		rec = store.Site{URL: o.Site, Host: canon.Host(o.Site), Domain: e.prof.Domain, FirstSeen: time.Now()}
	}
	if !counted {
		rec.Status = store.SiteExploring
		if err := t.begin(rec, true, false); err != nil {
			return a, err
		}
	}
	rec.Status, rec.Pages, rec.Forms, rec.Deep, rec.VisitedAt = o.Status, o.Pages, o.Forms, o.Deep, time.Now()
	if rec.Status != store.SiteFailed && rec.Status != store.SiteRelevant && rec.Status != store.SiteCut {
		rec.Status = store.SiteIrrelevant
	}
	if rec.Deep && t.smart && o.HomeText != "" {
		if lp, ok := e.deps.Pages.(*learningPages); ok && lp.learnDeep(o.HomeText) {
			a.Homepage = o.HomeText
		}
	}
	hv := &visited{URL: o.Site + "/"}
	if o.Status != store.SiteFailed {
		hv.Page = &page.Page{URL: hv.URL}
	}
	return a, t.finish(ctx, rec, hv, expandOutLinks(o.Out))
}

// signal wakes the exploreRemote waiting for site; called with t.mu held.
func (t *twoStage) signal(site string) {
	if ch := t.e.coord.waiting[site]; ch != nil {
		close(ch)
		delete(t.e.coord.waiting, site)
	}
}

// Imported is what importing a page recorded.
type Imported struct {
	// Recorded is false for a page recorded before (a duplicate).
	Recorded bool
	// Forms are the page's searchable forms as the coordinator recorded
	// them, now or before.
	Forms []store.Form
	// Round is the FSL learning round the page's example completed.
	Round *rank.Iteration
}

// ImportPage records a page an explorer fetched, as the coordinator's own
// visit would have: a number in the crawl's page order, its forms (a form
// whose interface the crawl recorded on another page of the site is kept
// as a duplicate), its counts and its FSL example. A page recorded before
// (delivered twice, or fetched by the coordinator's reverse search) is not
// recorded again. It waits until Run has restored stage one.
func (e *Engine) ImportPage(ctx context.Context, p PageResult) (Imported, error) {
	var im Imported
	t, err := e.stageOne(ctx)
	if err != nil {
		return im, err
	}
	var rec pageRecord
	if err := json.Unmarshal(p.Record, &rec); err != nil {
		return im, fmt.Errorf("crawl: page record of %s: %w", p.URL, err)
	}
	if rec.URL == "" {
		return im, fmt.Errorf("crawl: page record of %q has no URL", p.URL)
	}
	// the coordinator's own visit of the page (reverse search) may be in
	// flight: it records the page, not this import
	_, claimed := e.claimed.LoadOrStore(hash64(rec.URL), struct{}{})
	prev, ok, err := e.replay(rec.URL)
	if err != nil {
		return im, err
	}
	if !ok && claimed {
		return im, nil
	}
	if ok {
		return e.importRecorded(t, rec.URL, prev, p.Example)
	}
	var n tally
	var nRel int
	if im.Forms, nRel, err = e.importForms(&rec, p.Forms, &n); err != nil {
		return im, err
	}
	rec.Seq = e.seq.Add(1)
	for i := range im.Forms {
		im.Forms[i].PagesFetched = int(rec.Seq)
	}
	b := e.db.NewBatch()
	defer b.Close()
	if err := stageImported(b, &rec, im.Forms); err != nil {
		return im, err
	}
	n.add(cPages, 1)
	if recordToVisited(rec).Page == nil {
		n.add(cFailed, 1)
	}
	n.add(cForms, int64(len(rec.Forms)))
	learn := p.Example != nil && nRel > 0 && t.rk.learn != nil
	if learn {
		if err := t.rk.learn.stage(b, rank.SpaceFSL, rec.URL, *p.Example); err != nil {
			return im, err
		}
	}
	if err := e.commit(b, &n, len(im.Forms) > 0 || e.db.SyncsWrites()); err != nil {
		return im, fmt.Errorf("crawl: recording %s: %w", rec.URL, err)
	}
	e.recorded.Add(1)
	im.Recorded = true
	if learn {
		im.Round, err = t.learnImported(rec.URL, *p.Example, p.Example)
	}
	return im, err
}

// importRecorded is ImportPage of page u recorded before (prev): its
// recorded forms, and its FSL example learnt as when a site's exploring
// replays a page reverse search recorded.
func (e *Engine) importRecorded(t *twoStage, u string, prev pageRecord, example *rank.Features) (im Imported, err error) {
	if im.Forms, err = e.recordedForms(prev); err != nil {
		return im, err
	}
	if example != nil && recordToVisited(prev).relevant() > 0 {
		im.Round, err = t.learnImported(u, *example, nil)
	}
	return im, err
}

// importForms keeps the searchable forms of rec that the explorer sent
// (forms, by index) and whose interface the crawl has not recorded on
// another page, marks the others duplicates in rec, and counts the kept
// ones into n; nRel is how many of them are relevant.
func (e *Engine) importForms(rec *pageRecord, forms []store.Form, n *tally) (kept []store.Form, nRel int, err error) {
	byIndex := make(map[int]store.Form, len(forms))
	for _, f := range forms {
		byIndex[f.Index] = f
	}
	nProbed, nProbes := 0, 0
	for i := range rec.Forms {
		fr := &rec.Forms[i]
		if !fr.Searchable {
			continue
		}
		sf, ok := byIndex[fr.Index]
		if ok {
			sig, err := storedSignature(sf)
			if err != nil {
				return nil, 0, err
			}
			_, ok = e.formSigs.LoadOrStore(sig, struct{}{})
			ok = !ok
		}
		if !ok {
			fr.Searchable, fr.Relevant, fr.Dup = false, false, true
			continue
		}
		if fr.Relevant {
			nRel++
		}
		if sf.Probe != nil {
			nProbed++
			nProbes += len(sf.Probe.Queries)
		}
		sf.ID, sf.Relevant = store.FormID(rec.URL, sf.Index), fr.Relevant
		kept = append(kept, sf)
	}
	n.add(cSearchable, int64(len(kept)))
	n.add(cRelevant, int64(nRel))
	n.add(cProbed, int64(nProbed))
	n.add(cProbes, int64(nProbes))
	return kept, nRel, nil
}

// learnImported feeds the FSL example of page u to the learner and records
// the round it completes. staged is the example when the page's batch
// stored it; otherwise it is stored here unless it is known already.
func (t *twoStage) learnImported(u string, f rank.Features, staged *rank.Features) (*rank.Iteration, error) {
	l := t.rk.learn
	if l == nil {
		return nil, nil
	}
	if staged == nil {
		known, err := l.known(rank.SpaceFSL, u)
		if err != nil || known {
			return nil, err
		}
		b := t.e.db.NewBatch()
		defer b.Close()
		if err := l.stage(b, rank.SpaceFSL, u, f); err != nil {
			return nil, err
		}
		if err := b.Commit(t.e.db.SyncsWrites()); err != nil {
			return nil, fmt.Errorf("crawl: recording the learning example %s: %w", u, err)
		}
	}
	it := l.add(rank.SpaceFSL, f)
	if it == nil {
		return nil, nil
	}
	return it, t.e.saveRound(*it, cFSL)
}

// recordedForms returns the stored searchable forms of a recorded page.
func (e *Engine) recordedForms(rec pageRecord) ([]store.Form, error) {
	var out []store.Form
	for _, fr := range rec.Forms {
		if !fr.Searchable {
			continue
		}
		f, ok, err := e.db.GetForm(store.FormID(rec.URL, fr.Index))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// stageImported stages a page record received from another engine, its
// URL states and its forms.
func stageImported(b *store.Batch, rec *pageRecord, forms []store.Form) error {
	state := store.StateFetched
	if recordToVisited(*rec).Page == nil {
		state = store.StateFailed
	}
	if err := b.SetURL(store.URLState{URL: rec.URL, Site: rec.Site, State: state, Depth: rec.Depth, Fetched: rec.Fetched, Status: rec.Status, Err: rec.Err}); err != nil {
		return err
	}
	if rec.Final != "" && rec.Final != rec.URL {
		if err := b.SetURL(store.URLState{URL: rec.Final, Site: canon.Site(rec.Final), State: state, Depth: rec.Depth, Fetched: rec.Fetched, Status: rec.Status}); err != nil {
			return err
		}
	}
	if err := b.PutJSON(store.TagPages, []byte(rec.URL), rec); err != nil {
		return err
	}
	for _, f := range forms {
		if err := b.SetForm(f); err != nil {
			return err
		}
	}
	return nil
}

// storedSignature is formSignature of a stored form.
func storedSignature(f store.Form) (uint64, error) {
	var fields []page.Field
	if len(f.Fields) > 0 {
		if err := json.Unmarshal(f.Fields, &fields); err != nil {
			return 0, fmt.Errorf("crawl: form %s (%s): fields: %w", f.ID, f.PageURL, err)
		}
	}
	names := make([]string, 0, len(fields))
	for _, fl := range fields {
		names = append(names, fl.Name)
	}
	return formSignature(f.Site, f.Action, f.Method, names), nil
}

// sinkPage gives a page being recorded to Deps.Sink.
func (e *Engine) sinkPage(rec *pageRecord, forms []store.Form, example *rank.Features) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	for i := range forms {
		if forms[i].ID == "" {
			forms[i].ID = store.FormID(forms[i].PageURL, forms[i].Index)
		}
	}
	return e.deps.Sink.RecordPage(PageResult{URL: rec.URL, Site: rec.Site, Record: raw, Forms: forms, Example: example})
}

// LearningRound returns the latest learning round of space (rank.SpaceFSS
// or rank.SpaceFSL) recorded in the engine's store.
func (e *Engine) LearningRound(space string) (rank.Iteration, bool, error) {
	its, err := learningRounds(e.db)
	if err != nil {
		return rank.Iteration{}, false, err
	}
	var last rank.Iteration
	found := false
	for _, it := range its {
		if it.Space == space && (!found || it.Round > last.Round) {
			last, found = it, true
		}
	}
	return last, found, nil
}

// SiteExplorer explores single sites for a coordinator with an engine's
// fetcher, classifiers, store and in-site code (stage two of a two-stage
// crawl). It learns nothing on its own: its pages' examples go to the
// coordinator through Deps.Sink, and the coordinator's rounds come back
// through SetLinkSpace and LearnHomepage. Safe for concurrent use, one
// site per call.
type SiteExplorer struct {
	t *twoStage
}

// SiteExplorer prepares the engine to explore sites for a coordinator.
func (e *Engine) SiteExplorer() (*SiteExplorer, error) {
	if e.opt.Strategy != SmartCrawler && e.opt.Strategy != SCDI {
		return nil, fmt.Errorf("crawl: strategy %q does not explore site by site (two-stage strategies only)", e.opt.Strategy)
	}
	if err := e.restoreCounters(); err != nil {
		return nil, err
	}
	if err := e.restoreFormSignatures(); err != nil {
		return nil, fmt.Errorf("crawl: restoring forms: %w", err)
	}
	t := &twoStage{e: e, smart: e.opt.Strategy == SmartCrawler, known: map[string]*knownSite{}, reversed: map[string]bool{},
		lastRev: -1, delegated: true, outcomes: map[string]SiteOutcome{}}
	t.init()
	t.sf = frontier.NewSiteFrontier(e.db)
	var err error
	if t.rk, err = newRankers(e, t.smart); err != nil {
		return nil, err
	}
	e.stats.start = time.Now()
	return &SiteExplorer{t: t}, nil
}

// Explore explores one site: its homepage, the site classifier's verdict,
// in-site exploring of a relevant site. Its pages go to Deps.Sink as they
// are recorded; pages the store holds already (an earlier attempt, or
// Import) are replayed, not fetched. A spent budget ends exploring early
// (Unexplored when not even the homepage could be fetched); other errors
// leave the site to explore again.
func (x *SiteExplorer) Explore(ctx context.Context, task SiteTask) (SiteOutcome, error) {
	t := x.t
	site := task.Site
	t.mu.Lock()
	t.known[site] = &knownSite{seed: task.Seed, entries: task.Entries}
	t.mu.Unlock()
	err := t.explore(ctx, frontier.Item{URL: site, Site: site, Score: task.Score})
	t.mu.Lock()
	o, ok := t.outcomes[site]
	delete(t.outcomes, site)
	delete(t.known, site)
	t.mu.Unlock()
	switch {
	case errors.Is(err, ErrBudget) && ok:
		return o, nil
	case errors.Is(err, ErrBudget):
		return SiteOutcome{Site: site, Unexplored: true}, nil
	case err != nil:
		return SiteOutcome{}, err
	case !ok:
		return SiteOutcome{}, fmt.Errorf("crawl: exploring %s gave no outcome", site)
	}
	return o, nil
}

// Import stores pages another explorer recorded (a site redelivered after
// its explorer died), so that exploring the site again replays them.
func (x *SiteExplorer) Import(pages []PageResult) error {
	e := x.t.e
	for _, p := range pages {
		var rec pageRecord
		if err := json.Unmarshal(p.Record, &rec); err != nil {
			return fmt.Errorf("crawl: page record of %s: %w", p.URL, err)
		}
		if _, ok, err := e.replay(rec.URL); err != nil || ok || rec.URL == "" {
			if err != nil {
				return err
			}
			continue
		}
		for _, f := range p.Forms {
			sig, err := storedSignature(f)
			if err != nil {
				return err
			}
			e.formSigs.Store(sig, struct{}{})
		}
		b := e.db.NewBatch()
		err := stageImported(b, &rec, p.Forms)
		if err == nil {
			err = b.Commit(e.db.SyncsWrites())
		}
		b.Close()
		if err != nil {
			return fmt.Errorf("crawl: importing %s: %w", rec.URL, err)
		}
	}
	return nil
}

// SetLinkSpace installs the coordinator's latest FSL round in the link
// ranker.
func (x *SiteExplorer) SetLinkSpace(it rank.Iteration) {
	x.t.rk.linkR.SetSpace(rank.SpaceFromIteration(it))
}

// LearnHomepage teaches the site classifier a deep site's homepage, as the
// coordinator's did (smartcrawler).
func (x *SiteExplorer) LearnHomepage(text string) {
	if lp, ok := x.t.e.deps.Pages.(*learningPages); ok {
		lp.learnDeep(text)
	}
}

// Stats returns the explorer's own counters (its pages, replays included).
func (x *SiteExplorer) Stats() Snapshot { return x.t.e.stats.Snapshot() }

// deliver keeps the outcome of a site explored for a coordinator (the end
// of explore on a SiteExplorer) and returns err.
func (t *twoStage) deliver(rec store.Site, homeText string, x *siteExploration, err error) error {
	o := SiteOutcome{Site: rec.URL, Status: rec.Status, Pages: rec.Pages, Forms: rec.Forms, Deep: rec.Deep, Out: groupOutLinks(x.outs)}
	if rec.Deep && t.smart {
		o.HomeText = homeText
	}
	if perr := t.e.db.PutSite(rec); perr != nil && err == nil {
		err = fmt.Errorf("crawl: recording site %s: %w", rec.URL, perr)
	}
	t.mu.Lock()
	t.outcomes[rec.URL] = o
	t.mu.Unlock()
	return err
}

// groupOutLinks groups out-of-site links by target site, in order of first
// appearance, keeping the texts the target's evidence can still take
// (addLink stops at maxEvidence whatever came before).
func groupOutLinks(outs []outLink) []OutLinks {
	var groups []OutLinks
	type acc struct {
		i  int
		ev frontier.Evidence // the evidence of the kept links alone
	}
	at := map[string]*acc{}
	for _, o := range outs {
		a := at[o.site]
		if a == nil {
			a = &acc{i: len(groups)}
			at[o.site] = a
			groups = append(groups, OutLinks{Site: o.site, From: o.from})
		}
		g := &groups[a.i]
		if o.to != "" && len(g.Entries) < maxEntries {
			k := knownSite{entries: g.Entries}
			if k.addEntry(o.to, o.site) {
				g.Entries = k.entries
			}
		}
		if len(a.ev.Anchor) >= maxEvidence && len(a.ev.Around) >= maxEvidence {
			g.More++
			continue
		}
		g.Links = append(g.Links, LinkText{Anchor: o.anchor, Around: o.around})
		addLink(&a.ev, o.anchor, o.around)
	}
	return groups
}

// expandOutLinks turns grouped links back into the links queueSites takes,
// the group's entry pages as the targets of its first links.
func expandOutLinks(groups []OutLinks) []outLink {
	var outs []outLink
	for _, g := range groups {
		first := len(outs)
		for _, l := range g.Links {
			outs = append(outs, outLink{site: g.Site, anchor: l.Anchor, around: l.Around, from: g.From})
		}
		for range g.More {
			outs = append(outs, outLink{site: g.Site, from: g.From})
		}
		for i, u := range g.Entries {
			if first+i < len(outs) {
				outs[first+i].to = u
			}
		}
	}
	return outs
}
