package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

// CrawlData is what a crawl directory holds for the report.
type CrawlData struct {
	// Counters are the crawl's counters (crawl.pages, crawl.sites…).
	Counters map[string]int64
	// Pages is the number of pages fetched (the crawl.pages counter, or the
	// last page that found a form if it is higher).
	Pages int64
	// Forms and DeepSites are the harvest curves, relevant searchable forms
	// and sites with one against pages fetched: steps at each page that
	// found some, from (0, 0) to (Pages, total).
	Forms, DeepSites []Point
	// Searchable counts the searchable forms recorded.
	Searchable int
	// Surfacing is the documents-per-query curve of each surfaced source.
	Surfacing map[string]SurfaceRun
	// Enrichment is the enrichment journal's coverage, when there is one.
	Enrichment *EnrichRun
}

// SurfaceRun is one surfaced source: documents after each query.
type SurfaceRun struct {
	Docs []Point // (query number, documents downloaded)
	Cost float64 // cumulative cost after the last query
	// Site and Verdict are, for a form of the crawl (source "form:ID", a
	// database a harvest or surface --form surfaced), the form's site and
	// its probe's decision ("" when it was not probed).
	Site, Verdict string
	// Estimates are the coverage estimates of the journaled estimate
	// checkpoints, in query order.
	Estimates []Estimate
}

// Estimate is the harvest's coverage estimate after a query: the estimated
// fraction of the database downloaded, its interval (level
// surface.CoverageLevel), the estimated database size and the estimator.
// The numbers are NaN when the estimator is "none" (too little data yet).
type Estimate struct {
	Query               int
	Coverage, Low, High float64
	Size                float64
	Estimator           string
}

// Valid reports whether e holds an estimate.
func (e Estimate) Valid() bool { return !math.IsNaN(e.Coverage) }

// estimateOf is the estimate a query's log line records, ok false when
// the query was no estimate checkpoint.
func estimateOf(l surface.QueryLog) (e Estimate, ok bool) {
	if l.Estimator == "" {
		return e, false
	}
	val := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	e = Estimate{Query: l.N, Coverage: val(l.CoverageEstimate), Low: val(l.CoverageLow), High: val(l.CoverageHigh), Size: val(l.SizeEstimate), Estimator: l.Estimator}
	if math.IsNaN(e.Low) || math.IsNaN(e.High) {
		e.Coverage = math.NaN() // no interval, no estimate to show
	}
	return e, true
}

// EnrichRun is an enrichment run: local records covered after each query.
type EnrichRun struct {
	Config  enrich.RunConfig
	Covered []Point // (query number, records covered)
}

// FormSource prefixes the journal source of a form of the crawl: the
// databases a harvest (or surface --form) surfaced are "form:ID".
const FormSource = "form:"

// ReadCrawl reads the report's data from an open crawl directory.
func ReadCrawl(ctx context.Context, db *store.DB) (*CrawlData, error) {
	d := &CrawlData{Surfacing: map[string]SurfaceRun{}}
	var err error
	if d.Counters, err = db.Counters("crawl."); err != nil {
		return nil, err
	}
	var relevant []store.Form
	err = db.ScanForms(func(f store.Form) error {
		d.Searchable++
		if f.Relevant {
			relevant = append(relevant, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.Pages = d.Counters["crawl.pages"]
	d.Forms, d.DeepSites = harvestCurves(relevant, &d.Pages)
	sources, err := surface.Sources(db)
	if err != nil {
		return nil, err
	}
	for src := range sources {
		run, err := readSurface(ctx, db, src)
		if err != nil {
			return nil, err
		}
		if id, ok := strings.CutPrefix(src, FormSource); ok {
			f, found, err := db.GetForm(id)
			if err != nil {
				return nil, fmt.Errorf("form %s: %w", id, err)
			}
			if found {
				run.Site = f.Site
				if f.Probe != nil {
					run.Verdict = f.Probe.Decision
				}
			}
		}
		if len(run.Docs) > 0 {
			d.Surfacing[src] = run
		}
	}
	d.Enrichment, err = readEnrich(db)
	return d, err
}

// harvestCurves builds the relevant-form and deep-site curves from the
// relevant forms (each knows the pages fetched when it was found); pages
// is raised to the last form's page if the counter is behind.
func harvestCurves(relevant []store.Form, pages *int64) (forms, sites []Point) {
	sort.SliceStable(relevant, func(a, b int) bool { return relevant[a].PagesFetched < relevant[b].PagesFetched })
	firstSite := map[string]bool{}
	var siteAt []int
	for _, f := range relevant {
		if !firstSite[f.Site] {
			firstSite[f.Site] = true
			siteAt = append(siteAt, f.PagesFetched)
		}
	}
	formAt := make([]int, len(relevant))
	for i, f := range relevant {
		formAt[i] = f.PagesFetched
	}
	if n := len(formAt); n > 0 && int64(formAt[n-1]) > *pages {
		*pages = int64(formAt[n-1])
	}
	return cumulative(formAt, *pages), cumulative(siteAt, *pages)
}

// cumulative turns sorted event positions into a step curve of the count:
// from (0, 0), at each position where events happened a vertical step from
// the count before to the count after, and a last point at (end, total).
func cumulative(at []int, end int64) []Point {
	pts := []Point{{0, 0}}
	for i, x := range at {
		if i+1 < len(at) && at[i+1] == x {
			continue // the last event at x gives the count there
		}
		if x == 0 {
			pts[0].Y = float64(i + 1)
			continue
		}
		prev := pts[len(pts)-1].Y
		pts = append(pts, Point{float64(x), prev}, Point{float64(x), float64(i + 1)})
	}
	if last := pts[len(pts)-1]; end > int64(last.X) {
		pts = append(pts, Point{float64(end), last.Y})
	}
	return pts
}

// readSurface replays a source's surfacing journal.
func readSurface(ctx context.Context, db *store.DB, src string) (SurfaceRun, error) {
	var run SurfaceRun
	j := &surface.StoreJournal{DB: db, Source: src}
	err := j.Replay(ctx, func(e surface.Entry) error {
		run.Docs = append(run.Docs, Point{float64(e.Log.N), float64(e.Log.Docs)})
		run.Cost = e.Log.CumCost
		if est, ok := estimateOf(e.Log); ok {
			run.Estimates = append(run.Estimates, est)
		}
		return nil
	})
	if err != nil {
		return run, fmt.Errorf("surfacing journal of %s: %w", src, err)
	}
	return run, nil
}

// readEnrich reads the enrichment journal, nil when there is none.
func readEnrich(db *store.DB) (*EnrichRun, error) {
	run := &EnrichRun{Covered: []Point{{0, 0}}}
	found := false
	err := db.ScanJSON(enrich.TagEnrichRun, nil, func(_, v []byte) error {
		found = true
		if err := json.Unmarshal(v, &run.Config); err != nil {
			return fmt.Errorf("enrichment run: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	covered := 0
	err = db.ScanJSON(enrich.TagEnrichLog, nil, func(_, v []byte) error {
		found = true
		var e enrich.Entry
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("enrichment journal: %w", err)
		}
		covered += e.New
		run.Covered = append(run.Covered, Point{float64(e.N), float64(covered)})
		return nil
	})
	if err != nil || !found {
		return nil, err
	}
	return run, nil
}

// FromCrawl reports on a crawl database that is already open (a server
// showing a running crawl), its runs labelled label.
func FromCrawl(ctx context.Context, label string, db *store.DB) (*Report, error) {
	d, err := ReadCrawl(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", db.Dir(), err)
	}
	b := newBuilder(false)
	if err := b.addCrawl(db.Dir(), label, d); err != nil {
		return nil, err
	}
	return b.report([]string{db.Dir()}), nil
}

// loadCrawl reads a crawl directory into the report.
func (b *builder) loadCrawl(dir, label string) error {
	db, err := store.OpenReadOnly(dir, store.Options{})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer db.Close()
	d, err := ReadCrawl(context.Background(), db)
	if err != nil {
		return fmt.Errorf("report: %s: %w", dir, err)
	}
	return b.addCrawl(dir, label, d)
}

// addCrawl adds a crawl directory's curves and table rows.
func (b *builder) addCrawl(dir, label string, d *CrawlData) error {
	found := false
	if d.Pages > 0 {
		found = true
		f := b.figure("harvest-forms", "Relevant forms vs pages fetched", "pages fetched", "relevant searchable forms")
		f.Series = append(f.Series, Series{Label: label, Points: d.Forms})
		f = b.figure("harvest-sites", "Deep sites vs pages fetched", "pages fetched", "deep sites")
		f.Series = append(f.Series, Series{Label: label, Points: d.DeepSites})
		rel := int(d.Forms[len(d.Forms)-1].Y)
		t := b.table("crawl", "Crawls", "run", "pages", "failed", "sites", "relevant sites", "deep sites", "forms", "searchable", "relevant", "harvest rate")
		t.Rows = append(t.Rows, []string{label, itoa64(d.Pages), itoa64(d.Counters["crawl.failed"]), itoa64(d.Counters["crawl.sites"]),
			itoa64(d.Counters["crawl.sites.relevant"]), strconv.Itoa(int(d.DeepSites[len(d.DeepSites)-1].Y)), itoa64(d.Counters["crawl.forms"]),
			strconv.Itoa(d.Searchable), strconv.Itoa(rel), ratio(float64(rel), float64(d.Pages))})
	}
	for _, src := range sortedKeys(d.Surfacing) {
		found = true
		run := d.Surfacing[src]
		if id, ok := strings.CutPrefix(src, FormSource); ok {
			b.addDatabase(label, id, run)
		} else {
			f := b.figure("surface-docs", "Surfacing: documents downloaded vs queries", "queries", "documents downloaded")
			f.Series = append(f.Series, Series{Label: seriesLabel(label, src), Points: run.Docs})
			t := b.table("surface", "Surfacing", "run", "source", "queries", "documents", "cost",
				"estimated coverage", levelName()+" interval", "estimated size", "estimator", "estimated at query")
			t.Rows = append(t.Rows, append([]string{label, src}, surfaceCells(run)...))
		}
		if s, ok := estimateSeries(seriesLabel(label, src), run.Estimates); ok {
			f := b.figure("surface-estimate", "Surfacing: estimated coverage vs queries ("+levelName()+" interval shaded)", "queries", "estimated coverage (fraction of the database)")
			f.Series = append(f.Series, s)
		}
	}
	if e := d.Enrichment; e != nil {
		found = true
		f := b.figure("enrich-covered", "Enrichment: local records covered vs queries", "queries", "local records covered")
		f.Series = append(f.Series, Series{Label: seriesLabel(label, string(e.Config.Method)), Points: e.Covered})
		last := e.Covered[len(e.Covered)-1]
		t := b.table("enrich", "Enrichment", "run", "method", "local table", "k", "queries", "covered")
		t.Rows = append(t.Rows, []string{label, string(e.Config.Method), e.Config.Local, strconv.Itoa(e.Config.K), ftoa(last.X), ftoa(last.Y)})
	}
	if !found {
		return fmt.Errorf("report: %s: no pages fetched, no surfacing or enrichment journal: %w", dir, ErrNoData)
	}
	return nil
}

// addDatabase adds a database of the crawl (form id) to the plot of
// records against queries per database, from (0, 0), and to the table of
// databases.
func (b *builder) addDatabase(label, id string, run SurfaceRun) {
	name := id
	if run.Site != "" {
		name += " (" + hostOf(run.Site) + ")"
	}
	f := b.figure("surface-databases", "Databases: records vs queries, per database", "queries", "records downloaded")
	f.Series = append(f.Series, Series{Label: seriesLabel(label, name), Points: append([]Point{{0, 0}}, run.Docs...)})
	t := b.table("surface-databases", "Databases (forms of the crawl surfaced)", "run", "form", "site", "verdict", "queries", "records", "cost",
		"estimated coverage", levelName()+" interval", "estimated size", "estimator", "estimated at query")
	t.Rows = append(t.Rows, append([]string{label, id, run.Site, run.Verdict}, surfaceCells(run)...))
}

// surfaceCells are a surfaced source's table cells: queries, documents,
// cost, and its last estimate (coverage, interval, size, estimator, query).
func surfaceCells(run SurfaceRun) []string {
	last := run.Docs[len(run.Docs)-1]
	row := []string{ftoa(last.X), ftoa(last.Y), ftoa(run.Cost), "", "", "", "", ""}
	if n := len(run.Estimates); n > 0 {
		e := run.Estimates[n-1]
		row[6], row[7] = e.Estimator, strconv.Itoa(e.Query)
		if e.Valid() {
			row[3], row[4], row[5] = ftoa(e.Coverage), interval(e.Low, e.High), numOrEmpty(e.Size)
		}
	}
	return row
}

// hostOf is the host of a site URL, or the URL when it has none.
func hostOf(site string) string {
	if u, err := url.Parse(site); err == nil && u.Host != "" {
		return u.Host
	}
	return site
}

// estimateSeries is the line of the valid estimates with their intervals
// as its band; ok is false when there is none.
func estimateSeries(label string, ests []Estimate) (s Series, ok bool) {
	s.Label = label
	for _, e := range ests {
		if !e.Valid() {
			continue
		}
		x := float64(e.Query)
		s.Points = append(s.Points, Point{x, e.Coverage})
		s.Band = append(s.Band, Interval{x, e.Low, e.High})
	}
	return s, len(s.Points) > 0
}

// levelName is the interval's level, "90 %".
func levelName() string { return strconv.FormatFloat(100*surface.CoverageLevel, 'f', -1, 64) + " %" }

// interval formats an interval's bounds.
func interval(lo, hi float64) string { return ftoa(lo) + "–" + ftoa(hi) }

func numOrEmpty(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return ftoa(f)
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ratio formats a/b with four decimals ("" when b is 0).
func ratio(a, b float64) string {
	if b == 0 {
		return ""
	}
	return strconv.FormatFloat(a/b, 'f', 4, 64)
}
