package crawl

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// crashingFetcher closes the store while the crash'th fetch is under way,
// as a crash would stop the process: every batch committed before stays,
// the page being fetched is never recorded.
type crashingFetcher struct {
	Fetcher
	db    *store.DB
	crash int
	mu    sync.Mutex
	n     int
	at    string // the URL fetched when the store closed
}

func (c *crashingFetcher) Fetch(ctx context.Context, u string) (*fetch.Response, error) {
	c.mu.Lock()
	c.n++
	if c.n == c.crash {
		c.at = u
		c.db.Close()
	}
	c.mu.Unlock()
	return c.Fetcher.Fetch(ctx, u)
}

// TestPageAndItsLinksLandTogether crashes an exploration at every page of
// a layered site (pages d1/pI → d2/pI → d3/pI) and checks the store the
// crash left: a page is recorded with its links pushed (one batch), the
// page being fetched is recorded with neither, its pop is lost with it (its
// link is still queued), no recorded page is still queued, and the resumed
// crawl fetches the site's other pages once each and only the page in
// flight again.
func TestPageAndItsLinksLandTogether(t *testing.T) {
	const width, depth = 4, 3
	w := newHandWeb()
	w.addLayeredSite(carsSite, width, depth, func(d, i int) bool { return d == 2 && i == 1 })
	f := w.serve(t)
	total := 1 + width*depth
	for crash := 2; crash <= total; crash++ {
		t.Run(fmt.Sprintf("crash at fetch %d", crash), func(t *testing.T) {
			dir := t.TempDir()
			c := newHandCrawl(t, dir, f, SCDI, profile.Stop{}, []string{carsSite + "/"}, nil)
			cf := &crashingFetcher{Fetcher: f, db: c.db, crash: crash}
			c.deps.Fetcher = cf
			if _, err := c.Run(context.Background()); err == nil {
				t.Fatal("crawl over a closed store did not fail")
			}
			db, err := store.Open(dir, store.Options{NoSync: true, Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			recorded := recordedIn(t, db)
			queued := map[string]bool{}
			if err := db.ScanFrontier(frontier.LinkQueue(carsSite), func(e store.FrontierEntry) error {
				queued[e.URL] = true
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(recorded) != crash-1 || recorded[cf.at] {
				t.Fatalf("%d pages recorded (%s among them: %v), want the %d before the crash", len(recorded), cf.at, recorded[cf.at], crash-1)
			}
			child := func(u string) string { // the page u links to ("" at the last depth)
				var d, i int
				if _, err := fmt.Sscanf(strings.TrimPrefix(u, carsSite), "/d%d/p%d", &d, &i); err != nil || d == depth {
					return ""
				}
				return fmt.Sprintf("%s/d%d/p%d", carsSite, d+1, i)
			}
			for u := range recorded {
				if queued[u] {
					t.Errorf("recorded page %s is still queued", u)
				}
				if ch := child(u); ch != "" && !recorded[ch] && !queued[ch] {
					t.Errorf("page %s is recorded, its link %s neither recorded nor queued", u, ch)
				}
			}
			if ch := child(cf.at); ch != "" {
				if st, ok, err := db.GetURL(ch); err != nil || ok {
					t.Errorf("page %s was not recorded, its link %s is stored (%+v, %v)", cf.at, ch, st, err)
				}
			}
			if !queued[cf.at] {
				t.Errorf("page %s in flight at the crash left the stored frontier: a resumed crawl would not fetch it", cf.at)
			}
			if problems, err := CheckCounters(db); err != nil || len(problems) > 0 {
				t.Errorf("counters after the crash: %v %v", problems, err)
			}
			db.Close()

			c = newHandCrawl(t, dir, f, SCDI, profile.Stop{}, []string{carsSite + "/"}, nil)
			count := &countingFetcher{Fetcher: f}
			c.deps.Fetcher = count
			sn, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if sn.Pages != int64(total) {
				t.Errorf("after resume %d pages, want %d", sn.Pages, total)
			}
			fetched := map[string]int{}
			for _, u := range count.urls {
				fetched[u]++
				if recorded[u] {
					t.Errorf("resumed crawl fetched %s again", u)
				}
			}
			if len(count.urls) != total-(crash-1) || fetched[cf.at] != 1 {
				t.Errorf("resumed crawl fetched %d pages (%s %d times), want %d and the page in flight once", len(count.urls), cf.at, fetched[cf.at], total-(crash-1))
			}
			checkCounters(t, c.db, sn)
			if n, _ := c.db.FrontierLen(frontier.LinkQueue(carsSite)); n != 0 {
				t.Errorf("%d links of the site left in the store", n)
			}
		})
	}
}

// recordedIn returns the URLs of the pages recorded in db.
func recordedIn(t *testing.T, db *store.DB) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	if err := db.ScanJSON(store.TagPages, nil, func(k, _ []byte) error {
		out[string(k)] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
