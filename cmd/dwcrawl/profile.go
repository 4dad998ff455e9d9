package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/plugins"
	"github.com/urfave/cli/v2"
)

func init() {
	register(&cli.Command{
		Name:  "profile",
		Usage: "work with domain profiles (domains/*.lua)",
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "load a domain profile and print its resolved settings, or the file:line of its first error",
			ArgsUsage: "FILE.lua",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "json", Usage: "print the resolved profile as JSON"},
				&cli.StringSliceFlag{Name: "plugins", Usage: "user plugin `DIR` searched before the bundled plugins"},
			},
			Action: profileCheck,
		}},
	})
}

func profileCheck(c *cli.Context) error {
	if c.NArg() != 1 {
		return errExit{2, errors.New("profile check: expected one FILE.lua argument")}
	}
	p, err := profile.Load(c.Context, c.Args().First())
	if err != nil {
		return errExit{1, err}
	}
	if p.Reverse.Plugin != "" {
		kind, name, err := plugins.SplitRef(p.Reverse.Plugin)
		if err == nil {
			_, _, err = plugins.Find(kind, name, c.StringSlice("plugins")...)
		}
		if err != nil {
			fmt.Fprintf(c.App.ErrWriter, "warning: reverse.plugin: %v (runs with --testbed use the simulated engine)\n", err)
		}
	}
	if c.Bool("json") {
		b, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(c.App.Writer, string(b))
		return nil
	}
	fmt.Fprint(c.App.Writer, p.String())
	return describeClassifiers(c, p)
}

// describeClassifiers says what the profile's classifiers are trained from;
// for a custom domain it trains them from the profile (the seeds' homepages
// and example URLs are fetched at crawl start, not here).
func describeClassifiers(c *cli.Context, p *profile.Profile) error {
	w := c.App.Writer
	if !p.Custom() {
		fmt.Fprintf(w, "# classifiers: the embedded form model's %q domain; the site classifier is trained from the keywords\n", p.Domain)
		return nil
	}
	cls, err := crawl.NewClassifiers(c.Context, p, nil, nil, nil, 1)
	if err != nil {
		return errExit{1, err}
	}
	fmt.Fprintf(w, "# custom domain %q: classifiers trained from the profile\n", p.Domain)
	for _, line := range strings.Split(strings.TrimSpace(cls.Describe()), "\n") {
		fmt.Fprintf(w, "#   %s\n", line)
	}
	if n := len(crawl.TopicURLs(p, p.Seeds)); n > 0 {
		fmt.Fprintf(w, "#   at crawl start they also learn from %d fetched pages (example URLs and seed homepages; --testbed: the simulated web's seeds)\n", n)
	}
	return nil
}
