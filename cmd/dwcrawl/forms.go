package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/report"
	"github.com/dwcrawl/dwcrawl/store"
)

func init() {
	register(&cli.Command{
		Name:      "forms",
		Usage:     "export the searchable forms a crawl found",
		UsageText: "dwcrawl forms --dir D | --nats URL --crawl NAME [--format table|jsonl|csv] [--relevant]",
		Description: "Prints every searchable form recorded in a crawl directory, in the order the crawl found them:\n" +
			"its site, page URL, depth in the site, kind, whether the crawler judged it relevant to the profile's\n" +
			"domain, the searchable-form probability and domain score of the form classifier, the decision of\n" +
			"post-query probing (topic-database, site-search, not-database; - when not probed; jsonl adds the\n" +
			"probe queries and the evidence), its fields, and when it was found (wall time, and the number of\n" +
			"pages fetched by then). With --nats URL --crawl NAME\n" +
			"it reads the forms a cluster crawl recorded from the cluster's forms stream (each form once, by id).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` (as given to dwcrawl run --dir)"},
			&cli.StringFlag{Name: "nats", Usage: "NATS server `URL` of a cluster crawl (with --crawl)"},
			&cli.StringFlag{Name: "crawl", Usage: "`NAME` of the crawl on the cluster (as dwcrawl run --nats printed it)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table, jsonl or csv"},
			&cli.BoolFlag{Name: "relevant", Usage: "only the forms judged relevant to the domain"},
		},
		Action: formsCmd,
	})
}

// openCrawlDir opens an existing crawl directory read-only: a missing,
// foreign or damaged directory is an error naming it, and nothing in it is
// created or changed. While a crawl runs on it, a snapshot is read.
func openCrawlDir(dir string) (*store.DB, error) {
	db, err := store.OpenReadOnly(dir, store.Options{})
	if err != nil {
		return nil, errExit{1, err}
	}
	return db, nil
}

func formsCmd(c *cli.Context) error {
	format := c.String("format")
	switch format {
	case "table", "jsonl", "csv":
	default:
		return errExit{2, fmt.Errorf("--format: want table, jsonl or csv, got %q", format)}
	}
	forms, err := formsOf(c)
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

// formsOf reads the forms of --dir, or of --crawl on the cluster at --nats.
func formsOf(c *cli.Context) ([]report.FormRow, error) {
	dir, url, name := c.String("dir"), c.String("nats"), c.String("crawl")
	switch {
	case dir != "" && (url != "" || name != ""):
		return nil, errExit{2, errors.New("give either --dir or --nats with --crawl")}
	case dir != "":
		db, err := openCrawlDir(dir)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		return report.Forms(db, c.Bool("relevant"))
	case url == "" || name == "":
		return nil, errExit{2, errors.New("give --dir, or --nats with --crawl")}
	}
	return app.ClusterForms(c.Context, url, name, c.Bool("relevant"))
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
