package enrich

import (
	"context"
	"math/rand"
	"testing"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

func queryIndex(t *testing.T, p *Pool, text string) int32 {
	t.Helper()
	for i := range p.Queries {
		if p.Text(i) == text {
			return int32(i)
		}
	}
	t.Fatalf("no pool query %q", text)
	return -1
}

// Table 1 of the paper on a hand-computed example: |D| = 4, Hs = 2 records,
// θ = 0.1, k = 10, so α = θ|D|/|Hs| = 0.2.
func TestEstimators(t *testing.T) {
	l := NewLocal([]string{"alpha beta", "alpha gamma", "alpha delta", "beta gamma"})
	p, err := BuildPool(l, PoolOptions{MinSupport: 2})
	if err != nil {
		t.Fatal(err)
	}
	sample := &Sample{Theta: 0.1, Docs: []Doc{{Text: "alpha beta"}, {Text: "alpha zeta"}}}
	cases := []struct {
		query string
		// |q(D)|=3, |q(Hs)|=2 → |q(H)|≈20 > k: overflowing
		// |q(D)|=2, |q(Hs)|=1 → |q(H)|≈10: solid
		// |q(D)|=2, |q(Hs)|=0 → fallback |q(H)|≈|q(D)|/α=10: solid
		simple, bound, biased, unbiased float64
	}{
		{"alpha", 3, 3, 3 * 10.0 / 20, 1 * 10.0 / 2},
		{"beta", 2, 2, 2, 1 / 0.1},
		{"gamma", 2, 2, 2, 0},
	}
	for _, m := range []Method{SmartSimple, SmartBound, SmartBiased, SmartUnbiased} {
		e, err := NewEngine(p, NewJaccard(l, 0.9, nil), Options{Method: m, Budget: 5, K: 10, Sample: sample})
		if err != nil {
			t.Fatal(err)
		}
		if m == SmartBiased && !approx(e.alpha, 0.2) {
			t.Fatalf("α = %g, want 0.2", e.alpha)
		}
		for _, c := range cases {
			want := map[Method]float64{SmartSimple: c.simple, SmartBound: c.bound, SmartBiased: c.biased, SmartUnbiased: c.unbiased}[m]
			if got := e.benefit(queryIndex(t, p, c.query)); !approx(got, want) {
				t.Errorf("%s benefit(%q) = %g, want %g", m, c.query, got, want)
			}
		}
	}
	e, _ := NewEngine(p, nil, Options{Method: SmartBiased, Budget: 5, K: 10, Sample: sample})
	for _, c := range []struct {
		q     string
		solid bool
		h     float64
	}{{"alpha", false, 20}, {"beta", true, 10}, {"gamma", true, 10}} {
		solid, h := e.Predicted(int(queryIndex(t, p, c.q)))
		if solid != c.solid || !approx(h, c.h) {
			t.Errorf("Predicted(%q) = %v %g, want %v %g", c.q, solid, h, c.solid, c.h)
		}
	}
}

func newSynthetic(t testing.TB, seed int64, nHidden, nLocal, k int) (*hiddendb.DB, *Table, *Local, *Pool, *Sample) {
	t.Helper()
	recs := synthetic(seed, nHidden)
	db := hiddendb.New(recs, hiddendb.Options{K: k, PageSize: 7, Seed: seed})
	tab, err := ReadTable(stringsReader(localCSV(recs, nLocal)), "local.csv")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := tab.Docs([]string{"title", "author"})
	l := NewLocal(docs)
	p, err := BuildPool(l, PoolOptions{MinSupport: 2})
	if err != nil {
		t.Fatal(err)
	}
	var hdocs []Doc
	for i := 0; i < db.Len(); i++ {
		hdocs = append(hdocs, Doc{ID: db.Record(i).ID, Fields: db.Record(i).Fields, Text: db.Text(i)})
	}
	return db, tab, l, p, UniformSample(hdocs, 0.05, rand.New(rand.NewSource(seed)))
}

// The lazy priority queue must pick, at every step, a query whose current
// benefit is the maximum over the pool (what an eager greedy would pick).
func TestLazyQueueIsGreedy(t *testing.T) {
	seed := int64(11)
	t.Logf("seed %d", seed)
	db, _, l, p, sample := newSynthetic(t, seed, 1500, 400, 20)
	for _, m := range []Method{SmartBiased, SmartUnbiased, SmartSimple, SmartBound} {
		e, err := NewEngine(p, NewJaccard(l, 0.9, []string{"title", "author"}), Options{Method: m, Budget: 120, K: 20, Sample: sample})
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; ; step++ {
			best := -1.0
			ben := make([]float64, p.Len())
			for i := range p.Queries {
				if !e.used[i] && e.nD[i] > 0 {
					ben[i] = e.benefit(int32(i))
					if ben[i] > best {
						best = ben[i]
					}
				}
			}
			en, ok, err := e.Step(context.Background(), hiddendb.Searcher{DB: db, OmitText: true})
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if ben[en.Pool] != best {
				t.Fatalf("%s step %d: picked %q with benefit %g, max is %g", m, step, en.Query, ben[en.Pool], best)
			}
		}
		rep := e.Report()
		t.Logf("%s: %d queries, %d covered, %d uncoverable", m, rep.Queries, rep.Covered, rep.Uncoverable)
		if rep.Covered == 0 {
			t.Fatalf("%s covered nothing", m)
		}
	}
}

// Records of D that are not in H are removed once a solid query matching
// them comes back without them (Section 4.2).
func TestUncoverableRemoved(t *testing.T) {
	hidden := []hiddendb.Record{
		{ID: "1", Fields: map[string]string{"t": "alpha beta"}},
		{ID: "2", Fields: map[string]string{"t": "alpha gamma"}},
	}
	db := hiddendb.New(hidden, hiddendb.Options{K: 10})
	l := NewLocal([]string{"alpha beta", "alpha gamma", "alpha delta"}) // "alpha delta" is not in H
	p, _ := BuildPool(l, PoolOptions{MinSupport: 2})
	e, err := NewEngine(p, NewJaccard(l, 0.9, nil), Options{Method: SmartSimple, Budget: 10, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Run(context.Background(), hiddendb.Searcher{DB: db, OmitText: true})
	if err != nil {
		t.Fatal(err)
	}
	// "alpha" (|q(D)| = 3) is solid: covers two records, removes the third
	if rep.Queries != 1 || rep.Covered != 2 || rep.Uncoverable != 1 || rep.Solid != 1 {
		t.Fatalf("report %+v", rep)
	}
	c, ok := e.Cover(1)
	if !ok || c.Doc.ID != "2" || c.Query != "alpha" || c.N != 1 || c.Score != 1 {
		t.Fatalf("cover of record 1 = %+v %v", c, ok)
	}
}

type fixedOracle map[string][]int

func (o fixedOracle) Covers(q string) []int { return o[q] }

func TestBaselines(t *testing.T) {
	seed := int64(5)
	t.Logf("seed %d", seed)
	db, _, l, p, sample := newSynthetic(t, seed, 800, 200, 15)
	ctx := context.Background()
	run := func(m Method, opt Options) (*Engine, Report) {
		opt.Method, opt.K, opt.Sample = m, 15, sample
		e, err := NewEngine(p, NewJaccard(l, 0.9, []string{"title", "author"}), opt)
		if err != nil {
			t.Fatal(err)
		}
		var queries []string
		for {
			en, ok, err := e.Step(ctx, hiddendb.Searcher{DB: db, OmitText: true})
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			queries = append(queries, en.Query)
		}
		t.Logf("%s: %v…", m, queries[:min(5, len(queries))])
		return e, e.Report()
	}
	_, naive := run(Naive, Options{Budget: 30, Seed: 1})
	if naive.Queries != 30 || naive.Covered < 25 {
		t.Errorf("naive: %+v", naive)
	}
	_, full := run(Full, Options{Budget: 30})
	if full.Queries != 30 {
		t.Errorf("full: %+v", full)
	}
	// ideal with an oracle that knows the top-k truth
	o := fixedOracle{}
	for i := range p.Queries {
		for _, hi := range db.TopK(p.Text(i)) {
			if r, err := atoi(db.Record(hi).ID); err == nil && r <= 200 {
				o[p.Text(i)] = append(o[p.Text(i)], r-1)
			}
		}
	}
	_, ideal := run(Ideal, Options{Budget: 30, Oracle: o})
	_, smart := run(SmartBiased, Options{Budget: 30})
	t.Logf("covered with 30 queries: naive %d, full %d, smart-b %d, ideal %d", naive.Covered, full.Covered, smart.Covered, ideal.Covered)
	if !(ideal.Covered >= smart.Covered && smart.Covered > naive.Covered) {
		t.Errorf("want ideal ≥ smart-b > naive")
	}
	if _, err := NewEngine(p, nil, Options{Method: Ideal, K: 5}); err == nil {
		t.Error("ideal without oracle accepted")
	}
	if _, err := NewEngine(p, nil, Options{Method: SmartBiased, K: 5}); err == nil {
		t.Error("smart-b without sample accepted")
	}
}

// Replaying a journal and continuing gives the same run as an uninterrupted one.
func TestReplayResumesIdentically(t *testing.T) {
	seed := int64(8)
	t.Logf("seed %d", seed)
	db, _, l, p, sample := newSynthetic(t, seed, 1000, 300, 20)
	ctx := context.Background()
	for _, m := range []Method{SmartBiased, Naive, Full} {
		opt := Options{Method: m, Budget: 40, K: 20, Sample: sample, Seed: 3}
		whole, _ := NewEngine(p, NewJaccard(l, 0.9, nil), opt)
		var all []Entry
		for {
			en, ok, err := whole.Step(ctx, hiddendb.Searcher{DB: db, OmitText: true})
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			all = append(all, en)
		}
		half, _ := NewEngine(p, NewJaccard(l, 0.9, nil), opt)
		for _, en := range all[:len(all)/2] {
			half.Apply(en)
		}
		for i := len(all) / 2; ; i++ {
			en, ok, err := half.Step(ctx, hiddendb.Searcher{DB: db, OmitText: true})
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				if i != len(all) {
					t.Fatalf("%s: resumed run stopped after %d queries, want %d", m, i, len(all))
				}
				break
			}
			if en.Query != all[i].Query {
				t.Fatalf("%s query %d: resumed %q, uninterrupted %q", m, i+1, en.Query, all[i].Query)
			}
		}
		if a, b := whole.Report(), half.Report(); a.Covered != b.Covered || a.Uncoverable != b.Uncoverable {
			t.Fatalf("%s: reports differ: %+v vs %+v", m, a, b)
		}
	}
}
