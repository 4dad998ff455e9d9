package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

func init() {
	register(&cli.Command{
		Name:      "features",
		Usage:     "print the adaptive-learning iterations of a crawl (top features per round)",
		UsageText: "dwcrawl features --dir D [--space FSS|FSL|ACHE] [--json]",
		Description: "SmartCrawler's adaptive learning rebuilds the site feature space FSS {URL, anchor, text} after\n" +
			"every N new deep sites and the link feature space FSL {path, anchor, text} after every M new forms\n" +
			"(the profile's learn.sites_every and learn.forms_every); ACHE relearns its link classifier. Each\n" +
			"round is recorded in the crawl directory; this prints the top terms of each round with their\n" +
			"document frequencies, like Tables 5 and 6 of the SmartCrawler paper.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` (as given to dwcrawl run --dir)", Required: true},
			&cli.StringFlag{Name: "space", Usage: "only this feature space: FSS, FSL or ACHE"},
			&cli.BoolFlag{Name: "json", Usage: "print the iterations as a JSON array"},
		},
		Action: featuresCmd,
	})
}

func featuresCmd(c *cli.Context) error {
	space := strings.ToUpper(c.String("space"))
	db, err := openCrawlDir(c.String("dir"))
	if err != nil {
		return err
	}
	defer db.Close()
	var prefix []byte
	if space != "" {
		prefix = store.AppendString(nil, space)
	}
	its := []rank.Iteration{}
	err = db.ScanJSON(store.TagFeatures, prefix, func(key, val []byte) error {
		var it rank.Iteration
		if err := json.Unmarshal(val, &it); err != nil {
			return fmt.Errorf("features: record %q: %w", key, err)
		}
		its = append(its, it)
		return nil
	})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, its)
	}
	if len(its) == 0 {
		what := "learning iterations"
		if space != "" {
			what = space + " iterations"
		}
		_, err := fmt.Fprintf(c.App.Writer, "no %s recorded in %s (a round is recorded after every learn.sites_every new deep sites or learn.forms_every new forms)\n", what, c.String("dir"))
		return err
	}
	return rank.WriteTable(c.App.Writer, its...)
}
