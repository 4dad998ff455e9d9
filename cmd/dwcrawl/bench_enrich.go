package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/experiment/enrichbench"
)

func init() {
	registerBench(&cli.Command{
		Name:      "enrich",
		Usage:     "compare enrichment methods (SmartCrawl, NaiveCrawl, FullCrawl, IdealCrawl) on a simulated top-k hidden database",
		UsageText: "dwcrawl bench enrich --hidden H.jsonl|H.csv[,H2.csv] --local D.csv --columns C1,C2 --k K --theta θ --budget B|P% --methods smart-b,smart-u,smart-s,naive,full,ideal [--error 0.05] [--missing 0.1] [--id-column ID] [--seed N] [--json]",
		Description: "Builds a hidden database H from the --hidden files (conjunctive keyword search over the document\n" +
			"columns, fixed ranking, top-k), serves it on a loopback HTTP listener, injects data errors into\n" +
			"the local table D (--error: a word removed, added or replaced) and removes records of D from H\n" +
			"(--missing), then runs each method with the same budget. A local record is covered when its\n" +
			"true hidden record (same --id-column value) was returned by one of the method's queries.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hidden", Usage: "hidden database files, comma-separated (.csv or .jsonl)", Required: true},
			&cli.StringFlag{Name: "local", Usage: "local table `D.csv`", Required: true},
			&cli.StringFlag{Name: "columns", Usage: "document columns, comma-separated", Required: true},
			&cli.StringFlag{Name: "hidden-columns", Usage: "fields the hidden database searches (default: --columns)"},
			&cli.IntFlag{Name: "k", Value: 100, Usage: "top-k result limit of the hidden database"},
			&cli.Float64Flag{Name: "theta", Value: 0.005, Usage: "sampling ratio θ of the hidden-database sample (a uniform sample of H)"},
			&cli.IntFlag{Name: "sample-queries", Usage: "build the sample through the interface with this many queries instead (θ estimated)"},
			&cli.StringFlag{Name: "budget", Value: "20%", Usage: "query budget: a number, or a percentage of the local table"},
			&cli.StringFlag{Name: "methods", Value: "smart-b,smart-u,smart-s,naive,full,ideal", Usage: "methods to compare (also smart-bound)"},
			&cli.Float64Flag{Name: "error", Usage: "fraction of local records given a data error"},
			&cli.Float64Flag{Name: "missing", Usage: "fraction of local records missing from the hidden database"},
			&cli.StringFlag{Name: "id-column", Value: "id", Usage: "column shared by D and H identifying a local record's true hidden record"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "random seed (sample, errors, ranking, naive order)"},
			&cli.StringFlag{Name: "match", Value: "jaccard:0.9", Usage: "entity resolution: jaccard:THRESHOLD or exact:COL[+COL]"},
			&cli.IntFlag{Name: "min-support", Value: 2, Usage: "minimum local support t of pool keyword sets"},
			&cli.BoolFlag{Name: "show-total", Usage: "the hidden database reports match counts"},
			&cli.BoolFlag{Name: "in-process", Usage: "query the hidden database in process instead of over loopback HTTP"},
			&cli.BoolFlag{Name: "json", Usage: "print results as JSON: [{method, budget, covered, local_size, …}]"},
		},
		Action: benchEnrich,
	})
}

// parseBudget reads "776" or "20%".
func parseBudget(s string) (n int, frac float64, err error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f <= 0 {
			return 0, 0, fmt.Errorf("--budget %q: want a positive number or percentage", s)
		}
		return 0, f / 100, nil
	}
	n, err = strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, 0, fmt.Errorf("--budget %q: want a positive number or percentage", s)
	}
	return n, 0, nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func benchEnrich(c *cli.Context) error {
	methods, err := enrich.ParseMethods(c.String("methods"))
	if err != nil {
		return errExit{2, err}
	}
	budget, frac, err := parseBudget(c.String("budget"))
	if err != nil {
		return errExit{2, err}
	}
	ms, err := enrich.ParseMatch(c.String("match"))
	if err != nil {
		return errExit{2, fmt.Errorf("--match: %w", err)}
	}
	if e := c.Float64("error"); e < 0 || e > 1 {
		return errExit{2, errors.New("--error must be in [0,1]")}
	}
	if m := c.Float64("missing"); m < 0 || m > 1 {
		return errExit{2, errors.New("--missing must be in [0,1]")}
	}
	errw := c.App.ErrWriter
	if errw == nil {
		errw = io.Discard
	}
	opt := enrichbench.Options{
		Hidden: splitList(c.String("hidden")), Local: c.String("local"),
		Columns: splitList(c.String("columns")), HiddenColumns: splitList(c.String("hidden-columns")),
		IDColumn: c.String("id-column"), K: c.Int("k"), Theta: c.Float64("theta"),
		Budget: budget, BudgetFraction: frac, Methods: methods,
		Error: c.Float64("error"), Missing: c.Float64("missing"), Seed: c.Int64("seed"), SampleQueries: c.Int("sample-queries"),
		Match: ms, Pool: enrich.PoolOptions{MinSupport: c.Int("min-support")},
		ShowTotal: c.Bool("show-total"), InProcess: c.Bool("in-process"),
		Log: func(f string, a ...any) { fmt.Fprintf(errw, "bench enrich: "+f+"\n", a...) },
		Progress: func(m enrich.Method, p enrich.Progress) {
			if p.Queries == p.Budget || p.Queries%max(1, p.Budget/10) == 0 {
				fmt.Fprintf(errw, "bench enrich: %-11s %5d/%d queries  %5d/%d matched\n", m, p.Queries, p.Budget, p.Covered, p.Local)
			}
		},
	}
	res, info, err := enrichbench.Run(c.Context, opt)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if c.Bool("json") {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	ideal := 0
	for _, r := range res {
		if r.Method == enrich.Ideal {
			ideal = r.Covered
		}
	}
	fmt.Fprintf(w, "hidden %d records, local %d (%d in H, %d with errors), k=%d, θ=%g (sample %d), budget %d, pool %d queries (%d specific + %d frequent, t=%d)\n",
		info.Hidden, info.Local, info.Coverable, info.Errors, info.K, info.Theta, info.SampleSize, info.Budget,
		info.Pool.Specific+info.Pool.Frequent, info.Pool.Specific, info.Pool.Frequent, c.Int("min-support"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tbudget\tcovered\tcoverage\tvs ideal\tmatched\tqueries\tseconds\t")
	for _, r := range res {
		vs := "-"
		if ideal > 0 {
			vs = fmt.Sprintf("%.2f", float64(r.Covered)/float64(ideal))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%s\t%d\t%d\t%.1f\t\n", r.Method, r.Budget, r.Covered,
			100*float64(r.Covered)/float64(max(1, r.LocalSize)), vs, r.Matched, r.Queries, r.Seconds)
	}
	return tw.Flush()
}
