package crawl

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/store"
)

// benchPagesEnv sets the page count of BenchmarkCrawlMemory (default
// 100,000; the target run is 1,000,000).
const benchPagesEnv = "DWCRAWL_BENCH_PAGES"

// memSample is the process's memory at one moment of a crawl, split into
// its parts.
type memSample struct {
	pages int64
	at    time.Duration
	rss   uint64 // resident set
	// the Go runtime: heap in use, heap kept for reuse (idle, not returned
	// to the OS), stacks, everything it holds from the OS less what it
	// returned, the heap goal of the next GC
	heap, idle, stacks, goHeld, goal uint64
	// Pebble's block cache and memtables (C memory with cgo, else in the
	// heap) and its tables
	store store.Memory
	// the crawl's in-memory site map (sites explored or queued)
	sites int64
}

// other is the resident memory that is neither the Go runtime's nor
// Pebble's C allocations: the program's code and data, and the C
// allocator's overhead.
func (s memSample) other() int64 {
	o := int64(s.rss) - int64(s.goHeld)
	if cgoOn {
		o -= s.store.BlockCache + int64(s.store.MemTables)
	}
	return o
}

// cgoOn says the binary was built with cgo, with which Pebble allocates
// its block cache and memtables outside the Go heap.
var cgoOn = func() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "CGO_ENABLED" {
				return s.Value == "1"
			}
		}
	}
	return false
}()

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
// web of sites sites and returns what a crawler knows of it and a stop
// function.
func serveChildWeb(b *testing.B, sites int) (RemoteWeb, func()) {
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
	web, err := readChild(stdout)
	if err != nil {
		b.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	return web, func() {
		stdin.Close() // the child exits when its stdin closes
		cmd.Wait()
	}
}

// BenchmarkCrawlMemory crawls a large simulated web that a child process
// builds and serves (the crawler knows only its address, seeds, hosts and
// configuration, so the memory measured is the crawler's own) and prints
// the crawler's resident set over the crawl split into its parts (Go heap,
// Pebble's block cache and memtables, the rest), the growth of the
// resident set per 100,000 pages after warm-up (the first 20 % of the
// pages), what each part grew by since warm-up and why, and the allocation
// sites whose heap in use grew most.
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
	// the crawler holds nothing of the web but its address, seeds and
	// configuration, as a crawl of the real web
	web, stop := serveChildWeb(b, sites)
	defer stop()
	for i := 0; i < b.N; i++ {
		p := testProfile(b, "auto")
		p.Stop.MaxPagesPerSite = 0
		c, err := Assemble(context.Background(), Setup{Profile: p, Dir: b.TempDir(), Strategy: SCDI, Workers: 8, Pages: pages, Remote: &web,
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
			s := memSample{pages: sn.Pages, at: time.Since(start), rss: rssBytes(), heap: ms.HeapInuse, idle: ms.HeapIdle - ms.HeapReleased,
				stacks: ms.StackInuse, goHeld: ms.Sys - ms.HeapReleased, goal: ms.NextGC, store: c.DB.Memory(), sites: sn.Sites + sn.FrontierSites}
			mu.Lock()
			samples = append(samples, s)
			if warm == nil && sn.Pages >= int64(pages)/5 {
				warm = heapBySite()
			}
			mu.Unlock()
			fmt.Printf("pages %8d %6.0fs  rss %6.1f  go: heap %6.1f idle %5.1f stacks %4.1f held %6.1f  pebble: cache %5.1f memtables %5.1f  other %5.1f MiB  tables %4d (%6.1f MiB)  sites %7d\n",
				s.pages, s.at.Seconds(), mib(s.rss), mib(s.heap), mib(s.idle), mib(s.stacks), mib(s.goHeld),
				mib(uint64(s.store.BlockCache)), mib(s.store.MemTables), float64(s.other())/(1<<20), s.store.Tables, mib(uint64(s.store.TableBytes)), s.sites)
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
		slope := rssSlope(samples, int64(pages)/5, func(s memSample) uint64 { return s.rss })
		// the block cache is bounded by its capacity: it fills for most of
		// a crawl, which the RSS slope counts as growth
		unbounded := rssSlope(samples, int64(pages)/5, func(s memSample) uint64 { return s.rss - uint64(s.store.BlockCache) })
		fmt.Printf("%d pages in %s (%.0f pages/s); peak RSS %.1f MiB; RSS growth after warm-up %.2f MiB per 100,000 pages, %.2f without Pebble's block cache (bounded, %.0f MiB)\n",
			sn.Pages, time.Since(start).Round(time.Second), float64(sn.Pages)/time.Since(start).Seconds(), mib(peak), slope*100, unbounded*100,
			mib(uint64(store.DefaultCacheSize)))
		explainGrowth(samples, int64(pages)/5)
		if warm != nil {
			fmt.Println("heap in use grown most after warm-up, by allocation site:")
			for _, l := range growth(warm, end, 12) {
				fmt.Println("  " + l)
			}
		}
		b.ReportMetric(mib(peak), "peak-RSS-MiB")
		b.ReportMetric(slope*100, "RSS-MiB/100k-pages")
		b.ReportMetric(unbounded*100, "RSS-less-cache-MiB/100k-pages")
		b.ReportMetric(float64(sn.Pages), "pages")
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// explainGrowth prints what grew between the first sample after warm-up
// and the last, part by part, and why each part grows or is bounded.
func explainGrowth(samples []memSample, warmPages int64) {
	var w, e memSample
	for _, s := range samples {
		if s.pages >= warmPages && w.pages == 0 {
			w = s
		}
		e = s
	}
	if w.pages == 0 || e.pages == w.pages {
		return
	}
	cacheMiB := mib(uint64(e.store.BlockCacheCap))
	where := "outside the Go heap (cgo)"
	if !cgoOn {
		where = "in the Go heap (no cgo)"
	}
	d := func(a, b uint64) float64 { return mib(b) - mib(a) }
	fmt.Printf("what grew from page %d to page %d (MiB; + is growth):\n", w.pages, e.pages)
	rows := []struct {
		part  string
		delta float64
		why   string
	}{
		{"resident set", d(w.rss, e.rss), "the sum of the parts below"},
		{"pebble block cache", d(uint64(w.store.BlockCache), uint64(e.store.BlockCache)),
			fmt.Sprintf("%s; fills with the blocks read as the store grows, bounded by its capacity of %.0f MiB (now %.1f)", where, cacheMiB, mib(uint64(e.store.BlockCache)))},
		{"pebble memtables", d(w.store.MemTables, e.store.MemTables), where + "; 8 MiB each, one filling and at most a few flushing: bounded"},
		{"go heap in use", d(w.heap, e.heap), fmt.Sprintf("live objects; sampled between GCs, so it moves within the heap goal (%.1f MiB at the end); by allocation site below", mib(e.goal))},
		{"go heap idle", d(w.idle, e.idle), "freed spans the runtime keeps for reuse before returning them to the OS: follows the peak heap, bounded by it"},
		{"go held from the OS", d(w.goHeld, e.goHeld), "heap, idle, stacks and runtime metadata: rises to the highest heap goal reached, then stays"},
		{"other", float64(e.other()-w.other()) / (1 << 20), "code, and the C allocator's overhead for Pebble's cache blocks and memtables: freed ones stay in malloc's arenas, fragmented, for reuse"},
	}
	for _, r := range rows {
		fmt.Printf("  %+7.1f  %-20s %s\n", r.delta, r.part, r.why)
	}
	fmt.Printf("  store: %d tables, %.1f MiB on disk (%+.1f MiB): on disk, not in memory; the block cache holds a bounded part of them\n",
		e.store.Tables, mib(uint64(e.store.TableBytes)), d(uint64(w.store.TableBytes), uint64(e.store.TableBytes)))
	perSite := ""
	if ds := e.sites - w.sites; ds > 0 {
		perSite = fmt.Sprintf(", %.1f KiB of heap in use per site more", (float64(e.heap)-float64(w.heap))/float64(ds)/1024)
	}
	fmt.Printf("  crawl: %d sites explored or queued (%+d%s): the site map and the site frontier are in memory, a queued\n"+
		"    site with the anchor and surrounding text of the links to it (up to 2×%d bytes, to rank it and re-rank it\n"+
		"    after learning), an explored one with a few flags: they grow with the sites found, here up to the web's\n"+
		"    sites, on the open web with the frontier\n",
		e.sites, e.sites-w.sites, perSite, maxEvidence)
}

// rssSlope is the least-squares growth of v (RSS or a part of it) in MiB
// per 1,000 pages over the samples from page from on.
func rssSlope(samples []memSample, from int64, v func(memSample) uint64) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, s := range samples {
		if s.pages < from {
			continue
		}
		x, y := float64(s.pages)/1000, mib(v(s))
		n++
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if n < 2 || n*sxx-sx*sx == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
