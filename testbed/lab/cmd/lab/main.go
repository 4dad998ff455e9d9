// Command lab loads and serves the lab of real web software (testbed/lab):
//
//	go run ./testbed/lab/cmd/lab up DIR      # load what is missing, serve until ^C
//	go run ./testbed/lab/cmd/lab load DIR    # load, write the truth, stop
//
// Install the Debian packages first with testbed/lab/install.sh.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/dwcrawl/dwcrawl/testbed/lab"
)

func main() {
	fs := flag.NewFlagSet("lab", flag.ExitOnError)
	apps := fs.String("apps", "", "comma-separated applications to run (default all: "+strings.Join(lab.AppNames(), ",")+")")
	port := fs.Int("port", 0, "loopback port of the web server (default: the lab directory's, else a free one)")
	quiet := fs.Bool("quiet", false, "no progress lines")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lab [flags] up|load DIR\n\n"+
			"  up DIR    load what DIR does not hold yet, serve every lab host until interrupted\n"+
			"  load DIR  load, write DIR/truth, stop\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.Parse(os.Args[1:])
	if fs.NArg() != 2 || (fs.Arg(0) != "up" && fs.Arg(0) != "load") {
		fs.Usage()
		os.Exit(2)
	}
	opts := lab.Options{Port: *port, Log: os.Stderr}
	if *quiet {
		opts.Log = nil
	}
	if *apps != "" {
		opts.Apps = strings.Split(*apps, ",")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, fs.Arg(0), fs.Arg(1), opts); err != nil {
		fmt.Fprintln(os.Stderr, "lab:", err)
		var me *lab.MissingError
		if errors.As(err, &me) {
			os.Exit(3)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, cmd, dir string, opts lab.Options) error {
	l, err := lab.Start(ctx, dir, opts)
	if err != nil {
		return err
	}
	defer l.Close()
	for app, why := range l.Missing {
		fmt.Printf("left out %s: %s\n", app, why)
	}
	var hosts []string
	for h := range l.Hosts {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	fmt.Printf("lab %s: %s\n", dir, l.Addr)
	for _, h := range hosts {
		fmt.Printf("  %s\n", l.URL(h, "/"))
	}
	sums, _ := json.Marshal(l.Truth.Summaries())
	fmt.Printf("truth: %s/truth (%s)\n", l.Dir, sums)
	timing, _ := json.Marshal(l.Timing)
	fmt.Printf("seconds: %s\n", timing)
	fmt.Printf("resolve: --resolve %s\n", strings.Join(l.Resolve(), " --resolve "))
	if cmd == "load" {
		return l.Close()
	}
	fmt.Printf("serving until interrupted (^C)\n")
	<-ctx.Done()
	return l.Close()
}
