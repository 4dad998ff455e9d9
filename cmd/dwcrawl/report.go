package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/report"
)

func init() {
	register(&cli.Command{
		Name:      "report",
		Usage:     "plot the harvest, surfacing and enrichment curves of crawls and benches",
		UsageText: "dwcrawl report --dir D [--dir D2…] [--bench OUT…] --out report.html [--format html|svg|png] [--title T]",
		Description: "Draws the harvest curve of each crawl directory (relevant forms and deep sites against pages\n" +
			"fetched), the documents each surfacing downloaded against queries with its estimated coverage\n" +
			"and 90% interval as a band (over the true coverage for bench surface), the records each database\n" +
			"of a harvest (every form surfaced) downloaded against queries, one line per database, and the local records an\n" +
			"enrichment covered against queries, with a table of each run's numbers. Several runs share a\n" +
			"plot. Bench outputs are read too: the --out directory of bench harvest or bench surface, and the\n" +
			"--json output of bench enrich (records covered against the budget) or bench surface.\n" +
			"--format html (the default, or from the --out extension) writes one self-contained page with\n" +
			"inline SVG; svg and png write every plot in one image.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "dir", Usage: "crawl `DIR` (run, harvest, surface or enrich --dir), or a bench --out directory; repeat for several"},
			&cli.StringSliceFlag{Name: "bench", Usage: "bench output: a --out directory or a --json `FILE`; repeat for several"},
			&cli.StringFlag{Name: "out", Usage: "output `FILE`", Required: true},
			&cli.StringFlag{Name: "format", Usage: "html, svg or png (default: from the --out extension, else html)"},
			&cli.StringFlag{Name: "title", Value: "dwcrawl report", Usage: "title of the HTML page"},
		},
		Action: reportCmd,
	})
}

func reportCmd(c *cli.Context) error {
	inputs := append(c.StringSlice("dir"), c.StringSlice("bench")...)
	if len(inputs) == 0 {
		return errExit{2, errors.New("report: give at least one --dir or --bench")}
	}
	out := c.String("out")
	format := strings.ToLower(c.String("format"))
	if format == "" {
		format = strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
		if format == "htm" || (format != "svg" && format != "png") {
			format = "html"
		}
	}
	r, err := report.Load(inputs...)
	if err != nil {
		return err
	}
	r.Title = c.String("title")
	var b bytes.Buffer
	switch format {
	case "html":
		err = r.WriteHTML(&b)
	case "svg":
		err = r.WriteSVG(&b)
	case "png":
		err = r.WritePNG(&b)
	default:
		return errExit{2, fmt.Errorf("report: --format %q: html, svg or png", format)}
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(c.App.Writer, "report: %d plots, %d tables from %d inputs: %s (%s)\n", len(r.Figures), len(r.Tables), len(inputs), out, format)
	return nil
}
