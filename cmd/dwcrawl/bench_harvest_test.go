package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/experiment/harvest"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

const harvestTestSeed = 3

// smallWebConfig writes simweb.SmallConfig() as a --config file.
func smallWebConfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(p, simweb.SmallConfig().JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// smallWeb builds the web the commands build from smallWebConfig (loadWeb's
// rules: the seed flag, the shared data when present).
func smallWeb(t *testing.T, cfgPath string) *simweb.Web {
	t.Helper()
	cfg, err := simweb.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = harvestTestSeed
	if d, err := shareddata.Dir(); err == nil {
		cfg.Data = d
	}
	return simweb.MustNew(cfg)
}

func TestBenchHarvestJSON(t *testing.T) {
	t.Logf("seed %d", harvestTestSeed)
	cfg := smallWebConfig(t)
	keep, out := filepath.Join(t.TempDir(), "crawls"), t.TempDir()
	stdout, stderr, err := runApp(t, "bench", "harvest", "--seed", "3", "--config", cfg, "--pages", "150",
		"--strategies", "smartcrawler,ache", "--domains", "auto", "--json", "--out", out, "--keep", keep,
		"--profiles", filepath.Join("..", "..", "domains"))
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	t.Logf("stderr:\n%s", stderr)
	var raw []map[string]any
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s", err, stdout)
	}
	if len(raw) != 2 {
		t.Fatalf("%d objects, want 2 (1 domain × 2 strategies)", len(raw))
	}
	for _, o := range raw {
		for _, k := range []string{"domain", "strategy", "pages", "relevant_forms", "deep_sites", "searchable_forms", "harvest_rate", "seconds", "pages_per_second"} {
			if _, ok := o[k]; !ok {
				t.Errorf("object lacks %q: %v", k, o)
			}
		}
	}
	var res []harvest.Result
	json.Unmarshal([]byte(stdout), &res)
	if res[0].Strategy != "smartcrawler" || res[1].Strategy != "ache" || res[0].Domain != "auto" {
		t.Errorf("runs out of order: %+v", res)
	}
	// the printed scores are those of the kept crawl directories
	w := smallWeb(t, cfg)
	for _, r := range res {
		if r.Error != "" || r.Pages == 0 || r.Pages > 150 {
			t.Errorf("%s: %+v", r.Strategy, r)
			continue
		}
		db, err := store.Open(r.Dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := harvest.ScoreCrawl(db, w, "auto")
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if sc.Pages != r.Pages || sc.RelevantForms != r.RelevantForms || sc.DeepSites != r.DeepSites || sc.SearchableForms != r.SearchableForms {
			t.Errorf("%s: printed %+v, rescored %+v", r.Strategy, r.Score, *sc)
		}
	}
	for _, f := range []string{"harvest.csv", "curves-auto.csv", harvest.CurveFile("auto", "smartcrawler"), harvest.CurveFile("auto", "ache")} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("--out: %v", err)
		}
	}
	if !strings.Contains(stderr, "[1/2] auto smartcrawler") || !strings.Contains(stderr, "[2/2] auto ache") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}

	// the kept crawls export their forms
	dir := filepath.Join(keep, "auto-smartcrawler")
	jl, _, err := runApp(t, "forms", "--dir", dir, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(jl, "\n"); n != res[0].ClassifierSearchable {
		t.Errorf("forms --format jsonl printed %d lines, the crawl recorded %d searchable forms", n, res[0].ClassifierSearchable)
	}
	tab, _, err := runApp(t, "forms", "--dir", dir, "--relevant")
	if err != nil {
		t.Fatal(err)
	}
	if res[0].ClassifierRelevant > 0 && !strings.Contains(tab, "page URL") {
		t.Errorf("forms table:\n%s", tab)
	}
	if _, _, err := runApp(t, "features", "--dir", dir); err != nil {
		t.Errorf("features on a crawl directory: %v", err)
	}
}

func TestBenchHarvestTable(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls skipped in -short mode")
	}
	t.Logf("seed %d", harvestTestSeed)
	cfg := smallWebConfig(t)
	// "people" is benchmarked with a profile built from the web's vocabulary
	// when --profiles has no people.lua
	stdout, stderr, err := runApp(t, "bench", "harvest", "--seed", "3", "--config", cfg, "--pages", "80", "--no-totals",
		"--strategies", "smartcrawler,ache", "--domains", "people", "--profiles", t.TempDir())
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	for _, want := range []string{"domain", "relevant forms", "means per strategy", "smartcrawler", "ache"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "people uses a profile built from the simulated web's vocabulary") {
		t.Errorf("no fallback note on stderr:\n%s", stderr)
	}
}

func TestBenchHarvestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"strategy", []string{"--strategies", "dfs"}, "unknown strategy"},
		{"pages", []string{"--pages", "0"}, "--pages"},
		{"domains", []string{"--domains", ","}, "at least one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runApp(t, append([]string{"bench", "harvest"}, tc.args...)...)
			var ee errExit
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ee) || ee.code != 2 {
				t.Errorf("err = %v, want exit 2 with %q", err, tc.want)
			}
		})
	}
}
