package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

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
// three worker processes, and on three worker processes one of which is
// killed with SIGKILL (and started again on its directory at once) 20
// times during the crawl (DWCRAWL_BENCH_KILLS); it reports the forms lost
// and recorded twice, the pages recorded against the budget (exact: the
// pages a killed worker took and did not record go back to the budget),
// and the relevant forms and harvest (relevant forms per 1,000 pages) of
// all three crawls: one machine, three workers, three workers with kills.
//
//	go test ./cluster/ -run '^$' -bench ClusterKill9 -benchtime 1x -timeout 1h
func BenchmarkClusterKill9(b *testing.B) {
	bin, err := dwcrawlBinary()
	if err != nil {
		b.Fatal(err)
	}
	const budget = 5000
	nkills := 20
	if v := os.Getenv("DWCRAWL_BENCH_KILLS"); v != "" {
		if nkills, err = strconv.Atoi(v); err != nil || nkills < 0 {
			b.Fatalf("DWCRAWL_BENCH_KILLS=%q: want a number of kills", v)
		}
	}
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
		// times (evenly over the budget, a different worker each time,
		// started again on its directory at once).
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
				if kills < kill && sn.Pages >= int64(budget)*int64(kills+1)/int64(kill+1) {
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
		csn, coordDir, dirs, kills := clusterRun("kill9", nkills)
		if kills < nkills {
			b.Errorf("only %d kills before the crawl ended", kills)
		}
		for _, sn := range []crawl.Snapshot{nsn, csn} {
			if sn.Pages != budget {
				b.Errorf("%d pages recorded, budget %d", sn.Pages, budget)
			}
		}
		b.ReportMetric(float64(csn.Pages), "pages")
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
			"| one machine | %d | %d | %d | %.2f | – | – |\n| 3 workers | %d | %d | %d | %.2f | %d | %d |\n| 3 workers, %d × kill -9 | %d | %d | %d | %.2f | %d | %d |\n"+
			"relevant forms with kills: %+.1f %% of one machine's",
			ssn.Pages, ssn.SearchableForms, ssn.RelevantForms, hs, nsn.Pages, nforms, nrel, hn, nlost, ntwice,
			kills, csn.Pages, forms, rel, hc, lost, twice, diff)
		if lost > 0 || twice > 0 || nlost > 0 || ntwice > 0 {
			b.Errorf("%d forms lost, %d recorded twice", lost, twice)
		}
	}
}
