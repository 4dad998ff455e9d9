package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "sample",
		Usage:     "draw a sample of a hidden database through its keyword interface and estimate its sampling ratio θ",
		UsageText: "dwcrawl sample --interface URL|plugin.lua --queries N --out hs.jsonl (--local D.csv --columns C1,C2 | --words list.txt)",
		Description: "Query-based sampling with rejection: N keywords drawn uniformly from a vocabulary (the local\n" +
			"table's keywords, or a word list) are sent; results of overflowing queries (top-k, biased by the\n" +
			"ranking) are discarded; each record of a solid query is kept with probability 1/deg, deg = the\n" +
			"number of vocabulary keywords in the record, which makes the sample uniform over records whose\n" +
			"keywords give solid queries. θ = Σ|q(Hs)| / Σ|q(H)| over the queries whose |q(H)| is known (solid\n" +
			"ones, or any when the interface reports totals). Writes hs.jsonl and hs.jsonl.meta.json.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "interface", Usage: "keyword interface: http(s) URL of a JSON search API, or a Lua keyword plugin", Required: true},
			&cli.IntFlag{Name: "queries", Value: 100, Usage: "number of sampling queries N"},
			&cli.StringFlag{Name: "out", Usage: "sample file `hs.jsonl`", Required: true},
			&cli.StringFlag{Name: "local", Usage: "local table whose keywords form the vocabulary"},
			&cli.StringFlag{Name: "columns", Usage: "document columns of --local (also the hidden fields of a record's document)"},
			&cli.StringFlag{Name: "hidden-columns", Usage: "fields of a returned record forming its document (default: --columns)"},
			&cli.StringFlag{Name: "words", Usage: "word list for the vocabulary (one per line, or JSON)"},
			&cli.IntFlag{Name: "k", Usage: "result limit k (default: what the interface declares)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "random seed"},
			&cli.BoolFlag{Name: "json", Usage: "print the sample's meta data as JSON"},
		}, netFlags()...),
		Action: runSample,
	})
}

func runSample(c *cli.Context) error {
	if c.Int("queries") <= 0 {
		return errExit{2, errors.New("--queries must be positive")}
	}
	cols := splitList(c.String("columns"))
	if c.String("local") != "" && len(cols) == 0 {
		return errExit{2, errors.New("--local needs --columns")}
	}
	vocab, err := app.SampleVocabulary(c.String("local"), cols, c.String("words"))
	if err != nil {
		return err
	}
	s, err := app.OpenInterface(c.Context, c.String("interface"), netOptions(c))
	if err != nil {
		return errExit{2, err}
	}
	hcols := splitList(c.String("hidden-columns"))
	if len(hcols) == 0 {
		hcols = cols
	}
	meta, err := app.Sample(c.Context, app.SampleOptions{
		Interface: s, Queries: c.Int("queries"), Out: c.String("out"), Vocabulary: vocab, HiddenColumns: hcols,
		K: c.Int("k"), Seed: c.Int64("seed"), Progress: c.App.ErrWriter,
	})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	}
	fmt.Fprintf(c.App.Writer, "sample %s: %d records from %d queries (%d solid), θ ≈ %.4g, estimated |H| ≈ %.0f\n",
		c.String("out"), meta.Records, meta.Queries, meta.Solid, meta.Theta, meta.HiddenSize)
	if meta.Theta == 0 {
		fmt.Fprintln(c.App.Writer, "θ could not be estimated (no solid query matched a sampled record): send more --queries or pass --theta to enrich")
	}
	return nil
}
