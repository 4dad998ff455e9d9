package crawl

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// benchPagesEnv sets the page count of BenchmarkCrawlMemory (default
// 100,000; the target run is 1,000,000).
const benchPagesEnv = "DWCRAWL_BENCH_PAGES"

// memSample is the process's memory at one moment of a crawl.
type memSample struct {
	pages       int64
	at          time.Duration
	rss, heap   uint64 // bytes: resident set, heap in use
	sys, stacks uint64
}

// rssBytes reads the resident set size from /proc (0 where there is none).
func rssBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// heapBySite is the sampled heap in use per allocating function (the
// innermost frame outside the runtime), scaled as pprof scales samples.
func heapBySite() map[string]float64 {
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, false)
	for {
		recs = make([]runtime.MemProfileRecord, n+50)
		var ok bool
		if n, ok = runtime.MemProfile(recs, false); ok {
			recs = recs[:n]
			break
		}
	}
	rate := float64(runtime.MemProfileRate)
	out := map[string]float64{}
	for _, r := range recs {
		if r.InUseObjects() == 0 {
			continue
		}
		size := float64(r.AllocBytes) / float64(r.AllocObjects)
		scale := 1 / (1 - math.Exp(-size/rate))
		out[allocSite(r.Stack())] += float64(r.InUseBytes()) * scale
	}
	return out
}

// allocSite names the first frame of a stack that is ours or a library's,
// skipping the runtime and the generic containers that hide the caller.
func allocSite(stk []uintptr) string {
	frames := runtime.CallersFrames(stk)
	first := ""
	for {
		f, more := frames.Next()
		fn := f.Function
		if first == "" {
			first = fn
		}
		if !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/") && !strings.HasPrefix(fn, "sync.") &&
			!strings.HasPrefix(fn, "strings.") && !strings.HasPrefix(fn, "bytes.") && !strings.HasPrefix(fn, "encoding/json.") &&
			!strings.HasPrefix(fn, "slices.") && !strings.HasPrefix(fn, "maps.") {
			return fn
		}
		if !more {
			return first
		}
	}
}

// growth lists the allocation sites whose heap in use grew most between
// two samples.
func growth(before, after map[string]float64, top int) []string {
	type d struct {
		site  string
		delta float64
	}
	var ds []d
	for s, a := range after {
		if x := a - before[s]; x > 0 {
			ds = append(ds, d{s, x})
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].delta > ds[j].delta })
	var out []string
	for _, x := range ds[:min(top, len(ds))] {
		out = append(out, fmt.Sprintf("%8.1f MiB  %s", x.delta/(1<<20), x.site))
	}
	return out
}

// serveChildWeb starts a child test process serving oneTopicWebConfig's
// web of sites sites and returns its address and a stop function.
func serveChildWeb(b *testing.B, sites int) (string, func()) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeBenchWeb$")
	cmd.Env = append(os.Environ(), childWebEnv+"="+strconv.Itoa(sites), childWebOneTopicEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	addr, err := readAddr(stdout)
	if err != nil {
		b.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	return addr, func() {
		stdin.Close() // the child exits when its stdin closes
		cmd.Wait()
	}
}

// BenchmarkCrawlMemory crawls a large simulated web served by a child
// process (so that the memory measured is the crawler's own) and prints the
// crawler's resident set and heap over the crawl, the growth of the
// resident set per 1,000 pages after warm-up (the first 20 % of the pages),
// and the allocation sites whose heap in use grew most after warm-up.
// Target: RSS ≤ 500 MiB and flat after warm-up at 1,000,000 pages
// (DWCRAWL_BENCH_PAGES=1000000; default 100,000).
func BenchmarkCrawlMemory(b *testing.B) {
	pages := 100_000
	if n, err := strconv.Atoi(os.Getenv(benchPagesEnv)); err == nil && n > 0 {
		pages = n
	}
	// a crawl of this web finds ~14 pages per site before its site
	// frontier runs dry (570,044 pages from 40,000 sites): size it so the
	// budget, not the web, ends the crawl
	sites := max(4000, pages/12)
	addr, stop := serveChildWeb(b, sites)
	defer stop()
	w := simweb.MustNew(oneTopicWebConfig(sites))
	for i := 0; i < b.N; i++ {
		p := testProfile(b, "auto")
		p.Stop.MaxPagesPerSite = 0
		c, err := Assemble(context.Background(), Setup{Profile: p, Dir: b.TempDir(), Strategy: SCDI, Workers: 8, Pages: pages, Web: w, WebAddr: addr,
			Logger: quiet(), Seed: testSeed, TestbedSeeds: 50})
		if err != nil {
			b.Fatal(err)
		}
		var (
			mu      sync.Mutex
			samples []memSample
			warm    map[string]float64
		)
		start := time.Now()
		every := max(int64(pages)/50, 1000)
		next := int64(0)
		c.opt.ProgressInterval = 250 * time.Millisecond
		c.opt.Progress = func(sn Snapshot) {
			if sn.Pages < next {
				return
			}
			next = sn.Pages + every
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			s := memSample{pages: sn.Pages, at: time.Since(start), rss: rssBytes(), heap: ms.HeapInuse, sys: ms.Sys, stacks: ms.StackInuse}
			mu.Lock()
			samples = append(samples, s)
			if warm == nil && sn.Pages >= int64(pages)/5 {
				warm = heapBySite()
			}
			mu.Unlock()
			fmt.Printf("pages %8d  %6.0fs  rss %6.1f MiB  heap %6.1f MiB  go sys %6.1f MiB\n",
				s.pages, s.at.Seconds(), mib(s.rss), mib(s.heap), mib(s.sys))
		}
		sn, err := c.Run(context.Background())
		end := heapBySite()
		c.Close()
		if err != nil {
			b.Fatal(err)
		}
		var peak uint64
		for _, s := range samples {
			peak = max(peak, s.rss)
		}
		slope := rssSlope(samples, int64(pages)/5)
		fmt.Printf("%d pages in %s (%.0f pages/s); peak RSS %.1f MiB; RSS growth after warm-up %.2f MiB per 100,000 pages\n",
			sn.Pages, time.Since(start).Round(time.Second), float64(sn.Pages)/time.Since(start).Seconds(), mib(peak), slope*100)
		if warm != nil {
			fmt.Println("heap in use grown most after warm-up, by allocation site:")
			for _, l := range growth(warm, end, 12) {
				fmt.Println("  " + l)
			}
		}
		b.ReportMetric(mib(peak), "peak-RSS-MiB")
		b.ReportMetric(slope*100, "RSS-MiB/100k-pages")
		b.ReportMetric(float64(sn.Pages), "pages")
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// rssSlope is the least-squares growth of RSS in MiB per 1,000 pages over
// the samples from page from on.
func rssSlope(samples []memSample, from int64) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, s := range samples {
		if s.pages < from {
			continue
		}
		x, y := float64(s.pages)/1000, mib(s.rss)
		n++
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if n < 2 || n*sxx-sx*sx == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
