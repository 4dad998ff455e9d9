package main

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dwcrawl/dwcrawl/serve"
)

// harvestShot, when set, is where TestServeHarvestDashboard also writes
// its screenshot of the harvest's page.
var harvestShot = flag.String("harvest-screenshot", "", "write the harvest page's screenshot to this PNG file")

// TestServeHarvestDashboard drives the dashboard in a real headless
// browser: it starts a testbed harvest from the front page, follows it on
// the harvest's page to its end, and checks the databases table and the
// coverage curves against the API.
func TestServeHarvestDashboard(t *testing.T) {
	ctx := newBrowser(t)
	// a web whose auto databases answer the adaptive policy's first
	// queries (seed 5's two answer none within ten)
	base := startServe(t, "--seed", "7")
	err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#start-harvest`))
	if err != nil {
		t.Fatalf("opening the dashboard: %v", err)
	}
	offered, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#start select[name=profile] option')).map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	auto := ""
	for _, p := range offered {
		if filepath.Base(p) == "auto.lua" {
			auto = p
		}
	}
	if auto == "" {
		t.Fatalf("the start form offers no auto.lua: %v", offered)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(`#start select[name=profile]`, auto),
		chromedp.SetValue(`#start input[name=pages]`, "500"),
		chromedp.SetValue(`#start input[name=queries_per_db]`, "10"),
		chromedp.Click(`#start-harvest`),
		// the page goes to the new harvest; databases appear as they are
		// found, curves as they are surfaced
		chromedp.WaitVisible(`#databases tbody tr[data-id]`),
		chromedp.WaitVisible(`#curves path.series`),
		chromedp.WaitVisible(`#state.done`),
		chromedp.Sleep(2500*time.Millisecond), // one more refresh after the end
	)
	if err != nil {
		t.Fatalf("starting a harvest from the page: %v", err)
	}
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(url, "/harvests/harvest-auto-1") {
		t.Fatalf("the start button led to %s", url)
	}

	// what the API says
	var st serve.HarvestStatus
	getJSON(t, base+"/api/harvests/harvest-auto-1", &st)
	var curve serve.HarvestCurve
	getJSON(t, base+"/api/harvests/harvest-auto-1/curve", &curve)
	if st.State != serve.StateDone || len(curve.Databases) == 0 || st.QueriesPerDB != 10 || st.Budget != 500 {
		t.Fatalf("harvest %s with %d curves, %d queries per database, %d pages", st.State, len(curve.Databases), st.QueriesPerDB, st.Budget)
	}

	// what the page shows
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[][]string](`Array.from(document.querySelectorAll('#databases tbody tr[data-id]')).map(tr => Array.from(tr.cells).map(td => td.textContent.trim()))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(st.Databases) {
		t.Fatalf("the page lists %d databases, the API %d", len(rows), len(st.Databases))
	}
	for i, d := range st.Databases {
		state := d.State
		if d.Stopped != "" {
			state += " (" + d.Stopped + ")"
		}
		want := []string{d.ID, d.Site, d.Verdict, state, strconv.Itoa(d.Queries), strconv.Itoa(d.Records), d.CoverageText()}
		if strings.Join(rows[i], "|") != strings.Join(want, "|") {
			t.Errorf("row %d: %q, want %q", i, rows[i], want)
		}
	}
	paths, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#curves path.series').length`))
	if err != nil {
		t.Fatal(err)
	}
	titles, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#curves path.series title')).map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if paths != len(curve.Databases) || len(titles) != paths {
		t.Fatalf("the chart draws %d lines (%d titled), the API has %d curves", paths, len(titles), len(curve.Databases))
	}
	for i, c := range curve.Databases {
		last := c.Points[len(c.Points)-1]
		if !strings.HasPrefix(titles[i], c.ID+" · ") || !strings.HasSuffix(titles[i], strconv.Itoa(int(last[1]))+" records in "+strconv.Itoa(int(last[0]))+" queries") {
			t.Errorf("line %d titled %q, curve of %s ends at %v", i, titles[i], c.ID, last)
		}
	}
	records, err := chromedp.Run(ctx, chromedp.Text(`#s-records`))
	if err != nil {
		t.Fatal(err)
	}
	if records != strconv.Itoa(st.Records) {
		t.Errorf("the page shows %s records, the API %d", records, st.Records)
	}
	t.Logf("%s: %d databases listed, %d curves, %d records in %d queries", url, len(rows), paths, st.Records, st.Queries)

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot is not a PNG (%d bytes)", len(png))
	}
	out := filepath.Join(t.TempDir(), "harvest.png")
	if *harvestShot != "" {
		out = *harvestShot
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(png))

	// the front page lists the harvest as done, with its records
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#harvests tbody tr[data-id="harvest-auto-1"] .state.done`))
	if err != nil {
		t.Fatalf("front page: %v", err)
	}
	listed, err := chromedp.Run(ctx, chromedp.Text(`#harvests tbody tr[data-id="harvest-auto-1"]`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(listed, "/ 500") || !strings.Contains(listed, strconv.Itoa(st.Records)) {
		t.Fatalf("front page row: %q", listed)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
