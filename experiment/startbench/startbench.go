// Package startbench measures the start-up of `dwcrawl run` from outside:
// the wall time, CPU time and peak resident set of short crawls (a few
// pages, so that the process is mostly start-up), run as child processes,
// in testbed mode (the simulated web built and served in the crawler's
// process) and against a web another process serves (`--web-addr`, the
// crawler's own start-up, as `bench cpu` runs it).
package startbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/dwcrawl/dwcrawl/experiment/webproc"
)

// Options configure Run.
type Options struct {
	Command webproc.Command
	Profile string // profile file
	Runs    int    // measured runs per mode (default 5)
	Pages   int    // page budget of each crawl (default 10)
	// Config is a simweb config file ("" for the default web).
	Config string
}

// Mode is the measure of one way of starting a crawl.
type Mode struct {
	Name string   `json:"name"`
	Args []string `json:"args"` // the command, less --dir
	// First is the first run's wall time (s): it may fill the user's
	// cache (simulated web data, search index) when that is empty.
	First float64 `json:"first_s"`
	// Wall and CPU (user + system) times in seconds and peak RSS in MiB
	// of the measured runs, each crawl in a new directory.
	Wall   []float64 `json:"wall_s"`
	CPU    []float64 `json:"cpu_s"`
	MaxRSS []float64 `json:"max_rss_mib"`
}

// MedianWall is the median wall time of the measured runs.
func (m Mode) MedianWall() float64 { return median(m.Wall) }

// MedianCPU is the median CPU time of the measured runs.
func (m Mode) MedianCPU() float64 { return median(m.CPU) }

// Result holds both modes.
type Result struct {
	Pages int    `json:"pages"`
	Modes []Mode `json:"modes"`
}

// Run measures `run --testbed` and `run --testbed --web-addr`.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Runs <= 0 {
		o.Runs = 5
	}
	if o.Pages <= 0 {
		o.Pages = 10
	}
	dir, err := os.MkdirTemp("", "dwcrawl-bench-startup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var cfg []string
	if o.Config != "" {
		cfg = []string{"--config", o.Config}
	}
	pages := strconv.Itoa(o.Pages)
	res := &Result{Pages: o.Pages}
	testbed := append(append([]string{"run", "--testbed"}, cfg...), "--pages", pages, o.Profile)
	m, err := measure(ctx, o, dir, "testbed", testbed)
	if err != nil {
		return nil, err
	}
	res.Modes = append(res.Modes, m)
	srv, err := webproc.Serve(ctx, o.Command, cfg...)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	remote := append(append([]string{"run", "--testbed"}, cfg...), "--web-addr", srv.Addr, "--pages", pages, o.Profile)
	if m, err = measure(ctx, o, dir, "web-addr", remote); err != nil {
		return nil, err
	}
	res.Modes = append(res.Modes, m)
	return res, nil
}

// measure runs args once unmeasured, then o.Runs times.
func measure(ctx context.Context, o Options, dir, name string, args []string) (Mode, error) {
	m := Mode{Name: name, Args: args}
	for i := 0; i <= o.Runs; i++ {
		a := append(append([]string{}, args[:len(args)-1]...), "--dir", filepath.Join(dir, fmt.Sprintf("%s-%d", name, i)), args[len(args)-1])
		errw, errs := webproc.Tail()
		cmd := o.Command.Cmd(ctx, a...)
		cmd.Stdout, cmd.Stderr = io.Discard, errw
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return m, fmt.Errorf("startup bench: dwcrawl %v: %v: %s", a, err, errs())
		}
		wall := time.Since(start).Seconds()
		if i == 0 {
			m.First = wall
			continue
		}
		m.Wall = append(m.Wall, wall)
		m.CPU = append(m.CPU, webproc.CPUOf(cmd.ProcessState).Seconds())
		var rss float64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = float64(ru.Maxrss) / 1024 // KiB on Linux
		}
		m.MaxRSS = append(m.MaxRSS, rss)
	}
	return m, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// WriteText prints a result as a table, with the target.
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "start-up of dwcrawl run (%d pages; median of %d runs, each in a new directory)\n", r.Pages, len(r.Modes[0].Wall))
	fmt.Fprintf(w, "%-9s %8s %8s %8s %9s %10s\n", "mode", "wall s", "min s", "cpu s", "rss MiB", "first s")
	for _, m := range r.Modes {
		fmt.Fprintf(w, "%-9s %8.3f %8.3f %8.3f %9.1f %10.3f\n", m.Name, m.MedianWall(), slices.Min(m.Wall), m.MedianCPU(), median(m.MaxRSS), m.First)
	}
	fmt.Fprintln(w, "target: wall < 1 s in both modes (the first run may fill the user cache; it is not counted)")
}
