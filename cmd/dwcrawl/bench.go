package main

import "github.com/urfave/cli/v2"

// benchCmd is the parent of the `dwcrawl bench …` measurements. It is a
// package-level variable, initialised before any init function runs, so the
// bench_*.go files can add subcommands from their own init in any order.
var benchCmd = &cli.Command{
	Name:  "bench",
	Usage: "measure harvest, surfacing and enrichment against the simulated web's ground truth",
}

// registerBench adds a `dwcrawl bench` subcommand.
func registerBench(c *cli.Command) { benchCmd.Subcommands = append(benchCmd.Subcommands, c) }

func init() { register(benchCmd) }
