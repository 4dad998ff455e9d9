package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/experiment/startbench"
	"github.com/dwcrawl/dwcrawl/experiment/webproc"
)

func init() {
	registerBench(&cli.Command{
		Name:      "startup",
		Usage:     "start-up time of dwcrawl run: wall, CPU and peak RSS of short crawls in child processes",
		UsageText: "dwcrawl bench startup [--runs 5] [--pages 10] [--profile FILE] [--config FILE] [--json]",
		Description: "Runs `dwcrawl run --testbed --pages 10 PROFILE` (the simulated web built and served in the crawler's\n" +
			"process), then `dwcrawl run --testbed --web-addr ADDR --pages 10 PROFILE` against the web served by\n" +
			"`dwcrawl testbed serve` (the crawler's own start-up), each once unmeasured (it may fill the user's\n" +
			"cache) and --runs times in new crawl directories, and prints the median wall and CPU time and the\n" +
			"peak RSS of each (target: wall < 1 s).",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "runs", Value: 5, Usage: "measured runs per mode"},
			&cli.IntFlag{Name: "pages", Value: 10, Usage: "page budget of each crawl"},
			&cli.StringFlag{Name: "profile", Value: "domains/auto.lua", Usage: "the crawls' profile `FILE`"},
			&cli.StringFlag{Name: "config", Usage: "simweb config `FILE` (default: the default web)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: benchStartup,
	})
}

func benchStartup(c *cli.Context) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	res, err := startbench.Run(c.Context, startbench.Options{Command: webproc.Command{Exe: exe, Env: selfEnv()},
		Profile: c.String("profile"), Runs: c.Int("runs"), Pages: c.Int("pages"), Config: c.String("config")})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, res)
	}
	startbench.WriteText(c.App.Writer, res)
	return nil
}
