package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/experiment/harvest"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	registerBench(&cli.Command{
		Name:      "harvest",
		Usage:     "compare the discovery strategies' harvest of relevant searchable forms on the simulated web",
		UsageText: "dwcrawl bench harvest --seed N [--config F] [--data D] --pages N --strategies LIST --domains LIST [--json] [--out DIR]",
		Description: "Crawls the simulated web once per domain × strategy with the same page budget, each run in its own\n" +
			"temporary crawl directory, domains one after the other, and scores every crawl against the web's\n" +
			"ground truth, never against the crawler's own classifiers:\n" +
			"  relevant forms    forms reported relevant that are truly searchable forms of the domain\n" +
			"  deep sites        sites with at least one such form\n" +
			"  searchable forms  forms recorded as searchable that are truly searchable (any domain)\n" +
			"  harvest rate      relevant forms per page fetched\n" +
			"The classifier's own count of relevant forms, its false positives and the true relevant forms on\n" +
			"the pages fetched are shown beside them. The table ends with each strategy's means and the ratio of\n" +
			"smartcrawler's relevant forms to ACHE's, over the whole budget and at 10, 20 and 50 % of it (read\n" +
			"from the harvest curves: on a small web a large budget lets every strategy find most forms).\n" +
			"--out DIR writes harvest.csv, a harvest curve per run\n" +
			"(curve-<domain>-<strategy>.csv) and the strategies' curves side by side (curves-<domain>.csv).\n" +
			"Profiles are read from --profiles DIR/<domain>.lua; a domain without a file gets a profile built\n" +
			"from the defaults and the simulated web's vocabulary of the domain (noted on stderr).",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "pages", Value: 10000, Usage: "page budget of every run"},
			&cli.StringFlag{Name: "strategies", Value: strings.Join(crawl.Strategies, ","), Usage: "strategies to compare, comma-separated"},
			&cli.StringFlag{Name: "domains", Value: strings.Join(domain.BuiltIn, ","), Usage: "domains to crawl, comma-separated"},
			&cli.IntFlag{Name: "workers", Value: 8, Usage: "crawl workers per run"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per domain × strategy (an array)"},
			&cli.StringFlag{Name: "out", Usage: "write the results and harvest curves as CSV to `DIR`"},
			&cli.StringFlag{Name: "profiles", Value: "domains", Usage: "directory of the domain profiles `DIR`/<domain>.lua"},
			&cli.StringFlag{Name: "keep", Usage: "keep every crawl directory as `DIR`/<domain>-<strategy> (for dwcrawl forms/features)"},
			&cli.Int64Flag{Name: "curve-step", Usage: "pages between two points of the harvest curves (default pages/100)"},
			&cli.BoolFlag{Name: "no-totals", Usage: "skip the web's totals per domain (they generate the whole web once)"},
			&cli.StringFlag{Name: "plugins", Usage: "extra plugin `DIR` searched before the bundled plugins"},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format of the crawls: text or json"},
			&cli.StringFlag{Name: "log-level", Value: "error", Usage: "log level of the crawls: debug, info, warn, error"},
		}, webFlags()...),
		Action: benchHarvest,
	})
}

func benchHarvest(c *cli.Context) error {
	if c.NArg() > 0 {
		return errExit{2, fmt.Errorf("bench harvest: unexpected arguments %v", c.Args().Slice())}
	}
	if c.Int("pages") <= 0 {
		return errExit{2, errors.New("--pages must be positive")}
	}
	strategies, domains := splitList(c.String("strategies")), splitList(c.String("domains"))
	for _, s := range strategies {
		if !contains(crawl.Strategies, s) {
			return errExit{2, fmt.Errorf("--strategies: unknown strategy %q (want some of %s)", s, strings.Join(crawl.Strategies, ","))}
		}
	}
	if len(strategies) == 0 || len(domains) == 0 {
		return errExit{2, errors.New("--strategies and --domains must name at least one each")}
	}
	errw := c.App.ErrWriter
	if errw == nil {
		errw = io.Discard
	}
	log, err := newLogger(c, errw)
	if err != nil {
		return errExit{2, err}
	}
	w, err := loadWeb(c)
	if err != nil {
		return err
	}
	opt := harvest.Options{
		Web: w, Domains: domains, Strategies: strategies, Pages: c.Int("pages"), Workers: c.Int("workers"),
		Seed: w.Config().Seed, ProfileDir: c.String("profiles"), KeepDir: c.String("keep"), OutDir: c.String("out"),
		CurveStep: c.Int64("curve-step"), Totals: !c.Bool("no-totals"), Logger: log,
		Reverse:  func(p *profile.Profile) harvest.ReverseFactory { return app.Reverse(p, true, pluginDirs(c), log) },
		Progress: harvestProgress(errw, c.String("profiles"), errw == os.Stderr && isTerminal(os.Stderr)),
	}
	fmt.Fprintf(errw, "bench harvest: simulated web seed %d (%s), %d domains × %d strategies, %d pages each, %d workers\n",
		w.Config().Seed, app.WebData(w), len(domains), len(strategies), opt.Pages, max(1, opt.Workers))
	if opt.Totals {
		fmt.Fprintf(errw, "bench harvest: counting the web's relevant forms per domain …\n")
	}
	res, err := harvest.Bench(c.Context, opt)
	if err != nil && len(res) == 0 {
		return err
	}
	if c.Bool("json") {
		if res == nil {
			res = []harvest.Result{}
		}
		if werr := writeJSON(c.App.Writer, res); werr != nil {
			return werr
		}
	} else {
		fmt.Fprintf(c.App.Writer, "harvest on the simulated web (seed %d, %s), %d pages per run, scored against its ground truth\n\n",
			w.Config().Seed, app.WebData(w), opt.Pages)
		if werr := harvest.WriteTable(c.App.Writer, res); werr != nil {
			return werr
		}
	}
	if opt.OutDir != "" {
		fmt.Fprintf(errw, "bench harvest: CSV files in %s\n", opt.OutDir)
	}
	if err != nil {
		if c.Context.Err() != nil {
			return errExit{130, fmt.Errorf("bench harvest: interrupted after %d runs: %w", len(res), err)}
		}
		return err
	}
	var failed []string
	for _, r := range res {
		if r.Error != "" {
			failed = append(failed, r.Domain+"/"+r.Strategy)
		}
	}
	if len(failed) > 0 {
		return errExit{1, fmt.Errorf("bench harvest: %d runs failed: %s", len(failed), strings.Join(failed, ", "))}
	}
	return nil
}

// harvestProgress reports the runs on w: a line when a run starts and one
// when it is scored, and on a terminal a live status line in between.
func harvestProgress(w io.Writer, profiles string, live bool) func(harvest.Event) {
	var last time.Time
	return func(e harvest.Event) {
		tag := fmt.Sprintf("bench harvest: [%d/%d] %s %s", e.Run, e.Runs, e.Domain, e.Strategy)
		switch {
		case e.Result != nil:
			if live {
				fmt.Fprint(w, "\r\033[K")
			}
			r := e.Result
			if r.Error != "" {
				fmt.Fprintf(w, "%s: failed: %s\n", tag, r.Error)
				return
			}
			fmt.Fprintf(w, "%s: %d pages, %d relevant forms, %d deep sites, harvest %.4f, %.1fs (%.0f pages/s)\n",
				tag, r.Pages, r.RelevantForms, r.DeepSites, r.HarvestRate, r.Seconds, r.PagesPerSecond)
			if r.UnknownForms > 0 {
				fmt.Fprintf(w, "%s: warning: %d recorded forms do not exist in the simulated web's truth (a crawl directory of another web?)\n", tag, r.UnknownForms)
			}
		case e.Snapshot.Pages == 0 && e.Snapshot.Elapsed == 0:
			if e.Fallback {
				fmt.Fprintf(w, "bench harvest: no %s: %s uses a profile built from the simulated web's vocabulary\n",
					filepath.Join(profiles, e.Domain+".lua"), e.Domain)
			}
			fmt.Fprintf(w, "%s …\n", tag)
		case live:
			fmt.Fprintf(w, "\r\033[K%s: %s", tag, e.Snapshot.StatusLine())
		case time.Since(last) >= 10*time.Second:
			last = time.Now()
			fmt.Fprintf(w, "%s: %s\n", tag, e.Snapshot.StatusLine())
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
