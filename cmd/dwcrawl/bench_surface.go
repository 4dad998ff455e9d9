package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/experiment/surfacebench"
)

func init() {
	registerBench(&cli.Command{
		Name:      "surface",
		Usage:     "compare query-selection policies (adaptive, generic, random, oracle) harvesting a corpus served as a top-k hidden database",
		UsageText: "dwcrawl bench surface --corpus FILE.jsonl|FILE.csv[,FILE…] --k K --budget N --policies adaptive,generic,random,oracle [--text-fields a,b] [--json] [--out DIR] [--seed N]",
		Description: "Serves the corpus as a hidden database (conjunctive keyword search over --text-fields, a fixed\n" +
			"query-independent ranking, top-k results, pages of --page-size) on a loopback HTTP listener and\n" +
			"harvests it with each policy under the same query budget, measuring coverage (distinct records\n" +
			"downloaded / records) after every query. oracle is greedy set cover with full knowledge of every\n" +
			"term's top-k result set, the reference. The table (or --json) gives the coverage at the\n" +
			"checkpoints 10, 25, 50, 100, 200, 500, and next to it the harvest's own coverage estimate with\n" +
			"its 90% interval and estimator (what `dwcrawl surface` reports, computed without the truth) and\n" +
			"whether the interval holds the true coverage; --out writes one CSV curve per policy. Several\n" +
			"corpus files, comma-separated, make one database.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "corpus", Usage: "records: `FILE` .jsonl, .csv or .json (array); several comma-separated make one database", Required: true},
			&cli.StringFlag{Name: "text-fields", Usage: "searchable fields, comma-separated (default: every field but the id)"},
			&cli.StringFlag{Name: "id-field", Usage: "record id field (default: id, ID, key or _id when unique, else the line number)"},
			&cli.IntFlag{Name: "k", Value: 100, Usage: "result limit (top-k) of the hidden database"},
			&cli.IntFlag{Name: "page-size", Value: 100, Usage: "results per page"},
			&cli.IntFlag{Name: "budget", Value: 500, Usage: "queries per policy"},
			&cli.StringFlag{Name: "policies", Value: "adaptive,generic,random,oracle", Usage: "policies to compare"},
			&cli.StringFlag{Name: "estimator", Value: "independence", Usage: "adaptive's estimator of P(q): independence or zipf"},
			&cli.StringFlag{Name: "cost", Value: "1,0,0", Usage: "cost model `cq,cr,cd` of the adaptive policy"},
			&cli.StringFlag{Name: "wordlist", Usage: "word list of random and generic, one word per line (default: the bundled SUBTLEX-US list)"},
			&cli.BoolFlag{Name: "hide-total", Usage: "the interface hides its match counts"},
			&cli.BoolFlag{Name: "no-probe", Usage: "no size probes (queries the harvest spends on its coverage estimate when totals are hidden)"},
			&cli.BoolFlag{Name: "in-process", Usage: "search the database in process instead of over loopback HTTP"},
			&cli.Int64Flag{Name: "seed", Usage: "seed of the ranking and of the random policy"},
			&cli.StringFlag{Name: "out", Usage: "write `DIR`/<policy>.csv coverage curves"},
			&cli.BoolFlag{Name: "json", Usage: "print [{policy, queries, coverage, coverage_estimate, coverage_low, coverage_high, estimator, in_interval}] at the checkpoints as JSON"},
			&cli.BoolFlag{Name: "progress", Usage: "report progress on stderr"},
		},
		Action: benchSurface,
	})
}

func benchSurface(c *cli.Context) error {
	sel, words, err := surfacePolicyFlags(c)
	if err != nil {
		return err
	}
	opt := surfacebench.Options{
		Corpus:    c.String("corpus"),
		IDField:   c.String("id-field"),
		K:         c.Int("k"),
		PageSize:  c.Int("page-size"),
		Budget:    c.Int("budget"),
		Policies:  splitList(c.String("policies")),
		Seed:      c.Int64("seed"),
		Select:    sel,
		Words:     words,
		HideTotal: c.Bool("hide-total"),
		InProcess: c.Bool("in-process"),
		NoProbe:   c.Bool("no-probe"),
	}
	for _, p := range opt.Policies {
		switch p {
		case "adaptive", "generic", "random", "oracle":
		default:
			return errExit{2, fmt.Errorf("--policies: unknown policy %q (want adaptive, generic, random, oracle)", p)}
		}
	}
	if f := c.String("text-fields"); f != "" {
		opt.TextFields = splitList(f)
	}
	if c.Bool("progress") {
		opt.Progress = c.App.ErrWriter
	}
	rep, err := surfacebench.Run(c.Context, opt)
	if err != nil {
		return err
	}
	if d := c.String("out"); d != "" {
		if err := rep.WriteCSV(d); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		return rep.WriteJSON(c.App.Writer)
	}
	return rep.WriteTable(c.App.Writer)
}
