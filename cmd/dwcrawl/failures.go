package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/store"
)

func init() {
	register(&cli.Command{
		Name:      "failures",
		Usage:     "list the URLs a crawl could not fetch, with the cause",
		UsageText: "dwcrawl failures --dir D [--format table|jsonl] [--cause CAUSE]",
		Description: "Prints every URL whose latest fetch failed, or that the profile's scope refused: the URL, the\n" +
			"cause (dns, refused, reset, tls, timeout, http-NNN, robots, blocked — the address policy, scope,\n" +
			"content-type, redirects, parse, ...), the error text, the HTTP requests made for it over all runs,\n" +
			"the runs that failed it and when it last failed. A URL fetched by a later run leaves the list;\n" +
			"`dwcrawl run` retries each failed URL on later runs, up to " + fmt.Sprint(crawl.MaxFailedRuns) + " runs.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` (as given to dwcrawl run --dir)", Required: true},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table or jsonl"},
			&cli.StringFlag{Name: "cause", Usage: "only the failures of this `CAUSE`"},
		},
		Action: failuresCmd,
	})
}

func failuresCmd(c *cli.Context) error {
	format := c.String("format")
	if format != "table" && format != "jsonl" {
		return errExit{2, fmt.Errorf("--format: want table or jsonl, got %q", format)}
	}
	db, err := openCrawlDir(c.String("dir"))
	if err != nil {
		return err
	}
	defer db.Close()
	var fails []store.Failure
	if err := db.ScanFailures("", func(f store.Failure) error {
		if cause := c.String("cause"); cause == "" || f.Cause == cause {
			fails = append(fails, f)
		}
		return nil
	}); err != nil {
		return err
	}
	w := c.App.Writer
	if format == "jsonl" {
		enc := json.NewEncoder(w)
		for _, f := range fails {
			if err := enc.Encode(f); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "url\tcause\tattempts\truns\ttime\terror")
	byCause := map[string]int{}
	for _, f := range fails {
		byCause[f.Cause]++
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", f.URL, f.Cause, f.Attempts, f.Runs,
			f.Time.Local().Format(time.DateTime), oneLine(f.Error, 160))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	causes := make([]string, 0, len(byCause))
	for k := range byCause {
		causes = append(causes, k)
	}
	sort.Slice(causes, func(i, j int) bool {
		if byCause[causes[i]] != byCause[causes[j]] {
			return byCause[causes[i]] > byCause[causes[j]]
		}
		return causes[i] < causes[j]
	})
	parts := make([]string, len(causes))
	for i, k := range causes {
		parts[i] = fmt.Sprintf("%s %d", k, byCause[k])
	}
	fmt.Fprintf(w, "%d failed URLs", len(fails))
	if len(parts) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
