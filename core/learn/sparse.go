package learn

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Sparse is a sparse vector: Idx holds strictly increasing feature indices
// and Val the matching values.
type Sparse struct {
	Idx []int32   `json:"i"`
	Val []float64 `json:"v"`
}

// Len returns the number of stored (non-zero) entries.
func (s Sparse) Len() int { return len(s.Idx) }

// Dot returns the dot product of s with the dense vector w. Indices beyond
// len(w) count as zero.
func (s Sparse) Dot(w []float64) float64 {
	var d float64
	for k, i := range s.Idx {
		if int(i) < len(w) {
			d += s.Val[k] * w[i]
		}
	}
	return d
}

// SqNorm returns the squared Euclidean norm of s.
func (s Sparse) SqNorm() float64 {
	var n float64
	for _, v := range s.Val {
		n += v * v
	}
	return n
}

// Norm returns the Euclidean norm of s.
func (s Sparse) Norm() float64 { return math.Sqrt(s.SqNorm()) }

// Normalize scales s to unit Euclidean norm in place (no-op on the zero
// vector) and returns it.
func (s Sparse) Normalize() Sparse {
	n := s.Norm()
	if n == 0 {
		return s
	}
	for k := range s.Val {
		s.Val[k] /= n
	}
	return s
}

// NewSparse builds a Sparse from a map of index to value, dropping zeros.
func NewSparse(m map[int32]float64) Sparse {
	s := Sparse{Idx: make([]int32, 0, len(m)), Val: make([]float64, 0, len(m))}
	for i, v := range m {
		if v != 0 {
			s.Idx = append(s.Idx, i)
		}
	}
	sort.Slice(s.Idx, func(a, b int) bool { return s.Idx[a] < s.Idx[b] })
	for _, i := range s.Idx {
		s.Val = append(s.Val, m[i])
	}
	return s
}

// TFIDF maps bags of terms to L2-normalised sparse vectors weighted
// (1 + ln tf) · idf, with idf = ln((1+N)/(1+df)) + 1 (smoothed, so a term in
// every document keeps a small positive weight).
type TFIDF struct {
	Terms []string  `json:"terms"` // feature index -> term
	IDF   []float64 `json:"idf"`
	index map[string]int32
}

// FitTFIDF learns the vocabulary and idf weights from docs. Terms in fewer
// than minDF documents are dropped; when maxFeatures > 0 only the
// maxFeatures terms of highest document frequency are kept (ties by term).
func FitTFIDF(docs [][]string, minDF, maxFeatures int) *TFIDF {
	df := docFreq(docs)
	terms := make([]string, 0, len(df))
	for t, n := range df {
		if n >= minDF {
			terms = append(terms, t)
		}
	}
	sortByDF(terms, df)
	if maxFeatures > 0 && len(terms) > maxFeatures {
		terms = terms[:maxFeatures]
	}
	sort.Strings(terms)
	t := &TFIDF{Terms: terms, IDF: make([]float64, len(terms))}
	n := float64(len(docs))
	for i, term := range terms {
		t.IDF[i] = math.Log((1+n)/(1+float64(df[term]))) + 1
	}
	t.buildIndex()
	return t
}

func (t *TFIDF) buildIndex() {
	t.index = make(map[string]int32, len(t.Terms))
	for i, term := range t.Terms {
		t.index[term] = int32(i)
	}
}

// UnmarshalJSON decodes a TFIDF and rebuilds its term index, so a loaded
// model is safe for concurrent use.
func (t *TFIDF) UnmarshalJSON(b []byte) error {
	type plain TFIDF
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if len(p.Terms) != len(p.IDF) {
		return fmt.Errorf("tfidf: %d terms, %d idf weights", len(p.Terms), len(p.IDF))
	}
	*t = TFIDF(p)
	t.buildIndex()
	return nil
}

// Dim returns the number of features.
func (t *TFIDF) Dim() int { return len(t.Terms) }

// Index returns the feature index of term, or -1.
func (t *TFIDF) Index(term string) int {
	if i, ok := t.index[term]; ok {
		return int(i)
	}
	return -1
}

// Transform returns the unit-length tf-idf vector of a bag of terms; terms
// outside the vocabulary are ignored.
func (t *TFIDF) Transform(terms []string) Sparse {
	// Sorting the known terms' indices groups each term's occurrences and
	// gives Sparse its order at once: no map, no sort.Slice.
	idx := make([]int32, 0, len(terms))
	for _, term := range terms {
		if i, ok := t.index[term]; ok {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	s := Sparse{Idx: idx[:0], Val: make([]float64, 0, len(idx))}
	for k := 0; k < len(idx); {
		j := k + 1
		for j < len(idx) && idx[j] == idx[k] {
			j++
		}
		// Idx is written behind the read position k.
		if i, v := idx[k], (1+math.Log(float64(j-k)))*t.IDF[idx[k]]; v != 0 {
			s.Idx = append(s.Idx, i)
			s.Val = append(s.Val, v)
		}
		k = j
	}
	return s.Normalize()
}

// docFreq counts, for each term, the number of docs containing it.
func docFreq(docs [][]string) map[string]int {
	df := make(map[string]int)
	seen := make(map[string]bool)
	for _, d := range docs {
		clear(seen)
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	return df
}

// sortByDF orders terms by document frequency, highest first, then by term.
func sortByDF(terms []string, df map[string]int) {
	sort.Slice(terms, func(a, b int) bool {
		if df[terms[a]] != df[terms[b]] {
			return df[terms[a]] > df[terms[b]]
		}
		return terms[a] < terms[b]
	})
}
