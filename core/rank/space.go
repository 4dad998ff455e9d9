package rank

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// Space is a feature space: FSS {U, A, T} for sites or FSL {P, A, T} for
// links, each context a vector of its top terms. A Space is immutable once
// built, so rankers share it between goroutines.
type Space struct {
	// Name is "FSS" or "FSL".
	Name string
	// URL is U (FSS) or P (FSL); Anchor is A; Text is T.
	URL, Anchor, Text text.Vector
	norms             [3]float64
	// vocab holds the frequent terms URL tokens are split on before they
	// are compared with URL ("carmax" → "car", "max"); splits are memoised.
	vocab   map[string]bool
	splits  sync.Map // token → []string (nil: does not split)
	nsplits atomic.Int64
}

// NewSpace builds a space from three term vectors. URL tokens of the
// features scored are split on the terms of all three vectors.
func NewSpace(name string, url, anchor, around text.Vector) *Space {
	s := &Space{Name: name, URL: url, Anchor: anchor, Text: around, vocab: map[string]bool{}}
	for i, v := range s.vectors() {
		s.norms[i] = v.Norm()
		for t := range v {
			s.vocab[t] = true
		}
	}
	return s
}

// SpaceFromTerms builds a space whose vectors hold the given terms with
// weight 1: the starting space made from a profile's keywords.
func SpaceFromTerms(name string, url, anchor, around []string) *Space {
	unit := func(ts []string) text.Vector {
		v := make(text.Vector, len(ts))
		for _, t := range ts {
			v[t] = 1
		}
		return v
	}
	return NewSpace(name, unit(url), unit(anchor), unit(around))
}

func (s *Space) vectors() [3]text.Vector { return [3]text.Vector{s.URL, s.Anchor, s.Text} }

// Similarity returns cos(U,Uf) + cos(A,Af) + cos(T,Tf): the ST of a site or
// the LT of a link, in [0, 3]. A nil space scores 0.
func (s *Space) Similarity(f Features) float64 {
	if s == nil {
		return 0
	}
	return cosTerms(s.URL, s.norms[0], s.splitURL(f.URL)) +
		cosTerms(s.Anchor, s.norms[1], f.Anchor) +
		cosTerms(s.Text, s.norms[2], f.Text)
}

// The contexts of a Space and of Features, for [Space.Cosine].
const (
	ContextURL = iota
	ContextAnchor
	ContextText
)

// Cosine returns the cosine of one context (ContextURL, ContextAnchor or
// ContextText) of a site or link whose terms in that context are terms:
// Similarity is the three summed in that order, so a caller that knows one
// did not change may keep it. A nil space scores 0.
func (s *Space) Cosine(context int, terms []string) float64 {
	if s == nil {
		return 0
	}
	if context == ContextURL {
		terms = s.splitURL(terms)
	}
	return cosTerms(s.vectors()[context], s.norms[context], terms)
}

// splitURL splits the URL tokens that are not terms of U on the space's
// vocabulary (the URL sub-term rule), allocating only when one splits.
func (s *Space) splitURL(terms []string) []string {
	if len(s.vocab) == 0 {
		return terms
	}
	var out []string
	for i, t := range terms {
		var parts []string
		if _, ok := s.URL[t]; !ok {
			parts = s.split(t)
		}
		if parts == nil { // kept whole
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(terms)+4), terms[:i]...)
		}
		out = append(out, parts...)
	}
	if out == nil {
		return terms
	}
	return out
}

// maxSplits bounds the memo of split tokens.
const maxSplits = 200000

// split returns the parts of t, or nil when t does not split.
func (s *Space) split(t string) []string {
	if v, ok := s.splits.Load(t); ok {
		return v.([]string)
	}
	parts := text.SplitCompound(t, s.vocab)
	if len(parts) == 1 && parts[0] == t {
		parts = nil
	}
	if s.nsplits.Add(1) <= maxSplits {
		s.splits.Store(t, parts)
	}
	return parts
}

// cosTerms is text.Cosine(v, text.NewVector(terms)) without building the
// vector: the terms are counted in a sorted copy (on the stack when short).
func cosTerms(v text.Vector, vnorm float64, terms []string) float64 {
	if len(terms) == 0 || len(v) == 0 || vnorm == 0 {
		return 0
	}
	var buf [48]string
	var ts []string
	if len(terms) <= len(buf) {
		ts = buf[:len(terms)]
		copy(ts, terms)
	} else {
		ts = slices.Clone(terms)
	}
	slices.Sort(ts)
	var dot, sq float64
	for i := 0; i < len(ts); {
		j := i + 1
		for j < len(ts) && ts[j] == ts[i] {
			j++
		}
		w := 1 + math.Log(float64(j-i))
		sq += w * w
		dot += w * v[ts[i]]
		i = j
	}
	if dot == 0 {
		return 0
	}
	return math.Min(dot/(math.Sqrt(sq)*vnorm), 1)
}
