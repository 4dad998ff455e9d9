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
		UsageText: "dwcrawl classify [--model FILE] [--domain D] [--json] [--allow-private] [--resolve H:P:A] [--proxy URL] FILE.html|URL\n" +
			"   dwcrawl classify --probe --profile PROFILE.lua [--queries N] [--allow-private] [--resolve H:P:A] [--json] URL",
		Description: "Parses a saved HTML page, or fetches an http(s) URL through the crawler's fetcher (robots.txt,\n" +
			"the address policy, --resolve, the proxy, retries, size limits), and runs HIFI on each form: the\n" +
			"searchable form classifier, the kind classifier, the external-search-engine rule and, for\n" +
			"searchable forms, the domain classifier. Loopback and private addresses need --allow-private.\n\n" +
			"With --probe, URL is fetched as a crawl fetches (robots.txt, politeness), its forms are classified\n" +
			"with the profile's classifiers and every searchable form is submitted N-1 of the profile's keywords\n" +
			"and a nonsense term; from how the answers differ it is judged a database of the topic\n" +
			"(topic-database), a generic site search (site-search) or not a database (not-database).\n" +
			"Forms of any other kind (login, registration, order, contact...) are never submitted.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "model `FILE` (default: the embedded model)"},
			&cli.StringFlag{Name: "domain", Usage: "target `DOMAIN` for the domain classifier (default: the most probable)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "probe", Usage: "submit probe queries to the page's searchable forms and decide what each fronts"},
			&cli.StringFlag{Name: "profile", Usage: "with --probe: domain profile `FILE` (its keywords are the topic terms)"},
			&cli.IntFlag{Name: "queries", Usage: "with --probe: probe queries per form, the nonsense term included (default: the profile's probe.queries, else 4)"},
		}, netFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errExit{2, errors.New("classify: give one HTML file or URL")}
			}
			opt := app.ClassifyOptions{
				Target: c.Args().First(), Model: c.String("model"), Domain: c.String("domain"), JSON: c.Bool("json"),
				Net: netOptions(c), Probe: c.Bool("probe"), ProbeQueries: c.Int("queries"),
			}
			if !opt.Probe && (c.String("profile") != "" || c.Int("queries") != 0) {
				return errExit{2, errors.New("classify: --profile and --queries go with --probe")}
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
