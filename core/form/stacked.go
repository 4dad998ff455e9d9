package form

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/page"
)

// StackedTree is a C4.5 tree on structural form features ([Structural]),
// optionally with extra "token_p_<class>" attributes: the class
// probabilities of a Naive Bayes model over the form's tokens ([Tokens]),
// computed out-of-fold (grouped by host) when training, so the tree learns
// how far to trust them on sites it has not seen. The tree is the decision
// maker; the token model is one of its inputs.
type StackedTree struct {
	FeatureVersion int         `json:"feature_version"`
	Tree           *learn.Tree `json:"tree"`
	Tokens         *learn.NB   `json:"tokens,omitempty"`
}

// TreeOptions tune the training of a [StackedTree].
type TreeOptions struct {
	Tree      learn.TreeOptions
	Tokens    bool   // add the stacked token-model attributes
	InnerFold int    // folds of the inner cross-validation for token scores (default 5)
	Seed      uint64 // inner fold assignment
}

// labeler names an example's class for one classifier.
type labeler func(e *Example) string

func trainStacked(ex []Example, classes []string, label labeler, opt TreeOptions) (*StackedTree, error) {
	if len(ex) == 0 {
		return nil, fmt.Errorf("no examples")
	}
	if opt.InnerFold <= 0 {
		opt.InnerFold = 5
	}
	ci := make(map[string]int, len(classes))
	for i, c := range classes {
		ci[c] = i
	}
	d := &learn.Dataset{Attrs: StructuralAttrs(), Classes: classes}
	for i := range ex {
		y, ok := ci[label(&ex[i])]
		if !ok {
			return nil, fmt.Errorf("example %d: class %q not in %v", i, label(&ex[i]), classes)
		}
		d.X = append(d.X, Structural(&ex[i].Form))
		d.Y = append(d.Y, y)
	}
	s := &StackedTree{FeatureVersion: structuralVersion}
	if opt.Tokens {
		scores, err := outOfFoldTokenScores(ex, classes, label, opt.InnerFold, opt.Seed)
		if err != nil {
			return nil, err
		}
		for _, c := range scoreClasses(classes) {
			d.Attrs = append(d.Attrs, learn.Attr{Name: "token_p_" + c, Kind: learn.Continuous})
		}
		for i := range d.X {
			d.X[i] = append(d.X[i], scores[i]...)
		}
		var err2 error
		if s.Tokens, err2 = trainTokenNB(ex, classes, label); err2 != nil {
			return nil, err2
		}
	}
	t, err := learn.TrainTree(d, opt.Tree)
	if err != nil {
		return nil, err
	}
	s.Tree = t
	return s, nil
}

// scoreClasses are the classes whose token probability becomes an
// attribute: all of them, or only the positive one of a binary model.
func scoreClasses(classes []string) []string {
	if len(classes) == 2 {
		return classes[1:]
	}
	return classes
}

// minTokenDF is the number of training forms a token must occur in to be
// kept by the token model: one-off tokens (session ids, product codes)
// only add noise and size.
const minTokenDF = 2

func trainTokenNB(ex []Example, classes []string, label labeler) (*learn.NB, error) {
	docs := make([][]string, len(ex))
	df := make(map[string]int)
	for i := range ex {
		docs[i] = Tokens(&ex[i].Form)
		for _, t := range docs[i] {
			df[t]++
		}
	}
	m := learn.NewNB(classes, 1)
	defer m.Freeze()
	for i, d := range docs {
		kept := d[:0]
		for _, t := range d {
			if df[t] >= minTokenDF {
				kept = append(kept, t)
			}
		}
		if err := m.Add(kept, label(&ex[i])); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func outOfFoldTokenScores(ex []Example, classes []string, label labeler, k int, seed uint64) ([][]float64, error) {
	labels := make([]string, len(ex))
	groups := make([]string, len(ex))
	for i := range ex {
		labels[i] = label(&ex[i])
		groups[i] = ex[i].Host
	}
	folds, err := learn.GroupKFold(labels, groups, k, seed)
	if err != nil {
		return nil, fmt.Errorf("token scores: %w", err)
	}
	scores := make([][]float64, len(ex))
	for _, test := range folds {
		if len(test) == 0 {
			continue
		}
		var train []Example
		for _, i := range learn.TrainIndices(len(ex), test) {
			train = append(train, ex[i])
		}
		m, err := trainTokenNB(train, classes, label)
		if err != nil {
			return nil, err
		}
		for _, i := range test {
			scores[i] = tokenScores(m, analyze(&ex[i].Form))
		}
	}
	return scores, nil
}

func tokenScores(m *learn.NB, a *analysis) []float64 {
	p := m.Probs(a.tokens())
	if len(p) == 2 {
		p = p[1:]
	}
	for i := range p {
		// Round so that tiny differences between near-certain scores do not
		// become thresholds of their own.
		p[i] = math.Round(p[i]*1000) / 1000
	}
	return p
}

// uniq returns the distinct tokens of ts, sorted (a set of words: one long
// form cannot dominate by repetition).
func uniq(ts []string) []string {
	sort.Strings(ts)
	out := ts[:0]
	for i, t := range ts {
		if i == 0 || t != ts[i-1] {
			out = append(out, t)
		}
	}
	return out
}

func (s *StackedTree) vector(a *analysis) []float64 {
	x := a.structural()
	if s.Tokens != nil {
		x = append(x[:len(x):len(x)], tokenScores(s.Tokens, a)...)
	}
	return x
}

// Probs returns the class probabilities of f (in Tree.Classes order) and
// the tests on its path through the tree.
func (s *StackedTree) Probs(f *page.Form) ([]float64, []string) { return s.probs(analyze(f)) }

func (s *StackedTree) probs(a *analysis) ([]float64, []string) {
	x := s.vector(a)
	return s.Tree.Probs(x), s.Tree.Explain(x)
}

// check verifies that a loaded model matches this build's features.
func (s *StackedTree) check(name string) error {
	if s == nil || s.Tree == nil || s.Tree.Root == nil {
		return fmt.Errorf("%s: no tree", name)
	}
	if s.FeatureVersion != structuralVersion {
		return fmt.Errorf("%s: model uses feature version %d, this build computes %d: retrain", name, s.FeatureVersion, structuralVersion)
	}
	want := len(structural)
	if s.Tokens != nil {
		want += len(scoreClasses(s.Tree.Classes))
		if len(s.Tokens.Classes) != len(s.Tree.Classes) {
			return fmt.Errorf("%s: token model has %d classes, tree %d", name, len(s.Tokens.Classes), len(s.Tree.Classes))
		}
	}
	if len(s.Tree.Attrs) != want {
		return fmt.Errorf("%s: model has %d attributes, want %d: retrain", name, len(s.Tree.Attrs), want)
	}
	for i, f := range structural {
		if s.Tree.Attrs[i].Name != f.name {
			return fmt.Errorf("%s: attribute %d is %q, want %q: retrain", name, i, s.Tree.Attrs[i].Name, f.name)
		}
	}
	if s.Tokens != nil {
		s.Tokens.Freeze()
	}
	return nil
}

// String prints the tree and its size.
func (s *StackedTree) String() string {
	var sb strings.Builder
	sb.WriteString(s.Tree.String())
	n, l := s.Tree.Size()
	fmt.Fprintf(&sb, "size %d nodes, %d leaves\n", n, l)
	return sb.String()
}

// SFC is HIFI's searchable form classifier (Barbosa & Freire 2007;
// SmartCrawler §3.3): a [StackedTree] over the classes not-searchable and
// searchable.
type SFC struct{ StackedTree }

// TrainSFC trains the searchable form classifier.
func TrainSFC(ex []Example, opt TreeOptions) (*SFC, error) {
	t, err := trainStacked(ex, []string{NotSearchable, Searchable}, binaryLabel, opt)
	if err != nil {
		return nil, fmt.Errorf("train sfc: %w", err)
	}
	return &SFC{*t}, nil
}

func binaryLabel(e *Example) string {
	if e.Searchable() {
		return Searchable
	}
	return NotSearchable
}

// Prob returns P(searchable) for f and the tests that drove it.
func (s *SFC) Prob(f *page.Form) (float64, []string) { return s.prob(analyze(f)) }

func (s *SFC) prob(a *analysis) (float64, []string) {
	p, why := s.probs(a)
	return p[1], why
}

// KindClassifier is the multi-class form-kind classifier: a
// [StackedTree] over [Kinds].
type KindClassifier struct{ StackedTree }

// TrainKinds trains the kind classifier.
func TrainKinds(ex []Example, opt TreeOptions) (*KindClassifier, error) {
	t, err := trainStacked(ex, Kinds, func(e *Example) string { return e.Kind }, opt)
	if err != nil {
		return nil, fmt.Errorf("train kinds: %w", err)
	}
	return &KindClassifier{*t}, nil
}

// Kind returns the most probable kind of f, its probability, and the full
// distribution in [Kinds] order.
func (k *KindClassifier) Kind(f *page.Form) (string, float64, []float64) { return k.kind(analyze(f)) }

func (k *KindClassifier) kind(a *analysis) (string, float64, []float64) {
	p := k.Tree.Probs(k.vector(a)) // no Explain: nothing reads the path
	b := 0
	for i := range p {
		if p[i] > p[b] {
			b = i
		}
	}
	return k.Tree.Classes[b], p[b], p
}
