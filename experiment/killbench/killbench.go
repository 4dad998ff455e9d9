// Package killbench kills one crawl with SIGKILL at random moments and
// measures what survives (dwcrawl bench kill): the forms recorded before
// each kill must all be there at the end, the page budget must be met
// exactly, the counters the summary prints must agree with the records,
// and — counted on the server, from the request log of the simulated web
// served in its own process — no page may be fetched twice except those in
// flight at a kill (at most one per worker per kill).
package killbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/experiment/webproc"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// Options configure a run.
type Options struct {
	Command webproc.Command
	// Profile is the crawl's profile file.
	Profile string
	// Config is the simulated web's config file; "" writes a fault-free
	// version of the default web (faults are retried, and a retry is a
	// second request the count must not mistake for a refetch).
	Config string
	// Kills is the number of SIGKILLs; Pages the page budget; Workers the
	// crawl's workers.
	Kills, Pages, Workers int
	// Seed draws the moments of the kills: each run is killed after a
	// delay uniform in [MinDelay, MaxDelay] from its first crawled page.
	Seed               uint64
	MinDelay, MaxDelay time.Duration
	// Dir is the work directory (crawl, request log); a temporary one is
	// made and removed when empty.
	Dir string
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// Kill is one kill: when, and what the crawl had recorded just before.
type Kill struct {
	After time.Duration `json:"after"` // since the run started
	Forms int           `json:"forms"` // forms listed just before the kill
}

// Result is what a run measured.
type Result struct {
	Kills         []Kill   `json:"kills"`
	Pages         int64    `json:"pages"`         // pages recorded at the end (counter)
	Budget        int      `json:"budget"`        // the page budget
	FormsSeen     int      `json:"forms_seen"`    // distinct forms listed before the kills
	FormsLost     []string `json:"forms_lost"`    // of those, missing at the end
	FormsFinal    int      `json:"forms_final"`   // forms at the end
	PageRequests  int      `json:"page_requests"` // page requests the server received
	UniquePages   int      `json:"unique_pages"`  // distinct page URLs requested
	Refetched     int      `json:"refetched"`     // requests beyond the first of a URL
	InFlightBound int      `json:"in_flight_bound"`
	// SitemapRequests counts the requests of sitemaps (not pages: each run
	// that enters a site reads its sitemap).
	SitemapRequests int      `json:"sitemap_requests"`
	CheckProblems   []string `json:"check_problems"` // from dwcrawl check (counters included)
	Seconds         float64  `json:"seconds"`
}

// OK reports whether the targets were met.
func (r *Result) OK() bool {
	return len(r.FormsLost) == 0 && r.Pages == int64(r.Budget) && r.Refetched <= r.InFlightBound && len(r.CheckProblems) == 0
}

// Run performs the kills and the final, uninterrupted run.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Kills < 0 || o.Pages <= 0 || o.Workers <= 0 || o.MaxDelay < o.MinDelay {
		return nil, fmt.Errorf("kill bench: want kills ≥ 0, pages > 0, workers > 0, min delay ≤ max delay")
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	dir := o.Dir
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	} else {
		d, err := os.MkdirTemp("", "dwcrawl-bench-kill-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	cfg := o.Config
	if cfg == "" {
		c := simweb.DefaultConfig()
		c.Faults = simweb.NoFaults()
		cfg = filepath.Join(dir, "web.json")
		if err := os.WriteFile(cfg, c.JSON(), 0o644); err != nil {
			return nil, err
		}
	}
	reqLog := filepath.Join(dir, "requests.log")
	srv, err := webproc.Serve(ctx, o.Command, "--config", cfg, "--request-log", reqLog)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.Stop()
		}
	}()
	crawlDir := filepath.Join(dir, "crawl")
	runArgs := []string{"run", "--testbed", "--config", cfg, "--web-addr", srv.Addr, "--pages", strconv.Itoa(o.Pages),
		"--workers", strconv.Itoa(o.Workers), "--dir", crawlDir, "--json", o.Profile}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6b696c6c))
	res := &Result{Budget: o.Pages, InFlightBound: o.Kills * o.Workers, FormsLost: []string{}, CheckProblems: []string{}, Kills: []Kill{}}
	seen := map[string]bool{}
	start := time.Now()
	for k := 0; k < o.Kills; k++ {
		delay := o.MinDelay + time.Duration(rng.Int64N(int64(o.MaxDelay-o.MinDelay)+1))
		cmd := o.Command.Cmd(ctx, runArgs...)
		errw, errs := webproc.Tail()
		started := make(chan struct{})
		cmd.Stdout, cmd.Stderr = io.Discard, &watch{w: errw, line: "dwcrawl: crawling", seen: started}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var t0 time.Time
		select {
		case <-started: // the delay runs from the crawl's start, not the process's
			t0 = time.Now()
		case <-exited:
			return nil, fmt.Errorf("run %d ended before crawling: %s", k+1, errs())
		}
		select {
		case <-time.After(delay):
		case <-exited:
			// the budget was spent before this kill: no more kills
			logf("run %d ended by itself after %s: %s", k+1, time.Since(t0).Round(time.Millisecond), errs())
			k = o.Kills
			continue
		case <-ctx.Done():
			cmd.Process.Kill()
			return nil, ctx.Err()
		}
		ids, err := formIDs(ctx, o.Command, crawlDir) // a reader while the crawl writes
		if err != nil {
			cmd.Process.Kill()
			return nil, fmt.Errorf("listing forms before kill %d: %w", k+1, err)
		}
		cmd.Process.Kill() // SIGKILL
		<-exited
		for _, id := range ids {
			seen[id] = true
		}
		res.Kills = append(res.Kills, Kill{After: time.Since(t0), Forms: len(ids)})
		logf("kill %d after %s: %d forms recorded", k+1, time.Since(t0).Round(time.Millisecond), len(ids))
	}
	// the last run, to the end of the budget
	cmd := o.Command.Cmd(ctx, runArgs...)
	var out bytes.Buffer
	errw, errs := webproc.Tail()
	cmd.Stdout, cmd.Stderr = &out, errw
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("final run: %v: %s", err, errs())
	}
	var sum struct {
		Pages int64 `json:"pages"`
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		return nil, fmt.Errorf("final run's summary %q: %w", out.String(), err)
	}
	res.Pages = sum.Pages
	final, err := formIDs(ctx, o.Command, crawlDir)
	if err != nil {
		return nil, err
	}
	res.FormsSeen, res.FormsFinal = len(seen), len(final)
	have := map[string]bool{}
	for _, id := range final {
		have[id] = true
	}
	for id := range seen {
		if !have[id] {
			res.FormsLost = append(res.FormsLost, id)
		}
	}
	sort.Strings(res.FormsLost)
	check := o.Command.Cmd(ctx, "check", "--dir", crawlDir, "--json")
	var cout bytes.Buffer
	check.Stdout = &cout
	check.Run() // exits 1 on problems: read them
	var rep struct {
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal(cout.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("check's report %q: %w", cout.String(), err)
	}
	res.CheckProblems = append(res.CheckProblems, rep.Problems...)
	srv.Stop()
	stopped = true
	if err := countRequests(reqLog, res); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// formIDs lists the IDs of the forms in a crawl directory (read-only, a
// snapshot while a crawl runs).
func formIDs(ctx context.Context, c webproc.Command, dir string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil // nothing recorded yet
	}
	cmd := c.Cmd(ctx, "forms", "--dir", dir, "--format", "jsonl")
	var out bytes.Buffer
	errw, errs := webproc.Tail()
	cmd.Stdout, cmd.Stderr = &out, errw
	if err := cmd.Run(); err != nil {
		if strings.Contains(errs(), "no database in it") {
			return nil, nil // the crawl had not created its store yet
		}
		return nil, fmt.Errorf("%v: %s", err, errs())
	}
	var ids []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var f struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, err
		}
		ids = append(ids, f.ID)
	}
	return ids, sc.Err()
}

// countRequests reads the server's request log: page requests (robots.txt,
// sitemaps and the search engine left out), distinct URLs, and refetches.
func countRequests(file string, res *Result) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	n := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		method, raw, ok := strings.Cut(sc.Text(), " ")
		if !ok || method != "GET" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == simweb.SearchEngineHost || u.Path == "/robots.txt" {
			continue
		}
		if u.Path == "/sitemap.xml" {
			// read again when a resumed run re-enters the site, like
			// robots.txt: not a page, not in the budget
			res.SitemapRequests++
			continue
		}
		n[raw]++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, c := range n {
		res.PageRequests += c
		res.Refetched += c - 1
	}
	res.UniquePages = len(n)
	return nil
}

// WriteText prints a result for people.
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "kills                %d (at %s)\n", len(r.Kills), killTimes(r.Kills))
	fmt.Fprintf(w, "pages recorded       %d of a budget of %d\n", r.Pages, r.Budget)
	fmt.Fprintf(w, "forms                %d seen before the kills, %d lost, %d at the end\n", r.FormsSeen, len(r.FormsLost), r.FormsFinal)
	fmt.Fprintf(w, "server requests      %d page requests, %d distinct URLs, %d refetched (bound: %d in flight = kills x workers)\n",
		r.PageRequests, r.UniquePages, r.Refetched, r.InFlightBound)
	fmt.Fprintf(w, "sitemap requests     %d (not pages; read again by each run that enters a site)\n", r.SitemapRequests)
	fmt.Fprintf(w, "check                %d problems\n", len(r.CheckProblems))
	for _, p := range r.CheckProblems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	for _, id := range r.FormsLost {
		fmt.Fprintf(w, "  lost form %s\n", id)
	}
	verdict := "all targets met"
	if !r.OK() {
		verdict = "TARGETS MISSED"
	}
	fmt.Fprintf(w, "elapsed              %.0fs; %s\n", r.Seconds, verdict)
}

func killTimes(ks []Kill) string {
	var s []string
	for _, k := range ks {
		s = append(s, k.After.Round(100*time.Millisecond).String())
	}
	return strings.Join(s, " ")
}

// watch passes writes on to w and closes seen when a line starting with
// line was written.
type watch struct {
	w    io.Writer
	line string
	seen chan struct{}
	buf  []byte
	done bool
}

func (x *watch) Write(p []byte) (int, error) {
	if !x.done {
		x.buf = append(x.buf, p...)
		for _, l := range strings.Split(string(x.buf), "\n") {
			if strings.HasPrefix(l, x.line) {
				x.done = true
				close(x.seen)
				x.buf = nil
				break
			}
		}
		if i := bytes.LastIndexByte(x.buf, '\n'); i >= 0 {
			x.buf = x.buf[i+1:]
		}
	}
	return x.w.Write(p)
}
