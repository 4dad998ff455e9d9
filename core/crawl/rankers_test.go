package crawl

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// TestSiteMemo checks that the memoised site score equals the full one as
// the evidence of the links to a site grows past full, as its site
// frequency changes and after the FSS is replaced.
func TestSiteMemo(t *testing.T) {
	seed := uint64(19)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	// camelCase, acronyms, digits, non-ASCII and empty anchors: the terms
	// kept link by link must be those of the whole evidence
	words := strings.Fields("used cars dealer auto parts engine price search inventory vehicles home about contact blog news trucks sedan UsedCars HTTPServer mp3 4x4 Café ÉCOLE the of a")
	words = append(words, "", " ", "\u00a0", "x")
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
	for i := 0; i < 150; i++ {
		if i == 100 {
			other := []string{"engin", "part", "price"}
			r.siteR.SetSpace(rank.SpaceFromTerms("FSS", other, other, other))
		}
		before, anchor, around := ev, phrase(rng.IntN(4)), phrase(rng.IntN(14))
		addLink(&ev, anchor, around)
		m.added(before, anchor, around)
		// the terms are kept while the context fills; once it is full and
		// scored, they are dropped
		if got, want := strings.Fields(m.anchor), text.Terms(ev.Anchor); !slices.Equal(got, want) && (len(ev.Anchor) < maxEvidence || m.anchor != "") {
			t.Fatalf("link %d: anchor terms kept %q, of the evidence %q", i, got, want)
		}
		if got, want := strings.Fields(m.around), text.Terms(ev.Around); !slices.Equal(got, want) && (len(ev.Around) < maxEvidence || m.around != "") {
			t.Fatalf("link %d: text terms kept %q, of the evidence %q", i, got, want)
		}
		r.sf.Link("http://from"+string(rune('a'+i%26))+".test", site)
		want := r.site(site, ev.Anchor, ev.Around, ev.SF)
		if got := r.siteMemo(site, ev, &m); got != want {
			t.Fatalf("link %d: memo score %v, want %v", i, got, want)
		}
		full = full || evidenceFull(ev)
	}
	if !full || m.space != r.siteR.Space() || m.known != [3]bool{true, true, true} || m.anchor != "" || m.around != "" {
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

// BenchmarkSiteScoreGrowing measures scoring a site at each of the links
// that fill its evidence, as stageSites does: from the whole evidence each
// time (rescan) or from the terms kept link by link (memo).
func BenchmarkSiteScoreGrowing(b *testing.B) {
	topic := []string{"car", "auto", "dealer", "vehicl"}
	r := &rankers{siteR: rank.NewSiteRanker(0.5, rank.SpaceFromTerms("FSS", topic, topic, topic)), sf: rank.NewSiteFrequency()}
	const anchor, around = "Used cars for sale", "browse the inventory of used vehicles and auto parts near you"
	b.Run("rescan", func(b *testing.B) {
		for b.Loop() {
			var ev frontier.Evidence
			for !evidenceFull(ev) {
				addLink(&ev, anchor, around)
				r.site("http://cars.test", ev.Anchor, ev.Around, ev.SF)
			}
		}
	})
	b.Run("memo", func(b *testing.B) {
		for b.Loop() {
			var ev frontier.Evidence
			var m simMemo
			for !evidenceFull(ev) {
				before := ev
				addLink(&ev, anchor, around)
				m.added(before, anchor, around)
				r.siteMemo("http://cars.test", ev, &m)
			}
		}
	})
}
