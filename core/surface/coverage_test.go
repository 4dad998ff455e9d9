package surface

import (
	"context"
	"math"
	"math/rand"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// synthCorpus builds n records whose words are drawn from a Zipf
// distribution over a vocabulary of vocab words, letter-only made-up words
// or, with english, the bundled generic list from rank 100 (so that the
// size probes match): a fraction longFrac of the records have long
// distinct words, the others short ones. It returns the records and the
// vocabulary, most frequent first.
func synthCorpus(seed int64, n, vocab, short, long int, longFrac float64, english bool) ([]hiddendb.Record, []string) {
	rng := rand.New(rand.NewSource(seed))
	z := rand.NewZipf(rng, 1.05, 2, uint64(vocab-1))
	var words []string
	var opt TermOptions
	if english {
		for _, w := range GenericWords()[100:] {
			if len(words) == vocab {
				break
			}
			if opt.candidate(w) && len(opt.QueryTerms(w)) == 1 {
				words = append(words, w)
			}
		}
		rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	} else {
		for i := 0; i < vocab; i++ {
			words = append(words, word(i))
		}
	}
	recs := make([]hiddendb.Record, n)
	for i := range recs {
		m := short
		if rng.Float64() < longFrac {
			m = long
		}
		seen := map[int]bool{}
		var b []string
		for len(b) < m {
			w := int(z.Uint64())
			if !seen[w] {
				seen[w] = true
				b = append(b, words[w])
			}
		}
		recs[i] = hiddendb.Record{ID: "r" + strconv.Itoa(i), Fields: map[string]string{"text": strings.Join(b, " ")}}
	}
	return recs, words
}

// capture keeps the harvest state the policy sees, for the tests.
type capture struct {
	Policy
	st *State
}

func (c *capture) Next(ctx context.Context, st *State) (Proposal, error) {
	c.st = st
	return c.Policy.Next(ctx, st)
}

// TestCoverageHeterogeneous: random queries over a database where a fifth
// of the records have ten times the words of the others, so they are
// matched about ten times as often. Plain capture–recapture (one stratum)
// sees the long records both downloaded and recaptured more often than
// their share and underestimates the size; the stratified estimator does
// not.
func TestCoverageHeterogeneous(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		recs, words := synthCorpus(seed, 20000, 6000, 4, 40, 0.2, false)
		db := hiddendb.New(recs, hiddendb.Options{K: 1000, PageSize: 100, ShowTotal: true, Seed: seed})
		// random words of the 3000 most frequent: every query is answered
		pol := NewRandom(words[:3000], seed)
		st, err := Harvest(context.Background(), hiddendb.Searcher{DB: db}, pol, Options{Budget: 60})
		if err != nil {
			t.Fatal(err)
		}
		truth := float64(st.Docs()) / float64(db.Len())
		plain := st.Stats.estimateCoverage(st.K(), 1)
		strat := st.Stats.EstimateCoverage(st.K())
		t.Logf("seed %d: truth %.3f, plain %.3f [%.3f, %.3f], stratified %.3f [%.3f, %.3f] (%s, %d strata)",
			seed, truth, plain.Coverage, plain.Low, plain.High, strat.Coverage, strat.Low, strat.High, strat.Estimator, strat.Strata)
		if plain.Coverage < truth*1.25 {
			t.Errorf("seed %d: plain capture–recapture %.3f not biased above the truth %.3f: the case tests nothing", seed, plain.Coverage, truth)
		}
		if math.Abs(strat.Coverage-truth) > 0.05 || math.Abs(plain.Coverage-truth) < 3*math.Abs(strat.Coverage-truth) {
			t.Errorf("seed %d: stratified estimate %.3f, truth %.3f", seed, strat.Coverage, truth)
		}
		if strat.Low > truth || strat.High < truth {
			t.Errorf("seed %d: interval [%.3f, %.3f] misses the truth %.3f", seed, strat.Low, strat.High, truth)
		}
		if strat.Estimator != EstimatorSchnabel+"/reported" || strat.Strata < 2 {
			t.Errorf("seed %d: estimator %q, %d strata", seed, strat.Estimator, strat.Strata)
		}
	}
}

// TestCoverageKnownSize: on homogeneous synthetic databases of known size,
// with totals reported, with complete answers only, and with hidden totals
// and a result limit (rank estimates of the totals, size probes), the
// estimate is close to the truth and the interval holds it.
func TestCoverageKnownSize(t *testing.T) {
	cases := []struct {
		name      string
		k         int
		show      bool
		policy    string
		estimator string
		tol       float64 // relative error allowed
		english   bool    // English words, which the size probes match
	}{
		{"reported totals, k=200", 200, true, "random", EstimatorSchnabel + "/reported", 0.15, false},
		{"complete answers", 100000, false, "random", EstimatorLOO + "/complete", 0.15, false},
		// the adaptive policy's answers are cut: the size probes' complete
		// answers carry the estimate, a coarser one
		{"hidden totals, k=50, adaptive", 50, false, "adaptive", "", 0.5, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const seed = 7
			recs, words := synthCorpus(seed, 10000, 4000, 8, 8, 0, c.english)
			db := hiddendb.New(recs, hiddendb.Options{K: c.k, PageSize: 100, ShowTotal: c.show, Seed: seed})
			pol, err := NewPolicy(c.policy, PolicyOptions{Words: words[:1500], Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			st, err := Harvest(context.Background(), hiddendb.Searcher{DB: db}, pol, Options{Budget: 80})
			if err != nil {
				t.Fatal(err)
			}
			truth := float64(st.Docs()) / float64(db.Len())
			e := st.Coverage()
			t.Logf("seed %d: truth %.3f, estimate %.3f [%.3f, %.3f], size %.0f [%.0f, %.0f] of %d, %s, %d queries used",
				seed, truth, e.Coverage, e.Low, e.High, e.Size, e.SizeLow, e.SizeHigh, db.Len(), e.Estimator, e.Queries)
			if !strings.HasPrefix(e.Estimator, c.estimator) {
				t.Errorf("estimator %q, want %q", e.Estimator, c.estimator)
			}
			if math.Abs(e.Coverage-truth) > c.tol*truth {
				t.Errorf("estimate %.3f, truth %.3f", e.Coverage, truth)
			}
			if e.Low > truth || e.High < truth || !(e.Low <= e.Coverage && e.Coverage <= e.High) {
				t.Errorf("interval [%.3f, %.3f] around %.3f misses the truth %.3f", e.Low, e.High, e.Coverage, truth)
			}
		})
	}
}

// TestRankTotals: lists of a database ranked by a random permutation, a few
// complete and many cut at k; the totals of the cut lists are estimated
// from the positions of the documents they share with other lists.
func TestRankTotals(t *testing.T) {
	const seed, n, k = 5, 20000, 100
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	u := make([]float64, n) // global rank quantiles
	for i := range u {
		u[i] = rng.Float64()
	}
	// documents have a popularity, so lists share documents as term
	// result lists do
	pop := make([]float64, n)
	for i := range pop {
		pop[i] = math.Exp(rng.NormFloat64())
	}
	var c captureLog
	var truth []int
	list := func(size int) {
		seen := map[int]bool{}
		for len(seen) < size {
			d := rng.Intn(n)
			if rng.Float64() < pop[d]/8 {
				seen[d] = true
			}
		}
		docs := make([]int, 0, size)
		for d := range seen {
			docs = append(docs, d)
		}
		sort.Slice(docs, func(a, b int) bool { return u[docs[a]] < u[docs[b]] })
		q := queryCapture{reported: -1, limited: size > k}
		for i, d := range docs {
			if i == k {
				break
			}
			q.docs = append(q.docs, int32(d))
		}
		c.queries = append(c.queries, q)
		truth = append(truth, size)
	}
	for i := 0; i < 12; i++ {
		list(40 + rng.Intn(59))
	}
	for i := 0; i < 80; i++ {
		list(200 + rng.Intn(4000))
	}
	tot, src := c.totals(n, k, true, nil)
	var logs []float64
	for i := range tot {
		if src[i] == totalRank {
			logs = append(logs, math.Log(tot[i]/float64(truth[i])))
		}
	}
	sort.Float64s(logs)
	if len(logs) < 60 {
		t.Fatalf("%d of 80 cut lists got a total", len(logs))
	}
	med := logs[len(logs)/2]
	t.Logf("%d cut lists estimated, median log(estimate/truth) %.3f, quartiles %.3f %.3f", len(logs), med, logs[len(logs)/4], logs[3*len(logs)/4])
	if math.Abs(med) > math.Log(1.25) {
		t.Fatalf("median ratio %.2f", math.Exp(med))
	}
	// without a query-independent ranking nothing is estimated
	if _, src := c.totals(n, k, false, nil); src[20] != totalNone || src[0] != totalComplete {
		t.Fatalf("sources without rank estimates: %v", src[:21])
	}
}

// sizer is a Searcher whose interface reports the database size.
type sizer struct {
	hiddendb.Searcher
	n int
}

func (s sizer) DatabaseSize() int { return s.n }

// TestExactCoverage: a reported database size collapses the interval.
func TestExactCoverage(t *testing.T) {
	db := papersDB(t, 20, false)
	for name, run := range map[string]func() (*State, error){
		"option": func() (*State, error) {
			return Harvest(context.Background(), hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: 12, Size: db.Len()})
		},
		"interface": func() (*State, error) {
			return Harvest(context.Background(), sizer{hiddendb.Searcher{DB: db}, db.Len()}, &Adaptive{}, Options{Budget: 12})
		},
	} {
		st, err := run()
		if err != nil {
			t.Fatal(err)
		}
		e := st.Coverage()
		want := float64(st.Docs()) / float64(db.Len())
		if e.Estimator != EstimatorExact || e.Coverage != want || e.Low != want || e.High != want || e.Size != float64(db.Len()) {
			t.Errorf("%s: %+v, want exact %.4f", name, e, want)
		}
		if l := st.Log()[11]; l.Estimator != EstimatorExact || l.CoverageEstimate == nil || math.Abs(*l.CoverageEstimate-want) > 1e-4 {
			t.Errorf("%s: last log line %+v", name, l)
		}
	}
}

func TestPoissonInterval(t *testing.T) {
	for _, c := range []struct{ m, lo, hi float64 }{
		{0, 0, 2.9957}, // −ln 0.05
		{10, 5.4254, 16.9622},
	} {
		lo, hi := poissonInterval(c.m, 0.90)
		if math.Abs(lo-c.lo) > 1e-3 || math.Abs(hi-c.hi) > 1e-3 {
			t.Errorf("m=%v: [%.4f, %.4f], want [%.4f, %.4f]", c.m, lo, hi, c.lo, c.hi)
		}
	}
}

// TestCoverageJournal: the estimate checkpoints are journaled, replayed to
// the same values, and Estimates finds the last one of a source.
func TestCoverageJournal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crawl")
	db := papersDB(t, 20, true)
	ctx := context.Background()
	run := func(budget int) *State {
		sdb, err := store.Open(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		st, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: budget, First: "web", Journal: &StoreJournal{DB: sdb, Source: "papers"}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	run(7)
	resumed := run(12)
	full, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: 12, First: "web"})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range full.Log() {
		r := resumed.Log()[i]
		checkpoint := l.N%DefaultEstimateEvery == 0 || l.N == 12
		if (l.Estimator != "") != checkpoint || r.Estimator != l.Estimator || !sameFloat(r.CoverageEstimate, l.CoverageEstimate) || !sameFloat(r.CoverageHigh, l.CoverageHigh) {
			t.Fatalf("query %d: resumed %+v, uninterrupted %+v", l.N, r, l)
		}
	}
	sdb, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	ests, err := Estimates(sdb)
	if err != nil {
		t.Fatal(err)
	}
	last := full.Log()[11]
	if got := ests["papers"]; got.N != 12 || got.Estimator != last.Estimator || !sameFloat(got.CoverageLow, last.CoverageLow) {
		t.Fatalf("Estimates: %+v, want query 12 %+v", got, last)
	}
	if !strings.HasPrefix(last.Estimator, EstimatorSchnabel) || last.CoverageEstimate == nil || *last.CoverageLow > *last.CoverageEstimate || *last.CoverageEstimate > *last.CoverageHigh {
		t.Fatalf("last estimate %+v", last)
	}
}

func sameFloat(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func TestCheckpoints(t *testing.T) {
	st := &State{every: 5, thin: true, budget: 777}
	for _, c := range []struct {
		n    int
		want bool
	}{{5, true}, {7, false}, {500, true}, {505, false}, {510, true}, {1000, true}, {1010, false}, {1020, true}, {2040, true}, {2060, false}, {777, true}} {
		if got := st.checkpoint(c.n); got != c.want {
			t.Errorf("checkpoint(%d) = %v", c.n, got)
		}
	}
	st = &State{every: 5}
	if !st.checkpoint(2005) {
		t.Error("an explicit spacing is not thinned")
	}
}
