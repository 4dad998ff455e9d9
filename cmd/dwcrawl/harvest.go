package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "harvest",
		Usage:     "from a topic to the records of its hidden databases: discover, probe and surface in one command",
		ArgsUsage: "PROFILE.lua",
		Description: `Discovers the searchable forms of the profile's topic as run does, probes every
relevant one with a few queries (the profile's probe settings, else 4), and
surfaces each form the probes judge a database of the topic with the adaptive
query policy, into the same crawl directory, while discovery goes on. A form
judged a site search or no database gets no query beyond its probe.

Databases are surfaced several at once (--parallel), never two on one host,
through the crawl's own fetcher: one request at a time per host, with the
profile's politeness, robots.txt and address policy. Stop it with ^C (or lose
the process) and run the same command again: discovery, probes and every
surfacing resume where they were; nothing recorded is lost.

The records: dwcrawl docs --dir DIR (jsonl, csv or parquet); the databases:
dwcrawl docs --dir DIR --list.`,
		Flags: append(discoveryFlags(),
			&cli.IntFlag{Name: "queries-per-db", Usage: "queries per database, its form's analysis included (default: the profile's harvest.queries_per_db, 200)"},
			&cli.IntFlag{Name: "queries", Usage: "queries to all databases together, resumed runs included (default: the profile's harvest.queries; 0 = unbounded)"},
			&cli.IntFlag{Name: "parallel", Usage: "databases surfaced at once, each on its own host (default: the profile's harvest.parallel, 4)"},
			&cli.IntFlag{Name: "stop-after", Usage: "end a database after `N` queries in a row found no new record (default: the profile's harvest.stop_after, 20; -1 = never)"},
			&cli.BoolFlag{Name: "quiet", Usage: "no status lines or events on stderr"},
		),
		Action: harvestCmd,
	})
}

func harvestCmd(c *cli.Context) error {
	if c.NArg() != 1 {
		return errExit{2, errors.New("harvest: want one profile file, e.g. dwcrawl harvest --testbed domains/auto.lua")}
	}
	log, err := newLogger(c, os.Stderr)
	if err != nil {
		return errExit{2, err}
	}
	for _, f := range []string{"queries-per-db", "queries", "parallel"} {
		if c.Int(f) < 0 {
			return errExit{2, fmt.Errorf("--%s: must not be negative, got %d", f, c.Int(f))}
		}
	}
	crawl.Preload()
	s, err := crawlOptions(c, log, c.Args().First())
	if err != nil {
		return err
	}
	o := app.HarvestOptions{CrawlOptions: s, QueriesPerDB: c.Int("queries-per-db"), Queries: c.Int("queries"),
		Parallel: c.Int("parallel"), StopAfter: c.Int("stop-after")}
	if c.IsSet("queries") && o.Queries == 0 {
		o.Queries = -1 // unbounded, whatever the profile says
	}
	errw := c.App.ErrWriter
	quiet := c.Bool("quiet")
	live := isTerminal(os.Stderr) && !quiet
	if !quiet {
		var last time.Time
		o.OnStatus = func(st app.HarvestStatus) {
			switch {
			case live:
				fmt.Fprintf(os.Stderr, "\r\033[K%s", st.Line())
			case time.Since(last) >= 10*time.Second || st.CrawlDone && st.Surfacing == 0:
				last = time.Now()
				fmt.Fprintln(errw, st.Line())
			}
		}
		o.OnEvent = func(e string) {
			if live {
				fmt.Fprint(os.Stderr, "\r\033[K")
			}
			fmt.Fprintf(errw, "harvest: %s\n", e)
		}
	}
	web := s.DescribeWeb()
	if d := s.Net.Describe(); d != "" && s.Web == nil {
		web += ", " + d
	}
	fmt.Fprintf(errw, "dwcrawl: harvesting %s (%s) into %s\n", s.Profile.Name, web, s.Dir)
	sum, runErr := app.Harvest(c.Context, o)
	if live {
		fmt.Fprintln(os.Stderr)
	}
	if sum != nil {
		if c.Bool("json") {
			writeJSON(c.App.Writer, sum)
		} else {
			printHarvest(c.App.Writer, sum)
		}
	}
	if runErr != nil {
		if errors.Is(runErr, c.Context.Err()) {
			fmt.Fprintf(errw, "dwcrawl: stopped; run the same command again to resume\n")
			return errExit{130, runErr}
		}
		return runErr
	}
	return nil
}

// printHarvest writes the harvest's table of databases and totals.
func printHarvest(w io.Writer, sum *app.HarvestSummary) {
	fmt.Fprintf(w, "pages %d · databases %d · records %d in %d queries\n", sum.Pages, len(sum.Databases), sum.Records, sum.Queries)
	if len(sum.Databases) == 0 {
		fmt.Fprintln(w, "no relevant searchable form found: more --pages, or other seeds")
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSITE\tVERDICT\tSTATE\tQUERIES\tRECORDS\tEST. COVERAGE")
	for _, d := range sum.Databases {
		cov := "-"
		if d.CoverageEstimate != nil {
			cov = fmt.Sprintf("%.1f%%", 100**d.CoverageEstimate)
			if d.CoverageLow != nil && d.CoverageHigh != nil {
				cov += fmt.Sprintf(" [%.1f–%.1f%%]", 100**d.CoverageLow, 100**d.CoverageHigh)
			}
		}
		state := d.State
		if d.Stopped != "" {
			state += " (" + d.Stopped + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", d.ID, d.Site, d.Verdict, state, d.Queries, d.Records, cov)
	}
	tw.Flush()
	for _, d := range sum.Databases {
		if d.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", d.ID, d.Error)
		}
	}
	fmt.Fprintf(w, "records: dwcrawl docs --dir %s [--format jsonl|csv|parquet]\n", sum.Dir)
}
