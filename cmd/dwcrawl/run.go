package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/dwcrawl/dwcrawl/cluster"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/internal/procs"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/urfave/cli/v2"
)

func init() {
	register(&cli.Command{
		Name:      "run",
		Usage:     "discover the searchable forms of a domain profile",
		ArgsUsage: "PROFILE.lua",
		Description: `Crawls from the profile's seeds with the chosen strategy and records every
searchable form in the crawl directory. Stop it with ^C and run it again to resume.
With --testbed the crawl runs offline against the simulated web: seeds come from
its sites of the profile's domain and reverse search goes to its search engine.

On the real web reverse search uses the first of the profile's reverse.plugins
whose environment is set (SEARXNG_URL; BRAVE_API_KEY; GOOGLE_API_KEY and
GOOGLE_CSE_ID); the first lines say which, or why it is off. Every URL that
fails is recorded with its cause (dns, refused, reset, tls, timeout, http-NNN,
robots, blocked, scope...): the summary counts them by cause and
'dwcrawl failures --dir DIR' lists them. Running the command again retries the
URLs that failed, up to 3 runs per URL. A crawl in which no seed could be
fetched exits with status 1 and the causes.

The crawl directory records what it holds (profile, domain, strategy, web); a run
with another profile, domain, strategy or web is refused, naming both, so that two
crawls never mix: give another --dir, or --continue-as to go on with this run's.

With --nats the crawl runs on a NATS JetStream cluster: this command coordinates it
(site frontier, learning, budget, counters, all kept in --dir too) and the workers
started with dwcrawl worker --nats URL explore its sites; --workers is then the number
of sites out with the workers at once (default 16). Running it again resumes.`,
		Flags: append(discoveryFlags(),
			&cli.StringFlag{Name: "nats", Usage: "run the crawl on the NATS JetStream cluster at `URL` (workers: dwcrawl worker --nats URL)"},
			&cli.StringFlag{Name: "crawl", Usage: "the crawl's `NAME` on the cluster (default: the profile's name)"},
		),
		Action: runCmd,
	})
}

// discoveryFlags are the flags of a crawl's discovery: run's and harvest's.
func discoveryFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "testbed", Usage: "crawl the embedded simulated web instead of the real web"},
		&cli.StringFlag{Name: "strategy", Usage: "smartcrawler, scdi, ache or bestfirst (default: the profile's)"},
		&cli.IntFlag{Name: "pages", Usage: "page budget (default: the profile's; with --testbed 3000)"},
		&cli.IntFlag{Name: "workers", Value: 4, Usage: "sites explored in parallel"},
		&cli.StringFlag{Name: "dir", Usage: "crawl directory (default ./dwcrawl-data/<profile name>)"},
		&cli.StringFlag{Name: "prior", Usage: "earlier crawl `DIR` whose deep sites initialise the rankers"},
		&cli.StringFlag{Name: "warc", Usage: "archive every HTTP exchange (request and response records, robots.txt included) as WARC 1.1 files in `DIR`"},
		&cli.StringFlag{Name: "plugins", Usage: "extra plugin `DIR` searched before the bundled plugins"},
		&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format: text or json"},
		&cli.StringFlag{Name: "log-level", Value: "warn", Usage: "log level: debug, info, warn, error"},
		&cli.BoolFlag{Name: "json", Usage: "print the final summary as JSON"},
		&cli.Int64Flag{Name: "seed-run", Usage: "reproducible run with seed `N`: with several workers the same pages are fetched and recorded in the same order, with the same forms, whatever the timing (slower: workers take turns; fetches still overlap)"},
		&cli.BoolFlag{Name: "continue-as", Usage: "continue a crawl directory recorded with another profile, strategy or web as this run (recorded as such); without it such a directory is refused"},
		&cli.StringFlag{Name: "web-addr", Usage: "with --testbed: `HOST:PORT` where `dwcrawl testbed serve` already serves the same web (same --seed and --config), instead of serving it in this process"},
		&cli.DurationFlag{Name: "delay", Usage: "per-host politeness delay (default: the profile's; none with --testbed)"},
	}, append(netFlags(), webFlags()...)...)
}

// crawlOptions are the crawl options of run's and harvest's flags for
// profile file path (the simulated web loaded with --testbed).
func crawlOptions(c *cli.Context, log *slog.Logger, path string) (app.CrawlOptions, error) {
	p, err := profile.Load(c.Context, path)
	if err != nil {
		return app.CrawlOptions{}, errExit{1, err}
	}
	dir := c.String("dir")
	if dir == "" {
		dir = store.DefaultDir(p.Name)
	}
	s := app.CrawlOptions{Profile: p, Dir: dir, Strategy: c.String("strategy"), Workers: c.Int("workers"),
		Pages: c.Int("pages"), Net: netOptions(c), WARC: c.String("warc"), PriorDir: c.String("prior"), Logger: log, Seed: c.Int64("seed"),
		ContinueAs: c.Bool("continue-as"), WebAddr: c.String("web-addr"), Delay: c.Duration("delay")}
	if c.IsSet("seed-run") {
		s.Seed, s.Reproducible = c.Int64("seed-run"), true
	}
	if s.WebAddr != "" && !c.Bool("testbed") {
		return s, errExit{2, errors.New("--web-addr: only with --testbed")}
	}
	if c.Bool("testbed") {
		w, err := loadWeb(c)
		if err != nil {
			return s, err
		}
		s.Web = w
		if s.Pages == 0 && p.Budget.Pages == 0 {
			s.Pages = 3000
		}
	}
	s.Reverse = app.Reverse(p, s.Web != nil, pluginDirs(c), log)
	return s, nil
}

func newLogger(c *cli.Context, w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch c.String("log-format") {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: want text or json, got %q", c.String("log-format"))
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func runCmd(c *cli.Context) error {
	if c.NArg() != 1 {
		return errExit{2, errors.New("run: want one profile file, e.g. dwcrawl run --testbed domains/auto.lua")}
	}
	log, err := newLogger(c, os.Stderr)
	if err != nil {
		return errExit{2, err}
	}
	crawl.Preload()
	s, err := crawlOptions(c, log, c.Args().First())
	if err != nil {
		return err
	}
	p, dir := s.Profile, s.Dir
	if c.String("nats") != "" {
		return runCluster(c, s, dir)
	}
	if c.IsSet("crawl") {
		return errExit{2, errors.New("--crawl names a crawl on a cluster: give --nats too")}
	}
	live := isTerminal(os.Stderr) && !c.Bool("json")
	if live {
		s.Progress = func(sn crawl.Snapshot) {
			fmt.Fprintf(os.Stderr, "\r\033[K%s", sn.StatusLine())
		}
	}
	cr, err := app.NewCrawl(c.Context, s)
	if err != nil {
		return err
	}
	web := s.DescribeWeb()
	if d := s.Net.Describe(); d != "" && s.Web == nil {
		web += ", " + d
	}
	fmt.Fprintf(c.App.ErrWriter, "dwcrawl: crawling %s (%s, strategy %s) into %s\n", p.Name, web, cr.Strategy(), dir)
	if cr.ReverseEngine != "" {
		fmt.Fprintf(c.App.ErrWriter, "dwcrawl: reverse search: %s\n", cr.ReverseEngine)
	} else if cr.Strategy() == crawl.SmartCrawler {
		fmt.Fprintf(c.App.ErrWriter, "dwcrawl: reverse search off: %s\n", cr.ReverseOff)
	}
	// The crawl itself runs under the processor governor (where it was
	// measured to save CPU); start-up above had every core (crawl.Preload).
	stopProcs, _ := procs.Start(procs.Options{}, os.Getenv)
	sn, runErr := cr.Run(c.Context)
	stopProcs()
	if live {
		fmt.Fprintln(os.Stderr)
	}
	seedFails, seedErr := cr.SeedFailures()
	closeErr := cr.Close()
	if c.Bool("json") {
		writeJSON(c.App.Writer, struct {
			crawl.Snapshot
			WARC *app.WARCSummary `json:"warc,omitempty"`
		}{sn, cr.WARC})
	} else {
		sn.ProbingOff = s.Profile.Probe.Queries == 0
		fmt.Fprint(c.App.Writer, sn.Summary())
		if cr.WARC != nil {
			fmt.Fprintf(c.App.Writer, "warc                 %s\n", cr.WARC)
		}
		fmt.Fprintf(c.App.Writer, "forms: dwcrawl forms --dir %s\n", dir)
		if len(sn.Failures) > 0 {
			fmt.Fprintf(c.App.Writer, "failures: dwcrawl failures --dir %s\n", dir)
		}
	}
	for _, f := range seedFails {
		if f.Cause == "blocked" {
			fmt.Fprintf(c.App.ErrWriter, "dwcrawl: seed %s was refused by the address policy (a loopback, private or reserved address): run with --allow-private to reach it\n", f.URL)
		}
	}
	if runErr != nil {
		if errors.Is(runErr, c.Context.Err()) {
			fmt.Fprintf(c.App.ErrWriter, "dwcrawl: stopped; run the same command again to resume\n")
			return errExit{130, runErr}
		}
		return runErr
	}
	if seedErr != nil {
		hint := fmt.Sprintf("the same command retries them, up to %d runs per URL", crawl.MaxFailedRuns)
		spent := true
		for _, f := range seedFails {
			spent = spent && f.Runs >= crawl.MaxFailedRuns
		}
		if spent {
			hint = fmt.Sprintf("each has failed in %d runs, the limit: later runs in %s do not retry them; another --dir starts afresh", crawl.MaxFailedRuns, dir)
		}
		return errExit{1, fmt.Errorf("%w\n(%s)", seedErr, hint)}
	}
	return closeErr
}

// runCluster runs the crawl s on the cluster at --nats, this process
// coordinating it, with the same status line, summary and exit codes as a
// single-machine run.
func runCluster(c *cli.Context, s app.CrawlOptions, dir string) error {
	url := c.String("nats")
	o := app.ClusterRunOptions{CrawlOptions: s, NATS: url, Name: c.String("crawl")}
	if !c.IsSet("workers") {
		o.Workers = 0 // the cluster's default window
	}
	live := isTerminal(os.Stderr) && !c.Bool("json")
	if live {
		o.Progress = func(sn crawl.Snapshot, workers int) {
			fmt.Fprintf(os.Stderr, "\r\033[K%s · workers %d", sn.StatusLine(), workers)
		}
	}
	var name string
	o.OnStart = func(spec cluster.Spec) {
		name = spec.Name
		fmt.Fprintf(c.App.ErrWriter, "dwcrawl: crawl %s on %s (%s, strategy %s), coordinated from %s; workers: dwcrawl worker --nats %s\n",
			spec.Name, url, s.DescribeWeb(), spec.Strategy, dir, url)
	}
	var archived *app.WARCSummary
	if s.WARC != "" {
		fmt.Fprintf(c.App.ErrWriter, "dwcrawl: --warc %s archives the coordinator's own fetches; the workers archive theirs with dwcrawl worker --warc DIR\n", s.WARC)
		o.OnWARC = func(w *app.WARCSummary) { archived = w }
	}
	sn, runErr := app.ClusterRun(c.Context, o)
	if live {
		fmt.Fprintln(os.Stderr)
	}
	if name == "" && runErr != nil {
		return runErr
	}
	if c.Bool("json") {
		writeJSON(c.App.Writer, struct {
			crawl.Snapshot
			WARC *app.WARCSummary `json:"warc,omitempty"`
		}{sn, archived})
	} else {
		sn.ProbingOff = s.Profile.Probe.Queries == 0
		fmt.Fprint(c.App.Writer, sn.Summary())
		if archived != nil {
			fmt.Fprintf(c.App.Writer, "warc                 %s (the coordinator's fetches)\n", archived)
		}
		fmt.Fprintf(c.App.Writer, "forms: dwcrawl forms --nats %s --crawl %s\n", url, name)
	}
	if runErr != nil {
		if errors.Is(runErr, c.Context.Err()) {
			fmt.Fprintf(c.App.ErrWriter, "dwcrawl: stopped; run the same command again to resume\n")
			return errExit{130, runErr}
		}
		return runErr
	}
	return nil
}

// pluginDirs is the --plugins directory, as a list.
func pluginDirs(c *cli.Context) []string {
	if d := c.String("plugins"); d != "" {
		return []string{d}
	}
	return nil
}
