package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/experiment/killbench"
	"github.com/dwcrawl/dwcrawl/experiment/webproc"
)

func init() {
	registerBench(&cli.Command{
		Name:      "kill",
		Usage:     "kill one crawl with SIGKILL at random moments and check that nothing recorded is lost",
		UsageText: "dwcrawl bench kill [--kills 20] [--pages 6000] [--workers 4] [--seed N] [--config FILE] [--profile FILE] [--json]",
		Description: "Serves the simulated web in a child process (dwcrawl testbed serve --request-log), runs\n" +
			"`dwcrawl run --testbed --web-addr` on it and kills it with SIGKILL --kills times, each after a delay\n" +
			"drawn from --seed in [--min-delay, --max-delay]; before each kill it lists the forms recorded so far\n" +
			"(dwcrawl forms, a reader while the crawl writes). A last run finishes the budget. Targets: no form\n" +
			"listed before a kill is missing at the end, exactly --pages pages recorded, dwcrawl check finds no\n" +
			"problem (its counters included), and the server saw no page requested twice beyond those in\n" +
			"flight at the kills (kills × workers). Exits 1 when a target is missed.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "kills", Value: 20, Usage: "number of kills"},
			&cli.IntFlag{Name: "pages", Value: 6000, Usage: "page budget of the crawl"},
			&cli.IntFlag{Name: "workers", Value: 4, Usage: "workers of the crawl"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the kill moments (default: from the clock, printed)"},
			&cli.DurationFlag{Name: "min-delay", Value: 1500 * time.Millisecond, Usage: "shortest run before a kill"},
			&cli.DurationFlag{Name: "max-delay", Value: 4 * time.Second, Usage: "longest run before a kill"},
			&cli.StringFlag{Name: "config", Usage: "simulated web config `FILE` (default: the default web without faults)"},
			&cli.StringFlag{Name: "profile", Value: "domains/auto.lua", Usage: "profile `FILE` of the crawl"},
			&cli.StringFlag{Name: "keep", Usage: "work in `DIR` and keep it (crawl, request log)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: benchKill,
	})
}

func benchKill(c *cli.Context) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	seed := c.Uint64("seed")
	if !c.IsSet("seed") {
		seed = uint64(time.Now().UnixNano())
	}
	fmt.Fprintf(os.Stderr, "dwcrawl bench kill: seed %d\n", seed)
	res, err := killbench.Run(c.Context, killbench.Options{
		Command: webproc.Command{Exe: exe, Env: selfEnv()}, Profile: c.String("profile"), Config: c.String("config"),
		Kills: c.Int("kills"), Pages: c.Int("pages"), Workers: c.Int("workers"), Seed: seed,
		MinDelay: c.Duration("min-delay"), MaxDelay: c.Duration("max-delay"), Dir: c.String("keep"), Log: os.Stderr,
	})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		writeJSON(c.App.Writer, res)
	} else {
		killbench.WriteText(c.App.Writer, res)
	}
	if !res.OK() {
		return errExit{1, errors.New("bench kill: targets missed")}
	}
	return nil
}

// selfEnv is the environment a child dwcrawl needs besides ours (tests run
// their binary as dwcrawl through it).
func selfEnv() []string {
	if v := os.Getenv(selfMainEnv); v != "" {
		return []string{selfMainEnv + "=" + v}
	}
	return nil
}

// selfMainEnv, set in a test binary's environment, makes it run as dwcrawl
// (see TestMain).
const selfMainEnv = "DWCRAWL_TEST_AS_MAIN"
