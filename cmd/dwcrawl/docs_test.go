package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

// docsFixture is formsFixture's crawl directory with records surfaced from
// two of its forms, sharing one record (the same car, titled differently).
func docsFixture(t *testing.T) (dir string, sources []string) {
	t.Helper()
	dir = formsFixture(t)
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Date(2025, 3, 2, 9, 30, 0, 0, time.UTC)
	harvests := []struct {
		page  string
		index int
		query string
		docs  []keyword.Doc
	}{
		{"http://cars.example/search", 0, "ford", []keyword.Doc{
			{URL: "http://cars.example/car/1", Text: "Ford Focus 2011, 42000 km", Fields: map[string]string{"title": "Ford Focus 2011", "price": "7900"}},
			{URL: "http://cars.example/car/2", Text: "Ford Fiesta 2015", Fields: map[string]string{"title": "Ford Fiesta 2015"}}}},
		{"http://books.example/", 1, "focus", []keyword.Doc{
			{URL: "http://books.example/item?id=9", Text: "FORD FOCUS (2011)", Fields: map[string]string{"title": "FORD FOCUS (2011)", "isbn": "n/a"}}}},
	}
	for i, h := range harvests {
		src := "form:" + store.FormID(h.page, h.index)
		sources = append(sources, src)
		e := surface.Entry{Log: surface.QueryLog{N: 1, Query: h.query, Time: at.Add(time.Duration(i) * time.Minute).UnixMilli()}}
		for _, d := range h.docs {
			e.Results, e.Fresh, e.Docs = append(e.Results, d.Key()), append(e.Fresh, d.Key()), append(e.Docs, d)
		}
		if err := (&surface.StoreJournal{DB: db, Source: src}).Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	return dir, sources
}

func exitCode(err error) int {
	var e errExit
	if errors.As(err, &e) {
		return e.code
	}
	return -1
}

func TestDocsCommand(t *testing.T) {
	dir, sources := docsFixture(t)
	out, err := runCLI(t, "docs", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for sc := bufio.NewScanner(strings.NewReader(out)); sc.Scan(); {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records exported, want 3:\n%s", len(recs), out)
	}
	// the provenance names issue 30 spells out, with the fixture's values
	for _, m := range recs {
		for _, k := range []string{"source", "site", "query", "url", "time", "fields", "signature", "same_as"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("record lacks %q: %v", k, m)
			}
		}
		host := map[string]string{sources[0]: "cars.example", sources[1]: "books.example"}[m["source"].(string)]
		if m["site"] != host || !strings.HasPrefix(m["url"].(string), "http://"+host+"/") {
			t.Fatalf("record %v: site %q", m, host)
		}
	}
	if recs[0]["source"] == recs[2]["source"] {
		t.Fatalf("records not ordered by source: %v", recs)
	}
	// the Ford Focus of both sites is linked, the Fiesta is not
	for _, m := range recs {
		linked := len(m["same_as"].([]any)) > 0
		if focus := strings.Contains(strings.ToLower(m["text"].(string)), "focus"); linked != focus {
			t.Fatalf("record %v: linked %v", m, linked)
		}
	}

	outDir := t.TempDir()
	csvPath := filepath.Join(outDir, "records.csv")
	if err := os.WriteFile(csvPath, []byte("old content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "docs", "--dir", dir, "--format", "csv", "--out", csvPath); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 4 {
		t.Fatalf("csv: %d rows, %v", len(rows), err)
	}
	for _, col := range []string{"source", "site", "query", "url", "time", "fields.isbn", "fields.price", "fields.title"} {
		found := false
		for _, h := range rows[0] {
			found = found || h == col
		}
		if !found {
			t.Fatalf("csv header %v lacks %s", rows[0], col)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(outDir, ".*.tmp")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}

	pqPath := filepath.Join(outDir, "records.parquet")
	if _, err := runCLI(t, "docs", "--dir", dir, "--format", "parquet", "--out", pqPath, "--source", sources[0]); err != nil {
		t.Fatal(err)
	}
	pf, err := os.Open(pqPath)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	pr := parquet.NewReader(pf)
	var rowsPQ []map[string]any
	for {
		m := map[string]any{}
		if err := pr.Read(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rowsPQ = append(rowsPQ, m)
	}
	if len(rowsPQ) != 2 || rowsPQ[0]["source"] != sources[0] || rowsPQ[0]["fields"].(map[string]any)["price"] != "7900" {
		t.Fatalf("parquet: %v", rowsPQ)
	}
}

func TestDocsErrors(t *testing.T) {
	dir, _ := docsFixture(t)
	empty := filepath.Join(t.TempDir(), "empty")
	db, err := store.Open(empty, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown format", []string{"--dir", dir, "--format", "xlsx"}, 2, "jsonl, csv or parquet"},
		{"unwritable out", []string{"--dir", dir, "--out", filepath.Join(notDir, "x.jsonl")}, 1, "--out " + filepath.Join(notDir, "x.jsonl")},
		{"out is a directory", []string{"--dir", dir, "--out", t.TempDir()}, 1, "is a directory"},
		{"empty directory", []string{"--dir", empty}, 1, "dwcrawl harvest PROFILE"},
		{"unknown source", []string{"--dir", dir, "--source", "form:nope"}, 1, "--list"},
		{"json without list", []string{"--dir", dir, "--json"}, 2, "--list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runCLI(t, append([]string{"docs"}, c.args...)...)
			if err == nil || exitCode(err) != c.code || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v (exit %d), want exit %d and %q", err, exitCode(err), c.code, c.want)
			}
		})
	}
	if out, err := runCLI(t, "docs", "--dir", empty, "--list"); err != nil || !strings.Contains(out, "no databases") {
		t.Fatalf("--list of an empty directory: %q %v", out, err)
	}
}

func TestDocsList(t *testing.T) {
	dir, sources := docsFixture(t)
	out, err := runCLI(t, "docs", "--dir", dir, "--list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "source site verdict records queries linked coverage interval estimator" {
		t.Fatalf("table:\n%s", out)
	}
	sort.Strings(sources)
	for i, src := range sources {
		row := strings.Fields(lines[1+i])
		if len(row) < 6 || row[0] != src {
			t.Fatalf("row %d %v, want source %s (sorted)", i, row, src)
		}
	}
	if !strings.Contains(lines[3], "3 records, 2 linked") {
		t.Fatalf("total line %q", lines[3])
	}
	out, err = runCLI(t, "docs", "--dir", dir, "--list", "--source", sources[1])
	if lines := strings.Split(strings.TrimSpace(out), "\n"); err != nil || len(lines) != 3 || !strings.HasPrefix(lines[1], sources[1]+" ") {
		t.Fatalf("--list --source %s: %q %v", sources[1], out, err)
	}
	out, err = runCLI(t, "docs", "--dir", dir, "--list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Databases []map[string]any `json:"databases"`
		Records   int              `json:"records"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Databases) != 2 || list.Records != 3 {
		t.Fatalf("--json: %s %v", out, err)
	}
	for _, d := range list.Databases {
		for _, k := range []string{"source", "interface", "site", "records", "queries", "linked", "coverage_estimate"} {
			if _, ok := d[k]; !ok {
				t.Fatalf("database lacks %q: %v", k, d)
			}
		}
	}
}
