package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "budget",
		Usage:     "set or show a query budget shared by surfacing and enrichment jobs on a cluster",
		UsageText: "dwcrawl budget --nats URL [--set N] NAME",
		Description: `A query budget lives on the NATS JetStream cluster: every surface or enrich run given
--nats URL --budget-name NAME spends one query of it per query it sends, wherever it runs (a query
read over several result pages counts once, as --budget counts it), and stops normally when the
budget is spent. --set sets the limit (what was spent stays).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "nats", Usage: "NATS server `URL`", Required: true},
			&cli.Int64Flag{Name: "set", Value: -1, Usage: "set the limit to `N` queries"},
			&cli.BoolFlag{Name: "json", Usage: "print the budget as JSON"},
		},
		Action: budgetCmd,
	})
}

func budgetCmd(c *cli.Context) error {
	if c.NArg() != 1 {
		return errExit{2, errors.New("budget: want one budget name")}
	}
	name := c.Args().First()
	qb, closeConn, err := app.QueryBudget(c.Context, c.String("nats"), name)
	if err != nil {
		return err
	}
	defer closeConn()
	if n := c.Int64("set"); n >= 0 {
		if _, err := qb.SetLimit(c.Context, n); err != nil {
			return err
		}
	}
	st, ok, err := qb.State(c.Context)
	if err != nil {
		return err
	}
	if !ok {
		return errExit{1, fmt.Errorf("no query budget %q on %s: set one with --set N", name, c.String("nats"))}
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, map[string]any{"name": name, "limit": st.Limit, "used": st.Used, "left": st.Left()})
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s: %d of %d queries spent, %d left\n", name, st.Used, st.Limit, st.Left())
	return err
}
