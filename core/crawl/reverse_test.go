package crawl

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/profile"
)

// hubSearch is a search engine over a hand-built web: for a site it returns
// the hub page that links to it. It records every query; cancelAt, when
// set, cancels the crawl as query cancelAt arrives.
type hubSearch struct {
	mu       sync.Mutex
	queries  []string
	cancelAt int
	cancel   context.CancelFunc
}

func (h *hubSearch) Links(ctx context.Context, u string) ([]string, error) {
	h.mu.Lock()
	h.queries = append(h.queries, u)
	n := len(h.queries)
	h.mu.Unlock()
	if h.cancel != nil && n == h.cancelAt {
		h.cancel()
		return nil, ctx.Err()
	}
	return []string{"http://hub.example/links/" + canon.Host(u)}, nil
}

// TestReverseSearchResumes: reverse search (smartcrawler, one query per
// round) asks for the pages linking to each seed site; a crawl cancelled in
// its second round resumes without asking for any site again, and the
// reverse-search counters cover both runs.
func TestReverseSearchResumes(t *testing.T) {
	w := newHandWeb()
	seeds := []string{carsSite, partsSite}
	for _, s := range seeds {
		w.addLayeredSite(s, 2, 1, nil)
		// the hub page of s links to s and to a site nobody else links to
		fresh := strings.Replace(s, "://", "://fresh-", 1)
		w.addLayeredSite(fresh, 1, 1, nil)
		w.add("http://hub.example/links/"+canon.Host(s), pageHTML("car sites", []string{s + "/", fresh + "/"}, ""))
	}
	f := w.serve(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	search := &hubSearch{cancelAt: 2, cancel: cancel}
	mod := func(p *profile.Profile, d *Deps) {
		p.Reverse = profile.Reverse{Threshold: 100, MinLinks: 1, MaxQueries: 1}
		d.Reverse = search
	}
	c := newHandCrawl(t, dir, f, SmartCrawler, profile.Stop{}, []string{carsSite + "/", partsSite + "/"}, mod)
	sn, err := c.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v, want cancelled", err)
	}
	if want := []string{carsSite + "/", partsSite + "/"}; !slices.Equal(search.queries, want) {
		t.Fatalf("first run queried %v, want %v", search.queries, want)
	}
	if sn.ReverseTriggers != 2 || sn.ReverseQueries != 2 || sn.CentrePages != 1 {
		t.Errorf("first run: %d rounds, %d queries, %d centre pages; want 2, 2, 1", sn.ReverseTriggers, sn.ReverseQueries, sn.CentrePages)
	}
	checkCounters(t, c.db, sn)
	c.db.Close()

	search.cancel = nil
	c = newHandCrawl(t, dir, f, SmartCrawler, profile.Stop{}, []string{carsSite + "/", partsSite + "/"}, mod)
	sn, err = c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(search.queries) != 2 {
		t.Errorf("queries over both runs %v: the resumed crawl asked again", search.queries)
	}
	if sn.ReverseTriggers != 2 || sn.ReverseQueries != 2 {
		t.Errorf("after resume: %d rounds, %d queries; want 2, 2", sn.ReverseTriggers, sn.ReverseQueries)
	}
	// both seeds, the fresh site of cars' hub (the round cancelled before
	// parts' hub was fetched), each homepage and its pages
	if sn.Sites != 3 {
		t.Errorf("after resume: %d sites explored, want 3", sn.Sites)
	}
	checkCounters(t, c.db, sn)
}
