package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/report"
	"github.com/dwcrawl/dwcrawl/store"
)

func init() {
	register(&cli.Command{
		Name:      "forms",
		Usage:     "export the searchable forms a crawl found",
		UsageText: "dwcrawl forms --dir D [--format table|jsonl|csv] [--relevant]",
		Description: "Prints every searchable form recorded in a crawl directory, in the order the crawl found them:\n" +
			"its site, page URL, depth in the site, kind, whether the crawler judged it relevant to the profile's\n" +
			"domain, the searchable-form probability and domain score of the form classifier, the decision of\n" +
			"post-query probing (topic-database, site-search, not-database; - when not probed; jsonl adds the\n" +
			"probe queries and the evidence), its fields, and when it was found (wall time, and the number of\n" +
			"pages fetched by then).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` (as given to dwcrawl run --dir)", Required: true},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table, jsonl or csv"},
			&cli.BoolFlag{Name: "relevant", Usage: "only the forms judged relevant to the domain"},
		},
		Action: formsCmd,
	})
}

// openCrawlDir opens an existing crawl directory (store.Open would create a
// missing one).
func openCrawlDir(dir string) (*store.DB, error) {
	if _, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errExit{1, fmt.Errorf("no crawl directory %s", dir)}
		}
		return nil, err
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*")); len(m) == 0 {
		return nil, errExit{1, fmt.Errorf("%s is not a crawl directory (no database in it)", dir)}
	}
	return store.Open(dir, store.Options{})
}

func formsCmd(c *cli.Context) error {
	format := c.String("format")
	switch format {
	case "table", "jsonl", "csv":
	default:
		return errExit{2, fmt.Errorf("--format: want table, jsonl or csv, got %q", format)}
	}
	db, err := openCrawlDir(c.String("dir"))
	if err != nil {
		return err
	}
	defer db.Close()
	forms, err := report.Forms(db, c.Bool("relevant"))
	if err != nil {
		return err
	}
	switch format {
	case "jsonl":
		return report.WriteFormsJSONL(c.App.Writer, forms)
	case "csv":
		return report.WriteFormsCSV(c.App.Writer, forms)
	}
	return writeFormsTable(c.App.Writer, forms)
}

func writeFormsTable(w io.Writer, forms []report.FormRow) error {
	if len(forms) == 0 {
		_, err := fmt.Fprintln(w, "no searchable forms recorded")
		return err
	}
	relevant := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "page#\tsite\tdepth\tkind\trelevant\tsearchable\tdomain\tprobe\tfields\tpage URL\tfound at")
	for _, f := range forms {
		rel := "no"
		if f.Relevant {
			rel = "yes"
			relevant++
		}
		pr := "-"
		if f.ProbeDecision != "" {
			pr = f.ProbeDecision
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\n", f.PagesFetched, f.Site, f.Depth, f.Kind, rel,
			f.Searchable, f.DomainScore, pr, report.FieldSummary(f.Fields), f.PageURL, f.FoundAt.Local().Format("2006-01-02 15:04:05"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d searchable forms, %d relevant\n", len(forms), relevant)
	return err
}
