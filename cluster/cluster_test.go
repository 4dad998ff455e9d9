package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/cluster"
	"github.com/dwcrawl/dwcrawl/cluster/clustertest"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

const webSeed = 3

// testWeb is a small simulated web; every worker builds the same one from
// the config the crawl publishes.
var testWeb = sync.OnceValue(func() *simweb.Web {
	cfg := simweb.SmallConfig()
	cfg.Seed = webSeed
	cfg.Sites = 600
	return simweb.MustNew(cfg)
})

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testProfile is the auto profile, learning often enough for rounds to
// happen within a test's budget (the coordinator alone learns).
func testProfile(t testing.TB) *profile.Profile {
	t.Helper()
	p, err := profile.Load(context.Background(), filepath.Join("..", "domains", "auto.lua"))
	if err != nil {
		t.Fatal(err)
	}
	p.Learn.FormsEvery, p.Learn.SitesEvery = 5, 4
	return p
}

// budgetFor is a test crawl's page budget: smaller under -short.
func budgetFor() int {
	if testing.Short() {
		return 300
	}
	return 600
}

// startWorkers runs n workers as goroutines until ctx ends.
func startWorkers(t *testing.T, ctx context.Context, url string, n int) (dirs []string, wait func()) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("w%d", i))
		dirs = append(dirs, dir)
		c, err := cluster.Connect(ctx, url, cluster.Options{Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			if err := c.Work(ctx, cluster.WorkerOptions{Dir: dir, Sites: 2, AckWait: 2 * time.Second, Open: app.OpenExplorer(quiet()), Logger: quiet()}); err != nil {
				t.Error(err)
			}
		}()
	}
	return dirs, wg.Wait
}

// runCrawl coordinates a testbed crawl of budget pages from dir.
func runCrawl(ctx context.Context, t *testing.T, url, name, dir string, budget int, progress func(crawl.Snapshot)) (crawl.Snapshot, error) {
	return runCrawlLog(ctx, t, url, name, dir, budget, progress, quiet())
}

// runCrawlLog is runCrawl with the coordinator's logger.
func runCrawlLog(ctx context.Context, t *testing.T, url, name, dir string, budget int, progress func(crawl.Snapshot), log *slog.Logger) (crawl.Snapshot, error) {
	p := testProfile(t)
	o := app.ClusterRunOptions{NATS: url, Name: name, CrawlOptions: app.CrawlOptions{Profile: p, Dir: dir, Pages: budget, Seed: webSeed,
		Web: testWeb(), Reverse: app.Reverse(p, true, nil, quiet()), Logger: log, Workers: 8}}
	if progress != nil {
		o.Progress = func(sn crawl.Snapshot, _ int) { progress(sn) }
	}
	return app.ClusterRun(ctx, o)
}

// signature identifies a form interface as the crawl engine does: the
// same action, method and controls on one site.
func signature(t testing.TB, f store.Form) string {
	var fields []page.Field
	if err := json.Unmarshal(f.Fields, &fields); err != nil {
		t.Fatalf("form %s: %v", f.ID, err)
	}
	names := make([]string, 0, len(fields))
	for _, fl := range fields {
		names = append(names, fl.Name)
	}
	sort.Strings(names)
	return f.Site + "|" + f.Action + "|" + f.Method + "|" + strings.Join(names, ",")
}

func openStore(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// checkCrawl checks what a cluster crawl recorded: the coordinator's
// counts match its store and the page budget is spent exactly (the test
// web has sites to spare), no page or form interface is recorded twice,
// every form any worker recorded is the coordinator's, the forms stream
// holds exactly the coordinator's forms, and only the coordinator learnt.
func checkCrawl(t *testing.T, url, name, coordDir string, workerDirs []string, sn crawl.Snapshot, budget int) {
	t.Helper()
	checkCrawlLost(t, url, name, coordDir, workerDirs, sn, budget, 0)
}

// checkCrawlLost is checkCrawl for a crawl that may lose up to lost pages:
// the pages a worker process was fetching when it was killed -9 and that
// it had counted (at most one lease, cluster.maxLease = 8). A worker that comes back before it is presumed dead
// keeps its count, so they are not reclaimed (seen once in CI: 797 of 800).
func checkCrawlLost(t *testing.T, url, name, coordDir string, workerDirs []string, sn crawl.Snapshot, budget, lost int) {
	t.Helper()
	// the budget is exact, as on one machine: pages a dead worker took and
	// did not record come back to it, and so do a live worker's unused
	// lease and the pages two workers fetched when a site was explored
	// twice at once
	if sn.Pages > int64(budget) || sn.Pages < int64(budget-lost) {
		t.Errorf("%d pages recorded, budget %d (%d in flight at a kill may be lost)", sn.Pages, budget, lost)
	}
	db := openStore(t, coordDir)
	defer db.Close()
	pages := 0
	db.ScanJSON(store.TagPages, nil, func(_, _ []byte) error { pages++; return nil })
	if int64(pages) != sn.Pages {
		t.Errorf("the coordinator holds %d page records and counted %d", pages, sn.Pages)
	}
	ids := map[string]store.Form{}
	sigs := map[string]string{}
	relevant := 0
	db.ScanForms(func(f store.Form) error {
		ids[f.ID] = f
		s := signature(t, f)
		if prev, dup := sigs[s]; dup {
			t.Errorf("form recorded twice: %s and %s (%s)", prev, f.ID, s)
		}
		sigs[s] = f.ID
		if f.Relevant {
			relevant++
		}
		return nil
	})
	if int64(len(ids)) != sn.SearchableForms || int64(relevant) != sn.RelevantForms {
		t.Errorf("store: %d forms, %d relevant; counters: %d, %d", len(ids), relevant, sn.SearchableForms, sn.RelevantForms)
	}
	if relevant == 0 {
		t.Error("no relevant form found")
	}
	statuses := map[store.SiteStatus]int{}
	db.ScanSites(func(s store.Site) error { statuses[s.Status]++; return nil })
	t.Logf("sites by status: %v", statuses)
	rounds := 0
	db.ScanJSON(store.TagFeatures, nil, func(_, v []byte) error {
		var it rank.Iteration
		json.Unmarshal(v, &it)
		if it.Space == rank.SpaceFSL {
			rounds++
			if it.Round != rounds {
				t.Errorf("FSL round %d recorded as number %d", rounds, it.Round)
			}
		}
		return nil
	})
	if rounds == 0 || int64(rounds) != sn.LearnForms {
		t.Errorf("%d FSL rounds in the store, %d counted; want some", rounds, sn.LearnForms)
	}
	conn, err := cluster.Connect(context.Background(), url, cluster.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	streamed, err := conn.Forms(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range streamed {
		if seen[f.ID] {
			t.Errorf("form %s exported twice", f.ID)
		}
		seen[f.ID] = true
		if _, ok := ids[f.ID]; !ok {
			t.Errorf("form %s (%s) is in the forms stream, not in the coordinator's store", f.ID, f.PageURL)
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("forms stream: %d forms, coordinator: %d", len(seen), len(ids))
	}
	explored := 0
	for _, dir := range workerDirs {
		wdir := filepath.Join(dir, name)
		if _, err := os.Stat(wdir); err != nil {
			continue
		}
		wdb := openStore(t, wdir)
		wdb.ScanForms(func(f store.Form) error {
			if _, ok := ids[f.ID]; !ok && sigs[signature(t, f)] == "" {
				t.Errorf("form %s (%s) recorded by the worker in %s is lost", f.ID, f.PageURL, dir)
			}
			return nil
		})
		n := 0
		wdb.ScanJSON(store.TagFeatures, nil, func(_, _ []byte) error { n++; return nil })
		if n != 0 {
			t.Errorf("the worker in %s recorded %d learning rounds: only the coordinator learns", dir, n)
		}
		wdb.ScanSites(func(s store.Site) error {
			if s.Status == store.SiteRelevant || s.Status == store.SiteIrrelevant || s.Status == store.SiteFailed {
				explored++
			}
			return nil
		})
		wdb.Close()
	}
	t.Logf("%d pages, %d sites, %d forms (%d relevant), %d FSL and %d FSS rounds, %d site explorations by the workers",
		sn.Pages, sn.Sites, len(ids), relevant, sn.LearnForms, sn.LearnSites, explored)
}

// TestClusterGoroutines runs a testbed crawl on three workers in this
// process and checks what it recorded.
func TestClusterGoroutines(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	wctx, stopWorkers := context.WithCancel(ctx)
	dirs, wait := startWorkers(t, wctx, ts.URL(), 3)
	coordDir := t.TempDir()
	budget := budgetFor()
	sn, err := runCrawl(ctx, t, ts.URL(), "goroutines", coordDir, budget, nil)
	stopWorkers()
	wait()
	if err != nil {
		t.Fatal(err)
	}
	checkCrawl(t, ts.URL(), "goroutines", coordDir, dirs, sn, budget)
	for i, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "goroutines")); err != nil {
			t.Errorf("worker %d explored nothing: %v", i, err)
		}
	}

	// resumed with a larger budget, the crawl goes on from where it was
	sn2, err := func() (crawl.Snapshot, error) {
		wctx, stop := context.WithCancel(ctx)
		dirs2, wait := startWorkers(t, wctx, ts.URL(), 2)
		dirs = append(dirs, dirs2...)
		defer wait()
		defer stop()
		return runCrawl(ctx, t, ts.URL(), "goroutines", coordDir, budget+100, nil)
	}()
	if err != nil {
		t.Fatal(err)
	}
	if sn2.Pages <= sn.Pages || sn2.Pages > int64(budget+100) {
		t.Errorf("resumed: %d pages after %d, budget %d", sn2.Pages, sn.Pages, budget+100)
	}
	checkCrawl(t, ts.URL(), "goroutines", coordDir, dirs, sn2, budget+100)
}

// TestClusterServerRestart restarts the NATS server in the middle of a
// crawl: clients reconnect, streams and buckets are on disk, and the crawl
// ends as one without a restart would.
func TestClusterServerRestart(t *testing.T) {
	ts := clustertest.StartServer(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	wctx, stopWorkers := context.WithCancel(ctx)
	dirs, wait := startWorkers(t, wctx, ts.URL(), 3)
	coordDir := t.TempDir()
	budget := budgetFor()
	var restarted atomic.Bool
	done := make(chan struct{})
	sn, err := runCrawl(ctx, t, ts.URL(), "restart", coordDir, budget, func(sn crawl.Snapshot) {
		if sn.Pages >= int64(budget)/3 && restarted.CompareAndSwap(false, true) {
			go func() {
				defer close(done)
				t.Logf("restarting the NATS server at %d pages", sn.Pages)
				ts.Shutdown()
				time.Sleep(1500 * time.Millisecond)
				ts.Start()
			}()
		}
	})
	stopWorkers()
	wait()
	if err != nil {
		t.Fatal(err)
	}
	if !restarted.Load() {
		t.Fatal("the crawl ended before the server was restarted")
	}
	<-done
	checkCrawl(t, ts.URL(), "restart", coordDir, dirs, sn, budget)
}

// dwcrawlBinary builds the dwcrawl command once per test binary.
var dwcrawlBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "dwcrawl-cluster-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "dwcrawl")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/dwcrawl/dwcrawl/cmd/dwcrawl").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// workerProc is a `dwcrawl worker` process.
type workerProc struct {
	cmd *exec.Cmd
	dir string
	log string
}

func startWorkerProc(t *testing.T, bin, url, dir, log string) *workerProc {
	t.Helper()
	return startWorker(t, bin, url, dir, log, 2)
}

// startWorker starts a worker process exploring sites at once; it is
// stopped when the test ends.
func startWorker(t testing.TB, bin, url, dir, log string, sites int) *workerProc {
	t.Helper()
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "worker", "--nats", url, "--dir", dir, "--sites", strconv.Itoa(sites), "--ack-wait", "2s", "--log-level", "info")
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w := &workerProc{cmd: cmd, dir: dir, log: log}
	t.Cleanup(func() { w.stop() })
	return w
}

// stop ends the worker with SIGTERM (a clean stop) and waits for it.
func (w *workerProc) stop() {
	if w.cmd.ProcessState != nil {
		return
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { w.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		w.cmd.Process.Kill()
		<-done
	}
}

// kill9 kills the worker with SIGKILL.
func (w *workerProc) kill9() {
	w.cmd.Process.Kill()
	w.cmd.Wait()
}

// TestClusterProcessesKill9 runs a crawl on three worker processes, kills
// one with SIGKILL in the middle of its sites and starts it again on its
// directory: its sites go to other workers after the ack wait, which replay
// the pages it published, and no form it recorded is lost or counted twice.
func TestClusterProcessesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dwcrawl and runs worker processes; skipped in -short mode")
	}
	bin, err := dwcrawlBinary()
	if err != nil {
		t.Fatal(err)
	}
	ts := clustertest.StartServer(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	logs := t.TempDir()
	var workers []*workerProc
	var dirs []string
	for i := range 3 {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("w%d", i))
		dirs = append(dirs, dir)
		workers = append(workers, startWorkerProc(t, bin, ts.URL(), dir, filepath.Join(logs, fmt.Sprintf("w%d.log", i))))
	}
	coordDir := t.TempDir()
	budget := 800
	var killed, restarted atomic.Bool
	var mu sync.Mutex
	var coordLog bytes.Buffer // slog's handler serialises its writes
	sn, err := runCrawlLog(ctx, t, ts.URL(), "kill9", coordDir, budget, func(sn crawl.Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case sn.Pages >= 200 && !killed.Load():
			t.Logf("kill -9 of worker 0 at %d pages", sn.Pages)
			workers[0].kill9()
			killed.Store(true)
		case sn.Pages >= 450 && killed.Load() && !restarted.Load():
			t.Logf("worker 0 starts again at %d pages", sn.Pages)
			workers[0] = startWorkerProc(t, bin, ts.URL(), dirs[0], filepath.Join(logs, "w0.log"))
			restarted.Store(true)
		}
	}, slog.New(slog.NewTextHandler(&coordLog, nil)))
	for _, w := range workers {
		w.stop()
	}
	if err != nil {
		t.Fatal(err)
	}
	if !killed.Load() {
		t.Fatal("the crawl ended before a worker was killed")
	}
	checkCrawlLost(t, ts.URL(), "kill9", coordDir, dirs, sn, budget, 8)
	redelivered := 0
	for i := range workers {
		b, _ := os.ReadFile(filepath.Join(logs, fmt.Sprintf("w%d.log", i)))
		redelivered += strings.Count(string(b), "importing the pages of a redelivered site")
		if strings.Contains(string(b), "level=ERROR") {
			t.Errorf("worker %d logged errors:\n%s", i, b)
		}
	}
	t.Logf("%d redelivered sites imported; %d reclaims of the pages a dead worker took and did not record", redelivered,
		strings.Count(coordLog.String(), "pages of a dead engine given back"))
	if redelivered == 0 {
		t.Error("no site of the killed worker was redelivered")
	}
}

// waitLog waits until the log file holds s (the test's deadline bounds it).
func waitLog(t *testing.T, log, s string) {
	t.Helper()
	for {
		if b, _ := os.ReadFile(log); strings.Contains(string(b), s) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWorkerProcessWaitsForServer starts a `dwcrawl worker` before its
// NATS server, as a machine booting both does: the worker waits, saying so
// with the server's URL, and starts once the server is up.
func TestWorkerProcessWaitsForServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dwcrawl and runs a worker process; skipped in -short mode")
	}
	bin, err := dwcrawlBinary()
	if err != nil {
		t.Fatal(err)
	}
	ts := clustertest.NewServer(t, t.TempDir())
	log := filepath.Join(t.TempDir(), "w.log")
	w := startWorkerProc(t, bin, ts.URL(), t.TempDir(), log)
	waitLog(t, log, `msg="nats: waiting for the server" url=`+ts.URL())
	ts.Start()
	waitLog(t, log, "worker started")
	w.stop()
	b, _ := os.ReadFile(log)
	if !strings.Contains(string(b), `msg="nats: server up"`) || strings.Contains(string(b), "level=ERROR") {
		t.Errorf("worker log:\n%s", b)
	}
}
