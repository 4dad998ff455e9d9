package main

import (
	"fmt"
	"io"
	"log/slog"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/store"
)

func init() {
	register(&cli.Command{
		Name:      "check",
		Usage:     "verify a crawl directory without changing it",
		UsageText: "dwcrawl check --dir D [--json]",
		Description: "Opens the directory read-only (a snapshot when a crawl is running on it), reads the manifest and the\n" +
			"write-ahead log, reads every block of every table file checking its checksum, checks the order of\n" +
			"the keys across levels, and decodes every record of every table. Prints what the directory is, the\n" +
			"table files and the record counts per table, and every problem found, naming the file or the key;\n" +
			"for a crawl, it also recounts from the records what the summary's counters count.\n" +
			"Exits 0 when nothing is wrong, 1 when a problem was found.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` to verify", Required: true},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: checkCmd,
	})
}

func checkCmd(c *cli.Context) error {
	dir := c.String("dir")
	rep, err := store.Check(c.Context, dir, store.Options{Logger: quietLogger()})
	if err != nil {
		return errExit{1, err}
	}
	if rep.OK() && rep.Records["counters"] > 0 {
		// the numbers a crawl's summary prints must match its records
		db, err := store.OpenReadOnly(dir, store.Options{Logger: quietLogger()})
		if err != nil {
			return errExit{1, err}
		}
		problems, err := crawl.CheckCounters(db)
		db.Close()
		if err != nil {
			problems = append(problems, err.Error())
		}
		rep.Problems = append(rep.Problems, problems...)
	}
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, rep); err != nil {
			return err
		}
	} else {
		writeCheck(c, rep)
	}
	if !rep.OK() {
		return errExit{1, fmt.Errorf("check: %s: %d problems", dir, len(rep.Problems))}
	}
	return nil
}

func writeCheck(c *cli.Context, rep *store.CheckReport) {
	w := c.App.Writer
	fmt.Fprintf(w, "directory   %s", rep.Dir)
	if rep.Snapshot {
		fmt.Fprint(w, " (in use: a snapshot was checked)")
	}
	fmt.Fprintln(w)
	if id := rep.Identity; id != nil {
		fmt.Fprintf(w, "holds       %s", id.Kind)
		if id.Profile != "" {
			fmt.Fprintf(w, " of profile %s (domain %s), strategy %s, %s", id.Profile, id.Domain, id.Strategy, id.Web)
		}
		fmt.Fprintln(w)
	}
	var size uint64
	bad := 0
	for _, t := range rep.Tables {
		size += t.Size
		if !t.OK {
			bad++
		}
	}
	fmt.Fprintf(w, "tables      %d files, %.1f MiB, %d damaged\n", len(rep.Tables), float64(size)/(1<<20), bad)
	names := make([]string, 0, len(rep.Records))
	for n := range rep.Records {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %d records\n", n, rep.Records[n])
	}
	if rep.OK() {
		fmt.Fprintln(w, "no problems")
		return
	}
	fmt.Fprintf(w, "%d problems:\n", len(rep.Problems))
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

// quietLogger drops the store's own messages: check reports every problem.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
