package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/dataset"
)

func init() {
	register(&cli.Command{
		Name:      "docs",
		Usage:     "export the records surfaced into a crawl directory as one dataset",
		UsageText: "dwcrawl docs --dir DIR [--source NAME] [--format jsonl|csv|parquet] [--out FILE]\n   dwcrawl docs --dir DIR --list [--json]",
		Description: "Exports every record that `dwcrawl surface` or `dwcrawl harvest` downloaded into DIR, by source\n" +
			"then download order, with its provenance and its fields:\n" +
			"  record     SOURCE/SEQ, the record's ID in the directory\n" +
			"  source     the database: form:ID for a recorded form, else the plugin or API URL\n" +
			"  interface  the form ID (else the source); site: the host it answers from\n" +
			"  query      the text of the query that downloaded it first (query_n: its number)\n" +
			"  url, time  the record's URL; when the query was answered (RFC 3339, empty for old data)\n" +
			"  id, key, seq, text, fields\n" +
			"  signature  its normalised title hashed where titles identify its database's records,\n" +
			"             else its text's; group, same_as: the records that are the same (equal texts,\n" +
			"             or equal identifying titles), same_as those of other databases (docs/dataset.md)\n" +
			"jsonl writes one object per record; csv a header row, a column per value above and one\n" +
			"per field name seen (fields.NAME); parquet the same columns (fields a group of optional\n" +
			"strings, same_as a list, time a UTC timestamp). --list prints the databases with their record\n" +
			"and query counts, records linked to another database, and the last coverage estimate with its\n" +
			"interval and estimator (--json: as JSON).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR` of the harvest", Required: true},
			&cli.StringFlag{Name: "source", Usage: "only this database (as listed by --list)"},
			&cli.StringFlag{Name: "format", Value: "jsonl", Usage: "output format: jsonl, csv or parquet"},
			&cli.StringFlag{Name: "out", Usage: "write to `FILE` instead of stdout (replaced only when the export succeeds)"},
			&cli.BoolFlag{Name: "list", Usage: "list the databases instead"},
			&cli.BoolFlag{Name: "json", Usage: "with --list: print the list as JSON"},
		},
		Action: runDocs,
	})
}

func runDocs(c *cli.Context) error {
	format, err := dataset.ParseFormat(c.String("format"))
	if err != nil {
		return errExit{2, fmt.Errorf("--format: %w", err)}
	}
	if c.Bool("json") && !c.Bool("list") {
		return errExit{2, fmt.Errorf("--json applies to --list; the export's format is --format")}
	}
	dir := c.String("dir")
	db, err := openCrawlDir(dir)
	if err != nil {
		return err
	}
	defer db.Close()
	ds, err := dataset.Load(db, c.String("source"))
	if err != nil {
		return err
	}
	if c.Bool("list") {
		return writeDatabases(c.App.Writer, ds.Databases(), c.String("source"), c.Bool("json"), dir)
	}
	if ds.Len() == 0 {
		if src := c.String("source"); src != "" {
			return errExit{1, fmt.Errorf("no records of source %q in %s (`dwcrawl docs --dir %s --list` lists its databases)", src, dir, dir)}
		}
		return errExit{1, fmt.Errorf("no records in %s: surface a form the crawl recorded (`dwcrawl surface --form ID --dir %s`, IDs from `dwcrawl forms --dir %s`) or harvest a topic (`dwcrawl harvest PROFILE --dir %s`)", dir, dir, dir, dir)}
	}
	out := c.String("out")
	if out == "" {
		bw := bufio.NewWriter(c.App.Writer)
		if _, err := ds.Write(bw, format); err != nil {
			return err
		}
		return bw.Flush()
	}
	n, err := writeFileAtomic(out, func(w io.Writer) (int, error) { return ds.Write(w, format) })
	if err != nil {
		return errExit{1, err}
	}
	fmt.Fprintf(c.App.ErrWriter, "%d records written to %s\n", n, out)
	return nil
}

// writeFileAtomic writes path through a temporary file beside it, renamed
// over path only when write succeeds, so a failed export keeps what path
// held.
func writeFileAtomic(path string, write func(io.Writer) (int, error)) (int, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return 0, fmt.Errorf("--out %s: is a directory", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return 0, fmt.Errorf("--out %s: cannot write there: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	bw := bufio.NewWriter(tmp)
	n, err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return 0, fmt.Errorf("--out %s: %w", path, err)
	}
	return n, nil
}

// writeDatabases prints the databases of a crawl directory (only source's
// when not "") as a table or JSON.
func writeDatabases(w io.Writer, all []dataset.Database, source string, asJSON bool, dir string) error {
	dbs := []dataset.Database{}
	for _, d := range all {
		if source == "" || d.Source == source {
			dbs = append(dbs, d)
		}
	}
	if asJSON {
		records := 0
		for _, d := range dbs {
			records += d.Records
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Databases []dataset.Database `json:"databases"`
			Records   int                `json:"records"`
		}{dbs, records})
	}
	if len(dbs) == 0 && source != "" {
		_, err := fmt.Fprintf(w, "no database %q in %s (`dwcrawl docs --dir %s --list` lists them all)\n", source, dir, dir)
		return err
	}
	if len(dbs) == 0 {
		_, err := fmt.Fprintf(w, "no databases surfaced in %s (`dwcrawl surface --form ID` or `dwcrawl harvest PROFILE` with --dir %s)\n", dir, dir)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tsite\tverdict\trecords\tqueries\tlinked\tcoverage\tinterval\testimator")
	records, linked := 0, 0
	for _, d := range dbs {
		records += d.Records
		linked += d.Linked
		cov, iv, est := "-", "-", "-"
		if d.Estimator != "" {
			est = fmt.Sprintf("%s at query %d", d.Estimator, d.EstimateQuery)
		}
		if d.CoverageEstimate != nil {
			cov = fmt.Sprintf("%.1f%%", 100**d.CoverageEstimate)
			if d.CoverageLow != nil && d.CoverageHigh != nil {
				iv = fmt.Sprintf("%.1f–%.1f%%", 100**d.CoverageLow, 100**d.CoverageHigh)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", d.Source, listCell(d.Site), listCell(d.Verdict), d.Records, d.Queries, d.Linked, cov, iv, est)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d database(s), %d records, %d linked to a record of another database\n", len(dbs), records, linked)
	return err
}

// listCell shows an empty cell of the database table as "-".
func listCell(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
