package surface

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// DEVEVAL="path:k,path:k" DEVSEEDS=0,1
func TestDevEval(t *testing.T) {
	spec := os.Getenv("DEVEVAL")
	if spec == "" {
		t.Skip()
	}
	seeds := []int64{0}
	if s := os.Getenv("DEVSEEDS"); s != "" {
		seeds = nil
		for _, x := range strings.Split(s, ",") {
			v, _ := strconv.ParseInt(x, 10, 64)
			seeds = append(seeds, v)
		}
	}
	budget := 500
	if b := os.Getenv("DEVBUDGET"); b != "" {
		budget, _ = strconv.Atoi(b)
	}
	est, _ := ParseEstimator(os.Getenv("DEVEST"))
	devMixIDs = os.Getenv("DEVMIX") != ""
	devGainCal = os.Getenv("DEVGC") != ""
	if d := os.Getenv("DEVSIG0"); d != "" {
		devSigma0, _ = strconv.ParseFloat(d, 64)
	}
	if d := os.Getenv("DEVFBLEN"); d != "" {
		devFBLen, _ = strconv.Atoi(d)
	}
	devRatioBuckets = os.Getenv("DEVDFB") == ""
	if d := os.Getenv("DEVFB"); d != "" {
		devFallback, _ = strconv.ParseFloat(d, 64)
	}
	if d := os.Getenv("DEVDECAY"); d != "" {
		calibDecay, _ = strconv.ParseFloat(d, 64)
	}
	pols := []string{"adaptive", "oracle"}
	if p := os.Getenv("DEVPOL"); p != "" {
		pols = strings.Split(p, ",")
	}
	var worst100, worst500 float64 = 9, 9
	for _, item := range strings.Split(spec, ",") {
		parts := strings.Split(item, ":")
		k, _ := strconv.Atoi(parts[1])
		for _, seed := range seeds {
			if os.Getenv("DEVTS") != "" {
				recs, _, _ := LoadCorpus(parts[0], "")
				devTrueSize = float64(len(recs))
			}
			rep, err := BenchSurface(context.Background(), BenchOptions{Corpus: parts[0], K: k, Budget: budget, Seed: seed, Policies: pols, InProcess: true,
				Select: SelectOptions{Estimator: est, RankAware: os.Getenv("DEVRANK"), NoCalibrate: os.Getenv("DEVNOCAL") != ""}})
			if err != nil {
				t.Fatal(err)
			}
			a, o := rep.Curves[0], rep.Curves[len(rep.Curves)-1]
			line := fmt.Sprintf("%-24s k=%-4d seed=%d", parts[0][strings.LastIndex(parts[0], "/")+1:], k, seed)
			for _, n := range []int{10, 25, 50, 100, 200, 500} {
				if n > budget {
					break
				}
				r := a.CoverageAt(n) / o.CoverageAt(n)
				line += fmt.Sprintf(" %3d:%4.1f/%4.1f=%.2f", n, 100*a.CoverageAt(n), 100*o.CoverageAt(n), r)
				if n == 100 && r < worst100 {
					worst100 = r
				}
				if n == 500 && r < worst500 {
					worst500 = r
				}
			}
			for _, c := range rep.Curves[1 : len(rep.Curves)-1] {
				line += fmt.Sprintf(" | %s", c.Policy)
				for _, n := range []int{10, 100, 500} {
					line += fmt.Sprintf(" %.1f", 100*c.CoverageAt(n))
				}
			}
			fmt.Println(line)
		}
	}
	fmt.Printf("WORST 100: %.3f  500: %.3f\n", worst100, worst500)
}
