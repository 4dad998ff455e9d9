package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "classify",
		Usage:     "classify every form of a page: kind, searchable probability, domain, reasons",
		UsageText: "dwcrawl classify [--model FILE] [--domain D] [--json] FILE.html|URL",
		Description: "Parses a saved HTML page (or fetches a URL on a loopback address: 127.0.0.1, ::1,\n" +
			"localhost) and runs HIFI on each form: the searchable form classifier, the kind\n" +
			"classifier, the external-search-engine rule and, for searchable forms, the domain\n" +
			"classifier. Other addresses are refused: the crawler's fetcher handles the open web.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "model `FILE` (default: the embedded model)"},
			&cli.StringFlag{Name: "domain", Usage: "target `DOMAIN` for the domain classifier (default: the most probable)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errExit{2, errors.New("classify: give one HTML file or URL")}
			}
			return app.Classify(c.Context, app.ClassifyOptions{
				Target: c.Args().First(), Model: c.String("model"), Domain: c.String("domain"), JSON: c.Bool("json"),
			}, c.App.Writer)
		},
	})
}
