package main

import (
	"errors"
	"github.com/dwcrawl/dwcrawl/core/form"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

// evalCmd is the parent of `dwcrawl eval …`.
var evalCmd = &cli.Command{
	Name:  "eval",
	Usage: "score the classifiers on labelled data",
}

func init() {
	evalCmd.Subcommands = append(evalCmd.Subcommands, &cli.Command{
		Name:      "forms",
		Usage:     "score a form model on a Formasaurus-layout folder, or cross-validate on it",
		UsageText: "dwcrawl eval forms --data DIR [--model FILE] [--json]\n   dwcrawl eval forms --data DIR --cv 10 [--json]",
		Description: "Without --cv, scores a model (the embedded default unless --model is given) on every\n" +
			"labelled form of DIR. With --cv K, runs K-fold cross-validation grouped by site host\n" +
			"(no host in both training and test folds), training on DIR itself. Prints accuracy,\n" +
			"precision/recall/F1 per class and the confusion matrices of searchable-vs-not and of\n" +
			"the form kinds; --json prints the same as JSON.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "Formasaurus-layout `DIR` (default: the shared data's formasaurus folder)"},
			&cli.StringFlag{Name: "model", Usage: "model `FILE` (default: the embedded model)"},
			&cli.IntFlag{Name: "cv", Usage: "cross-validate with `K` folds grouped by host"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.Uint64Flag{Name: "seed", Value: app.DefaultFormSeed, Usage: "seed of the fold assignment"},
		},
		Action: func(c *cli.Context) error {
			if c.IsSet("cv") && c.Int("cv") < 2 {
				return errExit{2, errors.New("eval forms: --cv needs at least 2 folds")}
			}
			if c.IsSet("cv") && c.IsSet("model") {
				return errExit{2, errors.New("eval forms: --cv trains its own models; drop --model")}
			}
			return app.EvalForms(c.Context, app.EvalFormsOptions{
				Data: c.String("data"), Model: c.String("model"), CV: c.Int("cv"),
				JSON: c.Bool("json"), Seed: c.Uint64("seed"),
			}, c.App.Writer)
		},
	})
	evalCmd.Subcommands = append(evalCmd.Subcommands, &cli.Command{
		Name:      "domains",
		Usage:     "score the domain step on search forms labelled with their domain",
		UsageText: "dwcrawl eval domains --labels FILE [--data DIR] [--model FILE] [--cv K] [--json]",
		Description: "Reads the labelled search forms of DIR and a file giving the domain of each (one of the\n" +
			"twelve, or none; core/form/testdata/formasaurus-domains.tsv labels the Formasaurus pages).\n" +
			"Prints, with no target domain and with each domain as the target, how many out-of-domain\n" +
			"forms are marked relevant and how many in-domain forms are found. With --cv K, the\n" +
			"domain classifier's level thresholds are calibrated on K-1 folds (grouped by host) and\n" +
			"scored on the last, in turn.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "Formasaurus-layout `DIR` (default: the shared data's formasaurus folder)"},
			&cli.StringFlag{Name: "labels", Usage: "domain label `FILE`", Required: true},
			&cli.StringFlag{Name: "model", Usage: "model `FILE` (default: the embedded model)"},
			&cli.IntFlag{Name: "cv", Usage: "cross-validate the threshold calibration with `K` folds grouped by host"},
			&cli.Float64Flag{Name: "max-out", Value: form.DefaultMaxOut, Usage: "with --cv: share of out-of-domain forms the calibration may mark relevant"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.Uint64Flag{Name: "seed", Value: app.DefaultFormSeed, Usage: "seed of the fold assignment"},
		},
		Action: func(c *cli.Context) error {
			if c.IsSet("cv") && c.Int("cv") < 2 {
				return errExit{2, errors.New("eval domains: --cv needs at least 2 folds")}
			}
			return app.EvalDomains(c.Context, app.EvalDomainsOptions{
				Data: c.String("data"), Labels: c.String("labels"), Model: c.String("model"), CV: c.Int("cv"),
				MaxOut: c.Float64("max-out"), JSON: c.Bool("json"), Seed: c.Uint64("seed"),
			}, c.App.Writer)
		},
	})
	register(evalCmd)
}
