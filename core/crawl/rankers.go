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

// simMemo keeps a queued site's similarity under one FSS once the evidence
// of the links to it is full (addLink adds nothing more): a site many pages
// link to is scored again at every new link, and its evidence need not be
// tokenized and stemmed each time. 16 bytes per known site.
type simMemo struct {
	space *rank.Space
	sim   float64
}

// siteMemo is site for a site of the frontier whose evidence is ev, reusing
// and filling m.
func (r *rankers) siteMemo(site string, ev frontier.Evidence, m *simMemo) float64 {
	sp := r.siteR.Space()
	if sp == nil {
		return r.siteR.ScoreSimilarity(0, r.sf.SF(site))
	}
	if m.space != sp {
		sim := sp.Similarity(rank.SiteFeatures(site, ev.Anchor, ev.Around))
		if !evidenceFull(ev) {
			return r.siteR.ScoreSimilarity(sim, r.sf.SF(site))
		}
		m.space, m.sim = sp, sim
	}
	return r.siteR.ScoreSimilarity(m.sim, r.sf.SF(site))
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
