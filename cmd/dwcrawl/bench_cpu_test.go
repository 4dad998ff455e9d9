package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/experiment/cpubench"
	"github.com/dwcrawl/dwcrawl/experiment/webproc"
)

// TestBenchCPURounds runs three short rounds against a stand-in for colly
// that reports a different page count each round (so the rounds' ratios
// differ), and checks that every round was measured and that the result is
// the round of median ratio.
func TestBenchCPURounds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs crawls in child processes")
	}
	colly := filepath.Join(t.TempDir(), "colly")
	script := `#!/bin/sh
n=$(cat "$0.count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$0.count"
case $n in 1) p=1000;; 2) p=10;; *) p=100;; esac
echo "{\"pages\":$p}"
`
	if err := os.WriteFile(colly, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var told []int
	res, err := cpubench.Run(context.Background(), cpubench.Options{
		Command: webproc.Command{Exe: os.Args[0], Env: []string{selfMainEnv + "=1"}}, Colly: colly,
		Profile: autoProfile, Domain: "auto", Pages: 5, Workers: 2, Rounds: 3,
		Progress: func(i int, _ cpubench.Round) { told = append(told, i) },
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cpubench.WriteText(&out, res)
	t.Log("\n" + out.String())
	if !slices.Equal(told, []int{1, 2, 3}) || len(res.Rounds) != 3 {
		t.Fatalf("rounds told %v, %d measured; want 3", told, len(res.Rounds))
	}
	var ratios []float64
	for i, r := range res.Rounds {
		if r.Colly.Pages != []int64{1000, 10, 100}[i] || r.Dwcrawl.Pages != 5 || r.Ratio <= 0 || r.Dwcrawl.ClientCPU <= 0 {
			t.Errorf("round %d: %+v", i+1, r)
		}
		ratios = append(ratios, r.Ratio)
	}
	slices.Sort(ratios)
	if res.Ratio != ratios[1] {
		t.Errorf("result ratio %.3f, want the median of %v", res.Ratio, ratios)
	}
	if !strings.Contains(out.String(), "round 3:") {
		t.Errorf("the text lacks the rounds:\n%s", out.String())
	}
}
