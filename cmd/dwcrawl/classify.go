package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:  "classify",
		Usage: "classify every form of a page: kind, searchable probability, domain, reasons",
		UsageText: "dwcrawl classify [--model FILE] [--domain D] [--json] FILE.html|URL\n" +
			"   dwcrawl classify --probe --profile PROFILE.lua [--queries N] [--allow-private] [--json] URL",
		Description: "Parses a saved HTML page (or fetches a URL on a loopback address: 127.0.0.1, ::1,\n" +
			"localhost) and runs HIFI on each form: the searchable form classifier, the kind\n" +
			"classifier, the external-search-engine rule and, for searchable forms, the domain\n" +
			"classifier. Other addresses are refused: the crawler's fetcher handles the open web.\n\n" +
			"With --probe, URL is fetched as a crawl fetches (robots.txt, politeness, the address policy:\n" +
			"private addresses need --allow-private), its forms are classified with the profile's\n" +
			"classifiers and every searchable form is submitted N-1 of the profile's keywords and a\n" +
			"nonsense term; from how the answers differ it is judged a database of the topic\n" +
			"(topic-database), a generic site search (site-search) or not a database (not-database).\n" +
			"Forms of any other kind (login, registration, order, contact...) are never submitted.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "model `FILE` (default: the embedded model)"},
			&cli.StringFlag{Name: "domain", Usage: "target `DOMAIN` for the domain classifier (default: the most probable)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "probe", Usage: "submit probe queries to the page's searchable forms and decide what each fronts"},
			&cli.StringFlag{Name: "profile", Usage: "with --probe: domain profile `FILE` (its keywords are the topic terms)"},
			&cli.IntFlag{Name: "queries", Usage: "with --probe: probe queries per form, the nonsense term included (default: the profile's probe.queries, else 4)"},
			&cli.BoolFlag{Name: "allow-private", Usage: "with --probe: allow loopback and private addresses"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errExit{2, errors.New("classify: give one HTML file or URL")}
			}
			opt := app.ClassifyOptions{
				Target: c.Args().First(), Model: c.String("model"), Domain: c.String("domain"), JSON: c.Bool("json"),
				Probe: c.Bool("probe"), ProbeQueries: c.Int("queries"), AllowPrivate: c.Bool("allow-private"),
			}
			if !opt.Probe && (c.String("profile") != "" || c.Int("queries") != 0 || c.Bool("allow-private")) {
				return errExit{2, errors.New("classify: --profile, --queries and --allow-private go with --probe")}
			}
			if q := opt.ProbeQueries; q != 0 && (q < 2 || q > 20) {
				return errExit{2, fmt.Errorf("classify: --queries %d: want 2 to 20 (topic terms and one nonsense term)", q)}
			}
			if f := c.String("profile"); f != "" {
				p, err := profile.Load(c.Context, f)
				if err != nil {
					return errExit{2, err}
				}
				opt.Profile = p
			} else if opt.Probe {
				return errExit{2, errors.New("classify: --probe needs --profile FILE (its keywords are the probe's topic terms)")}
			}
			return app.Classify(c.Context, opt, c.App.Writer)
		},
	})
}
