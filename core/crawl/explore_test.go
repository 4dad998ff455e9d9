package crawl

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// TestSiteStop feeds the stop-early criteria SC3–SC5 sequences of pages
// (depth, searchable forms) and checks the decision after each.
func TestSiteStop(t *testing.T) {
	type pg struct{ depth, forms int }
	const (
		on   = keepExploring
		skip = skipDepth
		quit = leaveSite
	)
	tests := []struct {
		name  string
		rules profile.Stop
		pages []pg
		want  []stopAction
	}{
		{"no rules", profile.Stop{},
			[]pg{{1, 0}, {1, 0}, {1, 3}, {2, 0}, {2, 9}},
			[]stopAction{on, on, on, on, on}},
		{"SC3: forms at a depth add up", profile.Stop{MaxFormsPerDepth: 3},
			[]pg{{1, 1}, {1, 0}, {1, 2}, {2, 2}, {3, 3}},
			[]stopAction{on, on, skip, on, skip}},
		{"SC3: a new depth starts from zero", profile.Stop{MaxFormsPerDepth: 2},
			[]pg{{1, 1}, {2, 1}, {2, 0}, {2, 1}},
			[]stopAction{on, on, on, skip}},
		{"SC4: pages without a form at a depth", profile.Stop{MaxPagesNoFormPerDepth: 2},
			[]pg{{1, 0}, {1, 1}, {1, 0}, {2, 0}, {2, 0}},
			[]stopAction{on, on, skip, on, skip}},
		{"SC5: pages of the site without a form, across depths", profile.Stop{MaxPagesNoForm: 3},
			[]pg{{1, 0}, {1, 0}, {2, 0}},
			[]stopAction{on, on, quit}},
		{"SC5: not once the site has a form", profile.Stop{MaxPagesNoForm: 2},
			[]pg{{1, 0}, {1, 1}, {1, 0}, {2, 0}, {2, 0}},
			[]stopAction{on, on, on, on, on}},
		{"SC5 before SC4 on the same page", profile.Stop{MaxPagesNoForm: 2, MaxPagesNoFormPerDepth: 2},
			[]pg{{1, 0}, {1, 0}},
			[]stopAction{on, quit}},
		{"SC3 and SC4 together", profile.Stop{MaxFormsPerDepth: 2, MaxPagesNoFormPerDepth: 2},
			[]pg{{1, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 0}},
			[]stopAction{on, on, skip, on, skip}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSiteStop(tc.rules)
			for i, p := range tc.pages {
				if got := s.page(p.depth, p.forms); got != tc.want[i] {
					t.Errorf("page %d (depth %d, %d forms): %v, want %v", i, p.depth, p.forms, got, tc.want[i])
				}
			}
		})
	}
}

const carsSite = "http://cars.example"

// TestExplore runs stage two (scdi: no reverse search, no learning) on one
// seed site of 6 chains of pages 3 deep, and checks how many pages of each
// depth each stop criterion lets the exploration fetch, what the site record
// and the counters say.
func TestExplore(t *testing.T) {
	atDepth := func(want int) func(d, i int) bool { return func(d, _ int) bool { return d == want } }
	tests := []struct {
		name        string
		stop        profile.Stop
		formAt      func(d, i int) bool
		want        map[int]int // pages by depth
		searchable  int
		wantDeepCnt int64
	}{
		{"no stop rule: every page", profile.Stop{}, nil, map[int]int{0: 1, 1: 6, 2: 6, 3: 6}, 0, 0},
		{"SC1: max depth 2", profile.Stop{MaxDepth: 2}, nil, map[int]int{0: 1, 1: 6, 2: 6}, 0, 0},
		{"SC2: 4 pages per depth", profile.Stop{MaxPagesPerDepth: 4}, nil, map[int]int{0: 1, 1: 4, 2: 4, 3: 4}, 0, 0},
		{"SC3: 2 forms at depth 1 are enough", profile.Stop{MaxFormsPerDepth: 2}, atDepth(1), map[int]int{0: 1, 1: 2, 2: 2, 3: 2}, 2, 1},
		{"SC4: 3 pages without a form per depth", profile.Stop{MaxPagesNoFormPerDepth: 3}, nil, map[int]int{0: 1, 1: 3, 2: 3, 3: 3}, 0, 0},
		{"SC4 spares a depth with forms", profile.Stop{MaxPagesNoFormPerDepth: 2}, atDepth(1), map[int]int{0: 1, 1: 6, 2: 2, 3: 2}, 6, 1},
		{"SC5: 4 pages without a form leave the site", profile.Stop{MaxPagesNoForm: 4}, nil, map[int]int{0: 1, 1: 4}, 0, 0},
		{"SC5 spares a site with forms", profile.Stop{MaxPagesNoForm: 4}, atDepth(1), map[int]int{0: 1, 1: 6, 2: 6, 3: 6}, 6, 1},
		{"site budget of 5 pages", profile.Stop{MaxPagesPerSite: 5}, nil, map[int]int{0: 1, 1: 5}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newHandWeb()
			w.addLayeredSite(carsSite, 6, 3, tc.formAt)
			c := newHandCrawl(t, t.TempDir(), w.serve(t), SCDI, tc.stop, []string{carsSite + "/"}, nil)
			sn, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := depthCounts(t, c.db, carsSite)
			if !maps.Equal(got, tc.want) {
				t.Errorf("pages by depth %v, want %v", got, tc.want)
			}
			total := 0
			for _, n := range tc.want {
				total += n
			}
			s, ok, err := c.db.GetSite(carsSite)
			if err != nil || !ok {
				t.Fatalf("site record: %v %v", ok, err)
			}
			if s.Status != store.SiteRelevant || s.Pages != total || s.Forms != tc.searchable || s.Deep != (tc.searchable > 0) {
				t.Errorf("site record %+v, want relevant, %d pages, %d forms", s, total, tc.searchable)
			}
			if sn.Pages != int64(total) || sn.Sites != 1 || sn.RelevantSites != 1 || sn.SearchableForms != int64(tc.searchable) ||
				sn.RelevantForms != int64(tc.searchable) || sn.DeepSites != tc.wantDeepCnt {
				t.Errorf("snapshot %+v", sn)
			}
			checkCounters(t, c.db, sn)
			if n, _ := c.db.FrontierLen("link:" + carsSite); n != 0 {
				t.Errorf("%d links of the site left in the store", n)
			}
		})
	}
}

// TestExploreResumeCountsOnce: a crawl cancelled in the middle of a site
// explores it again on resume, replaying the pages it fetched; the counters
// the summary prints count the site, its pages and its forms once.
func TestExploreResumeCountsOnce(t *testing.T) {
	w := newHandWeb()
	w.addLayeredSite(carsSite, 6, 3, func(d, i int) bool { return d == 2 && i%2 == 0 })
	f := w.serve(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cf := &cancellingFetcher{Fetcher: f, after: 9, cancel: cancel}
	c := newHandCrawl(t, dir, cf, SCDI, profile.Stop{}, []string{carsSite + "/"}, nil)
	sn, err := c.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v, want cancelled", err)
	}
	if sn.Pages != 9 || sn.Sites != 1 {
		t.Fatalf("first run: %d pages, %d sites; want 9 and 1", sn.Pages, sn.Sites)
	}
	checkCounters(t, c.db, sn)
	if s, _, _ := c.db.GetSite(carsSite); s.Status != store.SiteExploring {
		t.Fatalf("site after the cancelled run: %s, want exploring", s.Status)
	}
	c.db.Close()

	c = newHandCrawl(t, dir, f, SCDI, profile.Stop{}, []string{carsSite + "/"}, nil)
	sn, err = c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sn.Pages != 19 || sn.Replayed != 9 || sn.Sites != 1 || sn.RelevantSites != 1 || sn.SearchableForms != 3 || sn.DeepSites != 1 {
		t.Errorf("after resume: %+v; want 19 pages (9 replayed), 1 site, 3 forms, 1 deep", sn)
	}
	checkCounters(t, c.db, sn)
}
