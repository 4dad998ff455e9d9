package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
)

// storeForm records the search form of a loopback hidden database in a new
// crawl directory, as a crawl would, and returns the directory and form id.
func storeForm(t *testing.T, base string) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crawl")
	sdb, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fields := `[{"Tag":"input","Type":"text","Name":"q","Label":"Search"},{"Tag":"input","Type":"submit","Name":"","Value":"Search"}]`
	f := store.Form{PageURL: base + "/", Index: 0, Action: base + "/search", Method: "GET", Fields: json.RawMessage(fields), Searchable: 1}
	if err := sdb.PutForm(f); err != nil {
		t.Fatal(err)
	}
	sdb.Close()
	return dir, store.FormID(f.PageURL, 0)
}

// TestSurfaceCommandExplain: --explain reports how the first result page
// was read, in the JSON summary (field explain) and as text, and names the
// profile whose sites table overrode the records and the pager.
func TestSurfaceCommandExplain(t *testing.T) {
	_, base := surfaceDB(t)
	dir, id := storeForm(t, base)
	prof := filepath.Join(t.TempDir(), "sites.lua")
	os.WriteFile(prof, []byte(`return {
  keywords = {'deep'}, seeds = {'127.0.0.1'},
  sites = { ["127.0.0.1"] = { records = "ol.results > li", record_link = "a.result-link", next = "a.next" } },
}`), 0o644)
	out, err := runCLI(t, "surface", "--form", id, "--dir", dir, "--budget", "2", "--profile", prof, "--explain", "--json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var sum app.SurfaceSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	x := sum.Explain
	if x == nil {
		t.Fatalf("no explain in %s", out)
	}
	if x.Region.Origin != "override" || x.Region.Source != "profile "+prof || x.RecordCount == 0 || len(x.Records) == 0 || x.Records[0].URL == "" {
		t.Errorf("region %+v, %d records %+v", x.Region, x.RecordCount, x.Records)
	}
	if !x.Pager.Found || x.Pager.Control != "selector" || x.Totals.Total < x.RecordCount {
		t.Errorf("pager %+v, totals %+v", x.Pager, x.Totals)
	}
	// the field names are the contract
	var raw struct {
		Explain map[string]json.RawMessage `json:"explain"`
	}
	json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"query", "method", "url", "status", "region", "records", "record_count", "pager", "page_size", "totals"} {
		if _, ok := raw.Explain[k]; !ok {
			t.Errorf("explain lacks %q: %s", k, out)
		}
	}

	dir2, id2 := storeForm(t, base)
	out, err = runCLI(t, "surface", "--form", id2, "--dir", dir2, "--budget", "2", "--first", "web", "--explain", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"explain: first result page of", "records region: learned on this page", "pager: rel-next", "page size:", "total:"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if _, err := runCLI(t, "surface", "--interface", base, "--dir", dir2, "--explain"); err == nil {
		t.Error("--explain without --form: no error")
	}
}
