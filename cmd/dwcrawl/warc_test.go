package main

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/warc"
)

// readWARC reads every record of the files, failing on broken ones, and
// returns the response records' target URIs and the records by type.
func readWARC(t *testing.T, files []string) (responses map[string]int, types map[string]int, info string) {
	t.Helper()
	responses, types = map[string]int{}, map[string]int{}
	for _, file := range files {
		r, err := warc.Open(file, warc.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(rec.Problems) > 0 {
				t.Errorf("%s record %s: %v", file, rec.ID(), rec.Problems)
			}
			types[rec.Type()]++
			switch rec.Type() {
			case "response":
				responses[rec.TargetURI()]++
			case "warcinfo":
				info = string(rec.Block)
			}
		}
		r.Close()
	}
	return responses, types, info
}

// TestRunWARC: a testbed crawl with --warc archives every page it fetched
// (robots.txt included), and the reader reads the files back whole.
func TestRunWARC(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web")
	}
	dir := filepath.Join(t.TempDir(), "crawl")
	wdir := filepath.Join(t.TempDir(), "warc")
	profile := filepath.Join("..", "..", "domains", "auto.lua")
	out, errOut, err := runApp(t, "run", "--testbed", "--pages", "120", "--dir", dir, "--warc", wdir, "--json", profile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "reverse search: search/simweb") {
		t.Errorf("the engine in use is not said:\n%s", errOut)
	}
	var sum struct {
		Pages int64            `json:"pages"`
		WARC  *app.WARCSummary `json:"warc"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.WARC == nil || len(sum.WARC.Files) == 0 {
		t.Fatalf("summary %q: %v", out, err)
	}
	responses, types, info := readWARC(t, sum.WARC.Files)
	if int64(types["request"]+types["response"]) != sum.WARC.Records || types["request"] != types["response"] {
		t.Errorf("records by type %v, summary says %d", types, sum.WARC.Records)
	}
	for _, want := range []string{"software: dwcrawl/", "dwcrawl-profile: " + profile, "dwcrawl-strategy: smartcrawler", "robots: obey"} {
		if !strings.Contains(info, want) {
			t.Errorf("warcinfo lacks %q:\n%s", want, info)
		}
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pages, robots := 0, 0
	err = db.ScanJSON(store.TagPages, nil, func(key, val []byte) error {
		var rec struct {
			URL    string `json:"url"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(val, &rec); err != nil {
			return err
		}
		if rec.Status == 0 {
			return nil // no response to archive
		}
		pages++
		if responses[rec.URL] == 0 {
			t.Errorf("page %s (status %d) is not in the archive", rec.URL, rec.Status)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for u := range responses {
		if strings.HasSuffix(u, "/robots.txt") {
			robots++
		}
	}
	if pages < 50 || robots == 0 {
		t.Errorf("%d pages with a response, %d robots.txt archived", pages, robots)
	}
	t.Logf("%d pages fetched, %d archived, %d robots.txt; %s", sum.Pages, pages, robots, sum.WARC)
}

// TestSurfaceWARC: surfacing through a JSON API with --warc archives every
// search request.
func TestSurfaceWARC(t *testing.T) {
	_, base := surfaceDB(t)
	dir := filepath.Join(t.TempDir(), "crawl")
	wdir := filepath.Join(t.TempDir(), "warc")
	out, err := runCLI(t, "surface", "--interface", base, "--dir", dir, "--budget", "5", "--first", "deep", "--warc", wdir, "--json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var sum app.SurfaceSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.WARC == nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	responses, types, _ := readWARC(t, sum.WARC.Files)
	n := 0
	for u, c := range responses {
		if strings.HasPrefix(u, base+"/api/search?") {
			n += c
		}
	}
	if n < sum.Queries || int64(types["request"]+types["response"]) != sum.WARC.Records {
		t.Errorf("%d search responses archived for %d queries; types %v, summary %+v", n, sum.Queries, types, sum.WARC)
	}
}
