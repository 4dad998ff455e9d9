package surface

import (
	"context"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/hiddendb"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestDevBench(t *testing.T) {
	corpus := os.Getenv("DEVBENCH")
	if corpus == "" {
		t.Skip()
	}
	k, _ := strconv.Atoi(os.Getenv("DEVK"))
	budget, _ := strconv.Atoi(os.Getenv("DEVBUDGET"))
	est, _ := ParseEstimator(os.Getenv("DEVEST"))
	pols := strings.Split(os.Getenv("DEVPOL"), ",")
	var fields []string
	if f := os.Getenv("DEVFIELDS"); f != "" {
		fields = strings.Split(f, ",")
	}
	if os.Getenv("DEVTRUEN") != "" {
		recs, idf, _ := LoadCorpus(corpus, "")
		var fl []string
		seen := map[string]bool{}
		for _, r := range recs {
			for k := range r.Fields {
				if k != idf && !seen[k] {
					seen[k] = true
					fl = append(fl, k)
				}
			}
		}
		if fields != nil {
			fl = fields
		}
		db := hiddendb.New(recs, hiddendb.Options{IndexFields: fl})
		devTrueN = func(t string) float64 { return float64(db.Count(t)) }
	}
	devDebug = os.Getenv("DEVDEBUG") != ""
	devMixIDs = os.Getenv("DEVMIX") != ""
	rep, err := BenchSurface(context.Background(), BenchOptions{Corpus: corpus, K: k, Budget: budget, Policies: pols, InProcess: os.Getenv("DEVHTTP") == "", Select: SelectOptions{Estimator: est, RankAware: os.Getenv("DEVRANK"), NoCalibrate: os.Getenv("DEVNOCAL") != ""}, TextFields: fields, Progress: os.Stderr, HideTotal: os.Getenv("DEVHIDE") != ""})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteTable(os.Stdout)
	if os.Getenv("DEVLOG") != "" {
		for _, c := range rep.Curves {
			for _, l := range c.Log {
				if l.N > 150 {
					break
				}
				fmt.Printf("%s %3d %-16s est %7.1f gain %7.1f | total %5d ret %4d new %4d docs %d\n", c.Policy, l.N, l.Query, l.Est, l.Gain, l.Total, l.Returned, l.New, l.Docs)
			}
		}
	}
	if d := os.Getenv("DEVOUT"); d != "" {
		rep.WriteCSV(d)
	}
}
