package text

import (
	"maps"
	"math"
	"slices"
	"sort"
)

// Vector is a sparse term vector: term → weight.
type Vector map[string]float64

// NewVector builds the term-frequency vector of terms with the weight
// 1 + ln(tf) that SmartCrawler uses for its URL, anchor and text features.
func NewVector(terms []string) Vector {
	tf := make(map[string]int, len(terms))
	for _, t := range terms {
		tf[t]++
	}
	v := make(Vector, len(tf))
	for t, n := range tf {
		v[t] = 1 + math.Log(float64(n))
	}
	return v
}

// Norm returns the Euclidean length of v. The terms are summed in their
// lexical order: in map order (random in every range) the last bits of the
// sum changed from call to call, and so did which of two links a space
// ranked equally came first (a --seed-run crawl went another way).
func (v Vector) Norm() float64 {
	var s float64
	for _, t := range v.terms() {
		w := v[t]
		s += w * w
	}
	return math.Sqrt(s)
}

// Dot returns the inner product of v and u, summed in the terms' lexical
// order (see Norm).
func (v Vector) Dot(u Vector) float64 {
	if len(u) < len(v) {
		v, u = u, v
	}
	var s float64
	for _, t := range v.terms() {
		s += v[t] * u[t]
	}
	return s
}

// terms returns v's terms in lexical order.
func (v Vector) terms() []string {
	return slices.Sorted(maps.Keys(v))
}

// Cosine returns the cosine similarity of a and b, and 0 when either is
// empty or has zero length.
func Cosine(a, b Vector) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	na, nb := a.Norm(), b.Norm()
	if na == 0 || nb == 0 {
		return 0
	}
	c := a.Dot(b) / (na * nb)
	// Rounding can push the cosine of a vector with itself just above 1.
	return math.Min(c, 1)
}

// TopK returns the k terms that occur in the most documents (a term counts
// once per document), highest document frequency first and ties broken by
// the term in lexical order. It returns fewer than k terms when the documents
// hold fewer, and nil when k <= 0.
func TopK(docs [][]string, k int) []string {
	if k <= 0 {
		return nil
	}
	df := make(map[string]int)
	seen := make(map[string]struct{})
	for _, d := range docs {
		clear(seen)
		for _, t := range d {
			if _, ok := seen[t]; ok {
				continue
			}
			seen[t] = struct{}{}
			df[t]++
		}
	}
	terms := make([]string, 0, len(df))
	for t := range df {
		terms = append(terms, t)
	}
	sort.Slice(terms, func(i, j int) bool {
		if df[terms[i]] != df[terms[j]] {
			return df[terms[i]] > df[terms[j]]
		}
		return terms[i] < terms[j]
	})
	if len(terms) > k {
		terms = terms[:k]
	}
	return terms
}
