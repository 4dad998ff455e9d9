package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
)

// recordedPages lists a crawl's pages in the order it numbered them.
func recordedPages(t *testing.T, dir string) []string {
	t.Helper()
	db, err := store.OpenReadOnly(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type rec struct {
		URL string `json:"url"`
		Seq int64  `json:"seq"`
	}
	var recs []rec
	if err := db.ScanJSON(store.TagPages, nil, func(_, v []byte) error {
		var r rec
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = fmt.Sprintf("%d %s", r.Seq, r.URL)
	}
	return out
}

// TestSeedRun: `run --seed-run N` with 4 workers twice on the simulated web
// (reverse search included) records the same pages in the same order, the
// same forms and the same summary.
func TestSeedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web twice")
	}
	var pages, forms, sums [2]string
	var seqs [2][]string
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "crawl")
		out, _, err := runApp(t, "run", "--testbed", "--pages", "600", "--workers", "4", "--seed-run", "7", "--json", "--dir", dir, autoProfile)
		if err != nil {
			t.Fatal(err)
		}
		var sn map[string]any
		if err := json.Unmarshal([]byte(out), &sn); err != nil {
			t.Fatalf("summary %q: %v", out, err)
		}
		delete(sn, "elapsed_ns")
		delete(sn, "pages_per_second")
		b, _ := json.Marshal(sn)
		sums[i] = string(b)
		seqs[i] = recordedPages(t, dir)
		pages[i] = strings.Join(seqs[i], "\n")
		out, _, err = runApp(t, "forms", "--dir", dir, "--format", "jsonl")
		if err != nil {
			t.Fatal(err)
		}
		forms[i] = withoutFoundAt(t, out)
	}
	if len(seqs[0]) != 600 {
		t.Fatalf("%d pages recorded, want 600", len(seqs[0]))
	}
	for j := range seqs[0] {
		if j >= len(seqs[1]) || seqs[0][j] != seqs[1][j] {
			t.Fatalf("page sequences differ at page %d: %q vs %q", j+1, seqs[0][j], seqs[1][min(j, len(seqs[1])-1)])
		}
	}
	if forms[0] != forms[1] {
		a, b := strings.Split(forms[0], "\n"), strings.Split(forms[1], "\n")
		for j := range min(len(a), len(b)) {
			if a[j] != b[j] {
				t.Errorf("forms differ at line %d:\n%s\n%s", j, a[j], b[j])
				break
			}
		}
	}
	if sums[0] != sums[1] {
		t.Errorf("summaries differ:\n%s\n%s", sums[0], sums[1])
	}
	t.Logf("600 pages in the same order twice (sha256 %x), %d form lines; summary %s; pages 1-5: %v",
		sha256.Sum256([]byte(pages[0])), strings.Count(forms[0], "\n")+1, sums[0], seqs[0][:5])
}

// withoutFoundAt drops the wall-clock time of each form line.
func withoutFoundAt(t *testing.T, jsonl string) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("form line %q: %v", l, err)
		}
		delete(m, "found_at")
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	return strings.Join(out, "\n")
}
