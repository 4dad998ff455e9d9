package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

// clusterBudgetFlags let surface and enrich spend a query budget shared on a
// cluster (see dwcrawl budget).
var clusterBudgetFlags = []cli.Flag{
	&cli.StringFlag{Name: "nats", Usage: "NATS server `URL` of the cluster holding --budget-name"},
	&cli.StringFlag{Name: "budget-name", Usage: "spend the cluster's shared query budget `NAME` (set with dwcrawl budget), one per query as --budget counts them"},
}

// clusterBudget returns the wrapper that makes the keyword interface spend
// the shared budget named by the flags (nil without them) and the function
// that closes its connection.
func clusterBudget(c *cli.Context) (func(keyword.Searcher) keyword.Searcher, func(), error) {
	url, name := c.String("nats"), c.String("budget-name")
	if url == "" && name == "" {
		return nil, func() {}, nil
	}
	if url == "" || name == "" {
		return nil, nil, errExit{2, errors.New("give --nats and --budget-name together")}
	}
	qb, closeConn, err := app.QueryBudget(c.Context, url, name)
	if err != nil {
		return nil, nil, err
	}
	if _, ok, err := qb.State(c.Context); err != nil || !ok {
		closeConn()
		if err == nil {
			err = errExit{1, errors.New("no query budget " + name + " on " + url + ": set one with dwcrawl budget --nats URL --set N " + name)}
		}
		return nil, nil, err
	}
	return qb.Searcher, closeConn, nil
}
