package surface

import (
	"context"
	"sort"

	"github.com/dwcrawl/dwcrawl/core/pqueue"
)

// GroundTruth is the full knowledge of a hidden database that the oracle
// policy uses; benchmarks only. *hiddendb.DB satisfies it.
type GroundTruth interface {
	// Vocabulary returns every indexed term with its document frequency.
	Vocabulary() map[string]int
	// TopK returns the indices of the records a query can reach: its top-k.
	TopK(q string) []int
	// Lookup returns the index of the record with the given id.
	Lookup(id string) (int, bool)
	// Len is the number of records.
	Len() int
}

// Oracle is the reference policy: greedy set cover with full knowledge of
// every single-term query's reachable result set (its top k), always issuing
// the term that brings the most records not downloaded yet. It uses lazy
// evaluation (a term's gain only shrinks as coverage grows).
type Oracle struct {
	gt      GroundTruth
	terms   []string
	sets    [][]int32
	h       pqueue.Queue[gainItem]
	covered []bool
}

// NewOracle builds the oracle over every candidate term of the database.
func NewOracle(gt GroundTruth, opt TermOptions) *Oracle {
	o := &Oracle{gt: gt, covered: make([]bool, gt.Len())}
	vocab := gt.Vocabulary()
	var items []gainItem
	terms := make([]string, 0, len(vocab))
	for t := range vocab {
		if opt.candidate(t) && len(opt.QueryTerms(t)) == 1 {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	for _, t := range terms {
		top := gt.TopK(t)
		if len(top) == 0 {
			continue
		}
		s := make([]int32, len(top))
		for i, x := range top {
			s[i] = int32(x)
		}
		items = append(items, gainItem{term: int32(len(o.terms)), gain: len(s)})
		o.terms = append(o.terms, t)
		o.sets = append(o.sets, s)
	}
	o.h = pqueue.New(gainItem.before)
	o.h.Init(items)
	return o
}

// Name is "oracle".
func (o *Oracle) Name() string { return "oracle" }

// Next pops the term with the largest true gain.
func (o *Oracle) Next(_ context.Context, st *State) (Proposal, error) {
	for o.h.Len() > 0 {
		it := o.h.Pop()
		t := o.terms[it.term]
		if st.Issued(t) {
			continue
		}
		g := 0
		for _, x := range o.sets[it.term] {
			if !o.covered[x] {
				g++
			}
		}
		if g == 0 {
			continue
		}
		if o.h.Len() == 0 || g >= o.h.Top().gain {
			return Proposal{Query: t, Est: float64(len(o.sets[it.term])), Gain: float64(g)}, nil
		}
		o.h.Push(gainItem{term: it.term, gain: g})
	}
	return Proposal{}, ErrExhausted
}

// Observe marks the downloaded records covered.
func (o *Oracle) Observe(_ *State, _ QueryLog, fresh []Doc) {
	for _, d := range fresh {
		if i, ok := o.gt.Lookup(d.ID); ok {
			o.covered[i] = true
		}
	}
}

type gainItem struct {
	term int32
	gain int
}

// before orders the oracle's terms: largest gain first, ties by term.
func (a gainItem) before(b gainItem) bool {
	if a.gain != b.gain {
		return a.gain > b.gain
	}
	return a.term < b.term
}
