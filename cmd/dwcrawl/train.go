package main

import (
	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

// trainCmd is the parent of `dwcrawl train …`; a package-level variable so
// other files can add subcommands from their init in any order.
var trainCmd = &cli.Command{
	Name:  "train",
	Usage: "train the classifiers from labelled data",
}

func init() {
	trainCmd.Subcommands = append(trainCmd.Subcommands, &cli.Command{
		Name:      "forms",
		Usage:     "train the form classifiers (HIFI: searchable, kind, domain) on a Formasaurus-layout folder",
		UsageText: "dwcrawl train forms --data DIR --out FILE [--seed N] [--domain-labels FILE]",
		Description: "Reads every labelled form of DIR (index.json, config.json, html/ as in Formasaurus),\n" +
			"trains the searchable form classifier (C4.5), the form-kind classifier and the domain\n" +
			"classifier (linear SVMs on bundled domain forms), and writes one model file.\n" +
			"The embedded default model is made with\n" +
			"  dwcrawl train forms --data ../shared/data/formasaurus --out core/form/model/default.json \\\n" +
			"      --domain-labels core/form/testdata/formasaurus-domains.tsv",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "Formasaurus-layout `DIR` (default: the shared data's formasaurus folder)"},
			&cli.StringFlag{Name: "out", Usage: "model `FILE` to write", Required: true},
			&cli.Uint64Flag{Name: "seed", Value: app.DefaultFormSeed, Usage: "seed of the inner folds and generated domain forms"},
			&cli.StringFlag{Name: "domain-labels", Usage: "calibrate the domain classifier's level thresholds on this domain label `FILE` (see eval domains)"},
		},
		Action: func(c *cli.Context) error {
			return app.TrainForms(c.Context, app.TrainFormsOptions{
				Data: c.String("data"), Out: c.String("out"), Seed: c.Uint64("seed"), DomainLabels: c.String("domain-labels"),
			}, c.App.Writer)
		},
	})
	register(trainCmd)
}
