package learn

import (
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
)

// NB is a multinomial Naive Bayes classifier over bags of terms with
// additive (Laplace, Alpha = 1) smoothing:
//
//	P(c | d) ∝ P(c) · Π_t P(t | c)^tf(t,d),  P(t | c) = (n(t,c) + α) / (n(c) + α·|V|)
//
// It keeps raw counts, so it can be updated one document at a time (ACHE's
// online learning) and scores in log space. Terms never seen in training are
// ignored. The zero value is not usable; call [NewNB] or [TrainNB].
type NB struct {
	Classes    []string             `json:"classes"`
	Alpha      float64              `json:"alpha"`
	Uniform    bool                 `json:"uniform_prior,omitempty"` // ignore class frequencies: P(c) = 1/K
	DocCount   []float64            `json:"doc_count"`               // documents per class
	TermTotal  []float64            `json:"term_total"`              // term occurrences per class
	TermCounts map[string][]float64 `json:"term_counts"`             // term -> occurrences per class
	classIdx   map[string]int
	frozen     *nbTable // log-probability tables, see Freeze
}

// nbTable holds precomputed log probabilities of a frozen model.
type nbTable struct {
	prior []float64            // log P(c)
	logp  map[string][]float64 // log P(t|c)
}

// Freeze precomputes the model's log probabilities so that scoring does
// no logarithms (several times faster). Adding a document unfreezes it.
// Call it when no other goroutine is using the model.
func (m *NB) Freeze() {
	k := len(m.Classes)
	t := &nbTable{prior: m.logPriors(), logp: make(map[string][]float64, len(m.TermCounts))}
	denom := m.logDenoms()
	for term, cnt := range m.TermCounts {
		lp := make([]float64, k)
		for c := range k {
			lp[c] = math.Log(cnt[c]+m.Alpha) - denom[c]
		}
		t.logp[term] = lp
	}
	m.frozen = t
}

func (m *NB) logPriors() []float64 {
	k := len(m.Classes)
	var docs float64
	for _, n := range m.DocCount {
		docs += n
	}
	s := make([]float64, k)
	for c := range k {
		if m.Uniform || docs == 0 {
			s[c] = -math.Log(float64(k))
		} else {
			s[c] = math.Log((m.DocCount[c] + m.Alpha) / (docs + m.Alpha*float64(k)))
		}
	}
	return s
}

func (m *NB) logDenoms() []float64 {
	v := float64(len(m.TermCounts))
	d := make([]float64, len(m.Classes))
	for c := range d {
		d[c] = math.Log(m.TermTotal[c] + m.Alpha*v)
	}
	return d
}

// NewNB returns an untrained classifier over the given classes with
// smoothing alpha (alpha <= 0 means 1).
func NewNB(classes []string, alpha float64) *NB {
	if alpha <= 0 {
		alpha = 1
	}
	k := len(classes)
	m := &NB{
		Classes:    append([]string(nil), classes...),
		Alpha:      alpha,
		DocCount:   make([]float64, k),
		TermTotal:  make([]float64, k),
		TermCounts: make(map[string][]float64),
	}
	m.buildIndex()
	return m
}

// TrainNB trains a classifier on docs with their labels. Classes are the
// sorted distinct labels.
func TrainNB(docs [][]string, labels []string, alpha float64) (*NB, error) {
	if len(docs) != len(labels) {
		return nil, fmt.Errorf("train nb: %d docs but %d labels", len(docs), len(labels))
	}
	m := NewNB(distinct(labels), alpha)
	for i, d := range docs {
		if err := m.Add(d, labels[i]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *NB) buildIndex() {
	m.classIdx = make(map[string]int, len(m.Classes))
	for i, c := range m.Classes {
		m.classIdx[c] = i
	}
}

// UnmarshalJSON decodes an NB and rebuilds its class index, so a loaded
// model is safe for concurrent reads.
func (m *NB) UnmarshalJSON(b []byte) error {
	type plain NB
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	k := len(p.Classes)
	if len(p.DocCount) != k || len(p.TermTotal) != k {
		return fmt.Errorf("nb: %d classes but %d/%d counts", k, len(p.DocCount), len(p.TermTotal))
	}
	for t, c := range p.TermCounts {
		if len(c) != k {
			return fmt.Errorf("nb: term %q has %d counts for %d classes", t, len(c), k)
		}
	}
	*m = NB(p)
	m.buildIndex()
	return nil
}

func (m *NB) class(label string) int {
	if i, ok := m.classIdx[label]; ok {
		return i
	}
	return -1
}

// Add counts one more training document of class label.
func (m *NB) Add(doc []string, label string) error { return m.AddWeighted(doc, label, 1) }

// AddWeighted counts a training document of class label w times (w may be
// fractional), e.g. to give a small class as much term mass as a large one.
func (m *NB) AddWeighted(doc []string, label string, w float64) error {
	c := m.class(label)
	if c < 0 {
		return fmt.Errorf("nb: unknown class %q", label)
	}
	if w <= 0 || math.IsNaN(w) || math.IsInf(w, 0) {
		return fmt.Errorf("nb: document weight %v", w)
	}
	m.frozen = nil
	m.DocCount[c] += w
	for _, t := range doc {
		cnt := m.TermCounts[t]
		if cnt == nil {
			cnt = make([]float64, len(m.Classes))
			m.TermCounts[t] = cnt
		}
		cnt[c] += w
		m.TermTotal[c] += w
	}
	return nil
}

// LogScores returns log P(c) + Σ log P(t|c) for every class, in Classes
// order (unnormalised log joint probabilities).
func (m *NB) LogScores(doc []string) []float64 { return m.logScoresOf(slices.Values(doc)) }

// logScoresOf is LogScores over the terms terms yields, in their order,
// without a slice of them.
func (m *NB) logScoresOf(terms iter.Seq[string]) []float64 {
	k := len(m.Classes)
	if t := m.frozen; t != nil {
		s := append([]float64(nil), t.prior...)
		for term := range terms {
			if lp, ok := t.logp[term]; ok {
				for c := range k {
					s[c] += lp[c]
				}
			}
		}
		return s
	}
	s := m.logPriors()
	denom := m.logDenoms()
	for t := range terms {
		cnt, ok := m.TermCounts[t]
		if !ok {
			continue
		}
		for c := range k {
			s[c] += math.Log(cnt[c]+m.Alpha) - denom[c]
		}
	}
	return s
}

// ProbOf is Prob of the document whose terms terms yields.
func (m *NB) ProbOf(terms iter.Seq[string], label string) float64 {
	c := m.class(label)
	if c < 0 {
		return 0
	}
	return softmax(m.logScoresOf(terms))[c]
}

// Probs returns the posterior P(c | doc) for every class, in Classes order,
// normalised with log-sum-exp so long documents never underflow.
func (m *NB) Probs(doc []string) []float64 { return softmax(m.LogScores(doc)) }

// Predict returns the most probable class and its posterior probability.
func (m *NB) Predict(doc []string) (string, float64) {
	p := m.Probs(doc)
	b := argmax(p)
	return m.Classes[b], p[b]
}

// Prob returns P(label | doc), 0 for an unknown label.
func (m *NB) Prob(doc []string, label string) float64 {
	c := m.class(label)
	if c < 0 {
		return 0
	}
	return m.Probs(doc)[c]
}

// softmax turns log scores into probabilities (log-sum-exp).
func softmax(s []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range s {
		mx = math.Max(mx, v)
	}
	out := make([]float64, len(s))
	var z float64
	for i, v := range s {
		out[i] = math.Exp(v - mx)
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

func argmax(p []float64) int {
	b := 0
	for i, v := range p {
		if v > p[b] {
			b = i
		}
	}
	return b
}

// distinct returns the sorted distinct strings of xs.
func distinct(xs []string) []string {
	seen := make(map[string]bool)
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
