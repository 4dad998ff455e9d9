package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

func init() {
	register(&cli.Command{
		Name:      "forms",
		Usage:     "export the searchable forms a crawl found",
		UsageText: "dwcrawl forms --dir D [--format table|jsonl|csv] [--relevant]",
		Description: "Prints every searchable form recorded in a crawl directory, in the order the crawl found them:\n" +
			"its site, page URL, depth in the site, kind, whether the crawler judged it relevant to the profile's\n" +
			"domain, the searchable-form probability and domain score of the form classifier, its fields, and\n" +
			"when it was found (wall time, and the number of pages fetched by then).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` (as given to dwcrawl run --dir)", Required: true},
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

// formField is one field of an exported form.
type formField struct {
	Tag     string   `json:"tag"`
	Type    string   `json:"type"`
	Name    string   `json:"name,omitempty"`
	Label   string   `json:"label,omitempty"`
	Options []string `json:"options,omitempty"`
}

// formOut is one exported form (a line of --format jsonl).
type formOut struct {
	ID           string      `json:"id"`
	Site         string      `json:"site"`
	PageURL      string      `json:"page_url"`
	Depth        int         `json:"depth"`
	Index        int         `json:"index"`
	Kind         string      `json:"kind"`
	Relevant     bool        `json:"relevant"`
	Searchable   float64     `json:"searchable"`
	DomainScore  float64     `json:"domain_score"`
	Method       string      `json:"method,omitempty"`
	Action       string      `json:"action,omitempty"`
	Fields       []formField `json:"fields"`
	FoundAt      time.Time   `json:"found_at"`
	PagesFetched int         `json:"pages_fetched"`
}

func exportForm(f store.Form) formOut {
	o := formOut{ID: f.ID, Site: f.Site, PageURL: f.PageURL, Depth: f.Depth, Index: f.Index, Kind: f.Kind, Relevant: f.Relevant,
		Searchable: f.Searchable, DomainScore: f.DomainScore, Method: f.Method, Action: f.Action, FoundAt: f.FoundAt,
		PagesFetched: f.PagesFetched, Fields: []formField{}}
	var fields []page.Field
	if len(f.Fields) > 0 && json.Unmarshal(f.Fields, &fields) == nil {
		for _, pf := range fields {
			ff := formField{Tag: pf.Tag, Type: pf.Type, Name: pf.Name, Label: pf.Label}
			for _, op := range pf.Options {
				ff.Options = append(ff.Options, cmpOr(op.Text, op.Value))
			}
			o.Fields = append(o.Fields, ff)
		}
	}
	return o
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fieldSummary renders the fields a user fills in, "name:type" separated by
// spaces (hidden inputs and buttons left out).
func fieldSummary(fs []formField) string {
	var parts []string
	for _, f := range fs {
		switch f.Type {
		case "hidden", "submit", "button", "reset", "image":
			continue
		}
		name := cmpOr(f.Name, cmpOr(f.Label, "?"))
		parts = append(parts, name+":"+f.Type)
	}
	return strings.Join(parts, " ")
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
	var forms []formOut
	err = db.ScanForms(func(f store.Form) error {
		if !c.Bool("relevant") || f.Relevant {
			forms = append(forms, exportForm(f))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(forms, func(i, j int) bool {
		a, b := forms[i], forms[j]
		if a.PagesFetched != b.PagesFetched {
			return a.PagesFetched < b.PagesFetched
		}
		if a.PageURL != b.PageURL {
			return a.PageURL < b.PageURL
		}
		return a.Index < b.Index
	})
	switch format {
	case "jsonl":
		return writeFormsJSONL(c.App.Writer, forms)
	case "csv":
		return writeFormsCSV(c.App.Writer, forms)
	}
	return writeFormsTable(c.App.Writer, forms)
}

func writeFormsJSONL(w io.Writer, forms []formOut) error {
	enc := json.NewEncoder(w)
	for _, f := range forms {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}

var formsCSVHeader = []string{"id", "site", "page_url", "depth", "index", "kind", "relevant", "searchable", "domain_score",
	"method", "action", "fields", "found_at", "pages_fetched"}

func writeFormsCSV(w io.Writer, forms []formOut) error {
	cw := csv.NewWriter(w)
	cw.Write(formsCSVHeader)
	for _, f := range forms {
		cw.Write([]string{f.ID, f.Site, f.PageURL, strconv.Itoa(f.Depth), strconv.Itoa(f.Index), f.Kind, strconv.FormatBool(f.Relevant),
			fmt.Sprintf("%.3f", f.Searchable), fmt.Sprintf("%.3f", f.DomainScore), f.Method, f.Action, fieldSummary(f.Fields),
			f.FoundAt.UTC().Format(time.RFC3339), strconv.Itoa(f.PagesFetched)})
	}
	cw.Flush()
	return cw.Error()
}

func writeFormsTable(w io.Writer, forms []formOut) error {
	if len(forms) == 0 {
		_, err := fmt.Fprintln(w, "no searchable forms recorded")
		return err
	}
	relevant := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "page#\tsite\tdepth\tkind\trelevant\tsearchable\tdomain\tfields\tpage URL\tfound at")
	for _, f := range forms {
		rel := "no"
		if f.Relevant {
			rel = "yes"
			relevant++
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%.2f\t%.2f\t%s\t%s\t%s\n", f.PagesFetched, f.Site, f.Depth, f.Kind, rel,
			f.Searchable, f.DomainScore, fieldSummary(f.Fields), f.PageURL, f.FoundAt.Local().Format("2006-01-02 15:04:05"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d searchable forms, %d relevant\n", len(forms), relevant)
	return err
}
