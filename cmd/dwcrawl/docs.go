package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

func init() {
	register(&cli.Command{
		Name:      "docs",
		Usage:     "export the records harvested by `dwcrawl surface`",
		UsageText: "dwcrawl docs --dir DIR [--source NAME] [--format jsonl] [--out FILE] | --list",
		Description: "Writes one JSON object per record ({id, url, text, fields, key, source, query, seq}), in\n" +
			"download order. --list prints the harvested sources of DIR with their record and query counts and\n" +
			"the last journaled coverage estimate (interval, estimator).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` of the harvest", Required: true},
			&cli.StringFlag{Name: "source", Usage: "only this harvest (as listed by --list)"},
			&cli.StringFlag{Name: "format", Value: "jsonl", Usage: "output format: jsonl"},
			&cli.StringFlag{Name: "out", Usage: "write to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "list", Usage: "list the sources instead"},
		},
		Action: runDocs,
	})
}

func runDocs(c *cli.Context) error {
	if f := c.String("format"); f != "jsonl" {
		return errExit{2, fmt.Errorf("--format %q: only jsonl is supported", f)}
	}
	if _, err := os.Stat(c.String("dir")); err != nil {
		return errExit{2, fmt.Errorf("--dir: %w", err)}
	}
	db, err := store.Open(c.String("dir"), store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	if c.Bool("list") {
		srcs, err := surface.Sources(db)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(srcs))
		for s := range srcs {
			names = append(names, s)
		}
		sort.Strings(names)
		ests, err := surface.Estimates(db)
		if err != nil {
			return err
		}
		for _, s := range names {
			fmt.Fprintf(c.App.Writer, "%s\t%d records\t%d queries", s, srcs[s][0], srcs[s][1])
			if l, ok := ests[s]; ok {
				if l.CoverageEstimate != nil {
					fmt.Fprintf(c.App.Writer, "\test. coverage %.1f%% [%.1f–%.1f%%] at query %d (%s)", 100**l.CoverageEstimate, 100**l.CoverageLow, 100**l.CoverageHigh, l.N, l.Estimator)
				} else {
					fmt.Fprintf(c.App.Writer, "\test. coverage: none at query %d", l.N)
				}
			}
			fmt.Fprintln(c.App.Writer)
		}
		return nil
	}
	w := c.App.Writer
	if out := c.String("out"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		n, err := surface.ExportDocs(db, c.String("source"), bw)
		if err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(c.App.ErrWriter, "%d records written to %s\n", n, out)
		return f.Close()
	}
	_, err = surface.ExportDocs(db, c.String("source"), w)
	return err
}
