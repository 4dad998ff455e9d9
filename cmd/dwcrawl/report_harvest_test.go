package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/dataset"
)

// TestReportHarvest harvests the simulated web, reports on the harvest's
// directory and checks the plot of records against queries per database
// against the databases `docs --list` reads from the directory: one line
// per database sent queries, ending at its queries and records, and a
// table row with its verdict.
func TestReportHarvest(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web and surfaces its databases")
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "harvest")
	if _, err := runCLI(t, "harvest", "--testbed", "--pages", "300", "--queries-per-db", "12", "--parallel", "2", "--dir", dir, "--quiet", autoProfile); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "docs", "--dir", dir, "--list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Databases []dataset.Database }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("docs --list --json: %v in %q", err, out)
	}
	want := map[string]dataset.Database{} // by form id
	for _, d := range list.Databases {
		if id, ok := strings.CutPrefix(d.Source, "form:"); ok && d.Queries > 0 {
			want[id] = d
		}
	}
	if len(want) == 0 {
		t.Fatalf("the harvest surfaced no database: %+v", list.Databases)
	}

	page := filepath.Join(tmp, "report.html")
	if _, err := runCLI(t, "report", "--dir", dir, "--out", page); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if paths := svgLinePaths(t, figureSVG(t, b, "surface-databases")); len(paths) < len(want) {
		t.Errorf("the databases plot draws %d paths for %d databases", len(paths), len(want))
	}
	// the figure's data: every point of every line, "run: ID (host)"
	fig := string(b[strings.Index(string(b), `<figure id="surface-databases"`):])
	fig = fig[:strings.Index(fig, "</figure>")]
	last := map[string][2]float64{}
	rowRE := regexp.MustCompile(`<tr><td>harvest: (\w+) \([^)]*\)</td><td>([\d.]+)</td><td>([\d.]+)</td></tr>`)
	for _, m := range rowRE.FindAllStringSubmatch(fig, -1) {
		x, _ := strconv.ParseFloat(m[2], 64)
		y, _ := strconv.ParseFloat(m[3], 64)
		if p, ok := last[m[1]]; ok && (x < p[0] || y < p[1]) {
			t.Errorf("database %s: point (%v, %v) after %v", m[1], x, y, p)
		}
		last[m[1]] = [2]float64{x, y}
	}
	if len(last) != len(want) {
		t.Errorf("the plot has %d lines (%v), the directory %d databases with queries", len(last), last, len(want))
	}
	for id, d := range want {
		if p := last[id]; p != [2]float64{float64(d.Queries), float64(d.Records)} {
			t.Errorf("database %s ends at %v, docs --list says %d queries, %d records", id, p, d.Queries, d.Records)
		}
		if !strings.Contains(string(b), "<td>"+id+"</td><td>") {
			t.Errorf("the databases table has no row for %s", id)
		}
	}
	t.Logf("%d databases plotted: %v", len(last), last)
}
