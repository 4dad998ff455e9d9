package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// storedRounds returns the learning rounds of space in the store, by round.
func storedRounds(t *testing.T, db *store.DB, space string) map[int]rank.Iteration {
	t.Helper()
	out := map[int]rank.Iteration{}
	err := db.ScanJSON(store.TagFeatures, nil, func(_, val []byte) error {
		var it rank.Iteration
		if err := json.Unmarshal(val, &it); err != nil {
			return err
		}
		if it.Space == space {
			out[it.Round] = it
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLearningResumes: smartcrawler rebuilds FSL after every 2 pages with
// relevant forms. Killed (cancelled) halfway and resumed, the crawl learns
// from each form page once and numbers its rounds on: it ends with the
// rounds of an uninterrupted crawl, each recorded once.
func TestLearningResumes(t *testing.T) {
	w := newHandWeb()
	// 6 chains, 3 deep; forms on every page of depths 1 and 2: 12 examples
	w.addLayeredSite(carsSite, 6, 3, func(d, _ int) bool { return d <= 2 })
	f := w.serve(t)
	mod := func(p *profile.Profile, _ *Deps) { p.Learn = profile.Learn{SitesEvery: 1, FormsEvery: 2} }
	seeds := []string{carsSite + "/"}

	whole := newHandCrawl(t, t.TempDir(), f, SmartCrawler, profile.Stop{}, seeds, mod)
	want, err := whole.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want.LearnForms != 6 || want.LearnSites != 1 {
		t.Fatalf("uninterrupted crawl: %d FSL and %d FSS rounds, want 6 and 1", want.LearnForms, want.LearnSites)
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newHandCrawl(t, dir, &cancellingFetcher{Fetcher: f, after: 9, cancel: cancel}, SmartCrawler, profile.Stop{}, seeds, mod)
	if sn, err := c.Run(ctx); !errors.Is(err, context.Canceled) || sn.LearnForms == 0 || sn.LearnForms >= 6 {
		t.Fatalf("first run: %d FSL rounds, %v; want some of the 6, cancelled", sn.LearnForms, err)
	}
	c.db.Close()
	c = newHandCrawl(t, dir, f, SmartCrawler, profile.Stop{}, seeds, mod)
	got, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.LearnForms != want.LearnForms || got.LearnSites != want.LearnSites || got.Pages != want.Pages {
		t.Errorf("resumed crawl: %d FSL, %d FSS rounds, %d pages; uninterrupted: %d, %d, %d",
			got.LearnForms, got.LearnSites, got.Pages, want.LearnForms, want.LearnSites, want.Pages)
	}
	checkCounters(t, c.db, got)
	rounds := storedRounds(t, c.db, rank.SpaceFSL)
	if len(rounds) != int(got.LearnForms) {
		t.Errorf("%d FSL rounds in the store, the counter says %d", len(rounds), got.LearnForms)
	}
	for r := 1; r <= len(rounds); r++ {
		if it, ok := rounds[r]; !ok || it.Examples != 2*r {
			t.Errorf("FSL round %d: recorded %v, learnt from %d examples; want %d", r, ok, it.Examples, 2*r)
		}
	}
}

// TestACHERoundsResume: ACHE's link classifier starts from the profile again
// when a crawl resumes, but its learning rounds are numbered on: every round
// of both runs stays recorded, as many as the counter says.
func TestACHERoundsResume(t *testing.T) {
	w := newHandWeb()
	w.addLayeredSite(carsSite, 8, 3, func(d, _ int) bool { return d >= 2 })
	f := w.serve(t)
	mod := func(p *profile.Profile, _ *Deps) { p.Learn = profile.Learn{SitesEvery: 1, FormsEvery: 2} }
	seeds := []string{carsSite + "/"}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newHandCrawl(t, dir, &cancellingFetcher{Fetcher: f, after: 16, cancel: cancel}, ACHE, profile.Stop{}, seeds, mod)
	first, err := c.Run(ctx)
	if !errors.Is(err, context.Canceled) || first.LearnForms == 0 {
		t.Fatalf("first run: %d rounds, %v; want some, cancelled", first.LearnForms, err)
	}
	c.db.Close()
	c = newHandCrawl(t, dir, f, ACHE, profile.Stop{}, seeds, mod)
	sn, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sn.LearnForms <= first.LearnForms {
		t.Fatalf("the resumed run learnt nothing: %d rounds, %d before", sn.LearnForms, first.LearnForms)
	}
	checkCounters(t, c.db, sn)
	if rounds := storedRounds(t, c.db, rank.SpaceACHE); len(rounds) != int(sn.LearnForms) {
		t.Errorf("%d ACHE rounds recorded, the counter says %d", len(rounds), sn.LearnForms)
	}
}
