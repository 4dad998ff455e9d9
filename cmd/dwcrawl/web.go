package main

import (
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
	"github.com/urfave/cli/v2"
)

// webFlags are the flags that choose a simulated web, shared by every
// command that runs against one.
func webFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the simulated web"},
		&cli.StringFlag{Name: "config", Usage: "simulated web config `FILE` (JSON; default: built-in defaults)"},
		&cli.StringFlag{Name: "data", Usage: "data `DIR` for the simulated web (default: ../shared/data when present, else built-in data)"},
	}
}

// loadWeb builds the simulated web named by webFlags.
func loadWeb(c *cli.Context) (*simweb.Web, error) {
	return app.LoadWeb(app.WebOptions{Seed: c.Int64("seed"), SeedSet: c.IsSet("seed"), Config: c.String("config"), Data: c.String("data")})
}
