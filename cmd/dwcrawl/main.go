// Command dwcrawl is a deep-web crawler: it discovers the searchable forms of
// a topic, surfaces the hidden databases behind keyword interfaces, and
// enriches a local table from a top-k keyword-search database.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sort"
	"syscall"

	"github.com/urfave/cli/v2"
)

// commands is filled by the init functions of the command files, one file per
// command, so adding a command never edits this file.
var commands []*cli.Command

func register(c *cli.Command) { commands = append(commands, c) }

// errExit carries a process exit code out of a command without printing twice.
type errExit struct {
	code int
	err  error
}

func (e errExit) Error() string { return e.err.Error() }
func (e errExit) Unwrap() error { return e.err }

func newApp() *cli.App {
	sort.Slice(commands, func(i, j int) bool { return commands[i].Name < commands[j].Name })
	hintOnce.Do(func() { addFlagHints(commands) })
	return &cli.App{
		Name:                 "dwcrawl",
		Usage:                "discover, surface and enrich from the deep web",
		Description:          "dwcrawl finds searchable forms of a topic (run), downloads the hidden database\nbehind a keyword interface (surface) and enriches a local table from it (enrich).\nEvery command runs offline against the embedded simulated web with --testbed.",
		Version:              version,
		Commands:             commands,
		EnableBashCompletion: true,
		HideVersion:          false,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cpuprofile", Hidden: true, Usage: "write a CPU profile of the command to `FILE` (go tool pprof)"},
			&cli.StringFlag{Name: "memprofile", Hidden: true, Usage: "write the command's allocations (go tool pprof -sample_index=alloc_space) to `FILE` when it ends"},
		},
		Before: startProfile,
		After:  stopProfile,
	}
}

// profileStop ends the CPU profile --cpuprofile started (nil: none).
var profileStop func() error

func startProfile(c *cli.Context) error {
	if mem := c.String("memprofile"); mem != "" {
		runtime.MemProfileRate = 64 << 10 // fewer samples than the default: the profile is of a long crawl
		profileStop = func() error {
			f, err := os.Create(mem)
			if err != nil {
				return err
			}
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				f.Close()
				return fmt.Errorf("--memprofile: %w", err)
			}
			return f.Close()
		}
	}
	path := c.String("cpuprofile")
	if path == "" {
		return nil
	}
	if profileStop != nil {
		return fmt.Errorf("--cpuprofile and --memprofile: give one")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	profileStop = func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}
	return nil
}

func stopProfile(*cli.Context) error {
	if profileStop == nil {
		return nil
	}
	stop := profileStop
	profileStop = nil
	return stop()
}

func main() {
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newApp().RunContext(ctx, os.Args); err != nil {
		code := 1
		var ee errExit
		if errors.As(err, &ee) {
			code = ee.code
		}
		fmt.Fprintln(os.Stderr, "dwcrawl:", err)
		stopProfile(nil)
		os.Exit(code)
	}
}
