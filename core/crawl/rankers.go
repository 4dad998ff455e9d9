package crawl

import (
	"strings"

	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// rankers bundles the site ranker (stage one), the link ranker (stage two),
// the site-frequency counts and, for smartcrawler, the adaptive learner.
type rankers struct {
	siteR *rank.SiteRanker
	linkR *rank.LinkRanker
	sf    *rank.SiteFrequency
	learn *learner // nil: no adaptive learning (scdi)
}

// profileTerms turns profile phrases into terms.
func profileTerms(phrases ...[]string) []string {
	var out []string
	for _, ps := range phrases {
		for _, p := range ps {
			out = append(out, text.Terms(p)...)
		}
	}
	return out
}

func newRankers(e *Engine, smart bool) (*rankers, error) {
	p := e.prof
	topic := profileTerms(p.Keywords, p.Site.Keywords)
	var seedTerms []string
	for _, s := range e.opt.Seeds {
		seedTerms = append(seedTerms, text.URLTerms(s)...)
	}
	fss := rank.SpaceFromTerms("FSS", append(append([]string{}, topic...), seedTerms...), topic, topic)
	linkTopic := profileTerms(p.Link.Keywords, p.Forms.Keywords)
	fsl := rank.SpaceFromTerms("FSL", append(append([]string{}, linkTopic...), profileTerms(p.Keywords)...), linkTopic, append(linkTopic, profileTerms(p.Keywords)...))
	r := &rankers{siteR: rank.NewSiteRanker(p.Rank.Alpha, fss), linkR: rank.NewLinkRanker(fsl), sf: rank.NewSiteFrequency()}
	if smart {
		l, err := newLearner(e, r)
		if err != nil {
			return nil, err
		}
		r.learn = l
	}
	return r, nil
}

// site scores a site key with the evidence of the links to it.
func (r *rankers) site(site, anchors, around string, _ int) float64 {
	return r.siteR.Score(rank.SiteFeatures(site, anchors, around), r.sf.SF(site))
}

// simMemo keeps what scoring a queued site again needs of the evidence of
// the links to it (a site many pages link to is scored again at every new
// link): its terms, stemmed as the links come, so that the whole evidence
// is not tokenized and stemmed each time; and under one FSS the cosines of
// the site's URL and, once full (addLink adds nothing more), of its anchors
// and of its text. The terms, joined by spaces, take about the bytes of the
// evidence's own text while it fills (under 600 per context per queued
// site): the terms of a full context are dropped once its cosine is known
// (a new FSS stems its text again), and all go when the site is explored
// (a queued site holds about 100 bytes more, an explored one nothing).
type simMemo struct {
	// anchor and around are text.Terms of the evidence's anchors and text,
	// joined by spaces; "" for a full context whose cosine was computed.
	anchor, around string
	space          *rank.Space // the FSS of cos
	cos            [3]float64  // by rank context, valid where known is set
	known          [3]bool
}

// added keeps the terms of what addLink added to an evidence that held
// before: the anchor and text of one more link.
func (m *simMemo) added(before frontier.Evidence, anchor, around string) {
	// addLink appends " "+anchor to the anchors: tokens never span the
	// space, so the terms of the whole are the terms of the parts, in order
	if len(before.Anchor) < maxEvidence {
		m.anchor = appendTerms(m.anchor, anchor)
	}
	if len(before.Around) < maxEvidence {
		m.around = appendTerms(m.around, around)
	}
}

// appendTerms appends the terms of s to the space-separated terms ts.
func appendTerms(ts, s string) string {
	terms := text.Terms(s)
	if len(terms) == 0 {
		return ts
	}
	n := len(ts) + len(terms)
	for _, t := range terms {
		n += len(t)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(ts)
	for _, t := range terms {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// keptTerms returns the terms of the evidence text s, kept space-separated
// in *kept while s fills; once s is full (addLink adds nothing more) they
// are dropped, and its terms are those of s itself. ("" kept for a full s
// is either: its terms are those of s.)
func keptTerms(kept *string, s string) []string {
	if len(s) < maxEvidence {
		return strings.Fields(*kept)
	}
	if *kept == "" {
		return text.Terms(s)
	}
	ts := strings.Fields(*kept)
	*kept = "" // its cosine is kept from now on
	return ts
}

// siteMemo is site for a site of the frontier whose evidence is ev, reusing
// and filling m (which holds the terms of ev, see added).
func (r *rankers) siteMemo(site string, ev frontier.Evidence, m *simMemo) float64 {
	sp := r.siteR.Space()
	if sp == nil {
		return r.siteR.ScoreSimilarity(0, r.sf.SF(site))
	}
	if m.space != sp {
		m.space, m.known = sp, [3]bool{}
	}
	// the cosines of rank.SiteFeatures(site, ev.Anchor, ev.Around), from
	// the terms kept, summed as Space.Similarity sums them
	if !m.known[rank.ContextURL] {
		m.cos[rank.ContextURL], m.known[rank.ContextURL] = sp.Cosine(rank.ContextURL, text.URLTerms(site)), true
	}
	if !m.known[rank.ContextAnchor] {
		m.cos[rank.ContextAnchor] = sp.Cosine(rank.ContextAnchor, keptTerms(&m.anchor, ev.Anchor))
		m.known[rank.ContextAnchor] = len(ev.Anchor) >= maxEvidence
	}
	if !m.known[rank.ContextText] {
		m.cos[rank.ContextText] = sp.Cosine(rank.ContextText, keptTerms(&m.around, ev.Around))
		m.known[rank.ContextText] = len(ev.Around) >= maxEvidence
	}
	sim := m.cos[rank.ContextURL] + m.cos[rank.ContextAnchor] + m.cos[rank.ContextText]
	return r.siteR.ScoreSimilarity(sim, r.sf.SF(site))
}

// evidenceFull reports whether addLink leaves ev's anchors and text as they
// are.
func evidenceFull(ev frontier.Evidence) bool {
	return len(ev.Anchor) >= maxEvidence && len(ev.Around) >= maxEvidence
}

// link scores an in-site link.
func (r *rankers) link(u, anchor, around string) float64 {
	return r.linkR.Score(rank.LinkFeatures(u, anchor, around))
}

// urlWords are the terms of a URL (host words carry topic signal).
func urlWords(u string) []string { return text.URLTerms(strings.TrimSuffix(u, "/")) }
