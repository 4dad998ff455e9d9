package crawl

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

const partsSite = "http://parts.example"

// TestLinkRunner runs the single-frontier strategies on two sites (cars,
// 6 chains 3 deep, linking to parts, 3 chains 2 deep) and checks how many
// pages of each site and depth the stop criteria the link runner applies
// (SC1, the pages per site, SC5) let it fetch, what it records as skipped,
// and the counters.
func TestLinkRunner(t *testing.T) {
	tests := []struct {
		name       string
		strategy   string
		stop       profile.Stop
		formAt     func(d, i int) bool
		cars       map[int]int
		parts      map[int]int
		searchable int
		skipped    bool // some links were popped and refused
	}{
		{"bestfirst, no stop rule", BestFirst, profile.Stop{}, nil,
			map[int]int{0: 1, 1: 6, 2: 6, 3: 6}, map[int]int{0: 1, 1: 3, 2: 3}, 0, false},
		{"bestfirst, SC1 max depth 1", BestFirst, profile.Stop{MaxDepth: 1}, nil,
			map[int]int{0: 1, 1: 6}, map[int]int{0: 1, 1: 3}, 0, false},
		{"bestfirst, 3 pages per site", BestFirst, profile.Stop{MaxPagesPerSite: 3}, nil,
			map[int]int{0: 1, 1: 2}, map[int]int{0: 1, 1: 2}, 0, true},
		{"bestfirst, SC5 after 5 pages without a form", BestFirst, profile.Stop{MaxPagesNoForm: 5}, nil,
			map[int]int{0: 1, 1: 4}, map[int]int{0: 1, 1: 3, 2: 1}, 0, true},
		{"bestfirst, SC5 spares a site with forms", BestFirst, profile.Stop{MaxPagesNoForm: 5}, func(d, _ int) bool { return d == 1 },
			map[int]int{0: 1, 1: 6, 2: 6, 3: 6}, map[int]int{0: 1, 1: 3, 2: 1}, 6, true},
		{"ache, 3 pages per site", ACHE, profile.Stop{MaxPagesPerSite: 3}, nil,
			nil, nil, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newHandWeb()
			w.addLayeredSite(carsSite, 6, 3, tc.formAt, partsSite+"/")
			w.addLayeredSite(partsSite, 3, 2, nil)
			c := newHandCrawl(t, t.TempDir(), w.serve(t), tc.strategy, tc.stop, []string{carsSite + "/"}, nil)
			sn, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			cars, parts := depthCounts(t, c.db, carsSite), depthCounts(t, c.db, partsSite)
			if tc.cars != nil && !maps.Equal(cars, tc.cars) {
				t.Errorf("cars pages by depth %v, want %v", cars, tc.cars)
			}
			if tc.parts != nil && !maps.Equal(parts, tc.parts) {
				t.Errorf("parts pages by depth %v, want %v", parts, tc.parts)
			}
			total := sum(cars) + sum(parts)
			if max := tc.stop.MaxPagesPerSite; max > 0 && (sum(cars) != max || sum(parts) != max) {
				t.Errorf("%d and %d pages of the sites, want %d each", sum(cars), sum(parts), max)
			}
			if sn.Pages != int64(total) || sn.Sites != 2 || sn.SearchableForms != int64(tc.searchable) ||
				sn.DeepSites != int64(min(tc.searchable, 1)) {
				t.Errorf("snapshot %+v; want %d pages, 2 sites, %d forms", sn, total, tc.searchable)
			}
			checkCounters(t, c.db, sn)
			skipped := 0
			err = c.db.ScanURLs("", func(st store.URLState) error {
				if st.State == store.StateSkipped {
					skipped++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if (skipped > 0) != tc.skipped {
				t.Errorf("%d URLs recorded as skipped; want some: %v", skipped, tc.skipped)
			}
		})
	}
}

func sum(m map[int]int) (n int) {
	for _, v := range m {
		n += v
	}
	return n
}

// TestLinkRunnerResumeCountsOnce: a bestfirst crawl cancelled halfway
// resumes where it stopped; every page is fetched once and the counters
// count each page and site once.
func TestLinkRunnerResumeCountsOnce(t *testing.T) {
	w := newHandWeb()
	w.addLayeredSite(carsSite, 6, 3, func(d, i int) bool { return d == 3 && i < 2 }, partsSite+"/")
	w.addLayeredSite(partsSite, 3, 2, nil)
	f := w.serve(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newHandCrawl(t, dir, &cancellingFetcher{Fetcher: f, after: 10, cancel: cancel}, BestFirst, profile.Stop{}, []string{carsSite + "/"}, nil)
	sn, err := c.Run(ctx)
	if !errors.Is(err, context.Canceled) || sn.Pages != 10 || sn.Sites != 2 {
		t.Fatalf("first run: %d pages, %d sites, %v; want 10, 2, cancelled", sn.Pages, sn.Sites, err)
	}
	checkCounters(t, c.db, sn)
	c.db.Close()

	c = newHandCrawl(t, dir, f, BestFirst, profile.Stop{}, []string{carsSite + "/"}, nil)
	sn, err = c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sn.Pages != 26 || sn.Replayed != 0 || sn.Sites != 2 || sn.SearchableForms != 2 || sn.DeepSites != 1 {
		t.Errorf("after resume: %+v; want 26 pages, none replayed, 2 sites, 2 forms, 1 deep", sn)
	}
	checkCounters(t, c.db, sn)
}
