package crawl

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
)

// delayFetcher answers each URL after a random delay (seeded), failing the
// URLs in fail, so that fetches end in an order unlike their URLs'.
type delayFetcher struct {
	delays map[string]time.Duration
	fail   map[string]bool
}

func (d delayFetcher) Fetch(ctx context.Context, u string) (*fetch.Response, error) {
	time.Sleep(d.delays[u])
	if d.fail[u] {
		return nil, errors.New("refused")
	}
	body := fmt.Sprintf("<html><head><title>%s</title></head><body><p>page %s</p></body></html>", u, u)
	return &fetch.Response{URL: u, Status: 200, Body: []byte(body)}, nil
}

// TestFetchTopicPagesOrder: training pages come in the order of their URLs
// whatever order their fetches end in (a --seed-run crawl trains the same
// model every time).
func TestFetchTopicPagesOrder(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	d := delayFetcher{delays: map[string]time.Duration{}, fail: map[string]bool{}}
	var urls, want []string
	for i := range 12 {
		u := fmt.Sprintf("http://topic.test/p%02d", i)
		urls = append(urls, u)
		d.delays[u] = time.Duration(r.IntN(20)) * time.Millisecond
		if i%5 == 3 {
			d.fail[u] = true
			continue
		}
		want = append(want, u)
	}
	pages, failed := FetchTopicPages(context.Background(), d, urls, nil)
	if failed != len(urls)-len(want) {
		t.Errorf("failed %d, want %d", failed, len(urls)-len(want))
	}
	if len(pages) != len(want) {
		t.Fatalf("%d pages, want %d", len(pages), len(want))
	}
	for i, p := range pages {
		if p.Title != want[i] {
			t.Errorf("page %d is %q, want %q", i, p.Title, want[i])
		}
	}
}
