package main

import (
	"fmt"
	"io"
	"os"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/internal/procs"
	"github.com/urfave/cli/v2"
)

func init() {
	register(&cli.Command{
		Name:  "testbed",
		Usage: "serve the simulated web, or print its ground truth and statistics",
		Description: "The simulated web is generated from --seed and --config (JSON; see testbed/simweb) with content\n" +
			"from --data. serve runs it on a loopback address (--proxy: as an HTTP proxy, so curl -x and\n" +
			"browsers reach every generated host); truth writes the ground truth as JSON lines; stats\n" +
			"prints sites, pages, forms by kind and domain, the density of relevant forms and the depth histogram.",
		Subcommands: []*cli.Command{
			{
				Name:  "serve",
				Usage: "serve the simulated web over HTTP",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "listen `ADDR`"},
					&cli.BoolFlag{Name: "proxy", Usage: "act as an HTTP forward proxy (curl -x http://ADDR http://HOST/)"},
					&cli.StringFlag{Name: "request-log", Usage: "write one line per request (\"METHOD URL\") to `FILE`, as it arrives"},
				}, webFlags()...),
				Action: func(c *cli.Context) error {
					w, err := loadWeb(c)
					if err != nil {
						return err
					}
					// Serving runs under the processor governor, like a crawl
					// (internal/procs: it was measured to help both).
					stopProcs, _ := procs.Start(procs.Options{}, os.Getenv)
					defer stopProcs()
					return app.ServeWeb(c.Context, w, c.String("addr"), c.Bool("proxy"), c.String("request-log"), c.App.Writer)
				},
			},
			{
				Name:  "truth",
				Usage: "write the ground truth (site, database, page, form, hub lines) as JSONL",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "out", Value: "-", Usage: "output `FILE` (- for stdout)"},
				}, webFlags()...),
				Action: func(c *cli.Context) error {
					w, err := loadWeb(c)
					if err != nil {
						return err
					}
					var out io.Writer = c.App.Writer
					if p := c.String("out"); p != "-" && p != "" {
						f, err := os.Create(p)
						if err != nil {
							return fmt.Errorf("testbed truth: %w", err)
						}
						defer f.Close()
						out = f
					}
					if err := w.Truth(out); err != nil {
						return err
					}
					if f, ok := out.(*os.File); ok && f != os.Stdout {
						return f.Close()
					}
					return nil
				},
			},
			{
				Name:  "stats",
				Usage: "print a summary of the simulated web",
				Flags: append([]cli.Flag{
					&cli.BoolFlag{Name: "json", Usage: "print the statistics as JSON"},
				}, webFlags()...),
				Action: func(c *cli.Context) error {
					w, err := loadWeb(c)
					if err != nil {
						return err
					}
					return app.WriteWebStats(w, c.Bool("json"), c.App.Writer)
				},
			},
		},
	})
}
