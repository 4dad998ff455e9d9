package form

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/learn"
)

// NoDomain is the domain label of a search form whose database is in
// none of the twelve domains (a forum's, a news site's or a university's
// site search).
const NoDomain = "none"

// DomainLabel is a hand label: the domain of the database behind one form
// of a page of a Formasaurus-layout folder.
type DomainLabel struct {
	Page   string // page file, as in index.json ("html/…")
	Form   int    // form index on the page
	Domain string // one of domain.BuiltIn, or NoDomain
	Note   string
}

// LoadDomainLabels reads a label file: tab-separated lines "page, form
// index, Formasaurus label, domain, note"; "#" starts a comment line.
func LoadDomainLabels(path string) ([]DomainLabel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("domain labels: %w", err)
	}
	defer f.Close()
	known := map[string]bool{NoDomain: true}
	for _, d := range domain.BuiltIn {
		known[d] = true
	}
	var out []DomainLabel
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		c := strings.Split(t, "\t")
		if len(c) < 4 {
			return nil, fmt.Errorf("%s:%d: want page, form, label, domain[, note]", path, line)
		}
		i, err := strconv.Atoi(c[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: form index %q: %w", path, line, c[1], err)
		}
		if !known[c[3]] {
			return nil, fmt.Errorf("%s:%d: unknown domain %q", path, line, c[3])
		}
		l := DomainLabel{Page: c[0], Form: i, Domain: c[3]}
		if len(c) > 4 {
			l.Note = c[4]
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("domain labels: %w", err)
	}
	return out, nil
}

// DomainCount is a fraction k/n.
type DomainCount struct {
	K int `json:"k"`
	N int `json:"n"`
}

// Rate is K/N (0 when N is 0).
func (c DomainCount) Rate() float64 {
	if c.N == 0 {
		return 0
	}
	return float64(c.K) / float64(c.N)
}

func (c DomainCount) String() string { return fmt.Sprintf("%d/%d = %.3f", c.K, c.N, c.Rate()) }

// DomainReport scores the domain step on labelled search forms.
type DomainReport struct {
	// Forms are the labelled search forms scored (Formasaurus label "s",
	// with a domain label), Searchable those the SFC also finds searchable:
	// the domain step only sees those.
	Forms, Searchable int
	// AnyOut: out-of-domain forms that the classifier without a target
	// domain marks relevant to one of the twelve; AnyIn: in-domain forms it
	// marks relevant to their own domain.
	AnyOut, AnyIn DomainCount
	// TargetOut: over the twelve targets, out-of-domain forms marked
	// relevant to the target; TargetIn: forms of the target's domain marked
	// relevant to it. Per target in ByTarget.
	TargetOut, TargetIn DomainCount
	ByTarget            map[string][2]DomainCount `json:"by_target"`
	// ByEvidence counts the searchable forms by the evidence level that
	// decided their domain ("" for none).
	ByEvidence map[string]int `json:"by_evidence"`
	// Folds and Levels: with cross-validation, the folds and each fold's
	// calibrated level thresholds.
	Folds  int          `json:"folds,omitempty"`
	Levels []Thresholds `json:"levels,omitempty"`
	// Misses lists wrong decisions of the classifier without a target.
	Misses []string `json:"misses,omitempty"`
}

// DomainEvidence returns the page evidence of an example.
func (e *Example) DomainEvidence() Evidence {
	return Evidence{PageHost: e.Host, PageTitle: e.Title, PageText: e.Text}
}

// EvaluateDomains scores the domain step of m on the search forms of ex
// that carry a label: without a target domain, and for each of the twelve
// as the target. Forms the SFC misses are left out (they never reach the
// domain step); Searchable says how many remain.
func EvaluateDomains(m *Model, ex []Example, labels []DomainLabel) (*DomainReport, error) {
	r := newDomainReport()
	if err := r.add(m, labelled(ex, labels)); err != nil {
		return nil, err
	}
	r.finish()
	return r, nil
}

// DomainCrossValidate scores the calibration of the level thresholds
// ([DSFC.CalibrateLevels], at most maxOut out-of-domain forms marked
// relevant) by k-fold cross-validation grouped by host: each fold is scored
// with thresholds calibrated on the other folds only.
func DomainCrossValidate(m *Model, ex []Example, labels []DomainLabel, k int, maxOut float64, seed uint64) (*DomainReport, error) {
	forms := labelled(ex, labels)
	ls := make([]string, len(forms))
	groups := make([]string, len(forms))
	for i, f := range forms {
		ls[i], groups[i] = f.domain, f.ex.Host
	}
	folds, err := learn.GroupKFold(ls, groups, k, seed)
	if err != nil {
		return nil, fmt.Errorf("domain cross-validation: %w", err)
	}
	r := newDomainReport()
	for _, test := range folds {
		if len(test) == 0 {
			continue
		}
		var trainEx, testEx []Example
		for _, i := range learn.TrainIndices(len(forms), test) {
			trainEx = append(trainEx, *forms[i].ex)
		}
		for _, i := range test {
			testEx = append(testEx, *forms[i].ex)
		}
		dsfc := *m.DSFC
		dsfc.CalibrateLevels(trainEx, labels, maxOut)
		r.Levels = append(r.Levels, dsfc.Levels)
		fm := *m
		fm.DSFC = &dsfc
		if err := r.add(&fm, labelled(testEx, labels)); err != nil {
			return nil, err
		}
	}
	r.finish()
	r.Folds = k
	return r, nil
}

func newDomainReport() *DomainReport {
	return &DomainReport{ByTarget: map[string][2]DomainCount{}, ByEvidence: map[string]int{}}
}

func (r *DomainReport) add(m *Model, forms []labelledForm) error {
	any, err := NewHIFI(m, "")
	if err != nil {
		return err
	}
	targets := make(map[string]*HIFI, len(domain.BuiltIn))
	for _, d := range domain.BuiltIn {
		if targets[d], err = NewHIFI(m, d); err != nil {
			return err
		}
	}
	for _, lf := range forms {
		e, want := lf.ex, lf.domain
		r.Forms++
		ev := e.DomainEvidence()
		d := any.ClassifyIn(&e.Form, ev)
		if !d.Searchable {
			continue
		}
		r.Searchable++
		r.ByEvidence[d.DomainEvidence]++
		if want == NoDomain {
			r.AnyOut.N++
			if d.Relevant {
				r.AnyOut.K++
				r.Misses = append(r.Misses, fmt.Sprintf("%s#%d none -> %s p=%.2f (%s)", e.File, e.Form.Index, d.Domain, d.PDomain, strings.Join(d.Reasons, "; ")))
			}
		} else {
			r.AnyIn.N++
			if d.Relevant && d.Domain == want {
				r.AnyIn.K++
			} else {
				r.Misses = append(r.Misses, fmt.Sprintf("%s#%d %s -> %s p=%.2f relevant=%v (%s)", e.File, e.Form.Index, want, d.Domain, d.PDomain, d.Relevant, strings.Join(d.Reasons, "; ")))
			}
		}
		for _, t := range domain.BuiltIn {
			c := r.ByTarget[t]
			dt := targets[t].ClassifyIn(&e.Form, ev)
			switch want {
			case NoDomain:
				c[0].N++
				if dt.Relevant {
					c[0].K++
				}
			case t:
				c[1].N++
				if dt.Relevant {
					c[1].K++
				}
			}
			r.ByTarget[t] = c
		}
	}
	return nil
}

func (r *DomainReport) finish() {
	r.TargetOut, r.TargetIn = DomainCount{}, DomainCount{}
	for _, c := range r.ByTarget {
		r.TargetOut.K += c[0].K
		r.TargetOut.N += c[0].N
		r.TargetIn.K += c[1].K
		r.TargetIn.N += c[1].N
	}
	sort.Strings(r.Misses)
}

// Text renders the report for people.
func (r *DomainReport) Text() string {
	var sb strings.Builder
	if r.Folds > 0 {
		fmt.Fprintf(&sb, "%d-fold cross-validation grouped by host: each fold's level thresholds calibrated on the other folds\n", r.Folds)
		for i, l := range r.Levels {
			fmt.Fprintf(&sb, "  fold %d: %s\n", i+1, l)
		}
	}
	fmt.Fprintf(&sb, "labelled search forms: %d, found searchable: %d; domain decided by form %d, page %d, site %d, no evidence %d\n\n",
		r.Forms, r.Searchable, r.ByEvidence[LevelForm], r.ByEvidence[LevelPage], r.ByEvidence[LevelSite], r.ByEvidence[""])
	fmt.Fprintf(&sb, "%-10s %28s %28s\n", "target", "out-of-domain marked relevant", "in-domain recall")
	fmt.Fprintf(&sb, "%-10s %28s %28s\n", "(any)", r.AnyOut, r.AnyIn)
	for _, t := range domain.BuiltIn {
		c := r.ByTarget[t]
		fmt.Fprintf(&sb, "%-10s %28s %28s\n", t, c[0], c[1])
	}
	fmt.Fprintf(&sb, "%-10s %28s %28s\n", "(all 12)", r.TargetOut, r.TargetIn)
	return sb.String()
}
