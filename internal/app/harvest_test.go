package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// harvestTruth is the simulated web's truth of one database a harvest met.
type harvestTruthRow struct {
	db              HarvestDatabase
	database        string // simweb database id ("" for a form without one)
	domain          string
	size, got       int
	relevantByTruth bool
}

// harvestTruth joins a harvest's databases with the simulated web's truth:
// the hidden database behind each form and how many of its records the
// harvest stored (distinct record URLs, over every form of that database).
func harvestTruth(t *testing.T, w *simweb.Web, dir string, sum *HarvestSummary, domain string) []harvestTruthRow {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var buf bytes.Buffer
	if _, err := surface.ExportDocs(db, "", &buf); err != nil {
		t.Fatal(err)
	}
	urls := map[string]bool{}
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var d surface.StoredDoc
		if err := dec.Decode(&d); err != nil {
			t.Fatal(err)
		}
		urls[d.URL] = true
	}
	perDB := map[string]int{}
	for u := range urls {
		if i := strings.Index(u, "/record/"); i > 0 {
			perDB[strings.TrimPrefix(strings.TrimPrefix(u[:i], "http://"), "https://")]++
		}
	}
	var rows []harvestTruthRow
	for _, d := range sum.Databases {
		f, ok, err := db.GetForm(d.ID)
		if err != nil || !ok {
			t.Fatalf("database %s: no such form (%v)", d.ID, err)
		}
		r := harvestTruthRow{db: d}
		if fi, ok := w.FormAt(f.PageURL, f.Index); ok && fi.Database != "" {
			_, info, _ := w.Database(fi.Database)
			r.database, r.domain, r.size = fi.Database, info.Domain, info.Size
			r.got = perDB[fi.Database]
			r.relevantByTruth = fi.Searchable && fi.Domain == domain
		}
		rows = append(rows, r)
	}
	return rows
}

// TestHarvestTestbed is issue 30's target on the simulated web: `harvest
// --testbed --pages 3000 domains/auto.lua` probes every relevant form it
// records, and surfaces every database of the topic the probes find to ≥ 80 %
// of its records (simweb truth) within its query budget; a form judged a
// site search or no database gets no query beyond its probe.
func TestHarvestTestbed(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web and surfaces its databases")
	}
	ctx := context.Background()
	p, err := profile.Load(ctx, filepath.Join("..", "..", "domains", "auto.lua"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := LoadWeb(WebOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulated web seed %d", w.Config().Seed)
	dir := filepath.Join(t.TempDir(), "harvest")
	sum, err := Harvest(ctx, HarvestOptions{CrawlOptions: CrawlOptions{Profile: p, Dir: dir, Web: w, Pages: 3000, Workers: 4, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	rows := harvestTruth(t, w, dir, sum, p.Domain)
	var table strings.Builder
	fmt.Fprintf(&table, "\n| form | site | verdict | truth | database | size | queries | records (distinct) | coverage | est. |\n|---|---|---|---|---|---|---|---|---|---|\n")
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].database > rows[b].database })
	topic, reached := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		truth := "no database"
		if r.database != "" {
			truth = r.domain
		}
		cov, est := "-", "-"
		if r.size > 0 {
			cov = fmt.Sprintf("%.1f%%", 100*float64(r.got)/float64(r.size))
		}
		if r.db.CoverageEstimate != nil {
			est = fmt.Sprintf("%.1f%%", 100**r.db.CoverageEstimate)
		}
		if r.database == "" && r.db.Verdict == "unprobed" {
			continue // not a database: whether probed or not is no target
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s | %d | %d | %d (%d) | %s | %s |\n", r.db.ID, r.db.Site, r.db.Verdict, truth, r.database, r.size, r.db.Queries, r.db.Records, r.got, cov, est)
		switch {
		case r.relevantByTruth && r.db.Verdict == "unprobed":
			t.Errorf("form %s fronts database %s of the topic but was not probed", r.db.ID, r.database)
		case r.db.Verdict != store.ProbeTopicDatabase && r.db.Queries > 0:
			t.Errorf("form %s judged %s got %d queries beyond its probe", r.db.ID, r.db.Verdict, r.db.Queries)
		}
		if r.db.Verdict == store.ProbeTopicDatabase && r.database != "" {
			topic[r.database] = true
			if r.got*5 >= r.size*4 {
				reached[r.database] = true
			}
		}
		if r.db.Queries > 200 {
			t.Errorf("form %s: %d queries over the budget of 200", r.db.ID, r.db.Queries)
		}
	}
	t.Log(table.String())
	// the probes' verdicts against the truth, database by database
	missed, wrong := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		switch {
		case r.relevantByTruth && !topic[r.database]:
			missed[r.database] = true
		case !r.relevantByTruth && r.db.Verdict == store.ProbeTopicDatabase:
			wrong[r.database+" "+r.db.ID] = true
		}
	}
	for d := range topic {
		delete(missed, d) // another form of the database was surfaced
	}
	t.Logf("databases of the topic (truth) found: %d surfaced, %d judged otherwise %v; other forms judged databases of the topic: %d %v",
		len(topic), len(missed), keys(missed), len(wrong), keys(wrong))
	if len(topic) == 0 {
		t.Fatal("no database of the topic was found")
	}
	for d := range topic {
		if !reached[d] {
			t.Errorf("database %s: under 80%% of its records", d)
		}
	}
	t.Logf("%d pages, %d databases of the topic, %d reached 80%%, %d records in %d queries", sum.Pages, len(topic), len(reached), sum.Records, sum.Queries)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
