package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "seeds",
		Usage:     "find candidate seed sites for a profile through a search engine",
		UsageText: "dwcrawl seeds --profile P [--out FILE] [--json] [--pages N] [--max N] [--testbed]",
		Description: "Asks the profile's search engine (the first of reverse.plugins whose environment is set:\n" +
			"SEARXNG_URL; BRAVE_API_KEY; GOOGLE_API_KEY and GOOGLE_CSE_ID) for each of the profile's keywords and\n" +
			"lists the sites of the results, those found by the most queries first: one homepage URL per line\n" +
			"(text), or with --json the engine, the counts and per site its hits, queries and first result.\n" +
			"Put the ones you want in the profile's seeds. With --testbed the simulated web's engine is asked.",
		Flags: append(append([]cli.Flag{
			&cli.StringFlag{Name: "profile", Usage: "profile `FILE`", Required: true},
			&cli.StringFlag{Name: "out", Usage: "write the seeds to `FILE` (default: standard output)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.IntFlag{Name: "pages", Value: 1, Usage: "result pages read per keyword"},
			&cli.IntFlag{Name: "max", Value: 50, Usage: "most candidate seeds listed"},
			&cli.StringFlag{Name: "plugins", Usage: "extra plugin `DIR` searched before the bundled plugins"},
			&cli.BoolFlag{Name: "testbed", Usage: "ask the simulated web's search engine"},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format: text or json"},
			&cli.StringFlag{Name: "log-level", Value: "warn", Usage: "log level: debug, info, warn, error"},
		}, netFlags()...), webFlags()...),
		Action: seedsCmd,
	})
}

func seedsCmd(c *cli.Context) error {
	log, err := newLogger(c, os.Stderr)
	if err != nil {
		return errExit{2, err}
	}
	p, err := profile.Load(c.Context, c.String("profile"))
	if err != nil {
		return errExit{1, err}
	}
	opt := app.SeedsOptions{Profile: p, Net: netOptions(c), PluginDirs: pluginDirs(c), Pages: c.Int("pages"), Max: c.Int("max"), Logger: log}
	if c.Bool("testbed") {
		if opt.Web, err = loadWeb(c); err != nil {
			return err
		}
	}
	res, err := app.FindSeeds(c.Context, opt)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if f := c.String("out"); f != "" {
		file, err := os.Create(f)
		if err != nil {
			return err
		}
		defer file.Close()
		w = file
	}
	fmt.Fprintf(c.App.ErrWriter, "dwcrawl: %s: %d queries to %s, %d results, %d candidate sites\n",
		p.Name, res.Queries, res.Engine, res.Results, len(res.Seeds))
	if c.Bool("json") {
		return writeJSON(w, res)
	}
	return writeSeeds(w, res)
}

func writeSeeds(w io.Writer, res *app.SeedsResult) error {
	for _, s := range res.Seeds {
		if _, err := fmt.Fprintln(w, s.URL); err != nil {
			return err
		}
	}
	if len(res.Seeds) == 0 {
		return errors.New("no candidate seed found")
	}
	return nil
}
