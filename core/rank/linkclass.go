package rank

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// OtherClass is the class of links that lead to no form page within the
// classifier's levels.
const OtherClass = "other"

// ClassifierOptions configure a LinkClassifier. Zero values take the
// defaults shown.
type ClassifierOptions struct {
	// Levels is the number of distances the classifier predicts (ACHE: 3).
	Levels int
	// K is the number of features AFS keeps per context (URL, anchor,
	// around text). Default 50.
	K int
	// Every is M: the classifier relearns after every M new form paths
	// (online learning). Default 100.
	Every int
	// Alpha is the naive Bayes smoothing. Default 1.
	Alpha float64
	// Now stamps iterations. Default time.Now.
	Now func() time.Time
}

func (o *ClassifierOptions) fill() {
	if o.Levels <= 0 {
		o.Levels = 3
	}
	if o.K <= 0 {
		o.K = 50
	}
	if o.Every <= 0 {
		o.Every = 100
	}
	if o.Alpha <= 0 {
		o.Alpha = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// LinkExample is one training link of the classifier and its class: "1" …
// "Levels" (steps to a form page) or OtherClass.
type LinkExample struct {
	Features Features `json:"features"`
	Class    string   `json:"class"`
}

// LinkClassifier is ACHE's multi-level link classifier (Barbosa & Freire
// 2007, §3–4): naive Bayes over the URL, anchor and around-text terms of a
// link, estimating how many steps away a form page is (1..Levels, or
// "other"). It is trained on backward paths: the link into a form page is a
// level-1 example, the link into the page that linked to it a level-2
// example, and so on. Adaptive feature selection keeps the top-K terms of
// each context by document frequency among the path links (URL tokens split
// on frequent terms), and the model is relearnt after every M new paths.
// Classify is lock-free and safe for concurrent use with learning.
type LinkClassifier struct {
	mu       sync.Mutex
	opt      ClassifierOptions
	examples []LinkExample
	paths    int // paths added
	pending  int // paths since the last training
	iters    []Iteration
	model    atomic.Pointer[linkModel]
}

// linkModel is one trained, immutable classifier.
type linkModel struct {
	nb     *learn.NB
	vocab  map[string]bool // AFS-selected terms (all contexts), for URL splitting
	sel    [3]map[string]bool
	levels []int // class index → level (0 for other)
}

// NewLinkClassifier returns an untrained classifier.
func NewLinkClassifier(opt ClassifierOptions) *LinkClassifier {
	opt.fill()
	return &LinkClassifier{opt: opt}
}

// Options returns the classifier's options with defaults filled in.
func (c *LinkClassifier) Options() ClassifierOptions { return c.opt }

// AddPath adds the backward path of a form page: path[len(path)-1] is the
// link into the form page (level 1), the link before it level 2, and so on
// up to Levels; earlier links are ignored. After every M paths the
// classifier relearns and the new round is returned (nil otherwise); the
// engine then re-classifies its frontier.
func (c *LinkClassifier) AddPath(path []Features) (*Iteration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < len(path) && i < c.opt.Levels; i++ {
		c.examples = append(c.examples, LinkExample{Features: path[len(path)-1-i], Class: strconv.Itoa(i + 1)})
	}
	if len(path) == 0 {
		return nil, nil
	}
	c.paths++
	c.pending++
	if c.pending < c.opt.Every {
		return nil, nil
	}
	return c.trainLocked()
}

// AddOther adds a link known to lead to no form page within Levels steps.
func (c *LinkClassifier) AddOther(f Features) {
	c.mu.Lock()
	c.examples = append(c.examples, LinkExample{Features: f, Class: OtherClass})
	c.mu.Unlock()
}

// Train relearns now from every example (at bootstrap, or to force it).
func (c *LinkClassifier) Train() (*Iteration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.trainLocked()
}

func (c *LinkClassifier) trainLocked() (*Iteration, error) {
	byClass := map[string][]Features{}
	all := make([]Features, 0, len(c.examples))
	for _, e := range c.examples {
		byClass[e.Class] = append(byClass[e.Class], e.Features)
		all = append(all, e.Features)
	}
	if len(all) == len(byClass[OtherClass]) {
		return nil, fmt.Errorf("rank: link classifier: no path examples to learn from")
	}
	// AFS: the top-K terms of each context in each class, so that every
	// level (and "other") keeps the terms that characterise it.
	m := &linkModel{vocab: map[string]bool{}}
	for i := range m.sel {
		m.sel[i] = map[string]bool{}
	}
	for _, ex := range byClass {
		ci := BuildIteration(SpaceACHE, ex, c.opt.K)
		for i, tw := range [3][]TermWeight{ci.URL, ci.Anchor, ci.Text} {
			for _, t := range tw {
				m.sel[i][t.Term] = true
				m.vocab[t.Term] = true
			}
		}
	}
	// The round's record: the selected terms with their DF over all links.
	it := BuildIteration(SpaceACHE, all, 0)
	it.URL, it.Anchor, it.Text = keep(it.URL, m.sel[0]), keep(it.Anchor, m.sel[1]), keep(it.Text, m.sel[2])
	it.Examples = c.paths
	classes := byClass
	var names []string
	for l := 1; l <= c.opt.Levels; l++ {
		if classes[strconv.Itoa(l)] != nil {
			names = append(names, strconv.Itoa(l))
			m.levels = append(m.levels, l)
		}
	}
	if classes[OtherClass] != nil {
		names = append(names, OtherClass)
		m.levels = append(m.levels, 0)
	}
	m.nb = learn.NewNB(names, c.opt.Alpha)
	for _, e := range c.examples {
		if err := m.nb.Add(m.doc(e.Features), e.Class); err != nil {
			return nil, fmt.Errorf("rank: link classifier: %w", err)
		}
	}
	c.model.Store(m)
	c.pending = 0
	it.Round = len(c.iters) + 1
	it.Time = c.opt.Now()
	c.iters = append(c.iters, it)
	return &it, nil
}

// doc turns features into the classifier's bag of context-prefixed,
// AFS-selected terms.
func (m *linkModel) doc(f Features) []string {
	out := make([]string, 0, len(f.URL)+len(f.Anchor)+len(f.Text))
	for _, t := range f.URL {
		parts := []string{t}
		if !m.sel[0][t] {
			parts = text.SplitCompound(t, m.vocab)
		}
		for _, p := range parts {
			if m.sel[0][p] {
				out = append(out, "u:"+p)
			}
		}
	}
	for _, t := range f.Anchor {
		if m.sel[1][t] {
			out = append(out, "a:"+t)
		}
	}
	for _, t := range f.Text {
		if m.sel[2][t] {
			out = append(out, "t:"+t)
		}
	}
	return out
}

// Classify returns the predicted level of a link (1..Levels; 0 for "other"
// or before any training) and the posterior probability of that level,
// which orders links within their level's queue.
func (c *LinkClassifier) Classify(f Features) (level int, prob float64) {
	m := c.model.Load()
	if m == nil {
		return 0, 0
	}
	p := m.nb.Probs(m.doc(f))
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	return m.levels[best], p[best]
}

// Trained reports whether the classifier has learnt at least once.
func (c *LinkClassifier) Trained() bool { return c.model.Load() != nil }

// Iterations returns the selected features of every training round.
func (c *LinkClassifier) Iterations() []Iteration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Iteration(nil), c.iters...)
}

// ClassifierState is a classifier's training data and rounds in a form the
// store can persist (JSON).
type ClassifierState struct {
	Examples   []LinkExample `json:"examples"`
	Paths      int           `json:"paths"`
	Pending    int           `json:"pending"`
	Iterations []Iteration   `json:"iterations"`
}

// State returns a copy of the classifier's state.
func (c *LinkClassifier) State() ClassifierState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ClassifierState{
		Examples: append([]LinkExample(nil), c.examples...), Paths: c.paths, Pending: c.pending,
		Iterations: append([]Iteration(nil), c.iters...),
	}
}

// Restore replaces the classifier's state and retrains it if it had been
// trained before.
func (c *LinkClassifier) Restore(st ClassifierState) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.examples = append([]LinkExample(nil), st.Examples...)
	c.paths, c.pending = st.Paths, st.Pending
	c.iters = append([]Iteration(nil), st.Iterations...)
	c.model.Store(nil)
	if len(c.iters) == 0 {
		return nil
	}
	pending, iters := c.pending, c.iters
	if _, err := c.trainLocked(); err != nil {
		return err
	}
	c.pending, c.iters = pending, iters // a restore is not a new round
	return nil
}

// keep returns the term weights whose term is in sel, in order.
func keep(tw []TermWeight, sel map[string]bool) []TermWeight {
	out := tw[:0:0]
	for _, t := range tw {
		if sel[t.Term] {
			out = append(out, t)
		}
	}
	return out
}
