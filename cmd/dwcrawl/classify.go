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
		UsageText: "dwcrawl classify [--model FILE] [--domain D] [--json] [--allow-private] [--resolve H:P:A] [--proxy URL] FILE.html|URL",
		Description: "Parses a saved HTML page, or fetches an http(s) URL through the crawler's fetcher (robots.txt,\n" +
			"the address policy, --resolve, the proxy, retries, size limits), and runs HIFI on each form: the\n" +
			"searchable form classifier, the kind classifier, the external-search-engine rule and, for\n" +
			"searchable forms, the domain classifier. Loopback and private addresses need --allow-private.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "model `FILE` (default: the embedded model)"},
			&cli.StringFlag{Name: "domain", Usage: "target `DOMAIN` for the domain classifier (default: the most probable)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		}, netFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errExit{2, errors.New("classify: give one HTML file or URL")}
			}
			return app.Classify(c.Context, app.ClassifyOptions{
				Target: c.Args().First(), Model: c.String("model"), Domain: c.String("domain"), JSON: c.Bool("json"),
				Net: netOptions(c),
			}, c.App.Writer)
		},
	})
}
