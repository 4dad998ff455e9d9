package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/lab"
)

// The lab of real web software is slow to load: one serves every test of
// the package that needs it, and stops when the tests end (TestMain).
var sharedLab struct {
	once sync.Once
	lab  *lab.Lab
	dir  string
	log  bytes.Buffer
	err  error
}

func stopSharedLab() {
	if sharedLab.lab != nil {
		sharedLab.lab.Close()
	}
	if sharedLab.dir != "" {
		os.RemoveAll(sharedLab.dir)
	}
}

// startLab starts the lab, or skips the test where its Debian packages or
// the shared data are missing, or with -short. DWCRAWL_LAB_DIR reuses (and
// keeps) a loaded lab directory.
func startLab(t *testing.T) *lab.Lab {
	t.Helper()
	if testing.Short() {
		t.Skip("lab: loads real web applications (a minute or more); skipped with -short")
	}
	sharedLab.once.Do(func() {
		dir := os.Getenv("DWCRAWL_LAB_DIR")
		if dir == "" {
			if dir, sharedLab.err = os.MkdirTemp("", "dwlab-"); sharedLab.err != nil {
				return
			}
			sharedLab.dir = dir
		}
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		// DWCRAWL_LAB_APPS=a,b runs some applications only.
		var apps []string
		if s := os.Getenv("DWCRAWL_LAB_APPS"); s != "" {
			apps = strings.Split(s, ",")
		}
		sharedLab.lab, sharedLab.err = lab.Start(ctx, dir, lab.Options{Log: &sharedLab.log, Apps: apps})
	})
	var me *lab.MissingError
	switch {
	case errors.As(sharedLab.err, &me):
		t.Skipf("lab: skipped: %v", me)
	case errors.Is(sharedLab.err, shareddata.ErrNotFound):
		t.Skipf("lab: skipped: %v", sharedLab.err)
	case sharedLab.err != nil:
		t.Fatalf("lab: %v\n%s", sharedLab.err, sharedLab.log.String())
	}
	return sharedLab.lab
}

// labFetch are fetcher settings that reach the lab's hosts (and only them)
// through its loopback address: the real fetcher, robots.txt and all, with
// no politeness delay (the lab is ours and on loopback).
func labFetch(l *lab.Lab) fetch.Options {
	fo := fetch.DefaultOptions()
	fo.Transport = l.Client().Transport
	fo.AllowHost = func(h string) bool { _, ok := l.Hosts[h]; return ok }
	fo.Delay = 0
	fo.BackoffBase, fo.BackoffMax = 50*time.Millisecond, time.Second
	return fo
}

// recordLabForm does what a crawl does with the page holding a form: fetch
// it, classify its forms with HIFI and record the searchable form whose
// action is action (without its query string) in db.
func recordLabForm(t *testing.T, ctx context.Context, db *store.DB, f *fetch.Fetcher, h *form.HIFI, pageURL, action string) store.Form {
	t.Helper()
	resp, err := f.Fetch(ctx, pageURL)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(resp.URL)
	p, err := page.Parse(resp.Body, "text/html; charset=utf-8", base)
	if err != nil {
		t.Fatal(err)
	}
	ds := h.ClassifyPage(p)
	for i, pf := range p.Forms {
		a, _, _ := strings.Cut(pf.Action, "?")
		if a != action {
			continue
		}
		d := ds[i]
		if !d.Searchable {
			t.Fatalf("%s: form %d (%s) classified %s (p=%.2f): a crawl would not record it", pageURL, i, pf.Action, d.Kind, d.PSearchable)
		}
		fields, _ := json.Marshal(pf.Fields)
		sf := store.Form{Site: canon.Site(pageURL), PageURL: resp.URL, Index: pf.Index, Kind: d.Kind, Searchable: d.PSearchable,
			DomainScore: d.PDomain, Relevant: d.Relevant, Action: pf.Action, Method: pf.Method, Fields: fields, FoundAt: time.Now(), Reasons: d.Reasons}
		sf.ID = store.FormID(sf.PageURL, sf.Index)
		if err := db.PutForm(sf); err != nil {
			t.Fatal(err)
		}
		return sf
	}
	t.Fatalf("%s: no form with action %s", pageURL, action)
	return store.Form{}
}

// truthKey identifies a record page across spellings of its URL
// ("%2C" and ",").
func truthKey(raw string) string {
	c, err := canon.Canonical(raw)
	if err != nil {
		c = raw
	}
	if d, err := url.QueryUnescape(c); err == nil {
		c = d
	}
	return c
}

// harvested returns the URLs of the records a form harvest stored, with
// the number of the query that downloaded each first.
func harvested(t *testing.T, db *store.DB, source string) map[string]int {
	t.Helper()
	var buf bytes.Buffer
	if _, err := surface.ExportDocs(db, source, &buf); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var d surface.StoredDoc
		if err := dec.Decode(&d); err != nil {
			t.Fatal(err)
		}
		if d.URL != "" {
			out[truthKey(d.URL)] = d.Query
		}
	}
	return out
}

// TestLabSurface is the target of issue 18 on the lab: through each real
// application's own search form, `surface --form` downloads at least 80 % of
// the records behind it within 100 queries (issue 29: `surface --form ID --budget 100`), following the application's own
// pagination (links for MediaWiki, WordPress and cgit, form buttons for
// Omega, one page for DokuWiki). The form is recorded as a crawl records
// it; the records are counted against the lab's truth.
func TestLabSurface(t *testing.T) {
	l := startLab(t)
	h, err := form.NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		app, backend, form               string
		records, queries, got, docs, q80 int
		requests                         int64
		total                            string
	}
	var rows []row
	var mu sync.Mutex
	// the applications are harvested in parallel (each its own form,
	// directory and fetcher), a group so that the table waits for them all
	t.Run("apps", func(t *testing.T) {
		for _, site := range l.Truth.Sites {
			for _, sf := range site.SearchForms {
				if sf.Backend == "" || site.Backends[sf.Backend] < 10 {
					continue // cgit's index filters its two repositories: nothing to harvest
				}
				t.Run(sf.Backend, func(t *testing.T) {
					t.Parallel()
					ctx := context.Background()
					dir := t.TempDir()
					db, err := store.Open(dir, store.Options{})
					if err != nil {
						t.Fatal(err)
					}
					fo := labFetch(l)
					fr, err := fetch.New(fo)
					if err != nil {
						t.Fatal(err)
					}
					defer fr.Close()
					f := recordLabForm(t, ctx, db, fr, h, sf.Example, sf.Action)
					db.Close()
					start := time.Now()
					sum, err := Surface(ctx, SurfaceOptions{Form: f.ID, Dir: dir, Policy: "adaptive", Budget: 100, StopAfter: 20, Fetch: &fo, Progress: labProgress})
					if err != nil {
						t.Fatalf("surface: %v", err)
					}
					db, err = store.Open(dir, store.Options{})
					if err != nil {
						t.Fatal(err)
					}
					defer db.Close()
					got := harvested(t, db, sum.Source)
					truth := l.Truth.Records[sf.Backend]
					n := 0
					byQuery := make([]int, sum.Queries+2)
					for _, r := range truth {
						if q, ok := got[truthKey(l.URL(site.Host, r.Path))]; ok {
							n++
							byQuery[min(q, sum.Queries+1)]++
						}
					}
					cov := float64(n) / float64(len(truth))
					q80, cum := 0, 0
					for q, c := range byQuery {
						cum += c
						if 5*cum >= 4*len(truth) {
							q80 = q
							break
						}
					}
					t.Logf("%s %s: %d queries, %d requests, %d records stored, %d of %d true records (%.1f%%) in %s; form %+v",
						site.App, sf.Backend, sum.Queries, sum.Requests, sum.Docs, n, len(truth), 100*cov, time.Since(start).Round(time.Second), sum.Form)
					if sum.Queries > 100 {
						t.Errorf("%d queries, budget 100", sum.Queries)
					}
					if cov < 0.8 {
						t.Errorf("coverage %.1f%% < 80%%", 100*cov)
					}
					mu.Lock()
					rows = append(rows, row{app: site.App, backend: sf.Backend, form: sf.Method + " /" + strings.TrimPrefix(sf.Action, l.URL(site.Host, "/")), records: len(truth), queries: sum.Queries, got: n, docs: sum.Docs, requests: sum.Requests, q80: q80, total: totalText(sum)})
					mu.Unlock()
				})
			}
		}
	})
	sort.Slice(rows, func(i, j int) bool { return rows[i].app+rows[i].backend < rows[j].app+rows[j].backend })
	var b strings.Builder
	fmt.Fprintf(&b, "\n| application | form | database | records | queries | requests | downloaded | coverage | queries to 80 %% | stored | empty query |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %.1f %% | %d | %d | %s |\n", r.app, r.form, r.backend, r.records, r.queries, r.requests, r.got,
			100*float64(r.got)/float64(r.records), r.q80, r.docs, r.total)
	}
	t.Log(b.String())
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopSharedLab()
	os.Exit(code)
}

// totalText says whether the form's empty query listed records.
func totalText(s *SurfaceSummary) string {
	if s.Form == nil || s.Form.BoxRequired == nil {
		return "?"
	}
	if *s.Form.BoxRequired {
		return "no records"
	}
	return "records"
}

// labProgress receives the progress lines of lab harvests: stderr with
// DWCRAWL_LAB_PROGRESS=1.
var labProgress = func() io.Writer {
	if os.Getenv("DWCRAWL_LAB_PROGRESS") != "" {
		return os.Stderr
	}
	return nil
}()
