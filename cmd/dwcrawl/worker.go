package main

import (
	"errors"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "worker",
		Usage:     "join a NATS JetStream cluster and explore sites of its crawls",
		UsageText: "dwcrawl worker --nats URL [--dir D] [--sites N] [--warc DIR]",
		Description: `Pulls sites from the cluster's work queue, whatever crawl they belong to (crawls are
submitted with dwcrawl run --nats URL PROFILE), explores each with the crawl's in-site code and
publishes its pages, forms and outcome. Each crawl keeps its in-site state in D/<crawl>. A worker
that dies loses nothing: its sites go to another worker after the ack wait, which replays the
pages already published. Stop it with ^C; start as many as you like, on as many machines.
A worker started before its server waits for it, saying so every few seconds; a server older
than nats-server 2.10.0 is refused at once.
With --warc DIR it archives every HTTP exchange it makes in DIR/<crawl> (give each worker its own
DIR); the coordinator's own fetches go to dwcrawl run --nats --warc.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "nats", Usage: "NATS server `URL` (comma-separated for several)", Required: true},
			&cli.StringFlag{Name: "dir", Value: "dwcrawl-worker", Usage: "worker `DIR`: one crawl directory per crawl"},
			&cli.IntFlag{Name: "sites", Value: 4, Usage: "sites explored at once"},
			&cli.StringFlag{Name: "warc", Usage: "archive every HTTP exchange as WARC 1.1 files in `DIR`/<crawl>"},
			&cli.DurationFlag{Name: "ack-wait", Value: 30 * time.Second, Usage: "how long a site may go without this worker's heartbeat before another takes it (set by the first worker of a cluster)"},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format: text or json"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "log level: debug, info, warn, error"},
		},
		Action: workerCmd,
	})
}

func workerCmd(c *cli.Context) error {
	if c.NArg() != 0 {
		return errExit{2, errors.New("worker: no arguments expected (the crawls come from the cluster)")}
	}
	log, err := newLogger(c, os.Stderr)
	if err != nil {
		return errExit{2, err}
	}
	return app.Work(c.Context, app.WorkOptions{NATS: c.String("nats"), Dir: c.String("dir"), Sites: c.Int("sites"),
		AckWait: c.Duration("ack-wait"), WARC: c.String("warc"), Logger: log})
}
