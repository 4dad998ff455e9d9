package surfacebench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/surface"

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

// TestEstimateOutput: the table prints, at every checkpoint of every
// policy, the true coverage next to the estimate, its interval and
// estimator, and the JSON rows carry the same.
func TestEstimateOutput(t *testing.T) {
	const seed = 4
	t.Logf("seed %d", seed)
	rep, err := Run(context.Background(), Options{Corpus: filepath.Join("..", "..", "core", "surface", "testdata", "papers.jsonl"), K: 20, PageSize: 10, Budget: 50, Seed: seed, InProcess: true, Policies: []string{"adaptive", "random"}})
	if err != nil {
		t.Fatal(err)
	}
	var tab bytes.Buffer
	if err := rep.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	out := tab.String()
	_, est, ok := strings.Cut(out, "estimated coverage (90% interval) next to the true coverage:\n")
	if !ok {
		t.Fatalf("no estimate table:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(est), "\n")
	if len(lines) != 1+2*3+1 || !strings.HasPrefix(lines[0], "policy") || !strings.Contains(lines[0], "estimator") {
		t.Fatalf("estimate table:\n%s", est)
	}
	rows := rep.Rows()
	in, valid := 0, 0
	for i, row := range rows {
		f := strings.Fields(lines[1+i])
		if f[0] != row.Policy || f[1] != strconv.Itoa(row.Queries) || f[2] != fmt.Sprintf("%.1f%%", 100*row.Coverage) || f[len(f)-1] != row.Estimator {
			t.Fatalf("line %q for row %+v", lines[1+i], row)
		}
		if row.CoverageEstimate == nil {
			if row.Estimator != surface.EstimatorNone || row.InInterval {
				t.Fatalf("row without estimate %+v", row)
			}
			continue
		}
		valid++
		if row.InInterval {
			in++
		}
		if *row.CoverageLow > *row.CoverageEstimate || *row.CoverageEstimate > *row.CoverageHigh || row.InInterval != (*row.CoverageLow <= row.Coverage && row.Coverage <= *row.CoverageHigh) {
			t.Fatalf("row %+v", row)
		}
	}
	if want := fmt.Sprintf("interval holds the true coverage at %d of %d checkpoints with an estimate", in, valid); lines[len(lines)-1] != want {
		t.Fatalf("last line %q, want %q", lines[len(lines)-1], want)
	}
	if valid == 0 {
		t.Fatal("no estimate at any checkpoint")
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal(js.Bytes(), &objs); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		for _, k := range []string{"policy", "queries", "coverage", "coverage_estimate", "coverage_low", "coverage_high", "estimator", "in_interval"} {
			if _, ok := o[k]; !ok {
				t.Fatalf("JSON row %v lacks %q", o, k)
			}
		}
	}
}

func TestLoadCorpora(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte("ID,title,author\n1,Deep web,Ann\n2,Hidden data,Bob\n"), 0o644)
	os.WriteFile(b, []byte(`{"key": "1", "title": "Crawling", "venue": "VLDB"}`+"\n"+`{"key": "k2", "title": "Surfacing", "venue": "SIGMOD"}`+"\n"), 0o644)
	recs, fields, err := LoadCorpora([]string{a, b}, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	// id "1" is in both files: both files' ids get their file name
	if got := strings.Join(ids, ","); got != "a.csv:1,a.csv:2,b.jsonl:1,b.jsonl:k2" {
		t.Fatalf("ids %s", got)
	}
	if got := strings.Join(fields, ","); got != "title,author,venue" {
		t.Fatalf("fields %s", got)
	}
}
