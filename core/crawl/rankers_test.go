package crawl

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/rank"
)

// TestSiteMemo checks that the memoised site score equals the full one as
// the evidence of the links to a site grows past full, as its site
// frequency changes and after the FSS is replaced.
func TestSiteMemo(t *testing.T) {
	seed := uint64(19)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	words := strings.Fields("used cars dealer auto parts engine price search inventory vehicles home about contact blog news trucks sedan")
	phrase := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		return b.String()
	}
	topic := []string{"car", "auto", "dealer", "vehicl"}
	r := &rankers{siteR: rank.NewSiteRanker(0.5, rank.SpaceFromTerms("FSS", topic, topic, topic)), sf: rank.NewSiteFrequency()}
	site := "http://cars.test"
	var ev frontier.Evidence
	var m simMemo
	full := false
	for i := 0; i < 60; i++ {
		if i == 40 {
			other := []string{"engin", "part", "price"}
			r.siteR.SetSpace(rank.SpaceFromTerms("FSS", other, other, other))
		}
		addLink(&ev, phrase(3), phrase(12))
		r.sf.Link("http://from"+string(rune('a'+i%26))+".test", site)
		want := r.site(site, ev.Anchor, ev.Around, ev.SF)
		if got := r.siteMemo(site, ev, &m); got != want {
			t.Fatalf("link %d: memo score %v, want %v", i, got, want)
		}
		full = full || evidenceFull(ev)
	}
	if !full || m.space != r.siteR.Space() {
		t.Errorf("evidence never full (%d, %d bytes) or memo not kept", len(ev.Anchor), len(ev.Around))
	}
}

// BenchmarkSiteScore measures scoring a site whose evidence is full, as
// queueSites does at each new link to a popular site.
func BenchmarkSiteScore(b *testing.B) {
	topic := []string{"car", "auto", "dealer", "vehicl"}
	r := &rankers{siteR: rank.NewSiteRanker(0.5, rank.SpaceFromTerms("FSS", topic, topic, topic)), sf: rank.NewSiteFrequency()}
	var ev frontier.Evidence
	for !evidenceFull(ev) {
		addLink(&ev, "Used cars for sale", "browse the inventory of used vehicles and auto parts near you")
	}
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			r.site("http://cars.test", ev.Anchor, ev.Around, ev.SF)
		}
	})
	b.Run("memo", func(b *testing.B) {
		var m simMemo
		for b.Loop() {
			r.siteMemo("http://cars.test", ev, &m)
		}
	})
}
