package surface

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestEstimatorsGolden records the coverage estimators' outputs on the
// fixed-seed harvests of the estimator tests (the checkpoint estimates of
// the harvest log, then the final estimates of each estimator) and
// compares them with testdata/estimators.golden, exactly: the estimators'
// arithmetic may be reorganised, but not its results. Refresh with
// `go test -run TestEstimatorsGolden -update` after a change meant to move
// them.
func TestEstimatorsGolden(t *testing.T) {
	var b strings.Builder
	ctx := context.Background()
	dump := func(name string, st *State) {
		fmt.Fprintf(&b, "## %s\n", name)
		for _, l := range st.Log() {
			if l.Estimator == "" {
				continue
			}
			fmt.Fprintf(&b, "query %d docs %d: %s", l.N, l.Docs, l.Estimator)
			for _, x := range []*float64{l.CoverageEstimate, l.CoverageLow, l.CoverageHigh, l.SizeEstimate} {
				if x != nil {
					fmt.Fprintf(&b, " %v", *x)
				}
			}
			b.WriteByte('\n')
		}
		s, k := st.Stats, st.K()
		floor := float64(st.Docs())
		fmt.Fprintf(&b, "coverage %+v\n", s.EstimateCoverage(k))
		fmt.Fprintf(&b, "plain %+v\n", s.estimateCoverage(k, 1))
		ad, ok := s.estimateAdaptive(k, maxStrata, floor)
		fmt.Fprintf(&b, "adaptive %v %+v\n", ok, ad)
		for _, rank := range []bool{false, true} {
			tot, src := s.caps.totals(len(s.docTerms), k, rank, nil)
			fmt.Fprintf(&b, "totals rank=%v %v %v se %v\n", rank, tot, src, s.caps.rankSE)
			loo, ok := s.estimateLOO(tot, src, maxStrata, floor)
			fmt.Fprintf(&b, "loo rank=%v %v %+v\n", rank, ok, loo)
		}
	}
	harvest := func(name string, db *hiddendb.DB, pol Policy, o Options) {
		st, err := Harvest(ctx, hiddendb.Searcher{DB: db}, pol, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dump(name, st)
	}
	policy := func(name string, words []string, seed int64) Policy {
		p, err := NewPolicy(name, PolicyOptions{Words: words, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	recs, words := synthCorpus(1, 20000, 6000, 4, 40, 0.2, false)
	db := hiddendb.New(recs, hiddendb.Options{K: 1000, PageSize: 100, ShowTotal: true, Seed: 1})
	harvest("heterogeneous, reported", db, NewRandom(words[:3000], 1), Options{Budget: 60, EstimateEvery: 5})

	for _, c := range []struct {
		name    string
		k       int
		show    bool
		policy  string
		english bool
	}{
		{"reported totals, k=200", 200, true, "random", false},
		{"complete answers", 100000, false, "random", false},
		{"hidden totals, k=50, adaptive", 50, false, "adaptive", true},
	} {
		recs, words := synthCorpus(7, 10000, 4000, 8, 8, 0, c.english)
		db := hiddendb.New(recs, hiddendb.Options{K: c.k, PageSize: 100, ShowTotal: c.show, Seed: 7})
		harvest(c.name, db, policy(c.policy, words[:1500], 7), Options{Budget: 80, EstimateEvery: 5})
	}

	recs, words = synthCorpus(2, 10000, 4000, 8, 40, 0.2, false)
	db = hiddendb.New(recs, hiddendb.Options{K: 1 << 30, PageSize: 100, Seed: 2})
	harvest("complete, adaptive, two lengths", db, policy("adaptive", words[:1500], 2), Options{Budget: 40, EstimateEvery: 2})

	recs, words = synthCorpus(3, 10000, 4000, 8, 8, 0, false)
	db = hiddendb.New(recs, hiddendb.Options{K: 100, PageSize: 50, Seed: 3})
	st, err := Harvest(ctx, hiddendb.Searcher{DB: db}, policy("adaptive", words[:1500], 3), Options{Budget: 100, NoProbe: true, EstimateEvery: 10})
	if err != nil {
		t.Fatal(err)
	}
	dump("cut adaptive answers", st)
	func() {
		defer func(f float64) { maxCutFrac = f }(maxCutFrac)
		maxCutFrac = 1
		e, ok := st.Stats.estimateAdaptive(st.K(), maxStrata, float64(st.Docs()))
		fmt.Fprintf(&b, "adaptive, every cut answer allowed %v %+v\n", ok, e)
	}()

	es := readGitweb(t)
	for _, n := range []int{16, 40, 200} {
		j := &MemJournal{}
		for _, e := range es[:n] {
			_ = j.Append(ctx, e)
		}
		st := NewState("form:gitweb", TermOptions{}, 0)
		if err := Replay(ctx, j, st, nil); err != nil {
			t.Fatal(err)
		}
		dump(fmt.Sprintf("gitweb, %d queries", n), st)
	}

	for _, repeats := range []bool{false, true} {
		for _, seed := range []int64{1, 2, 3, 4, 5, 6, 7, 8} {
			e, _ := newSnippetEngine(seed, 800, 100, repeats)
			st, err := Harvest(ctx, e, &Adaptive{}, Options{Budget: 40, First: e.head[0], EstimateEvery: 5})
			if err != nil {
				t.Fatal(err)
			}
			dump(fmt.Sprintf("snippets, repeats %v, seed %d", repeats, seed), st)
		}
	}

	j := readFossil(t)
	st, err = Harvest(ctx, noSearch{}, &Adaptive{}, Options{Budget: j.Len(), Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	dump("fossil replay", st)

	path := filepath.Join("testdata", "estimators.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	// the first line that differs
	got, wl := strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(got), len(wl)) {
		if i >= len(got) || i >= len(wl) || got[i] != wl[i] {
			t.Fatalf("%s:%d differs (got %d lines, want %d):\n got %s\nwant %s", path, i+1, len(got), len(wl), at(got, i), at(wl, i))
		}
	}
}

// at is lines[i], or "" past the end.
func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}
