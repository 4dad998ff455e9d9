package rank

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// Feature space names, as recorded in Iteration.Space.
const (
	SpaceFSS  = "FSS"  // site feature space {U, A, T}
	SpaceFSL  = "FSL"  // link feature space {P, A, T}
	SpaceACHE = "ACHE" // ACHE link classifier's selected features {URL, anchor, around}
)

// LearnerOptions configure the adaptive learner. Zero values take the
// defaults shown (SmartCrawler's defaults for N and M).
type LearnerOptions struct {
	// K is the number of top terms kept per context. Default 20.
	K int
	// SiteEvery is N: FSS is rebuilt after every N new deep sites. Default 50.
	SiteEvery int
	// FormEvery is M: FSL is rebuilt after every M new searchable forms.
	// Default 100.
	FormEvery int
	// Now stamps iterations. Default time.Now.
	Now func() time.Time
}

func (o *LearnerOptions) fill() {
	if o.K <= 0 {
		o.K = 20
	}
	if o.SiteEvery <= 0 {
		o.SiteEvery = 50
	}
	if o.FormEvery <= 0 {
		o.FormEvery = 100
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// TermWeight is one selected feature and its document frequency among the
// examples of its round.
type TermWeight struct {
	Term string `json:"term"`
	DF   int    `json:"df"`
}

// Iteration is one round of learning: the top features of one feature space
// (the paper's Tables 5 and 6). It is what the store persists (JSON, table
// TagFeatures keyed by space and round) and what `dwcrawl features` prints;
// SpaceFromIteration rebuilds the space from it (resume, prior crawl).
type Iteration struct {
	Space    string       `json:"space"`    // SpaceFSS, SpaceFSL or SpaceACHE
	Round    int          `json:"round"`    // 1, 2, … per space
	Examples int          `json:"examples"` // examples learnt from (deep sites, forms, paths)
	Time     time.Time    `json:"time"`
	URL      []TermWeight `json:"url"` // U, P, or the classifier's URL terms
	Anchor   []TermWeight `json:"anchor"`
	Text     []TermWeight `json:"text"`
}

// SpaceFromIteration rebuilds the feature space an iteration describes,
// with the weights the learner gives: 1 + ln(df).
func SpaceFromIteration(it Iteration) *Space {
	vec := func(tw []TermWeight) text.Vector {
		v := make(text.Vector, len(tw))
		for _, t := range tw {
			v[t.Term] = 1 + math.Log(float64(max(t.DF, 1)))
		}
		return v
	}
	return NewSpace(it.Space, vec(it.URL), vec(it.Anchor), vec(it.Text))
}

// Terms returns the selected terms of each context, without weights.
func (it Iteration) Terms() (url, anchor, around []string) {
	names := func(tw []TermWeight) []string {
		out := make([]string, len(tw))
		for i, t := range tw {
			out[i] = t.Term
		}
		return out
	}
	return names(it.URL), names(it.Anchor), names(it.Text)
}

// WriteTable prints iterations as tables of top features, one per round,
// like Tables 5–6 of the SmartCrawler paper.
func WriteTable(w io.Writer, its ...Iteration) error {
	for i, it := range its {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := it.writeTable(w); err != nil {
			return err
		}
	}
	return nil
}

func (it Iteration) writeTable(w io.Writer) error {
	first := "URL"
	if it.Space == SpaceFSL {
		first = "Path"
	}
	what := map[string]string{SpaceFSS: "deep sites", SpaceFSL: "searchable forms", SpaceACHE: "form paths"}[it.Space]
	if what == "" {
		what = "examples"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s round %d: %d %s", it.Space, it.Round, it.Examples, what)
	if !it.Time.IsZero() {
		fmt.Fprintf(&b, ", %s", it.Time.UTC().Format(time.RFC3339))
	}
	b.WriteByte('\n')
	cols := [3][]TermWeight{it.URL, it.Anchor, it.Text}
	cell := func(c []TermWeight, r int) string {
		if r >= len(c) {
			return ""
		}
		return fmt.Sprintf("%s (%d)", c[r].Term, c[r].DF)
	}
	width := [3]int{len(first), len("Anchor"), len("Text")}
	rows := 0
	for i, c := range cols {
		rows = max(rows, len(c))
		for r := range c {
			width[i] = max(width[i], len(cell(c, r)))
		}
	}
	fmt.Fprintf(&b, "%4s  %-*s  %-*s  %s\n", "#", width[0], first, width[1], "Anchor", "Text")
	for r := 0; r < rows; r++ {
		line := fmt.Sprintf("%4d  %-*s  %-*s  %s", r+1, width[0], cell(cols[0], r), width[1], cell(cols[1], r), cell(cols[2], r))
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Learner is SmartCrawler's adaptive learner (§3.4): it accumulates the
// features of the deep sites and searchable forms found and rebuilds FSS
// after every N new deep sites and FSL after every M new forms, from the
// top-k terms of each context by document frequency, URL tokens split on
// frequent terms. The engine then hands the new spaces to the rankers and
// re-ranks its frontiers. Safe for concurrent use.
type Learner struct {
	mu       sync.Mutex
	opt      LearnerOptions
	sites    []Features // every deep site example
	forms    []Features // every searchable form example
	newSites int
	newForms int
	fss, fsl *Space
	iters    []Iteration
}

// NewLearner returns a learner with no examples and nil spaces.
func NewLearner(opt LearnerOptions) *Learner {
	opt.fill()
	return &Learner{opt: opt}
}

// Options returns the learner's options with defaults filled in.
func (l *Learner) Options() LearnerOptions { return l.opt }

// AddSite records a new deep site: its URL terms (SiteFeatures of its
// homepage URL) and the anchor and around text of the link it was found
// by. When this completes a batch of N, FSS is rebuilt and the new round
// returned; otherwise nil.
func (l *Learner) AddSite(f Features) *Iteration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sites = append(l.sites, f)
	l.newSites++
	if l.newSites < l.opt.SiteEvery {
		return nil
	}
	return l.rebuildLocked(SpaceFSS)
}

// AddForm records a new searchable form: the path terms of its page
// (LinkFeatures of the page URL) and the anchor and around text of the link
// to the page. When this completes a batch of M, FSL is rebuilt and the new
// round returned; otherwise nil.
func (l *Learner) AddForm(f Features) *Iteration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forms = append(l.forms, f)
	l.newForms++
	if l.newForms < l.opt.FormEvery {
		return nil
	}
	return l.rebuildLocked(SpaceFSL)
}

// Rebuild rebuilds one space (SpaceFSS or SpaceFSL) now, from the examples
// so far: at bootstrap, from the seed sites. It returns nil when there are
// no examples.
func (l *Learner) Rebuild(space string) *Iteration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rebuildLocked(space)
}

func (l *Learner) rebuildLocked(space string) *Iteration {
	ex := l.sites
	if space == SpaceFSL {
		ex = l.forms
	}
	if len(ex) == 0 {
		return nil
	}
	round := 1
	for _, it := range l.iters {
		if it.Space == space {
			round = it.Round + 1
		}
	}
	it := BuildIteration(space, ex, l.opt.K)
	it.Round, it.Time = round, l.opt.Now()
	sp := SpaceFromIteration(it)
	if space == SpaceFSL {
		l.fsl, l.newForms = sp, 0
	} else {
		l.fss, l.newSites = sp, 0
	}
	l.iters = append(l.iters, it)
	return &it
}

// SetSpace installs a space learnt elsewhere (a previous crawl's last
// round, prior crawl) as FSS or FSL, by its Name.
func (l *Learner) SetSpace(s *Space) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.Name == SpaceFSL {
		l.fsl = s
	} else {
		l.fss = s
	}
}

// FSS returns the current site feature space (nil before the first round).
func (l *Learner) FSS() *Space {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fss
}

// FSL returns the current link feature space (nil before the first round).
func (l *Learner) FSL() *Space {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fsl
}

// Iterations returns every round so far, in order.
func (l *Learner) Iterations() []Iteration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Iteration(nil), l.iters...)
}

// Counts returns the number of deep site and form examples.
func (l *Learner) Counts() (sites, forms int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sites), len(l.forms)
}

// LearnerState is a learner's examples and rounds in a form the store can
// persist (JSON), so a resumed crawl continues learning where it stopped.
type LearnerState struct {
	Sites      []Features  `json:"sites"`
	Forms      []Features  `json:"forms"`
	NewSites   int         `json:"new_sites"`
	NewForms   int         `json:"new_forms"`
	Iterations []Iteration `json:"iterations"`
}

// State returns a copy of the learner's state.
func (l *Learner) State() LearnerState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LearnerState{
		Sites: append([]Features(nil), l.sites...), Forms: append([]Features(nil), l.forms...),
		NewSites: l.newSites, NewForms: l.newForms, Iterations: append([]Iteration(nil), l.iters...),
	}
}

// Restore replaces the learner's state; the spaces become those of the
// last recorded rounds.
func (l *Learner) Restore(st LearnerState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sites, l.forms = st.Sites, st.Forms
	l.newSites, l.newForms = st.NewSites, st.NewForms
	l.iters = append([]Iteration(nil), st.Iterations...)
	l.fss, l.fsl = nil, nil
	for _, it := range l.iters {
		switch it.Space {
		case SpaceFSS:
			l.fss = SpaceFromIteration(it)
		case SpaceFSL:
			l.fsl = SpaceFromIteration(it)
		}
	}
}

// BuildIteration selects the top-k terms of each context of the examples by
// document frequency. URL tokens are first split on the frequent terms of
// all three contexts ("abebooks" → "abe", "book" when "book" is frequent),
// then counted.
func BuildIteration(space string, ex []Features, k int) Iteration {
	urls := make([][]string, len(ex))
	anchors := make([][]string, len(ex))
	texts := make([][]string, len(ex))
	for i, f := range ex {
		urls[i], anchors[i], texts[i] = f.URL, f.Anchor, f.Text
	}
	vocab := map[string]bool{}
	for _, docs := range [][][]string{urls, anchors, texts} {
		for _, tw := range topDF(docs, k) {
			if tw.DF > 1 || len(ex) == 1 {
				vocab[tw.Term] = true
			}
		}
	}
	split := make([][]string, len(urls))
	for i, d := range urls {
		for _, t := range d {
			split[i] = append(split[i], text.SplitCompound(t, vocab)...)
		}
	}
	return Iteration{Space: space, Examples: len(ex), URL: topDF(split, k), Anchor: topDF(anchors, k), Text: topDF(texts, k)}
}

// topDF returns the k terms in the most docs with their document
// frequencies, highest first, ties by term.
func topDF(docs [][]string, k int) []TermWeight {
	df := map[string]int{}
	seen := map[string]bool{}
	for _, d := range docs {
		clear(seen)
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	out := make([]TermWeight, 0, len(df))
	for t, n := range df {
		out = append(out, TermWeight{t, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].DF != out[j].DF {
			return out[i].DF > out[j].DF
		}
		return out[i].Term < out[j].Term
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}
