package enrichbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

func writeSynthetic(t *testing.T, seed int64, nHidden, nLocal int) (hidden, extra, local string) {
	t.Helper()
	recs := hiddendb.Synthetic(seed, nHidden)
	dir := t.TempDir()
	local = filepath.Join(dir, "local.csv")
	os.WriteFile(local, []byte(hiddendb.LocalCSV(recs, nLocal)), 0o644)
	// the hidden database: the local records' file plus an id-less file
	hidden = filepath.Join(dir, "hidden.csv")
	os.WriteFile(hidden, []byte(hiddendb.LocalCSV(recs, nHidden/2)), 0o644)
	var b strings.Builder
	for _, r := range recs[nHidden/2:] {
		fmt.Fprintf(&b, `{"title": %q, "author": %q}`+"\n", r.Fields["title"], r.Fields["author"])
	}
	extra = filepath.Join(dir, "extra.jsonl")
	os.WriteFile(extra, []byte(b.String()), 0o644)
	return hidden, extra, local
}

func TestRunSynthetic(t *testing.T) {
	seed := int64(9)
	t.Logf("seed %d", seed)
	hidden, extra, local := writeSynthetic(t, seed, 3000, 500)
	res, info, err := Run(context.Background(), Options{
		Hidden: []string{hidden, extra}, Local: local, Columns: []string{"title", "author"}, IDColumn: "id",
		K: 30, Theta: 0.02, BudgetFraction: 0.2, Methods: enrich.Methods, Error: 0.2, Missing: 0.1, Seed: seed,
		Match: enrich.MatchSpec{Kind: "jaccard", Threshold: 0.9},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("info %+v", info)
	if info.Hidden != 3000-50 || info.Missing != 50 || info.Errors != 100 || info.Coverable != 450 || info.Budget != 100 || info.SampleSize != 59 {
		t.Fatalf("setup: %+v", info)
	}
	by := map[enrich.Method]Result{}
	for _, r := range res {
		t.Logf("%-11s covered %4d matched %4d queries %d", r.Method, r.Covered, r.Matched, r.Queries)
		by[r.Method] = r
		if r.Budget != 100 || r.LocalSize != 500 || r.Queries > 100 || r.Covered > 450 {
			t.Fatalf("%s: %+v", r.Method, r)
		}
	}
	if by[enrich.Ideal].Covered < by[enrich.SmartBiased].Covered || by[enrich.SmartBiased].Covered <= by[enrich.Naive].Covered {
		t.Fatalf("want ideal ≥ smart-b > naive")
	}
}

// The targets of the enrichment issue on the shared DBLP files: hidden =
// both files, local = dblp_3881.csv, k = 100, θ = 0.5%, budget 20% of D.
func TestRunDBLPTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("long: DBLP benchmark")
	}
	a := sharedtest.Path(t, "dblp", "dblp_3881.csv")
	b := sharedtest.Path(t, "dblp", "dblp_sample.csv")
	seed := int64(1)
	t.Logf("seed %d", seed)
	run := func(errFrac float64, methods ...enrich.Method) map[enrich.Method]int {
		res, info, err := Run(context.Background(), Options{
			Hidden: []string{a, b}, Local: a, Columns: []string{"title", "author"}, IDColumn: "ID",
			K: 100, Theta: 0.005, BudgetFraction: 0.2, Methods: methods, Error: errFrac, Seed: seed,
			Match: enrich.MatchSpec{Kind: "jaccard", Threshold: 0.9}, InProcess: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		out := map[enrich.Method]int{}
		for _, r := range res {
			out[r.Method] = r.Covered
		}
		t.Logf("error %.2f: budget %d, covered %v", errFrac, info.Budget, out)
		return out
	}
	clean := run(0, enrich.SmartBiased, enrich.Naive, enrich.Full, enrich.Ideal)
	if clean[enrich.SmartBiased] < 9*clean[enrich.Ideal]/10 || clean[enrich.SmartBiased] < 2*clean[enrich.Naive] {
		t.Errorf("smart-b %d: want ≥ 0.9×ideal (%d) and ≥ 2×naive (%d)", clean[enrich.SmartBiased], clean[enrich.Ideal], clean[enrich.Naive])
	}
	noisy := run(0.5, enrich.SmartBiased, enrich.Naive)
	lossSmart := 1 - float64(noisy[enrich.SmartBiased])/float64(clean[enrich.SmartBiased])
	lossNaive := 1 - float64(noisy[enrich.Naive])/float64(clean[enrich.Naive])
	t.Logf("loss with 50%% errors: smart-b %.1f%%, naive %.1f%%", 100*lossSmart, 100*lossNaive)
	if lossSmart >= 0.10 || lossNaive < 2*lossSmart {
		t.Errorf("robustness: smart-b loses %.1f%% (want < 10%%), naive %.1f%% (want far more)", 100*lossSmart, 100*lossNaive)
	}
}
