// Package cluster_test holds the benchmarks of dwcrawl's distributed mode
// run as an operator runs it: one NATS server process (testbed/natsd) and
// `dwcrawl worker` processes built from the tree; run3.sh, next to it, is
// the three-node cluster script.
package cluster_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// webSeed is the simulated web's seed.
const webSeed = 3

// build builds a command of the module into dir.
func build(b *testing.B, dir, pkg string) string {
	b.Helper()
	bin := filepath.Join(dir, filepath.Base(pkg))
	out, err := exec.Command("go", "build", "-o", bin, "github.com/dwcrawl/dwcrawl/"+pkg).CombinedOutput()
	if err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// proc is a child process whose log is a file.
type proc struct {
	cmd *exec.Cmd
	log string
}

// start runs bin with args, its output in log, and waits until the log
// holds ready (a minute at most: a loaded machine).
func start(b *testing.B, log, ready, bin string, args ...string) *proc {
	b.Helper()
	f, err := os.Create(log)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	p := &proc{cmd: cmd, log: log}
	b.Cleanup(p.stop)
	for range 600 {
		if data, _ := os.ReadFile(log); strings.Contains(string(data), ready) {
			return p
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	data, _ := os.ReadFile(log)
	b.Fatalf("%s did not log %q:\n%s", filepath.Base(bin), ready, data)
	return nil
}

// stop ends the process with SIGTERM (a worker gives back its unused pages)
// and waits for it.
func (p *proc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// freePort returns a loopback port nothing listens on.
func freePort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// envInt reads a positive integer setting from the environment.
func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// BenchmarkScaling crawls the testbed's default web (10,000 sites) with a
// politeness delay per host on 1, 2 and 4 `dwcrawl worker` processes (each
// exploring 4 sites at once) against one NATS server process, the
// coordinator in the benchmark's process, and reports the coordinator's
// pages per second between 10 % and 90 % of the budget (the steady state:
// start-up and the last sites left out) and the speed-up over one worker,
// the median of DWCRAWL_BENCH_RUNS runs each (interleaved: 1, 2, 4, 1, 2,
// 4, ...). A crawl that waits on politeness is bound by latency, not CPU, so
// it can scale past the machine's cores.
//
//	go test ./testbed/cluster/ -run '^$' -bench Scaling -benchtime 1x -timeout 1h
//
// DWCRAWL_BENCH_PAGES (default 1200), DWCRAWL_BENCH_DELAY_MS (default 200)
// and DWCRAWL_BENCH_RUNS (default 3) change the budget, the delay and the
// runs.
func BenchmarkScaling(b *testing.B) {
	pages := envInt(b, "DWCRAWL_BENCH_PAGES", 1200)
	delay := time.Duration(envInt(b, "DWCRAWL_BENCH_DELAY_MS", 200)) * time.Millisecond
	runs := envInt(b, "DWCRAWL_BENCH_RUNS", 3)
	bins := b.TempDir()
	dwcrawl, natsd := build(b, bins, "cmd/dwcrawl"), build(b, bins, "testbed/natsd")
	p, err := profile.Load(context.Background(), filepath.Join("..", "..", "domains", "auto.lua"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := simweb.DefaultConfig()
	cfg.Seed = webSeed
	web := simweb.MustNew(cfg)
	counts := []int{1, 2, 4}
	rates := map[int][]float64{}
	for range b.N {
		for run := range runs {
			for _, n := range counts {
				r := scalingRun(b, dwcrawl, natsd, p, web, n, pages, delay, fmt.Sprintf("scale%d_%d", n, run))
				rates[n] = append(rates[n], r)
				b.Logf("run %d, %d workers: %.1f pages/s", run+1, n, r)
			}
		}
	}
	median := func(xs []float64) float64 {
		s := slices.Sorted(slices.Values(xs))
		return s[len(s)/2]
	}
	r1 := median(rates[1])
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%d pages, delay %s per host, 4 sites per worker\n| workers | pages/s (runs) | median | × one |\n|---|---|---|---|\n", pages, delay)
	for _, n := range counts {
		var rs []string
		for _, r := range rates[n] {
			rs = append(rs, fmt.Sprintf("%.1f", r))
		}
		m := median(rates[n])
		fmt.Fprintf(&sb, "| %d | %s | %.1f | %.2f |\n", n, strings.Join(rs, ", "), m, m/r1)
		b.ReportMetric(m, fmt.Sprintf("pages/s-%dw", n))
		if n > 1 {
			b.ReportMetric(m/r1, fmt.Sprintf("speedup-%dw", n))
		}
	}
	b.Log(sb.String())
}

// scalingRun runs one crawl of pages on n worker processes and returns its
// pages per second between 10 % and 90 % of the budget.
func scalingRun(b *testing.B, dwcrawl, natsd string, p *profile.Profile, web *simweb.Web, n, pages int, delay time.Duration, name string) float64 {
	b.Helper()
	work := b.TempDir()
	url := "nats://127.0.0.1:" + strconv.Itoa(freePort(b))
	server := start(b, filepath.Join(work, "natsd.log"), "serving", natsd, "--addr", strings.TrimPrefix(url, "nats://"), "--js", filepath.Join(work, "js"))
	defer server.stop()
	var workers []*proc
	for i := range n {
		workers = append(workers, start(b, filepath.Join(work, fmt.Sprintf("w%d.log", i)), "worker started", dwcrawl,
			"worker", "--nats", url, "--dir", filepath.Join(work, fmt.Sprintf("w%d", i)), "--sites", "4"))
	}
	var mu sync.Mutex
	var t10, t90 time.Time
	var p10, p90 int64
	o := app.ClusterRunOptions{NATS: url, Name: name, CrawlOptions: app.CrawlOptions{Profile: p, Dir: filepath.Join(work, "coordinator"),
		Pages: pages, Seed: webSeed, Web: web, Reverse: app.Reverse(p, true, nil, quiet()), Logger: quiet(), Workers: 64, Delay: delay}}
	o.Progress = func(sn crawl.Snapshot, _ int) {
		mu.Lock()
		defer mu.Unlock()
		if t10.IsZero() && sn.Pages >= int64(pages)/10 {
			t10, p10 = time.Now(), sn.Pages
		}
		if t90.IsZero() && sn.Pages >= int64(pages)*9/10 {
			t90, p90 = time.Now(), sn.Pages
		}
	}
	sn, err := app.ClusterRun(context.Background(), o)
	for _, w := range workers {
		w.stop()
	}
	if err != nil {
		b.Fatal(err)
	}
	if sn.Pages != int64(pages) {
		b.Errorf("%d workers: %d pages recorded, budget %d", n, sn.Pages, pages)
	}
	for i, w := range workers {
		if !logHas(w.log, "crawl opened") {
			b.Errorf("worker %d of %d took no site", i, n)
		}
	}
	if t90.IsZero() || !t90.After(t10) {
		b.Fatalf("%d pages: the crawl did not reach 90%% of its budget", sn.Pages)
	}
	return float64(p90-p10) / t90.Sub(t10).Seconds()
}

// logHas reports whether the log file holds s.
func logHas(log, s string) bool {
	f, err := os.Open(log)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			return true
		}
	}
	return false
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
