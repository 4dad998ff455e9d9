// Package cpubench measures the CPU time per fetched page of a dwcrawl
// crawl and of colly's bare fetch+parse on the same fault-free simulated
// web, side by side in one run (dwcrawl bench cpu). Each client crawls a web
// served by its own `dwcrawl testbed serve` child (colly's as an HTTP
// proxy); a side's cost is its client's CPU time (user + system, start-up
// included) plus the CPU time its server spent after it was ready.
package cpubench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/experiment/webproc"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// Options configure a run.
type Options struct {
	Command webproc.Command
	// Colly is the collybench executable (a colly crawler that prints
	// {"pages":…} when done).
	Colly string
	// Profile is dwcrawl's profile file; Domain its domain (the seeds of
	// both crawls are the web's sites of it).
	Profile, Domain string
	Pages, Workers  int
	// Seeds is the number of seed sites (default 10, as run --testbed).
	Seeds int
	// Dir is the work directory (a temporary one, removed, when "").
	Dir string
	// Rounds is the number of colly-then-dwcrawl rounds (default 1): one
	// run's ratio moves with the machine's load, the median of several
	// much less.
	Rounds int
	// Progress, if set, is told of each round when it ends.
	Progress func(round int, r Round)
}

// Side is one crawler's measurement.
type Side struct {
	Name      string  `json:"name"`
	Pages     int64   `json:"pages"`
	ClientCPU float64 `json:"client_cpu_s"`
	ServerCPU float64 `json:"server_cpu_s"`
	Wall      float64 `json:"wall_s"`
	// MsPerPage is (client + server CPU) per page, in milliseconds.
	MsPerPage float64 `json:"cpu_ms_per_page"`
}

// Round is one side-by-side measurement: colly, then dwcrawl.
type Round struct {
	Colly   Side    `json:"colly"`
	Dwcrawl Side    `json:"dwcrawl"`
	Ratio   float64 `json:"ratio"` // dwcrawl's CPU per page / colly's
}

// Result is the round of median ratio (its fields at the top level, as a
// single round's) and, with several rounds, every round in run order.
type Result struct {
	Round
	Rounds []Round `json:"rounds,omitempty"`
}

// Run measures colly, then dwcrawl, o.Rounds times.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Pages <= 0 || o.Workers <= 0 || o.Colly == "" {
		return nil, fmt.Errorf("cpu bench: want pages > 0, workers > 0 and the colly executable")
	}
	if o.Rounds < 0 {
		return nil, fmt.Errorf("cpu bench: rounds %d: want 1 or more", o.Rounds)
	}
	if o.Rounds == 0 {
		o.Rounds = 1
	}
	if o.Seeds <= 0 {
		o.Seeds = 10
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "dwcrawl-bench-cpu-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfg := simweb.DefaultConfig()
	cfg.Faults = simweb.NoFaults()
	cfgFile := filepath.Join(dir, "web.json")
	if err := os.WriteFile(cfgFile, cfg.JSON(), 0o644); err != nil {
		return nil, err
	}
	w, err := app.LoadWeb(app.WebOptions{Config: cfgFile}) // as testbed serve does
	if err != nil {
		return nil, err
	}
	seeds := w.Seeds(o.Domain, o.Seeds)
	if len(seeds) == 0 {
		return nil, fmt.Errorf("cpu bench: the web has no sites of domain %q", o.Domain)
	}
	res := &Result{}
	for i := 1; i <= o.Rounds; i++ {
		crawlDir := filepath.Join(dir, "crawl")
		if o.Rounds > 1 {
			crawlDir = filepath.Join(dir, fmt.Sprintf("crawl-%d", i))
		}
		r, err := round(ctx, o, cfgFile, crawlDir, seeds)
		if err != nil {
			if o.Rounds > 1 {
				err = fmt.Errorf("round %d: %w", i, err)
			}
			return nil, err
		}
		if o.Dir == "" {
			os.RemoveAll(crawlDir) // a 10k-page crawl is ~50 MB
		}
		if o.Progress != nil {
			o.Progress(i, r)
		}
		res.Rounds = append(res.Rounds, r)
	}
	res.Round = median(res.Rounds)
	if o.Rounds == 1 {
		res.Rounds = nil
	}
	return res, nil
}

// median returns the round of median ratio (the lower middle one of an
// even count).
func median(rs []Round) Round {
	s := slices.Clone(rs)
	slices.SortStableFunc(s, func(a, b Round) int { return cmp.Compare(a.Ratio, b.Ratio) })
	return s[(len(s)-1)/2]
}

// round measures colly, then dwcrawl into crawlDir.
func round(ctx context.Context, o Options, cfgFile, crawlDir string, seeds []string) (Round, error) {
	var res Round
	var err error
	// colly through the web served as a proxy
	res.Colly, err = side(ctx, o.Command, "colly", []string{"--config", cfgFile, "--proxy"}, func(addr string) (int64, time.Duration, error) {
		var out bytes.Buffer
		errw, errs := webproc.Tail()
		cmd := webproc.Command{Exe: o.Colly}.Cmd(ctx, "--proxy", "http://"+addr, "--seeds", strings.Join(seeds, ","),
			"--pages", strconv.Itoa(o.Pages), "--parallel", strconv.Itoa(o.Workers))
		cmd.Stdout, cmd.Stderr = &out, errw
		if err := cmd.Run(); err != nil {
			return 0, 0, fmt.Errorf("colly: %v: %s", err, errs())
		}
		var r struct {
			Pages int64 `json:"pages"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			return 0, 0, fmt.Errorf("colly's output %q: %w", out.String(), err)
		}
		return r.Pages, webproc.CPUOf(cmd.ProcessState), nil
	})
	if err != nil {
		return res, err
	}
	res.Dwcrawl, err = side(ctx, o.Command, "dwcrawl", []string{"--config", cfgFile}, func(addr string) (int64, time.Duration, error) {
		var out bytes.Buffer
		errw, errs := webproc.Tail()
		cmd := o.Command.Cmd(ctx, "run", "--testbed", "--config", cfgFile, "--web-addr", addr, "--pages", strconv.Itoa(o.Pages),
			"--workers", strconv.Itoa(o.Workers), "--dir", crawlDir, "--json", o.Profile)
		cmd.Stdout, cmd.Stderr = &out, errw
		if err := cmd.Run(); err != nil {
			return 0, 0, fmt.Errorf("dwcrawl run: %v: %s", err, errs())
		}
		var r struct {
			Pages int64 `json:"pages"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			return 0, 0, fmt.Errorf("dwcrawl run's summary %q: %w", out.String(), err)
		}
		return r.Pages, webproc.CPUOf(cmd.ProcessState), nil
	})
	if err != nil {
		return res, err
	}
	if res.Colly.MsPerPage > 0 {
		res.Ratio = res.Dwcrawl.MsPerPage / res.Colly.MsPerPage
	}
	return res, nil
}

// side serves the web with serveArgs, runs client against it and measures.
func side(ctx context.Context, c webproc.Command, name string, serveArgs []string, client func(addr string) (int64, time.Duration, error)) (Side, error) {
	srv, err := webproc.Serve(ctx, c, serveArgs...)
	if err != nil {
		return Side{}, err
	}
	ready, err := srv.CPU() // generating the web is not serving it
	if err != nil {
		srv.Stop()
		return Side{}, err
	}
	start := time.Now()
	pages, cpu, err := client(srv.Addr)
	wall := time.Since(start)
	total, _ := srv.Stop()
	if err != nil {
		return Side{}, err
	}
	s := Side{Name: name, Pages: pages, ClientCPU: cpu.Seconds(), ServerCPU: (total - ready).Seconds(), Wall: wall.Seconds()}
	if pages > 0 {
		s.MsPerPage = (s.ClientCPU + s.ServerCPU) * 1000 / float64(pages)
	}
	return s, nil
}

// WriteText prints the two sides and the ratio; with several rounds, each
// round's ratio first.
func WriteText(w io.Writer, r *Result) {
	if len(r.Rounds) > 1 {
		for i, rd := range r.Rounds {
			fmt.Fprintf(w, "round %d: colly %.3f ms, dwcrawl %.3f ms per page: %.2f×\n", i+1, rd.Colly.MsPerPage, rd.Dwcrawl.MsPerPage, rd.Ratio)
		}
		fmt.Fprintf(w, "the round of median ratio:\n")
	}
	fmt.Fprintf(w, "%-8s %8s %12s %12s %8s %14s\n", "crawler", "pages", "client CPU", "server CPU", "wall", "CPU per page")
	for _, s := range []Side{r.Colly, r.Dwcrawl} {
		fmt.Fprintf(w, "%-8s %8d %11.2fs %11.2fs %7.1fs %11.3f ms\n", s.Name, s.Pages, s.ClientCPU, s.ServerCPU, s.Wall, s.MsPerPage)
	}
	fmt.Fprintf(w, "dwcrawl / colly: %.2f× CPU per page (target ≤ 1.5×)\n", r.Ratio)
}
