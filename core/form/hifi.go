package form

import (
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// Decision is HIFI's verdict on one form.
type Decision struct {
	// Searchable: the form is an entry point to the site's own hidden
	// database (the SFC says search form, and it is not an external
	// search-engine box).
	Searchable  bool    `json:"searchable"`
	PSearchable float64 `json:"p_searchable"` // SFC probability of a search form
	Kind        string  `json:"kind"`         // one of Kinds or KindExternal
	PKind       float64 `json:"p_kind"`       // probability of Kind (the SFC's for search/external)
	Domain      string  `json:"domain,omitempty"`
	PDomain     float64 `json:"p_domain,omitempty"`
	// Relevant: searchable and, by the domain step's evidence
	// ([DSFC.Decide]), in the target domain, or with no target in one of
	// the classifier's domains.
	Relevant bool `json:"relevant"`
	// DomainEvidence is the evidence that decided the domain: "form",
	// "page", "site", or "" when there was none (see [DSFC.Decide]). Domain
	// is then [NoDomain].
	DomainEvidence string   `json:"domain_evidence,omitempty"`
	Reasons        []string `json:"reasons"` // the tests and rules that drove the decision
}

// HIFI is the hierarchical form classifier of Barbosa & Freire (2007) as
// SmartCrawler uses it: the SFC decides whether a form is searchable, then
// the DSFC whether a searchable form is in the domain. It is safe for
// concurrent use.
type HIFI struct {
	Model        *Model
	Domain       string  // target domain; "" = best of the twelve
	MinSearch    float64 // P(searchable) threshold (default 0.5)
	NoDomainStep bool    // skip the DSFC (faster when domains do not matter)
	// steps caches the first step by form content (made on first use).
	steps atomic.Pointer[stepCache]
	// noSteps turns the cache off (benchmarks of the classifier itself).
	noSteps bool
}

// NewHIFI returns a classifier over m (the embedded default when nil) for
// the target domain ("" for any).
func NewHIFI(m *Model, domain string) (*HIFI, error) {
	if m == nil {
		var err error
		if m, err = Default(); err != nil {
			return nil, err
		}
	}
	if domain != "" && m.DSFC != nil && !contains(m.DSFC.Domains(), domain) {
		return nil, fmt.Errorf("hifi: unknown domain %q (have %s)", domain, strings.Join(m.DSFC.Domains(), ", "))
	}
	return &HIFI{Model: m, Domain: domain, MinSearch: 0.5}, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// maxReasons bounds the reasons reported per decision (the tree's tests
// from the root down, then the rule or domain step).
const maxReasons = 8

// Classify decides on one form with no evidence but its page's host ("" if
// unknown), which tells an engine's own search form from an external
// engine box: [HIFI.ClassifyIn] with Evidence{PageHost: pageHost}.
func (h *HIFI) Classify(f *page.Form, pageHost string) Decision {
	return h.ClassifyIn(f, Evidence{PageHost: pageHost})
}

// ClassifyIn decides on one form with the evidence of its page and site
// (see [DSFC.Decide] for how the domain step uses it).
func (h *HIFI) ClassifyIn(f *page.Form, ev Evidence) Decision {
	d := h.SearchStep(f, ev.PageHost)
	h.DomainStep(f, ev, &d)
	return d
}

// SearchStep is HIFI's first step alone: whether f is searchable (the SFC
// and the external-engine rule, pageHost as in [HIFI.Classify]) or else
// its kind. [HIFI.DomainStep] completes the decision; a caller that needs
// no domain for a form (a searchable form it already knows) may skip it.
func (h *HIFI) SearchStep(f *page.Form, pageHost string) Decision {
	var d Decision
	minS := h.MinSearch
	if minS <= 0 {
		minS = 0.5
	}
	s := h.step(f)
	p, why := s.p, s.why
	if p >= minS && !s.fillable {
		// nothing to type or choose: a button that submits hidden values
		// (compare revisions, log out, add to cart) queries nothing
		why, p = append([]string{"no field to fill in or choose"}, why...), 0
	}
	if p >= minS && s.options != "" {
		// a page's language, layout or list options, or a jump to a
		// section: choices about showing pages, not a query of the database
		why, p = append([]string{s.options}, why...), 0
	}
	d.PSearchable = p
	d.Reasons = firstN(why, maxReasons-1)
	if p >= minS {
		d.Kind, d.PKind = KindSearch, p
		if ext, reason := External(f, pageHost); ext {
			d.Kind = KindExternal
			d.Reasons = append([]string{reason}, d.Reasons...)
			return d
		}
		d.Searchable = true
	} else {
		d.Kind, d.PKind = KindOther, 1-p
		// a page-options form is Other (display options, navigation),
		// whatever kind its words are closest to
		if h.Model.Kinds != nil && s.options == "" {
			d.Kind, d.PKind = s.nsKind, s.nsP
		}
	}
	return d
}

// DomainStep completes d, the [HIFI.SearchStep] of f, with the domain of a
// searchable form (the DSFC with the evidence of its page and site).
func (h *HIFI) DomainStep(f *page.Form, ev Evidence, d *Decision) {
	if !d.Searchable || h.NoDomainStep || h.Model.DSFC == nil {
		return
	}
	v := h.Model.DSFC.Decide(f, ev, h.Domain)
	d.Domain, d.PDomain, d.Relevant, d.DomainEvidence = v.Domain, v.P, v.Relevant, v.Level
	d.Reasons = append(d.Reasons, "domain "+v.Domain+": "+v.Reason)
}

// step returns the first step on f, from the cache when f was seen.
func (h *HIFI) step(f *page.Form) searchStep {
	if h.noSteps {
		return h.computeStep(f)
	}
	c := h.steps.Load()
	if c == nil {
		h.steps.CompareAndSwap(nil, newStepCache())
		c = h.steps.Load()
	}
	return c.step(h.Model, f, h.computeStep)
}

// bestNonSearch returns the most probable kind other than search, with
// its probability renormalised over the non-search kinds.
func (h *HIFI) bestNonSearch(a *analysis) (string, float64) {
	_, _, p := h.Model.Kinds.kind(a)
	best, bp, rest := KindOther, -1.0, 0.0
	for i, c := range h.Model.Kinds.Tree.Classes {
		if c == KindSearch {
			continue
		}
		rest += p[i]
		if p[i] > bp {
			best, bp = c, p[i]
		}
	}
	if rest > 0 {
		bp /= rest
	}
	return best, bp
}

// ClassifyPage decides on every form of a page, with the page as their
// evidence.
func (h *HIFI) ClassifyPage(p *page.Page) []Decision {
	ev := PageEvidence(p)
	out := make([]Decision, len(p.Forms))
	for i := range p.Forms {
		out[i] = h.ClassifyIn(&p.Forms[i], ev)
	}
	return out
}

// PageEvidence returns the evidence a page gives its forms: its host,
// title and text.
func PageEvidence(p *page.Page) Evidence {
	ev := Evidence{PageTitle: p.Title, PageText: p.Text}
	if u, err := url.Parse(p.URL); err == nil {
		ev.PageHost = u.Hostname()
	}
	return ev
}

func firstN(xs []string, n int) []string {
	if len(xs) > n {
		xs = xs[:n]
	}
	return append([]string(nil), xs...)
}

// fillable reports whether f has a control a user types into or chooses
// with (text-like inputs, selects, text areas, checkboxes, radio buttons):
// a form without one cannot take a query.
func fillable(f *page.Form) bool {
	for _, fl := range f.Fields {
		switch fl.Type {
		case "hidden", "submit", "button", "reset", "image":
		default:
			return true
		}
	}
	return false
}
