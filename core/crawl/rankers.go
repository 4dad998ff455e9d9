package crawl

import (
	"strings"

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

// link scores an in-site link.
func (r *rankers) link(u, anchor, around string) float64 {
	return r.linkR.Score(rank.LinkFeatures(u, anchor, around))
}

// urlWords are the terms of a URL (host words carry topic signal).
func urlWords(u string) []string { return text.URLTerms(strings.TrimSuffix(u, "/")) }
