package surface

import (
	"math/rand"
	"strings"
	"testing"
)

// word turns i into a letters-only term (the tokenizer splits letters from
// digits).
func word(i int) string {
	var b []byte
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			break
		}
	}
	return "w" + string(b)
}

// synthStats builds a statistics table of about nTerms distinct terms from
// Zipf-distributed documents and a few issued queries, limited ones included.
func synthStats(tb testing.TB, nTerms int, seed int64) *Stats {
	tb.Helper()
	r := rand.New(rand.NewSource(seed))
	z := rand.NewZipf(r, 1.1, 4, uint64(4*nTerms))
	s := NewStats(TermOptions{})
	var sb strings.Builder
	perDoc := 25
	var docs []int32
	for s.Len() < nTerms {
		sb.Reset()
		for j := 0; j < perDoc; j++ {
			sb.WriteString(word(int(z.Uint64())))
			sb.WriteByte(' ')
		}
		docs = append(docs, s.addDoc(sb.String()))
	}
	// issue the 40 most frequent terms' queries over the documents in
	// batches, half of them limited to k = 1000 of twice their count
	for q := 0; q < 40; q++ {
		t := word(q)
		id, ok := s.ids[t]
		if !ok {
			continue
		}
		var res []Result
		for p, d := range s.post[id] {
			if p >= 1000 {
				break
			}
			res = append(res, Result{Doc: d, Pos: p + 1})
		}
		total := len(s.post[id])
		limited := q%2 == 0
		if limited {
			total *= 2
		}
		s.Observe(t, res, total, float64(total)*0.8, 0, limited)
	}
	tb.Logf("seed %d: %d terms, %d documents, %d queries", seed, s.Len(), s.Docs(), len(s.Queries))
	return s
}

// BenchmarkSelect1M times one greedy selection over a statistics table of a
// million terms (target: ≤ 50 ms).
func BenchmarkSelect1M(b *testing.B) {
	for _, est := range []Estimator{Independence, Zipf} {
		b.Run(string(est), func(b *testing.B) {
			s := synthStats(b, 1_000_000, 1)
			opt := SelectOptions{Estimator: est, K: 1000}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, ok := s.Select(opt); !ok {
					b.Fatal("no choice")
				}
			}
		})
	}
}
