package crawl

import (
	"context"
	"net/url"

	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/store"
)

// generalProbes is the most queries core/probe adds to a form's probe:
// two words of the form's page when no topic term found records, up to
// three to check a topic-database decision against a general sample.
const generalProbes = 5

// probeForms probes the page's searchable forms whose domain the
// classifiers could not tell from the form's own text (SmartCrawler's
// future work, package probe), and with Options.ProbeRelevant those the
// text says are relevant, within the profile's probe budget. A
// decision overrides the form's relevance: a database of the topic is
// relevant, a generic site search or no database is not. The probes are
// recorded with the forms by the page's batch, which counts their queries.
func (e *Engine) probeForms(ctx context.Context, v *visited, body []byte, base *url.URL) {
	per := int64(e.prof.Probe.Queries)
	if e.deps.Prober == nil || per <= 0 || v.Page == nil {
		return
	}
	// a topic-database decision is checked with up to generalProbes
	// queries more (core/probe's general sample): reserved, so that the
	// budget holds
	per += generalProbes
	var tmpl *records.Template
	for i, fr := range v.Forms {
		if !fr.Searchable || v.formDecisions[i].DomainEvidence == form.LevelForm && !(e.opt.ProbeRelevant && fr.Relevant) {
			continue
		}
		if !e.reserveProbe(per) {
			return
		}
		if tmpl == nil {
			tmpl, _ = records.TemplateOf(body, base)
		}
		pr, err := e.deps.Prober.Probe(ctx, &v.Page.Forms[i], v.formDecisions[i], v.Page.Text, tmpl, e.deps.Pages)
		if err != nil {
			e.releaseProbes(per)
			e.probing.Add(-per)
			if ctx.Err() != nil {
				return
			}
			e.log.Debug("probe refused", "url", v.URL, "form", i, "err", err)
			continue
		}
		e.releaseProbes(per - int64(len(pr.Queries)))
		e.probing.Add(int64(len(pr.Queries)) - per)
		v.probeQueries += int64(len(pr.Queries))
		if v.probes == nil {
			v.probes = make([]*store.Probe, len(v.Forms))
		}
		v.probes[i] = pr
		v.Forms[i].Relevant = pr.Decision == store.ProbeTopicDatabase
	}
}

// reserveProbe reserves n probe queries of the profile's budget, counted
// over the crawl (the store's counter) and the probes under way.
func (e *Engine) reserveProbe(n int64) bool {
	if e.deps.ProbeBudget != nil {
		if !e.deps.ProbeBudget.ReserveProbes(n) {
			return false
		}
		e.probing.Add(n)
		return true
	}
	budget := int64(e.prof.Probe.Budget)
	for {
		cur := e.probing.Load()
		if budget > 0 && e.stats.get(cProbes)+cur+n > budget {
			return false
		}
		if e.probing.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// releaseProbes gives n reserved probe queries that were not sent back to
// a shared probe budget.
func (e *Engine) releaseProbes(n int64) {
	if e.deps.ProbeBudget != nil && n > 0 {
		e.deps.ProbeBudget.ReleaseProbes(n)
	}
}
