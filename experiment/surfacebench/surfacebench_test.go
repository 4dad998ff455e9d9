package surfacebench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
)

func TestRunSmall(t *testing.T) {
	const seed = 3
	t.Logf("seed %d", seed)
	for _, inProcess := range []bool{true, false} {
		rep, err := Run(context.Background(), Options{Corpus: filepath.Join("..", "..", "core", "surface", "testdata", "papers.jsonl"), K: 20, PageSize: 10, Budget: 50, Seed: seed, InProcess: inProcess})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Records != 600 || len(rep.Curves) != 4 || len(rep.Points) != 3 {
			t.Fatalf("report %+v", rep)
		}
		cov := map[string]PolicyCurve{}
		for _, c := range rep.Curves {
			cov[c.Policy] = c
			for i := 1; i < len(c.Coverage); i++ {
				if c.Coverage[i] < c.Coverage[i-1] {
					t.Fatalf("%s: coverage decreased", c.Policy)
				}
			}
		}
		for _, n := range rep.Points {
			a, g, r, o := cov["adaptive"].CoverageAt(n), cov["generic"].CoverageAt(n), cov["random"].CoverageAt(n), cov["oracle"].CoverageAt(n)
			t.Logf("in-process %v, %d queries: adaptive %.3f generic %.3f random %.3f oracle %.3f", inProcess, n, a, g, r, o)
			if a < g || a < r || o < a {
				t.Fatalf("%d queries: adaptive %.3f, generic %.3f, random %.3f, oracle %.3f", n, a, g, r, o)
			}
		}
	}
}

// TestRunDBLP checks the target on the shared DBLP table
// (k = 100): adaptive ≥ generic ≥ random at every checkpoint and adaptive
// within 15% of the oracle at 100 queries.
func TestRunDBLP(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	corpus := sharedtest.Path(t, "dblp", "dblp_3881.csv")
	rep, err := Run(context.Background(), Options{Corpus: corpus, K: 100, Budget: 100, InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	cov := map[string]PolicyCurve{}
	for _, c := range rep.Curves {
		cov[c.Policy] = c
	}
	for _, n := range rep.Points {
		a, g, r, o := cov["adaptive"].CoverageAt(n), cov["generic"].CoverageAt(n), cov["random"].CoverageAt(n), cov["oracle"].CoverageAt(n)
		t.Logf("%d queries: adaptive %.3f generic %.3f random %.3f oracle %.3f", n, a, g, r, o)
		if a < g || g < r {
			t.Fatalf("order broken at %d queries", n)
		}
	}
	if a, o := cov["adaptive"].CoverageAt(100), cov["oracle"].CoverageAt(100); a < 0.85*o {
		t.Fatalf("adaptive %.3f < 85%% of oracle %.3f at 100 queries", a, o)
	}
}
