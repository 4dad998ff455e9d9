package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

var enrichFlags = []cli.Flag{
	&cli.StringFlag{Name: "local", Usage: "local table `D.csv` (header row, UTF-8)", Required: true},
	&cli.StringFlag{Name: "columns", Usage: "columns forming each record's document, comma-separated", Required: true},
	&cli.StringFlag{Name: "hidden-columns", Usage: "fields of a returned record matching --columns, in order (default: the same names)"},
	&cli.StringFlag{Name: "interface", Usage: "keyword interface: http(s) URL of a JSON search API, or a Lua keyword plugin", Required: true},
	&cli.StringFlag{Name: "budget", Value: "20%", Usage: "query budget: a number, or a percentage of the local table"},
	&cli.IntFlag{Name: "k", Usage: "result limit k of the interface (default: what the interface declares)"},
	&cli.StringFlag{Name: "method", Value: "smart-b", Usage: "smart-b, smart-u, smart-s, smart-bound, naive or full"},
	&cli.StringFlag{Name: "sample", Usage: "hidden-database sample `hs.jsonl` (from `dwcrawl sample`)"},
	&cli.Float64Flag{Name: "theta", Usage: "sampling ratio θ of --sample (default: its .meta.json)"},
	&cli.IntFlag{Name: "sample-queries", Value: 100, Usage: "queries spent building a sample when --sample is not given (not in the budget)"},
	&cli.StringFlag{Name: "match", Value: "jaccard:0.9", Usage: "entity resolution: jaccard:THRESHOLD or exact:COL[+COL]"},
	&cli.IntFlag{Name: "min-support", Value: 2, Usage: "minimum local support t of pool keyword sets"},
	&cli.StringFlag{Name: "out", Usage: "write the enriched table to `FILE.csv`"},
	&cli.StringFlag{Name: "dir", Usage: "state directory: the run resumes from it"},
	&cli.Int64Flag{Name: "seed", Value: 1, Usage: "random seed (sampling, naive order)"},
	&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
}

func init() {
	register(&cli.Command{
		Name:      "enrich",
		Usage:     "cover a local table from a top-k keyword-search hidden database under a query budget (SmartCrawl)",
		UsageText: "dwcrawl enrich --local D.csv --columns title,author --interface URL|plugin.lua --budget 500 [--sample hs.jsonl --theta 0.005] [--out enriched.csv] [--dir state]",
		Description: "Builds a query pool from the local table (one specific query per record plus the keyword sets\n" +
			"with support ≥ --min-support, dominated sets removed), then sends the queries with the largest\n" +
			"estimated benefit (QSel-Est, biased estimator by default) until the budget is spent. Returned\n" +
			"records are matched to local records (Jaccard ≥ 0.9 on the documents by default); --out gets\n" +
			"the local table plus the matched record's fields (h_*), the match score and the covering query.\n" +
			"With --dir every query is journaled and an interrupted run resumes where it stopped.",
		Flags:  append(append([]cli.Flag(nil), enrichFlags...), netFlags()...),
		Action: runEnrich,
	})
}

func runEnrich(c *cli.Context) error {
	method, err := enrich.ParseMethods(c.String("method"))
	if err != nil || len(method) != 1 {
		return errExit{2, fmt.Errorf("--method %q: want one of smart-b, smart-u, smart-s, smart-bound, naive, full", c.String("method"))}
	}
	if method[0] == enrich.Ideal {
		return errExit{2, errors.New("--method ideal needs the truth: use `dwcrawl bench enrich`")}
	}
	budget, frac, err := parseBudget(c.String("budget"))
	if err != nil {
		return errExit{2, err}
	}
	ms, err := enrich.ParseMatch(c.String("match"))
	if err != nil {
		return errExit{2, fmt.Errorf("--match: %w", err)}
	}
	s, err := app.OpenInterface(c.Context, c.String("interface"), netOptions(c))
	if err != nil {
		return errExit{2, err}
	}
	res, err := app.Enrich(c.Context, app.EnrichOptions{
		Local: c.String("local"), Columns: splitList(c.String("columns")), HiddenColumns: splitList(c.String("hidden-columns")), Interface: s, K: c.Int("k"),
		Budget: budget, BudgetFraction: frac, Method: method[0],
		SamplePath: c.String("sample"), Theta: c.Float64("theta"), SampleQueries: c.Int("sample-queries"),
		Match: ms, Pool: enrich.PoolOptions{MinSupport: c.Int("min-support")},
		Out: c.String("out"), Dir: c.String("dir"), Seed: c.Int64("seed"),
		Progress: c.App.ErrWriter, Log: c.App.ErrWriter,
	})
	if res != nil {
		if c.Bool("json") {
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res.Report); err != nil {
				return err
			}
		} else {
			app.WriteEnrichReport(c.App.Writer, res)
		}
	}
	if errors.Is(err, context.Canceled) {
		return errExit{130, fmt.Errorf("interrupted; run again with the same --dir to resume: %w", err)}
	}
	return err
}
