package enrich

import (
	"context"
	"math/rand"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEnrich100k builds the query pool of a 100,000-record local table
// (WordNet glosses: lemmas + gloss) and selects 10,000 queries with smart-b
// against an in-process hidden database of all 117,659 glosses (k = 100,
// θ = 0.5%). It reports the CPU time spent outside the interface.
func BenchmarkEnrich100k(b *testing.B) {
	recs, err := hiddendb.LoadJSONL(sharedtest.Path(b, "corpora", "wordnet-glosses.jsonl"), "id")
	if err != nil {
		b.Fatal(err)
	}
	cols := []string{"lemmas", "gloss"}
	db := hiddendb.New(recs, hiddendb.Options{K: 100, PageSize: 100, IndexFields: cols, Seed: 1})
	const n = 100_000
	seed := int64(1)
	b.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	docs := make([]string, 0, n)
	for _, i := range rng.Perm(len(recs))[:n] {
		docs = append(docs, DocText(Doc{Fields: recs[i].Fields}, cols))
	}
	hdocs := make([]Doc, db.Len())
	for i := range hdocs {
		hdocs[i] = Doc{ID: db.Record(i).ID, Fields: db.Record(i).Fields, Text: db.Text(i)}
	}
	sample := UniformSample(hdocs, 0.005, rng)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		cpu0, wall0 := cpuTime(), time.Now()
		l := NewLocal(docs)
		pool, err := BuildPool(l, PoolOptions{})
		if err != nil {
			b.Fatal(err)
		}
		poolCPU, poolWall := cpuTime()-cpu0, time.Since(wall0)
		eng, err := NewEngine(pool, NewJaccard(l, 0.9, cols), Options{Method: SmartBiased, Budget: 10_000, K: 100, Sample: sample})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := eng.Run(context.Background(), hiddendb.Searcher{DB: db, OmitText: true})
		if err != nil {
			b.Fatal(err)
		}
		cpu, wall := cpuTime()-cpu0, time.Since(wall0)
		b.ReportMetric((cpu - rep.SearchTime).Seconds(), "cpu-s-beyond-interface/op")
		b.ReportMetric((wall - rep.SearchTime).Seconds(), "wall-s-beyond-interface/op")
		b.ReportMetric(poolCPU.Seconds(), "pool-cpu-s/op")
		b.ReportMetric(float64(rep.Covered), "covered")
		b.Logf("pool %+v in %s (cpu %s); %d queries, covered %d, uncoverable %d; interface %s; total cpu %s wall %s",
			pool.Stats, poolWall.Round(time.Millisecond), poolCPU.Round(time.Millisecond), rep.Queries, rep.Covered, rep.Uncoverable,
			rep.SearchTime.Round(time.Millisecond), cpu.Round(time.Millisecond), wall.Round(time.Millisecond))
	}
}
