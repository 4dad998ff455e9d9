package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/experiment/cpubench"
	"github.com/dwcrawl/dwcrawl/experiment/webproc"
)

func init() {
	registerBench(&cli.Command{
		Name:      "cpu",
		Usage:     "CPU time per page of dwcrawl run against colly's bare fetch+parse, side by side",
		UsageText: "dwcrawl bench cpu --colly BIN [--pages 10000] [--workers 8] [--profile FILE] [--rounds N] [--json]",
		Description: "Writes the default simulated web without faults, serves it with `dwcrawl testbed serve --proxy`\n" +
			"for the colly crawler given by --colly (../shared/peers/collybench built with go build) and then with\n" +
			"`dwcrawl testbed serve` for `dwcrawl run --testbed --web-addr`, each from the same seed sites, and\n" +
			"prints for each the pages, the client's CPU time (start-up included), the server's CPU time after it\n" +
			"was ready, and the CPU per page of both together; then the ratio dwcrawl / colly (target ≤ 1.5).\n" +
			"With --rounds N it measures colly then dwcrawl N times, tells each round on stderr, and prints the\n" +
			"round of median ratio (JSON: its fields at the top level, every round under \"rounds\").",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "colly", Usage: "collybench executable `BIN`", Required: true},
			&cli.IntFlag{Name: "pages", Value: 10000, Usage: "pages of each crawl"},
			&cli.IntFlag{Name: "workers", Value: 8, Usage: "dwcrawl's workers and colly's parallel requests"},
			&cli.StringFlag{Name: "profile", Value: "domains/auto.lua", Usage: "dwcrawl's profile `FILE` (its domain picks the seeds)"},
			&cli.StringFlag{Name: "keep", Usage: "work in `DIR` and keep it"},
			&cli.IntFlag{Name: "rounds", Value: 1, Usage: "measure both crawlers `N` times, alternating, and report the round of median ratio"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: benchCPU,
	})
}

func benchCPU(c *cli.Context) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if c.Int("rounds") < 1 {
		return errExit{2, fmt.Errorf("bench cpu: --rounds %d: want 1 or more", c.Int("rounds"))}
	}
	p, err := profile.Load(c.Context, c.String("profile"))
	if err != nil {
		return err
	}
	if p.Domain == "" {
		return errExit{2, errors.New("bench cpu: the profile names no domain to take seeds from")}
	}
	res, err := cpubench.Run(c.Context, cpubench.Options{Command: webproc.Command{Exe: exe, Env: selfEnv()}, Colly: c.String("colly"),
		Profile: c.String("profile"), Domain: p.Domain, Pages: c.Int("pages"), Workers: c.Int("workers"), Dir: c.String("keep"),
		Rounds: c.Int("rounds"), Progress: func(i int, r cpubench.Round) {
			fmt.Fprintf(c.App.ErrWriter, "bench cpu: round %d of %d: colly %.3f ms, dwcrawl %.3f ms per page: %.2f×\n",
				i, c.Int("rounds"), r.Colly.MsPerPage, r.Dwcrawl.MsPerPage, r.Ratio)
		}})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, res)
	}
	cpubench.WriteText(c.App.Writer, res)
	return nil
}
