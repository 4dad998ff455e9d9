package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/cluster/clustertest"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// benchWeb is the simulated web of the benchmarks: the testbed's default
// (10,000 sites), the one `dwcrawl run --testbed` crawls.
var benchWeb = sync.OnceValue(func() *simweb.Web {
	cfg := simweb.DefaultConfig()
	cfg.Seed = webSeed
	return simweb.MustNew(cfg)
})

// benchWorkers starts n `dwcrawl worker` processes on url, exploring sites
// at once each.
func benchWorkers(b *testing.B, bin, url string, n, sites int) ([]*workerProc, []string) {
	b.Helper()
	logs := b.TempDir()
	var ws []*workerProc
	var dirs []string
	for i := range n {
		dir := filepath.Join(b.TempDir(), fmt.Sprintf("w%d", i))
		dirs = append(dirs, dir)
		ws = append(ws, startWorker(b, bin, url, dir, filepath.Join(logs, fmt.Sprintf("w%d.log", i)), sites))
	}
	return ws, dirs
}

// BenchmarkClusterScaling crawls the testbed with a politeness delay of
// 200 ms per host on 1, 2 and 4 worker processes (4 sites at once each) and
// reports the coordinator's pages per second between 10 % and 90 % of the
// budget (the steady state: worker start-up and the last sites left out).
//
//	go test ./cluster/ -run '^$' -bench ClusterScaling -benchtime 1x
func BenchmarkClusterScaling(b *testing.B) {
	bin, err := dwcrawlBinary()
	if err != nil {
		b.Fatal(err)
	}
	const budget = 1500
	rates := map[int]float64{}
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for i := range b.N {
				ts := clustertest.StartServer(b, b.TempDir())
				ws, _ := benchWorkers(b, bin, ts.URL(), n, 4)
				name := fmt.Sprintf("scale%d_%d", n, i)
				var mu sync.Mutex
				var t10, t90 time.Time
				var p10, p90 int64
				p := testProfile(b)
				o := app.ClusterRunOptions{NATS: ts.URL(), Name: name, CrawlOptions: app.CrawlOptions{Profile: p, Dir: b.TempDir(),
					Pages: budget, Seed: webSeed, Web: benchWeb(), Reverse: app.Reverse(p, true, nil, quiet()), Logger: quiet(),
					Workers: 64, Delay: 200 * time.Millisecond}}
				o.Progress = func(sn crawl.Snapshot, _ int) {
					mu.Lock()
					defer mu.Unlock()
					if t10.IsZero() && sn.Pages >= budget/10 {
						t10, p10 = time.Now(), sn.Pages
					}
					if t90.IsZero() && sn.Pages >= budget*9/10 {
						t90, p90 = time.Now(), sn.Pages
					}
				}
				sn, err := app.ClusterRun(context.Background(), o)
				for _, w := range ws {
					w.stop()
				}
				if err != nil {
					b.Fatal(err)
				}
				if t90.IsZero() || !t90.After(t10) {
					b.Fatalf("%d pages: the crawl did not reach 90%% of its budget", sn.Pages)
				}
				rate := float64(p90-p10) / t90.Sub(t10).Seconds()
				rates[n] = rate
				b.ReportMetric(rate, "pages/s")
				b.Logf("%d workers: %d pages, %.1f pages/s (10%%–90%%), %.1f pages/s overall", n, sn.Pages, rate, sn.PagesPerSecond)
			}
		})
	}
	if r1 := rates[1]; r1 > 0 {
		var sb strings.Builder
		sb.WriteString("\n| workers | pages/s | × one |\n|---|---|---|\n")
		for _, n := range []int{1, 2, 4} {
			fmt.Fprintf(&sb, "| %d | %.1f | %.2f |\n", n, rates[n], rates[n]/r1)
		}
		b.Log(sb.String())
	}
}

// formAudit reads the forms of a coordinator's directory and of its
// workers' directories: the forms recorded, those relevant, the interfaces
// recorded twice and the forms a worker recorded that the coordinator does
// not hold (lost).
func formAudit(tb testing.TB, name, coordDir string, workerDirs []string) (forms, relevant, twice, lost int) {
	tb.Helper()
	db := openStore(tb, coordDir)
	defer db.Close()
	ids := map[string]bool{}
	sigs := map[string]bool{}
	db.ScanForms(func(f store.Form) error {
		ids[f.ID] = true
		s := signature(tb, f)
		if sigs[s] {
			twice++
		}
		sigs[s] = true
		if f.Relevant {
			relevant++
		}
		return nil
	})
	for _, dir := range workerDirs {
		wdir := filepath.Join(dir, name)
		if _, err := os.Stat(wdir); err != nil {
			continue
		}
		wdb := openStore(tb, wdir)
		wdb.ScanForms(func(f store.Form) error {
			if !ids[f.ID] && !sigs[signature(tb, f)] {
				lost++
			}
			return nil
		})
		wdb.Close()
	}
	return len(ids), relevant, twice, lost
}

// BenchmarkClusterKill9 crawls 5,000 testbed pages on one machine, on
// three worker processes, and on three worker processes one of which is killed with SIGKILL (and started
// again) five times during the crawl; it reports the forms lost and
// recorded twice, and the relevant forms and harvest (relevant forms per
// 1,000 pages) of all three crawls: one machine, three workers, three
// workers with kills.
//
//	go test ./cluster/ -run '^$' -bench ClusterKill9 -benchtime 1x
func BenchmarkClusterKill9(b *testing.B) {
	bin, err := dwcrawlBinary()
	if err != nil {
		b.Fatal(err)
	}
	const budget = 5000
	for range b.N {
		ctx := context.Background()
		p := testProfile(b)
		single, err := app.NewCrawl(ctx, app.CrawlOptions{Profile: p, Dir: b.TempDir(), Pages: budget, Seed: webSeed,
			Web: benchWeb(), Reverse: app.Reverse(p, true, nil, quiet()), Logger: quiet(), Workers: 8})
		if err != nil {
			b.Fatal(err)
		}
		ssn, err := single.Run(ctx)
		single.Close()
		if err != nil {
			b.Fatal(err)
		}

		// clusterRun crawls on three workers, killing one with SIGKILL kill
		// times (at 15, 30, 45... % of the budget, a different worker each
		// time, started again on its directory at once).
		clusterRun := func(name string, kill int) (crawl.Snapshot, string, []string, int) {
			ts := clustertest.StartServer(b, b.TempDir())
			ws, dirs := benchWorkers(b, bin, ts.URL(), 3, 2)
			logs := b.TempDir()
			coordDir := b.TempDir()
			var mu sync.Mutex
			kills := 0
			p := testProfile(b)
			o := app.ClusterRunOptions{NATS: ts.URL(), Name: name, CrawlOptions: app.CrawlOptions{Profile: p, Dir: coordDir,
				Pages: budget, Seed: webSeed, Web: benchWeb(), Reverse: app.Reverse(p, true, nil, quiet()), Logger: quiet(), Workers: 8}}
			o.Progress = func(sn crawl.Snapshot, _ int) {
				mu.Lock()
				defer mu.Unlock()
				if kills < kill && sn.Pages >= int64(budget)*int64(kills+1)*15/100 {
					i := kills % 3
					b.Logf("kill -9 of worker %d at %d pages", i, sn.Pages)
					ws[i].kill9()
					ws[i] = startWorker(b, bin, ts.URL(), dirs[i], filepath.Join(logs, fmt.Sprintf("w%d-%d.log", i, kills)), 2)
					kills++
				}
			}
			sn, err := app.ClusterRun(ctx, o)
			for _, w := range ws {
				w.stop()
			}
			if err != nil {
				b.Fatal(err)
			}
			return sn, coordDir, dirs, kills
		}
		nsn, ncoord, ndirs, _ := clusterRun("clean", 0)
		nforms, nrel, ntwice, nlost := formAudit(b, "clean", ncoord, ndirs)
		hn := 1000 * float64(nrel) / float64(max(nsn.Pages, 1))
		b.ReportMetric(hn, "harvest-cluster")
		csn, coordDir, dirs, kills := clusterRun("kill9", 5)
		if kills < 5 {
			b.Errorf("only %d kills before the crawl ended", kills)
		}
		forms, rel, twice, lost := formAudit(b, "kill9", coordDir, dirs)
		b.ReportMetric(float64(lost), "lost")
		b.ReportMetric(float64(twice), "twice")
		b.ReportMetric(float64(rel), "relevant")
		b.ReportMetric(float64(ssn.RelevantForms), "relevant-single")
		diff := 100 * float64(int64(rel)-ssn.RelevantForms) / float64(max(ssn.RelevantForms, 1))
		b.ReportMetric(diff, "%relevant-diff")
		hc := 1000 * float64(rel) / float64(max(csn.Pages, 1))
		hs := 1000 * float64(ssn.RelevantForms) / float64(max(ssn.Pages, 1))
		b.ReportMetric(hs, "harvest-single")
		b.Logf("\n| crawl | pages | searchable forms | relevant | harvest (relevant/1000 pages) | lost | twice |\n|---|---|---|---|---|---|---|\n"+
			"| one machine | %d | %d | %d | %.2f | – | – |\n| 3 workers | %d | %d | %d | %.2f | %d | %d |\n| 3 workers, 5 × kill -9 | %d | %d | %d | %.2f | %d | %d |\n"+
			"relevant forms with kills: %+.1f %% of one machine's",
			ssn.Pages, ssn.SearchableForms, ssn.RelevantForms, hs, nsn.Pages, nforms, nrel, hn, nlost, ntwice,
			csn.Pages, forms, rel, hc, lost, twice, diff)
		if lost > 0 || twice > 0 || nlost > 0 || ntwice > 0 {
			b.Errorf("%d forms lost, %d recorded twice", lost, twice)
		}
	}
}
