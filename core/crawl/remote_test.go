package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/store"
)

// countBudget is a Budget shared by engines in one process.
type countBudget struct {
	n, limit atomic.Int64
}

func (b *countBudget) Reserve() bool {
	if b.n.Add(1) > b.limit.Load() {
		b.n.Add(-1)
		return false
	}
	return true
}
func (b *countBudget) Release()        { b.n.Add(-1) }
func (b *countBudget) Exhausted() bool { return b.n.Load() >= b.limit.Load() }

// pageLog is a PageSink that keeps the pages and passes each to next.
type pageLog struct {
	mu    sync.Mutex
	pages []PageResult
	next  func(PageResult) error
}

func (l *pageLog) RecordPage(p PageResult) error {
	l.mu.Lock()
	l.pages = append(l.pages, p)
	l.mu.Unlock()
	if l.next != nil {
		return l.next(p)
	}
	return nil
}

// chanDispatcher queues tasks for in-process explorers.
type chanDispatcher chan SiteTask

func (d chanDispatcher) Dispatch(ctx context.Context, t SiteTask) error {
	select {
	case d <- t:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// exploreTasks starts n goroutines that explore the tasks with x and apply
// each outcome to coord, counting the sites, until ctx ends.
func exploreTasks(t *testing.T, ctx context.Context, wg *sync.WaitGroup, tasks chanDispatcher, x *SiteExplorer, coord *Crawl, n int, sites *atomic.Int64) {
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case task := <-tasks:
					o, err := x.Explore(ctx, task)
					if err != nil {
						t.Errorf("exploring %s: %v", task.Site, err)
						return
					}
					sites.Add(1)
					if _, err := coord.ApplyOutcome(ctx, o); err != nil {
						t.Errorf("applying %s: %v", task.Site, err)
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
}

// withDeps rebuilds c's engine with the cluster collaborators of d.
func withDeps(t *testing.T, c *Crawl, d Deps) {
	t.Helper()
	deps := c.deps
	deps.Budget, deps.Sink, deps.Dispatcher = d.Budget, d.Sink, d.Dispatcher
	e, err := New(c.opt, deps)
	if err != nil {
		t.Fatal(err)
	}
	c.Engine = e
}

// TestRemoteCrawl runs a coordinator and two explorers in one process,
// connected the way package cluster connects them, and checks that every
// page an explorer recorded is counted once by the coordinator, that no form
// interface is recorded twice, that the budget holds over all of them and
// that only the coordinator learns.
func TestRemoteCrawl(t *testing.T) {
	ctx := context.Background()
	const budget = 300
	b := &countBudget{}
	b.limit.Store(budget)
	tasks := make(chanDispatcher, 16)
	coord := assembleOn(t, killWeb(), t.TempDir(), SmartCrawler, budget)
	defer coord.Close()
	coord.prof.Learn.FormsEvery, coord.prof.Learn.SitesEvery = 4, 3 // rounds within 300 pages
	withDeps(t, coord, Deps{Budget: b, Dispatcher: tasks})

	var explorers []*SiteExplorer
	var logs []*pageLog
	var stores []*store.DB
	for range 2 {
		c := assembleOn(t, killWeb(), t.TempDir(), SmartCrawler, budget)
		defer c.Close()
		c.prof.Learn = coord.prof.Learn
		log := &pageLog{next: func(p PageResult) error { _, err := coord.ImportPage(ctx, p); return err }}
		withDeps(t, c, Deps{Budget: b, Sink: log})
		x, err := c.SiteExplorer()
		if err != nil {
			t.Fatal(err)
		}
		explorers, logs, stores = append(explorers, x), append(logs, log), append(stores, c.DB)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var sites atomic.Int64
	for _, x := range explorers {
		exploreTasks(t, runCtx, &wg, tasks, x, coord, 2, &sites)
	}
	sn, err := coord.Run(ctx)
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sn.Pages < budget*9/10 || sn.Pages > budget || b.n.Load() > budget {
		t.Fatalf("pages %d, reserved %d, budget %d", sn.Pages, b.n.Load(), budget)
	}
	published := 0
	for _, l := range logs {
		published += len(l.pages)
	}
	own := int(sn.Pages) - published // the coordinator's reverse-search pages
	if own < 0 {
		t.Errorf("coordinator counted %d pages, explorers published %d", sn.Pages, published)
	}
	pages := 0
	coord.DB.ScanJSON(store.TagPages, nil, func(_, _ []byte) error { pages++; return nil })
	if int64(pages) != sn.Pages {
		t.Errorf("coordinator holds %d page records, counts %d", pages, sn.Pages)
	}
	sigs := map[uint64]string{}
	coordForms := map[string]bool{}
	coord.DB.ScanForms(func(f store.Form) error {
		s, err := storedSignature(f)
		if err != nil {
			t.Fatal(err)
		}
		if prev, dup := sigs[s]; dup {
			t.Errorf("form interface recorded twice: %s and %s", prev, f.ID)
		}
		sigs[s] = f.ID
		coordForms[f.ID] = true
		return nil
	})
	for i, db := range stores {
		db.ScanForms(func(f store.Form) error {
			s, _ := storedSignature(f)
			if !coordForms[f.ID] && sigs[s] == "" {
				t.Errorf("explorer %d recorded form %s (%s) the coordinator lacks", i, f.ID, f.PageURL)
			}
			return nil
		})
		rounds, err := learningRounds(db)
		if err != nil || len(rounds) != 0 {
			t.Errorf("explorer %d holds %d learning rounds (%v): only the coordinator learns", i, len(rounds), err)
		}
	}
	rel, fp := truthCheck(t, coord.DB, killWeb(), "auto")
	t.Logf("%d sites explored remotely, %d pages (%d by the coordinator), %d relevant forms (%d false positives), %d FSS and %d FSL rounds",
		sites.Load(), sn.Pages, own, rel, fp, sn.LearnSites, sn.LearnForms)
	if rel == 0 || sn.LearnForms == 0 || sn.LearnSites == 0 {
		t.Errorf("want relevant forms and FSS and FSL rounds, got %d, %d, %d", rel, sn.LearnSites, sn.LearnForms)
	}
	if int64(rel+fp) != sn.RelevantForms {
		t.Errorf("store holds %d relevant forms, counters say %d", rel+fp, sn.RelevantForms)
	}
}

// pendingBudget is a countBudget that knows which reserved pages the
// coordinator has not recorded yet (PendingBudget); stuck adds pages that
// never arrive.
type pendingBudget struct {
	*countBudget
	recorded func() int64
	stuck    int64
}

func (b *pendingBudget) Pending(context.Context) (int64, error) {
	return b.n.Load() - b.recorded() + b.stuck, nil
}

// TestCoordinatorAwaitsPending has explorers whose pages reach the
// coordinator late, after their sites' outcomes (as pages published and
// not yet consumed, or fetched by an explorer of a site explored twice),
// and checks that a coordinator with a PendingBudget records every page
// the budget counted before its crawl ends, and that one whose pages never
// come ends anyway after pendingPatience.
func TestCoordinatorAwaitsPending(t *testing.T) {
	defer func(p time.Duration) { pendingPatience = p }(pendingPatience)
	pendingPatience = 2 * time.Second
	for _, tc := range []struct {
		name  string
		stuck int64
	}{{"late pages", 0}, {"pages that never come", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			const budget = 120
			cb := &countBudget{}
			cb.limit.Store(budget)
			tasks := make(chanDispatcher, 16)
			coord := assembleOn(t, killWeb(), t.TempDir(), SmartCrawler, budget)
			defer coord.Close()
			pb := &pendingBudget{countBudget: cb, stuck: tc.stuck, recorded: func() int64 { return coord.Stats().Snapshot().Pages }}
			withDeps(t, coord, Deps{Budget: pb, Dispatcher: tasks})
			var imports sync.WaitGroup
			c := assembleOn(t, killWeb(), t.TempDir(), SmartCrawler, budget)
			defer c.Close()
			// every page reaches the coordinator 300 ms after it is published
			late := &pageLog{next: func(p PageResult) error {
				imports.Add(1)
				time.AfterFunc(300*time.Millisecond, func() {
					defer imports.Done()
					if _, err := coord.ImportPage(ctx, p); err != nil {
						t.Error(err)
					}
				})
				return nil
			}}
			withDeps(t, c, Deps{Budget: cb, Sink: late})
			x, err := c.SiteExplorer()
			if err != nil {
				t.Fatal(err)
			}
			runCtx, cancel := context.WithCancel(ctx)
			var wg sync.WaitGroup
			var sites atomic.Int64
			exploreTasks(t, runCtx, &wg, tasks, x, coord, 2, &sites)
			start := time.Now()
			sn, err := coord.Run(ctx)
			took := time.Since(start)
			recordedAtEnd := sn.Pages
			cancel()
			wg.Wait()
			imports.Wait()
			if err != nil {
				t.Fatal(err)
			}
			reserved := cb.n.Load()
			t.Logf("%d pages reserved, %d recorded when Run ended (%d in the end), in %v", reserved, recordedAtEnd, coord.Stats().Snapshot().Pages, took.Round(time.Millisecond))
			if reserved != budget {
				t.Fatalf("%d pages reserved, budget %d: the test web ran out of pages", reserved, budget)
			}
			switch {
			case tc.stuck == 0 && recordedAtEnd != reserved:
				t.Errorf("Run ended with %d pages recorded of %d reserved: it did not wait for the late ones", recordedAtEnd, reserved)
			case tc.stuck > 0 && took < pendingPatience:
				t.Errorf("Run ended after %v, before the %v it waits for pending pages", took, pendingPatience)
			}
		})
	}
}

// TestSinkFailureGivesBack checks that a page the sink refuses (the
// cluster's results stream unreachable for good) goes back to a shared
// budget: it is neither published nor recorded.
func TestSinkFailureGivesBack(t *testing.T) {
	cb := &countBudget{}
	cb.limit.Store(100)
	c := assemble(t, t.TempDir(), SmartCrawler, 100)
	defer c.Close()
	var taken atomic.Int64
	refuse := errors.New("results stream unreachable")
	sink := &pageLog{next: func(PageResult) error {
		if taken.Add(1) == 3 {
			return refuse
		}
		return nil
	}}
	withDeps(t, c, Deps{Budget: cb, Sink: sink})
	x, err := c.SiteExplorer()
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range testWeb().Seeds("auto", 10) {
		if _, err = x.Explore(context.Background(), SiteTask{Site: canon.Site(seed), Seed: true}); err != nil {
			break
		}
	}
	if !errors.Is(err, refuse) {
		t.Fatalf("exploring: %v, want the sink's error", err)
	}
	if got, want := cb.n.Load(), taken.Load()-1; got != want {
		t.Errorf("the budget counts %d pages, the sink took %d", got, want)
	}
}

// TestExplorerImportReplays explores a site with one explorer, gives its
// pages to another, and checks that the second explores the site again
// without fetching anything and finds the same.
func TestExplorerImportReplays(t *testing.T) {
	a := assemble(t, t.TempDir(), SmartCrawler, 0)
	defer a.Close()
	log := &pageLog{}
	withDeps(t, a, Deps{Sink: log})
	xa, err := a.SiteExplorer()
	if err != nil {
		t.Fatal(err)
	}
	var site string
	var first SiteOutcome
	for _, seed := range testWeb().Seeds("auto", 10) {
		s := canon.Site(seed)
		o, err := xa.Explore(context.Background(), SiteTask{Site: s, Seed: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %+v", s, o)
		if o.Pages > 3 && o.Forms > 0 {
			site, first = s, o
			break
		}
	}
	if site == "" {
		t.Fatal("no seed site with forms and more than 3 pages")
	}
	var pages []PageResult
	for _, p := range log.pages {
		if p.Site == site {
			pages = append(pages, p)
		}
	}
	b := assemble(t, t.TempDir(), SmartCrawler, 0)
	defer b.Close()
	cf := &countingFetcher{Fetcher: b.deps.Fetcher}
	b.deps.Fetcher = cf
	xb, err := b.SiteExplorer()
	if err != nil {
		t.Fatal(err)
	}
	if err := xb.Import(pages); err != nil {
		t.Fatal(err)
	}
	again, err := xb.Explore(context.Background(), SiteTask{Site: site, Seed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.urls) != 0 {
		t.Errorf("the second explorer fetched %d pages (%v), want all replayed", len(cf.urls), cf.urls)
	}
	fj, _ := json.Marshal(first)
	aj, _ := json.Marshal(again)
	if string(fj) != string(aj) {
		t.Errorf("outcomes differ:\nfirst %s\nagain %s", fj, aj)
	}
	t.Logf("%s: %d pages, %d forms, %d linked sites, replayed", site, first.Pages, first.Forms, len(first.Out))
}

// TestImportAndApplyOnce delivers every page and outcome twice and checks
// that the second delivery changes no count.
func TestImportAndApplyOnce(t *testing.T) {
	ctx := context.Background()
	tasks := make(chanDispatcher, 1)
	coord := assemble(t, t.TempDir(), SmartCrawler, 60)
	defer coord.Close()
	b := &countBudget{}
	b.limit.Store(60)
	withDeps(t, coord, Deps{Budget: b, Dispatcher: tasks})
	c := assemble(t, t.TempDir(), SmartCrawler, 60)
	defer c.Close()
	log := &pageLog{}
	withDeps(t, c, Deps{Budget: b, Sink: log})
	x, err := c.SiteExplorer()
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case task := <-tasks:
				o, err := x.Explore(runCtx, task)
				if err != nil {
					if runCtx.Err() == nil {
						t.Error(err) // not the test's own cancellation at the end
					}
					return
				}
				log.mu.Lock()
				pages := append([]PageResult(nil), log.pages...)
				log.pages = nil
				log.mu.Unlock()
				for range 2 {
					for _, p := range pages {
						if _, err := coord.ImportPage(runCtx, p); err != nil && runCtx.Err() == nil {
							t.Error(err)
						}
					}
					if _, err := coord.ApplyOutcome(runCtx, o); err != nil && runCtx.Err() == nil {
						t.Error(err)
					}
				}
			case <-runCtx.Done():
				return
			}
		}
	}()
	sn, err := coord.Run(ctx)
	cancel()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	coord.DB.ScanJSON(store.TagPages, nil, func(_, _ []byte) error { n++; return nil })
	if int64(n) != sn.Pages {
		t.Errorf("%d page records, %d counted", n, sn.Pages)
	}
	forms := 0
	coord.DB.ScanForms(func(store.Form) error { forms++; return nil })
	if int64(forms) != sn.SearchableForms {
		t.Errorf("%d forms stored, %d counted", forms, sn.SearchableForms)
	}
	sites := 0
	coord.DB.ScanSites(func(s store.Site) error {
		if s.Status != store.SiteQueued && s.Status != store.SiteNew {
			sites++ // explored, or begun (the budget ran out before its homepage)
		}
		return nil
	})
	if int64(sites) != sn.Sites {
		t.Errorf("%d sites explored in the store, %d counted", sites, sn.Sites)
	}
	if sn.Pages == 0 {
		t.Error("no page recorded")
	}
}

// TestGroupOutLinks checks that grouping out-of-site links by site keeps
// exactly what the site evidence would keep.
func TestGroupOutLinks(t *testing.T) {
	anchor := "used cars for sale"
	var outs []outLink
	for i := range 200 {
		site := "http://a.example"
		if i%3 == 0 {
			site = "http://b.example"
		}
		outs = append(outs, outLink{site: site, anchor: anchor, around: "find a car near you " + anchor, from: "http://x.example/p"})
	}
	groups := groupOutLinks(outs)
	if len(groups) != 2 || groups[0].Site != "http://b.example" {
		t.Fatalf("groups = %+v", groups)
	}
	for _, prior := range []string{"", "a few words of earlier evidence"} {
		direct := map[string]*knownSite{}
		grouped := map[string]*knownSite{}
		for _, o := range outs {
			k := direct[o.site]
			if k == nil {
				k = &knownSite{}
				k.data.Anchor = prior
				direct[o.site] = k
			}
			addLink(&k.data, o.anchor, o.around)
		}
		for _, o := range expandOutLinks(groups) {
			k := grouped[o.site]
			if k == nil {
				k = &knownSite{}
				k.data.Anchor = prior
				grouped[o.site] = k
			}
			addLink(&k.data, o.anchor, o.around)
		}
		for s, k := range direct {
			if g := grouped[s]; g == nil || g.data != k.data {
				t.Errorf("prior %q, site %s: grouped evidence %+v, direct %+v", prior, s, g, k.data)
			}
		}
	}
	kept := 0
	for _, g := range groups {
		kept += len(g.Links)
		if g.More == 0 {
			t.Errorf("%s: all %d links kept, want the evidence's share", g.Site, len(g.Links))
		}
	}
	if kept >= len(outs)/2 {
		t.Errorf("kept %d of %d links", kept, len(outs))
	}
}
