package main

import (
	"errors"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "serve",
		Usage:     "run crawls, harvests, surfacing and enrichment jobs behind a REST API, a live dashboard and Prometheus metrics",
		UsageText: "dwcrawl serve [--addr 127.0.0.1:8700] [--root DIR] [--token T] [--allow DIR]... [--resume]",
		Description: `One process runs many jobs. Each job has a directory under --root (its id), which a
restarted server lists again; --resume continues the jobs it stopped. The dashboard is
at /, the API under /api/ (POST /api/crawls, POST /api/harvests, GET /api/crawls/{id},
…; see the README and docs/service.md), the metrics at /metrics.

Requests that change something (POST) need the token when one is set (header
"Authorization: Bearer T"); a server listening beyond loopback must have one.
Requests name files (profiles, keyword plugins, local tables, samples) only inside
--allow directories (default: ./domains when present) and --root; an inline
profile (profile_lua) runs in the same Lua sandbox as a profile file.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8700", Usage: "listening `HOST:PORT`"},
			&cli.StringFlag{Name: "root", Value: "dwcrawl-jobs", Usage: "`DIR` holding one directory per job"},
			&cli.StringFlag{Name: "token", EnvVars: []string{"DWCRAWL_TOKEN"}, Usage: "token `T` that requests changing something must present"},
			&cli.StringSliceFlag{Name: "allow", Usage: "`DIR` whose files requests may name (repeatable; default ./domains)"},
			&cli.StringFlag{Name: "plugins", Usage: "extra plugin `DIR` searched before the bundled plugins"},
			&cli.BoolFlag{Name: "resume", Usage: "continue the jobs the last server left running"},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format: text or json"},
			&cli.StringFlag{Name: "log-level", Value: "warn", Usage: "log level: debug, info, warn, error"},
		}, append(webFlags(), netFlags()...)...),
		Action: serveCmd,
	})
}

func serveCmd(c *cli.Context) error {
	if c.NArg() != 0 {
		return errExit{2, errors.New("serve: takes no arguments")}
	}
	log, err := newLogger(c, os.Stderr)
	if err != nil {
		return errExit{2, err}
	}
	allow := c.StringSlice("allow")
	if len(allow) == 0 {
		if st, err := os.Stat("domains"); err == nil && st.IsDir() {
			allow = []string{"domains"}
		}
	}
	return app.Serve(c.Context, app.ServeOptions{
		Addr: c.String("addr"), Root: c.String("root"), Token: c.String("token"), Allow: allow,
		PluginDirs: pluginDirs(c), Resume: c.Bool("resume"), Logger: log, Net: netOptions(c),
		Web: app.WebOptions{Seed: c.Int64("seed"), SeedSet: c.IsSet("seed"), Config: c.String("config"), Data: c.String("data")},
	}, c.App.ErrWriter)
}
