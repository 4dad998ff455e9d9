package crawl

import (
	"context"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/store"
)

// rejectingPages rejects every page and records the homepages it is taught.
type rejectingPages struct {
	mu      sync.Mutex
	learned []string
}

func (*rejectingPages) Relevant(string) (bool, float64) { return false, 0 }

func (r *rejectingPages) Learn(text string, _ bool) {
	r.mu.Lock()
	r.learned = append(r.learned, text)
	r.mu.Unlock()
}

// TestSeedsAndHomepageLearning: with a site classifier that rejects every
// homepage, the two-stage strategies still explore the seed sites (the
// profile vouches for them) and nothing else without a relevant homepage
// form; smartcrawler teaches the classifier the homepages of the first deep
// sites it finds (maxLearnedHomepages), scdi (no adaptive learning) none.
func TestSeedsAndHomepageLearning(t *testing.T) {
	for _, strategy := range []string{SmartCrawler, SCDI} {
		t.Run(strategy, func(t *testing.T) {
			c := assemble(t, t.TempDir(), strategy, 200)
			defer c.Close()
			pc := &rejectingPages{}
			c.deps.Pages = &learningPages{c: pc}
			if _, err := c.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			seeds, explored, deep := 0, 0, 0
			err := c.DB.ScanSites(func(s store.Site) error {
				if s.Status == store.SiteQueued {
					return nil
				}
				if s.Deep {
					deep++
				}
				switch {
				case s.From == "seed":
					seeds++
					if s.Status != store.SiteRelevant && s.Status != store.SiteCut && s.Status != store.SiteFailed && s.Status != store.SiteExploring {
						t.Errorf("seed site %s: status %v, want explored as relevant", s.URL, s.Status)
					}
				case s.Status == store.SiteRelevant || s.Status == store.SiteCut:
					explored++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if seeds == 0 {
				t.Fatal("no seed site visited")
			}
			t.Logf("%s: %d seed sites, %d other sites explored, %d deep, %d homepages learned", strategy, seeds, explored, deep, len(pc.learned))
			wantLearned := 0
			if strategy == SmartCrawler {
				wantLearned = min(deep, maxLearnedHomepages)
				if deep == 0 {
					t.Fatal("no deep site found: the test does not exercise learning")
				}
			}
			if len(pc.learned) != wantLearned {
				t.Errorf("%d homepages learned, want %d", len(pc.learned), wantLearned)
			}
		})
	}
}

// TestHighPriorityFromDeepSites: stage one puts the out-of-site links of a
// site that held a relevant form in the high-priority queue (Algorithm 2);
// a site whose only searchable forms belong to another domain, or to no
// domain (a site-search box), says nothing about its neighbours and its links
// go to the low-priority queue. scdi keeps one queue.
func TestHighPriorityFromDeepSites(t *testing.T) {
	tests := []struct {
		strategy    string
		deep, forms bool // a relevant form; searchable forms
		wantHigh    bool
	}{
		{SmartCrawler, true, true, true},
		{SmartCrawler, false, true, false}, // searchable, but not the domain's
		{SmartCrawler, false, false, false},
		{SCDI, true, true, false},
	}
	for _, tc := range tests {
		c := assemble(t, t.TempDir(), tc.strategy, 10)
		ts := &twoStage{e: c.Engine, smart: tc.strategy == SmartCrawler, known: map[string]*knownSite{}, reversed: map[string]bool{}}
		ts.init()
		ts.sf = frontier.NewSiteFrontier(c.DB)
		var err error
		if ts.rk, err = newRankers(c.Engine, ts.smart); err != nil {
			t.Fatal(err)
		}
		src := "http://explored.example"
		ts.known[src] = &knownSite{}
		rec := store.Site{URL: src, Host: "explored.example", Status: store.SiteRelevant, Deep: tc.deep, Forms: b2i(tc.forms)}
		outs := []outLink{{site: "http://neighbour.example", anchor: "used cars", from: src + "/"}}
		if err := ts.finish(context.Background(), rec, &visited{}, outs); err != nil {
			t.Fatal(err)
		}
		_, high, ok := ts.sf.Get("http://neighbour.example")
		if !ok || high != tc.wantHigh {
			t.Errorf("%s deep=%v forms=%v: neighbour queued %v, high %v; want high %v", tc.strategy, tc.deep, tc.forms, ok, high, tc.wantHigh)
		}
		c.Close()
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
