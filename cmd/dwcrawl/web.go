package main

import (
	"fmt"

	"github.com/dwcrawl/dwcrawl/internal/shareddata"
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
	cfg := simweb.DefaultConfig()
	if p := c.String("config"); p != "" {
		var err error
		if cfg, err = simweb.LoadConfig(p); err != nil {
			return nil, err
		}
	}
	if c.IsSet("seed") || c.String("config") == "" {
		cfg.Seed = c.Int64("seed")
	}
	switch d := c.String("data"); {
	case d != "":
		cfg.Data = d
	case cfg.Data == "":
		if d, err := shareddata.Dir(); err == nil {
			cfg.Data = d
		}
	}
	w, err := simweb.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("simulated web: %w", err)
	}
	return w, nil
}
