package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/experiment/soakbench"
)

func init() {
	registerBench(&cli.Command{
		Name:      "soak",
		Usage:     "crawl a simulated web full of faults and account for every faulty response",
		UsageText: "dwcrawl bench soak [--pages 25000] [--workers 8] [--sites 10000] [--seed N] [--profile FILE] [--dir DIR] [--json]",
		Description: "Serves a simulated web whose fault rates are raised about 30-fold (500s, 503s with Retry-After,\n" +
			"connection resets, slow, oversized and malformed pages, broken links, redirect loops, calendars,\n" +
			"session ids) on loopback with a request log, crawls it, and classifies every request the server\n" +
			"received. Each URL served a faulty response must be explained by the crawl's records: a failure\n" +
			"record with the matching cause (dwcrawl failures), or, for a transient fault, a page recorded without\n" +
			"error after the retry. Prints, per fault kind, the faulty responses, the URLs, how they are explained\n" +
			"and the failure causes. Exits 1 when a faulty response is unexplained or a failure has no cause.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "pages", Value: 25000, Usage: "page budget of the crawl"},
			&cli.IntFlag{Name: "workers", Value: 8, Usage: "workers of the crawl"},
			&cli.IntFlag{Name: "sites", Value: 10000, Usage: "sites of the simulated web"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the web and the crawl"},
			&cli.StringFlag{Name: "profile", Value: "domains/auto.lua", Usage: "profile `FILE` of the crawl"},
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` (kept; default a temporary directory, removed)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: benchSoak,
	})
}

func benchSoak(c *cli.Context) error {
	p, err := profile.Load(c.Context, c.String("profile"))
	if err != nil {
		return err
	}
	res, err := soakbench.Run(c.Context, soakbench.Options{Profile: p, Pages: c.Int("pages"), Workers: c.Int("workers"),
		Sites: c.Int("sites"), Seed: c.Int64("seed"), Dir: c.String("dir"),
		Progress: func(sn crawl.Snapshot) {
			if isTerminal(os.Stderr) {
				fmt.Fprintf(os.Stderr, "\r\033[K%s", sn.StatusLine())
			}
		}})
	if isTerminal(os.Stderr) {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	if c.Bool("json") {
		writeJSON(c.App.Writer, res)
	} else {
		soakbench.WriteText(c.App.Writer, res)
	}
	if !res.OK() {
		return errExit{1, errors.New("bench soak: faulty responses unexplained")}
	}
	return nil
}
