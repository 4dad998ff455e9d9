package crawl

import (
	"context"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/frontier"
)

// siteExploration is stage two for one site.
type siteExploration struct {
	t    *twoStage
	site string
	// queued holds the in-site URLs already pushed, so that the navigation
	// links every page repeats are ranked once.
	queued map[string]struct{}
}

// collectOut appends the out-of-site links of v.
func (x *siteExploration) collectOut(v *visited, outs []outLink) []outLink {
	for _, l := range v.Page.Links {
		if l.NoFollow {
			continue
		}
		s := canon.Site(l.URL)
		if s == "" || s == x.site {
			continue
		}
		outs = append(outs, outLink{site: s, anchor: l.Anchor, around: l.Before + " " + l.After, from: v.URL})
	}
	return outs
}

// inSite explores a relevant site breadth-first by depth through its link
// frontier (link tree with balanced merge, link ranker), under SC1–SC5.
// It returns the out-of-site links found and the pages, searchable forms and
// relevant forms it added.
func (x *siteExploration) inSite(ctx context.Context, home *visited, outs []outLink) ([]outLink, int, int, int, error) {
	e := x.t.e
	st := e.prof.Stop
	lf := frontier.NewLinkFrontier(x.site, e.db, frontier.LinkOptions{MaxPages: st.MaxPagesPerSite, MaxPerDepth: st.MaxPagesPerDepth, MaxDepth: st.MaxDepth})
	if _, err := lf.Load(); err != nil {
		return outs, 0, 0, 0, err
	}
	defer lf.Drain() // leftovers stay out of the store once the site is left
	if err := x.push(lf, home); err != nil {
		return outs, 0, 0, 0, err
	}
	var pages, forms, rel int
	var noFormTotal int
	depth, depthPages, depthForms, depthNoForm := -1, 0, 0, 0
	for {
		it, ok, err := lf.Next()
		if err != nil {
			return outs, pages, forms, rel, err
		}
		if !ok {
			break
		}
		if it.Depth != depth {
			depth, depthPages, depthForms, depthNoForm = it.Depth, 0, 0, 0
		}
		d := decodeLinkData(it.Data)
		v, err := e.visit(ctx, it.URL, d.Parent, it.Depth, nil)
		if err != nil {
			return outs, pages, forms, rel, err
		}
		if v.Dup {
			continue
		}
		pages++
		depthPages++
		n := v.searchable()
		forms += n
		rel += v.relevant()
		if n == 0 {
			depthNoForm++
			noFormTotal++
		} else {
			depthForms += n
		}
		if v.Page != nil {
			outs = x.collectOut(v, outs)
			x.learnFormsWith(v, d)
			if err := x.push(lf, v); err != nil {
				return outs, pages, forms, rel, err
			}
		}
		// SC5: too many pages without a searchable form on this site
		if st.MaxPagesNoForm > 0 && forms == 0 && noFormTotal >= st.MaxPagesNoForm {
			break
		}
		// SC3: enough forms at this depth; SC4: too many pages without forms at it
		if (st.MaxFormsPerDepth > 0 && depthForms >= st.MaxFormsPerDepth) ||
			(st.MaxPagesNoFormPerDepth > 0 && depthNoForm >= st.MaxPagesNoFormPerDepth) {
			if _, err := lf.SkipDepth(); err != nil {
				return outs, pages, forms, rel, err
			}
		}
	}
	return outs, pages, forms, rel, nil
}

// push queues the in-site links of v, ranked by the link ranker.
func (x *siteExploration) push(lf *frontier.LinkFrontier, v *visited) error {
	rk := x.t.rk
	if x.queued == nil {
		x.queued = map[string]struct{}{v.URL: {}}
	}
	for _, l := range v.Page.Links {
		if l.NoFollow || canon.Site(l.URL) != x.site {
			continue
		}
		if _, dup := x.queued[l.URL]; dup {
			continue
		}
		x.queued[l.URL] = struct{}{}
		d := linkData{Parent: v.URL, Anchor: l.Anchor, Around: l.Before + " " + l.After}
		it := frontier.Item{URL: l.URL, Site: x.site, Depth: v.Depth + 1, Score: rk.link(l.URL, d.Anchor, d.Around), Data: d.encode()}
		if _, err := lf.Push(it); err != nil {
			return err
		}
	}
	return nil
}

// learnForms feeds a page with relevant forms (reached from the homepage or
// from a link) to the adaptive link learner (FSL).
func (x *siteExploration) learnForms(v *visited) { x.learnFormsWith(v, linkData{}) }

func (x *siteExploration) learnFormsWith(v *visited, d linkData) {
	if !x.t.smart || v.relevant() == 0 {
		return
	}
	if x.t.rk.addFormPage(v.URL, d.Anchor, d.Around) {
		x.t.e.stats.learnForms.Add(1)
	}
}
