package form

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// Evidence is what is known around a form besides its own markup: the page
// that holds it and, when the crawl has judged it, its site. The domain
// step reads the form's own text first and borrows from the page, then
// from the site, only when the form's text says nothing about a domain (a
// bare "Search" box).
type Evidence struct {
	// PageHost is the host of the page ("" if unknown); it tells an
	// engine's own search form from an external engine box.
	PageHost string
	// PageTitle and PageText are the page's title and visible text (the
	// first maxPageText bytes are read).
	PageTitle, PageText string
	// SiteP is the site classifier's probability that the site is on the
	// crawl's topic, judged on its homepage; SiteKnown says it was judged.
	SiteP     float64
	SiteKnown bool
}

// Evidence levels, in the order the domain step consults them.
const (
	LevelForm = "form" // the form's text and the text just before it (its heading)
	LevelPage = "page" // the page: title, page text, host name
	LevelSite = "site" // the site classifier's verdict on the site's homepage
)

// Thresholds are the calibrated minimum one-vs-rest probabilities for a
// class to count as evidence at each level.
type Thresholds struct {
	Form float64 `json:"form"`
	Page float64 `json:"page"`
}

func (t Thresholds) at(level string) float64 {
	if level == LevelPage {
		return t.Page
	}
	return t.Form
}

func (t Thresholds) String() string { return fmt.Sprintf("form %.2f, page %.2f", t.Form, t.Page) }

// DefaultLevels are the level thresholds of a domain classifier not
// calibrated on real forms ([DSFC.CalibrateLevels]).
var DefaultLevels = Thresholds{Form: 0.5, Page: 0.5}

// defaultMin is the threshold of a class the model has no calibration for
// (models trained before calibration existed).
const defaultMin = 0.5

// min returns the threshold of class c at a level: its own, raised to the
// level's for a domain class.
func (d *DSFC) min(c, level string) float64 {
	t, ok := d.Min[c]
	if !ok {
		return defaultMin
	}
	if c == OtherDomain {
		return t.at(level)
	}
	return max(t.at(level), d.Levels.at(level))
}

// levelScores are the per-class one-vs-rest probabilities of one evidence
// level, nil when none of its terms is in the vocabulary.
type levelScores struct {
	level string
	p     []float64
}

// score returns the one-vs-rest probabilities of a bag of terms, or nil
// when none of them is known.
func (d *DSFC) score(terms []string) []float64 {
	x := d.Vec.Transform(terms)
	if x.Len() == 0 {
		return nil
	}
	if len(d.SVM.Models) == 1 {
		return d.SVM.Probs(x)
	}
	p := make([]float64, len(d.SVM.Models))
	for i, m := range d.SVM.Models {
		p[i] = m.Prob(x)
	}
	return p
}

// PageTerms returns the terms of the page evidence of a form: the page
// title, the text just before the form, the page text and the host name
// of the action ([URLTerms]: "usedcars.example" gives "use", "car").
func PageTerms(f *page.Form, ev Evidence) []string {
	ts := text.Terms(ev.PageTitle + " " + f.Context + " " + capBytes(ev.PageText, maxPageText))
	if u, err := url.Parse(f.Action); err == nil && u.Host != "" {
		ts = append(ts, URLTerms(u.Scheme+"://"+u.Host)...)
	}
	return ts
}

// FormEvidenceTerms returns the terms of the form level of the domain
// step: the form's own terms ([OwnTerms]) and the text just before it (a
// heading such as "Search used cars", or a menu).
func FormEvidenceTerms(f *page.Form) []string {
	return append(OwnTerms(f), text.Terms(f.Context)...)
}

// OwnTerms returns the terms of the form's own evidence: its own text
// ([OwnText]) and the path of its action URL. The host name is page
// evidence: it names the site, not the form, and split on domain words it
// also yields words no one wrote ("independent" gives "end", a route form's
// label).
func OwnTerms(f *page.Form) []string {
	ts := text.Terms(OwnText(f))
	if u, err := url.Parse(f.Action); err == nil {
		ts = append(ts, URLTerms(u.Path)...)
	}
	return ts
}

// DomainVerdict is the domain step's decision on one searchable form.
type DomainVerdict struct {
	// Domain is the domain decided: one of the classifier's domains, or
	// [NoDomain] when the evidence says out of domain or there is none.
	Domain string
	// P is the evidence's probability of Domain (of the best class when
	// Domain is NoDomain; 0 with no evidence at all).
	P float64
	// Relevant: in the target domain (with a target), or in any domain.
	Relevant bool
	// Level is the evidence that decided: LevelForm, LevelPage, LevelSite,
	// or "" when no level had evidence.
	Level  string
	Reason string
}

// Decide runs the domain step on a searchable form: the first evidence
// level that carries evidence decides, in the order form, page, site: the
// nearer the evidence, the more it says about the form. A level carries evidence when some class's one-vs-rest probability
// reaches its calibrated threshold ([DSFC.Calibrate],
// [DSFC.CalibrateLevels]); the best such class is the level's domain
// ([NoDomain] for the out-of-domain class, which only the page can say: a form whose own text is like no domain's has no evidence
// of its own). With a target, the form is relevant when the target is the
// deciding level's domain, or, at the form level, when the target's own
// probability reaches its threshold. With no form or page evidence and a
// target, the site classifier's verdict on the site decides.
func (d *DSFC) Decide(f *page.Form, ev Evidence, target string) DomainVerdict {
	return d.decide(d.evidence(f, ev), ev, target)
}

// formScores are the per-class probabilities of a form's evidence levels
// (nil: no known term at that level).
type formScores struct{ form, page []float64 }

func (d *DSFC) evidence(f *page.Form, ev Evidence) formScores {
	return formScores{form: d.score(FormEvidenceTerms(f)), page: d.score(PageTerms(f, ev))}
}

func (d *DSFC) decide(s formScores, ev Evidence, target string) DomainVerdict {
	ti := -1
	if target != "" {
		ti = d.classIndex(target)
	}
	for _, l := range [...]struct {
		level string
		p     []float64
	}{{LevelForm, s.form}, {LevelPage, s.page}} {
		p := l.p
		if p == nil {
			continue
		}
		best, bp := -1, 0.0
		for i, c := range d.SVM.Classes {
			if c == OtherDomain && l.level == LevelForm {
				// A form that looks like no domain's (a bare "Search" box
				// under a menu) has no evidence of its own: the page decides.
				// Only the page as a whole says "out of domain".
				continue
			}
			if p[i] >= d.min(c, l.level) && p[i] > bp {
				best, bp = i, p[i]
			}
		}
		if best < 0 && ti >= 0 {
			// No class is sure. With a target, a domain that leads every
			// class, the out-of-domain one included, with at least its own
			// calibrated threshold decides: the target's probability is low
			// when a neighbour shares its words (car rental shares "car"
			// with auto and "rental" with apartment), and a form that leans
			// to another domain is not the target's for what its page says.
			if li := d.leader(p, l.level); li >= 0 {
				c := d.SVM.Classes[li]
				return DomainVerdict{Level: l.level, Domain: c, P: p[li], Relevant: li == ti,
					Reason: fmt.Sprintf("%s evidence: %s p=%.2f leads every class (its own threshold %.2f)", l.level, c, p[li], d.Min[c].at(l.level))}
			}
		}
		if best < 0 {
			continue
		}
		v := DomainVerdict{Level: l.level, Domain: d.SVM.Classes[best], P: bp}
		if v.Domain == OtherDomain {
			v.Domain = NoDomain
		}
		switch {
		case ti >= 0 && l.level == LevelForm:
			// A form's own fields may look like a neighbour's (car rental
			// and airfare forms share places and dates): the target's own
			// evidence suffices. Around the form, on a page about several
			// domains (a travel portal), only the best domain is the form's.
			v.Relevant = p[ti] >= d.min(target, l.level)
			if v.Relevant {
				v.Domain, v.P = target, p[ti]
			}
		case ti >= 0:
			v.Relevant = best == ti
		default:
			v.Relevant = v.Domain != NoDomain
		}
		v.Reason = fmt.Sprintf("%s evidence: %s p=%.2f (threshold %.2f)", l.level, d.SVM.Classes[best], bp, d.min(d.SVM.Classes[best], l.level))
		if ti >= 0 && best != ti {
			v.Reason += fmt.Sprintf("; %s p=%.2f (threshold %.2f)", target, p[ti], d.min(target, l.level))
		}
		return v
	}
	if target != "" && ev.SiteKnown {
		v := DomainVerdict{Level: LevelSite, P: ev.SiteP, Domain: NoDomain}
		v.Relevant = ev.SiteP > siteMin
		if v.Relevant {
			v.Domain = target
		}
		v.Reason = fmt.Sprintf("no domain evidence in form or page; site classifier p=%.2f for %s", ev.SiteP, target)
		return v
	}
	return DomainVerdict{Domain: NoDomain, Reason: "no domain evidence in form or page"}
}

// leader returns the domain class with the highest probability of p if it
// reaches its own (synthetic) threshold at the level, else -1.
func (d *DSFC) leader(p []float64, level string) int {
	b := 0
	for j := range p {
		if p[j] > p[b] {
			b = j
		}
	}
	c := d.SVM.Classes[b]
	if t, ok := d.Min[c]; !ok || c == OtherDomain || p[b] < t.at(level) {
		return -1
	}
	return b
}

// siteMin is the site-classifier probability above which a site vouches
// for a form without evidence of its own (the site classifier's own
// threshold).
const siteMin = 0.5

func (d *DSFC) classIndex(c string) int {
	for i, x := range d.SVM.Classes {
		if x == c {
			return i
		}
	}
	return -1
}

// CalibrationOptions tune [DSFC.Calibrate].
type CalibrationOptions struct {
	// MaxFPR is the largest share of out-of-class examples a class's
	// threshold may let through at each level (default 0.02).
	MaxFPR float64
	// Floor is the lowest threshold allowed (default 0.3): below it a
	// probability says too little to stand as evidence.
	Floor float64
}

// Calibrate sets the per-class thresholds of each evidence level from
// held-out labelled forms (not those the classifier was trained on) and
// off-topic page texts (labelled [OtherDomain]): a class's form threshold
// is the smallest probability that at most MaxFPR of the held-out forms of
// other classes reach at the form level, its page threshold the same on
// the text around them and on the off-topic texts (a Neyman–Pearson
// choice: a bounded rate of false evidence, as much true evidence as that
// allows). It returns each class's recall at both levels on the held-out
// forms, for reports.
func (d *DSFC) Calibrate(held []DomainExample, offTopic []string, opt CalibrationOptions) map[string]Thresholds {
	if opt.MaxFPR <= 0 {
		opt.MaxFPR = 0.02
	}
	if opt.Floor <= 0 {
		opt.Floor = 0.3
	}
	type scored struct {
		class int
		p     []float64
	}
	// A generated form's text around it stands for its page.
	var form, pg []scored
	for i := range held {
		e := &held[i]
		c := d.classIndex(e.Domain)
		if c < 0 {
			continue
		}
		if p := d.score(FormEvidenceTerms(&e.Form)); p != nil {
			form = append(form, scored{c, p})
		}
		if p := d.score(text.Terms(e.Form.Context)); p != nil {
			pg = append(pg, scored{c, p})
		}
	}
	other := d.classIndex(OtherDomain)
	for _, t := range offTopic {
		if p := d.score(text.Terms(t)); p != nil && other >= 0 {
			pg = append(pg, scored{other, p})
		}
	}
	threshold := func(xs []scored, c int) (float64, float64) {
		var neg, pos []float64
		for _, x := range xs {
			if x.class == c {
				pos = append(pos, x.p[c])
			} else {
				neg = append(neg, x.p[c])
			}
		}
		t := opt.Floor
		if len(neg) > 0 {
			sort.Float64s(neg)
			// the smallest t with #{neg ≥ t} ≤ MaxFPR·len(neg)
			k := int(math.Floor(opt.MaxFPR * float64(len(neg))))
			t = max(t, math.Nextafter(neg[len(neg)-1-k], 2))
		}
		n := 0
		for _, p := range pos {
			if p >= t {
				n++
			}
		}
		recall := 0.0
		if len(pos) > 0 {
			recall = float64(n) / float64(len(pos))
		}
		return t, recall
	}
	d.Min = make(map[string]Thresholds, len(d.SVM.Classes))
	recall := make(map[string]Thresholds, len(d.SVM.Classes))
	for c, name := range d.SVM.Classes {
		var t, r Thresholds
		t.Form, r.Form = threshold(form, c)
		t.Page, r.Page = threshold(pg, c)
		d.Min[name] = t
		recall[name] = r
	}
	return recall
}

// labelledForm is a real search form with its hand-labelled domain and
// its evidence scores.
type labelledForm struct {
	ex     *Example
	domain string
	s      formScores
}

// labelled pairs the search forms of ex with their labels (forms without a
// label are left out).
func labelled(ex []Example, labels []DomainLabel) []labelledForm {
	lab := make(map[string]string, len(labels))
	for _, l := range labels {
		lab[l.Page+"#"+strconv.Itoa(l.Form)] = l.Domain
	}
	var out []labelledForm
	for i := range ex {
		e := &ex[i]
		if e.Kind != KindSearch {
			continue
		}
		if d, ok := lab[e.File+"#"+strconv.Itoa(e.Form.Index)]; ok {
			out = append(out, labelledForm{ex: e, domain: d})
		}
	}
	return out
}

// levelGrid are the candidate level thresholds of [DSFC.CalibrateLevels].
var levelGrid = []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98}

// CalibrateLevels sets the level thresholds (d.Levels) from real search
// forms labelled with their domain: among the candidate pairs (form, page)
// it keeps the one that marks the most in-domain forms relevant to their
// own domain (with no target) while marking at most maxOut of the
// out-of-domain forms relevant to some domain; ties go to the pair
// with the fewer out-of-domain forms, then the higher thresholds. The
// probabilities come from the synthetic training forms, the real forms only
// say how much of them to trust as evidence. It returns the rates reached.
func (d *DSFC) CalibrateLevels(ex []Example, labels []DomainLabel, maxOut float64) (out, in DomainCount) {
	forms := labelled(ex, labels)
	for i := range forms {
		forms[i].s = d.evidence(&forms[i].ex.Form, forms[i].ex.DomainEvidence())
	}
	top := levelGrid[len(levelGrid)-1]
	best := Thresholds{Form: top, Page: top}
	bestOut, bestIn := DomainCount{}, DomainCount{K: -1}
	for _, tf := range levelGrid {
		for _, tp := range levelGrid {
			d.Levels = Thresholds{Form: tf, Page: tp}
			o, n := d.rates(forms)
			if o.Rate() > maxOut {
				continue
			}
			if n.K > bestIn.K || n.K == bestIn.K && o.K <= bestOut.K {
				best, bestOut, bestIn = d.Levels, o, n
			}
		}
	}
	d.Levels = best
	if bestIn.K < 0 {
		// No candidate keeps the bound: the highest thresholds come closest.
		bestOut, bestIn = d.rates(forms)
	}
	return bestOut, bestIn
}

// rates counts the out-of-domain forms marked relevant and the in-domain
// forms marked relevant to their domain, with no target.
func (d *DSFC) rates(forms []labelledForm) (out, in DomainCount) {
	for _, f := range forms {
		v := d.decide(f.s, f.ex.DomainEvidence(), "")
		if f.domain == NoDomain {
			out.N++
			if v.Relevant {
				out.K++
			}
			continue
		}
		in.N++
		if v.Relevant && v.Domain == f.domain {
			in.K++
		}
	}
	return out, in
}
