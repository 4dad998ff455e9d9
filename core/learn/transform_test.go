package learn

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// transformRef is TFIDF.Transform as first written: term counts in a map,
// then NewSparse.
func transformRef(t *TFIDF, terms []string) Sparse {
	tf := make(map[int32]float64, len(terms))
	for _, term := range terms {
		if i, ok := t.index[term]; ok {
			tf[i]++
		}
	}
	for i, c := range tf {
		tf[i] = (1 + math.Log(c)) * t.IDF[i]
	}
	return NewSparse(tf).Normalize()
}

func randomDocs(rng *rand.Rand, n, vocab int) [][]string {
	docs := make([][]string, n)
	for i := range docs {
		d := make([]string, rng.IntN(40))
		for j := range d {
			// Zipf-like: low numbers repeat within and across documents.
			d[j] = "t" + strconv.Itoa(int(float64(vocab)*math.Pow(rng.Float64(), 3)))
		}
		docs[i] = d
	}
	return docs
}

// TestTransformMatchesRef: the sort-based Transform gives bit for bit the
// vectors of the map-based statement, on random bags with repeated and
// unknown terms (and empty ones).
func TestTransformMatchesRef(t *testing.T) {
	const seed = 19
	rng := rand.New(rand.NewPCG(seed, seed))
	v := FitTFIDF(randomDocs(rng, 200, 300), 2, 150)
	for i, d := range randomDocs(rng, 2000, 400) {
		got, want := v.Transform(d), transformRef(v, d)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d, bag %d %q: Transform = %v, want %v", seed, i, d, got, want)
		}
	}
}

func BenchmarkTransform(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	v := FitTFIDF(randomDocs(rng, 200, 300), 2, 150)
	docs := randomDocs(rng, 64, 400)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		v.Transform(docs[i%len(docs)])
		i++
	}
}
