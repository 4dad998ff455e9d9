package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func init() {
	fetch.Version = version // the User-Agent names the build
	register(&cli.Command{
		Name:  "version",
		Usage: "print the dwcrawl version and build information",
		Action: func(c *cli.Context) error {
			rev := "unknown"
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						rev = s.Value
					}
				}
			}
			fmt.Fprintf(c.App.Writer, "dwcrawl %s (commit %s, %s, %s/%s)\n", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	})
}
