// Package procs adapts the number of processors the Go scheduler uses
// (GOMAXPROCS) to the CPU a crawl actually needs.
//
// A crawl mostly waits: on politeness delays, on the network, on fsync. Its
// goroutines hand work to each other thousands of times a second (a fetch
// alone wakes the HTTP transport's reader and writer goroutines), and with
// more than one processor every hand-off may wake an idle thread that spins
// looking for work, steals it, and goes back to sleep through futex calls.
// On `dwcrawl bench cpu` (2 cores) that idle machinery cost about a quarter
// of the crawl client's CPU while the crawl used less than half a core. A
// fixed GOMAXPROCS=1 would cap a crawl that does become CPU-bound (large
// profiles, many workers), so the governor measures the process's CPU use
// four times a second, starts with one processor, removes processors after
// a second in which fewer would have been at most 90 % busy, and doubles
// them once it has kept them 90 % busy for two seconds.
//
// It is opt-in, for the places it was measured to help (`dwcrawl bench
// cpu`): `dwcrawl run` starts it (Start) when the crawl itself begins, after
// start-up, which keeps every processor (the form model decodes on another
// core meanwhile, crawl.Preload); `dwcrawl testbed serve` starts it for the
// simulated web it serves. Other commands (serve, worker, harvest, the
// benches themselves) run with the runtime's GOMAXPROCS. GOMAXPROCS set in
// the environment turns the governor off.
package procs

import (
	"context"
	"math"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Options configure a Governor; zero values take the defaults.
type Options struct {
	// Min and Max bound GOMAXPROCS (default 1 and the value the runtime
	// chose at start, which follows the CPU count and any cgroup quota).
	Min, Max int
	// Interval is the measuring window (default 250 ms).
	Interval time.Duration
	// UpAfter is how many windows in a row must find the processors
	// saturated before the governor adds any (default 8, two seconds):
	// a burst of work, such as a crawl's first seconds, does not buy
	// processors a steady crawl then pays for.
	UpAfter int
	// DownAfter is how many windows in a row must ask for fewer processors
	// before the governor removes any (default 4, one second).
	DownAfter int

	// cpu returns the process's CPU time (user + system) so far and set
	// applies a GOMAXPROCS value; tests replace them.
	cpu func() (time.Duration, error)
	set func(int)
}

// busy is the share of its processors' time a window may use before they
// count as saturated: saturated windows (UpAfter in a row) double the
// processors, up to Max; windows whose CPU would keep fewer processors at
// most this busy (DownAfter in a row) take the processors down to that
// number. Between the two (more than busy × (n-1), less than busy × n
// processors' worth) nothing changes.
const busy = 0.9

// Governor adjusts GOMAXPROCS from one measuring window to the next. It
// starts at Min and adds processors only to a process that stays saturated
// for UpAfter windows: a crawl that begins on every processor and is taken
// down later spends more CPU for the same wall time.
type Governor struct {
	o     Options
	procs int
	high  int // windows in a row that found the processors saturated
	low   int // windows in a row that asked for fewer processors
	want  int // the most processors those windows asked for
	start int // GOMAXPROCS when Run started, restored at its end
}

// New returns a governor; its first value is Min processors.
func New(o Options) *Governor {
	if o.Max <= 0 {
		o.Max = runtime.GOMAXPROCS(0)
	}
	if o.Min <= 0 {
		o.Min = 1
	}
	if o.Min > o.Max {
		o.Min = o.Max
	}
	if o.Interval <= 0 {
		o.Interval = 250 * time.Millisecond
	}
	if o.UpAfter <= 0 {
		o.UpAfter = 8
	}
	if o.DownAfter <= 0 {
		o.DownAfter = 4
	}
	if o.cpu == nil {
		o.cpu = processCPU
	}
	if o.set == nil {
		o.set = func(n int) { runtime.GOMAXPROCS(n) }
	}
	return &Governor{o: o, procs: o.Min}
}

// Procs is the number of processors the governor has set.
func (g *Governor) Procs() int { return g.procs }

// Observe takes one window, in which the process used cpu of CPU time over
// wall, and returns the processors for the next one.
func (g *Governor) Observe(cpu, wall time.Duration) int {
	if wall <= 0 {
		return g.procs
	}
	cores := cpu.Seconds() / wall.Seconds() // processors' worth of CPU used
	if cores >= busy*float64(g.procs) {
		g.low = 0
		if g.high++; g.high >= g.o.UpAfter {
			g.high = 0
			g.procs = min(g.o.Max, 2*g.procs)
		}
		return g.procs
	}
	g.high = 0
	need := max(g.o.Min, int(math.Ceil(cores/busy)))
	if need >= g.procs {
		g.low = 0
		return g.procs
	}
	if g.low == 0 || need > g.want {
		g.want = need
	}
	if g.low++; g.low >= g.o.DownAfter {
		g.procs, g.low = g.want, 0
	}
	return g.procs
}

// Run governs GOMAXPROCS until ctx ends, then restores the value found at
// the start. It returns at once (doing nothing) when Min equals Max.
func (g *Governor) Run(ctx context.Context) {
	if g.o.Min >= g.o.Max {
		return
	}
	last, err := g.o.cpu()
	if err != nil {
		return // no CPU accounting here: leave the runtime's choice
	}
	g.start = runtime.GOMAXPROCS(0)
	defer g.o.set(g.start)
	if g.procs != g.start {
		g.o.set(g.procs)
	}
	t := time.NewTicker(g.o.Interval)
	defer t.Stop()
	prev := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			cpu, err := g.o.cpu()
			if err != nil {
				return
			}
			before := g.procs
			if n := g.Observe(cpu-last, now.Sub(prev)); n != before {
				g.o.set(n)
			}
			last, prev = cpu, now
		}
	}
}

// Start governs GOMAXPROCS in the background unless the environment sets
// GOMAXPROCS (the user's choice is kept; governed is false). stop ends it
// and waits.
func Start(o Options, getenv func(string) string) (stop func(), governed bool) {
	if getenv("GOMAXPROCS") != "" {
		return func() {}, false
	}
	g := New(o)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		g.Run(ctx)
	}()
	return func() {
		cancel()
		wg.Wait()
	}, true
}

// processCPU is the process's user plus system CPU time so far.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
