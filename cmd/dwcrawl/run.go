package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
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
fetched exits with status 1 and the causes.`,
		Flags: append([]cli.Flag{
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
		}, append(netFlags(), webFlags()...)...),
		Action: runCmd,
	})
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
	p, err := profile.Load(c.Context, c.Args().First())
	if err != nil {
		return errExit{1, err}
	}
	dir := c.String("dir")
	if dir == "" {
		dir = store.DefaultDir(p.Name)
	}
	s := app.CrawlOptions{Profile: p, Dir: dir, Strategy: c.String("strategy"), Workers: c.Int("workers"),
		Pages: c.Int("pages"), Net: netOptions(c), WARC: c.String("warc"), PriorDir: c.String("prior"), Logger: log, Seed: c.Int64("seed")}
	if c.Bool("testbed") {
		w, err := loadWeb(c)
		if err != nil {
			return err
		}
		s.Web = w
		if s.Pages == 0 && p.Budget.Pages == 0 {
			s.Pages = 3000
		}
	}
	s.Reverse = app.Reverse(p, s.Web != nil, pluginDirs(c), log)
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
	sn, runErr := cr.Run(c.Context)
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
		return errExit{1, fmt.Errorf("%w\n(the same command retries them, up to %d runs per URL)", seedErr, crawl.MaxFailedRuns)}
	}
	return closeErr
}

// pluginDirs is the --plugins directory, as a list.
func pluginDirs(c *cli.Context) []string {
	if d := c.String("plugins"); d != "" {
		return []string{d}
	}
	return nil
}
