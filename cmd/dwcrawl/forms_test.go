package main

import (
	"encoding/csv"
	"encoding/json"
	"github.com/dwcrawl/dwcrawl/report"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

// formsFixture writes a crawl directory with three searchable forms.
func formsFixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crawl")
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fields := func(fs ...page.Field) json.RawMessage {
		b, _ := json.Marshal(fs)
		return b
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	forms := []store.Form{
		{Site: "http://cars.example", PageURL: "http://cars.example/search", Depth: 1, Index: 0, Kind: "search", Searchable: 0.97, DomainScore: 0.9,
			Relevant: true, Action: "http://cars.example/results", Method: "GET", FoundAt: at, PagesFetched: 12,
			Fields: fields(page.Field{Tag: "select", Type: "select-one", Name: "make", Options: []page.Option{{Value: "ford", Text: "Ford"}}},
				page.Field{Tag: "input", Type: "text", Name: "zip", Label: "ZIP code"}, page.Field{Tag: "input", Type: "hidden", Name: "t"},
				page.Field{Tag: "button", Type: "submit"})},
		{Site: "http://books.example", PageURL: "http://books.example/", Depth: 0, Index: 1, Kind: "search", Searchable: 0.8, DomainScore: 0.1,
			Action: "http://books.example/find", Method: "POST", FoundAt: at.Add(time.Minute), PagesFetched: 3,
			Fields: fields(page.Field{Tag: "input", Type: "text", Name: "title"}),
			Probe: &store.Probe{Decision: store.ProbeSiteSearch, Evidence: []string{"1 of 2 topic terms list records"},
				Queries: []store.ProbeQuery{{Query: "qzxv", Kind: "nonsense", Total: 0}, {Query: "car", Kind: "topic", Records: 3, Total: 3}}}},
		{Site: "http://cars.example", PageURL: "http://cars.example/", Depth: 0, Index: 0, Kind: "search", Searchable: 0.9, DomainScore: 0.7,
			Relevant: true, FoundAt: at.Add(2 * time.Minute), PagesFetched: 40, Fields: fields(page.Field{Tag: "input", Type: "search", Name: "q"})},
	}
	for _, f := range forms {
		if err := db.PutForm(f); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFormsCommand(t *testing.T) {
	dir := formsFixture(t)
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, out string)
	}{
		{"table", nil, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 5 || !strings.HasPrefix(lines[0], "page#") || !strings.HasPrefix(lines[1], "3 ") {
				t.Errorf("table, in found order:\n%s", out)
			}
			if !strings.Contains(lines[0], "probe") || !strings.Contains(lines[1], "site-search") || !strings.Contains(lines[2], " - ") {
				t.Errorf("table: no probe column with the decision (and - for forms not probed):\n%s", out)
			}
			for _, want := range []string{"make:select-one zip:text", "http://cars.example/search", "0.97", "3 searchable forms, 2 relevant"} {
				if !strings.Contains(out, want) {
					t.Errorf("table lacks %q:\n%s", want, out)
				}
			}
		}},
		{"relevant", []string{"--relevant"}, func(t *testing.T, out string) {
			if strings.Contains(out, "books.example") || !strings.Contains(out, "2 searchable forms, 2 relevant") {
				t.Errorf("--relevant:\n%s", out)
			}
		}},
		{"jsonl", []string{"--format", "jsonl"}, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 3 {
				t.Fatalf("%d lines:\n%s", len(lines), out)
			}
			var f report.FormRow
			if err := json.Unmarshal([]byte(lines[1]), &f); err != nil {
				t.Fatal(err)
			}
			if f.PageURL != "http://cars.example/search" || f.Depth != 1 || f.Kind != "search" || !f.Relevant || f.Searchable != 0.97 ||
				f.DomainScore != 0.9 || len(f.Fields) != 4 || f.Fields[0].Options[0] != "Ford" || f.Fields[1].Label != "ZIP code" ||
				!f.FoundAt.Equal(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)) || f.PagesFetched != 12 || f.ID == "" {
				t.Errorf("jsonl form %+v", f)
			}
			if f.ProbeDecision != "" || f.Probe != nil {
				t.Errorf("jsonl: a form not probed has probe %q %+v", f.ProbeDecision, f.Probe)
			}
			var g report.FormRow
			if err := json.Unmarshal([]byte(lines[0]), &g); err != nil {
				t.Fatal(err)
			}
			if g.ProbeDecision != "site-search" || g.Probe == nil || len(g.Probe.Queries) != 2 || g.Probe.Queries[1].Records != 3 || len(g.Probe.Evidence) != 1 {
				t.Errorf("jsonl: probed form %+v probe %+v", g, g.Probe)
			}
		}},
		{"csv", []string{"--format", "csv"}, func(t *testing.T, out string) {
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 4 || strings.Join(rows[0], ",") != strings.Join(report.FormsCSVHeader, ",") {
				t.Fatalf("csv:\n%s", out)
			}
			if r := rows[2]; r[1] != "http://cars.example" || r[3] != "1" || r[6] != "true" || r[11] != "make:select-one zip:text" || r[12] != "2025-03-01T12:00:00Z" || r[14] != "" {
				t.Errorf("csv row %v", r)
			}
			if r := rows[1]; r[14] != "site-search" {
				t.Errorf("csv row of the probed form: probe %q", r[14])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runApp(t, append([]string{"forms", "--dir", dir}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, out)
		})
	}
}

func TestFormsErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"missing dir", []string{"--dir", filepath.Join(empty, "none")}, "no such crawl directory", 1},
		{"not a crawl", []string{"--dir", empty}, "not a dwcrawl crawl directory", 1},
		{"format", []string{"--dir", empty, "--format", "xml"}, "--format", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runApp(t, append([]string{"forms"}, tc.args...)...)
			ee, ok := err.(errExit)
			if !ok || ee.code != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want exit %d with %q", err, tc.code, tc.want)
			}
		})
	}
}
