package pqueue

import (
	"math/rand/v2"
	"testing"
)

// benchEntry is shaped like the entries the frontiers and the enrichment
// engine queue: a score, a tie-breaker and a payload.
type benchEntry struct {
	score float64
	seq   uint64
	id    int32
}

func benchBefore(a, b benchEntry) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.seq < b.seq
}

// BenchmarkPushPop pushes 100,000 entries of random scores and pops them
// all; it reports the time per push+pop pair.
func BenchmarkPushPop(b *testing.B) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(testSeed, 0))
	es := make([]benchEntry, n)
	for i := range es {
		es[i] = benchEntry{score: float64(rng.IntN(1000)), seq: uint64(i), id: int32(i)}
	}
	q := New(benchBefore)
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range es {
			q.Push(e)
		}
		for q.Len() > 0 {
			q.Pop()
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*n), "ns/pair")
}
