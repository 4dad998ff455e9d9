package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// fakeSearXNG is a SearXNG JSON API on loopback answering each query with
// the results listed for it, and recording the queries.
func fakeSearXNG(t *testing.T, results map[string][]string) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		mu.Lock()
		asked = append(asked, q)
		mu.Unlock()
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "json only", http.StatusForbidden)
			return
		}
		type res struct {
			URL   string `json:"url"`
			Title string `json:"title"`
		}
		out := struct {
			Results []res `json:"results"`
			N       int   `json:"number_of_results"`
		}{}
		for _, u := range results[q] {
			out.Results = append(out.Results, res{URL: u, Title: "about " + q})
		}
		out.N = len(out.Results)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestSeedsFakeEngine(t *testing.T) {
	srv, asked := fakeSearXNG(t, map[string][]string{
		"law court":  {"http://courts.example.test/search", "http://glossary.example.test/a", "http://courts.example.test/about"},
		"statute":    {"http://glossary.example.test/b", "http://statutes.example.test/"},
		"legal term": {"http://glossary.example.test/c"},
	})
	t.Setenv("SEARXNG_URL", srv.URL)
	dir := t.TempDir()
	prof := filepath.Join(dir, "law.lua")
	os.WriteFile(prof, []byte(`return { name = "law", keywords = { "law court", "statute", "legal term" },
  seeds = { "http://statutes.example.test/" },
  reverse = { plugins = { "search/searxng", "search/brave" } } }`), 0o644)

	// the engine is on loopback: the address policy refuses it by default
	if _, err := runCLI(t, "seeds", "--profile", prof); err == nil || !strings.Contains(err.Error(), "every query to search/searxng failed") {
		t.Errorf("loopback engine without --allow-private: %v", err)
	}
	*asked = nil
	out, err := runCLI(t, "seeds", "--allow-private", "--profile", prof, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res app.SeedsResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Engine != "search/searxng" || res.Queries != 3 || res.Results != 6 || len(*asked) != 3 {
		t.Errorf("engine %s, %d queries (asked %q), %d results", res.Engine, res.Queries, *asked, res.Results)
	}
	var urls []string
	for _, s := range res.Seeds {
		urls = append(urls, s.URL)
	}
	// glossary: found by 3 queries; courts: 1 query, 2 hits; statutes: 1 query, 1 hit
	want := "http://glossary.example.test/ http://courts.example.test/ http://statutes.example.test/"
	if strings.Join(urls, " ") != want {
		t.Errorf("seeds %v, want %s", urls, want)
	}
	if len(res.Seeds) == 3 && (!res.Seeds[2].InProfile || res.Seeds[1].Hits != 2 || res.Seeds[0].Example != "http://glossary.example.test/a") {
		t.Errorf("details %+v", res.Seeds)
	}
	// text output to a file, and --max
	file := filepath.Join(dir, "seeds.txt")
	if _, err := runCLI(t, "seeds", "--allow-private", "--profile", prof, "--max", "2", "--out", file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "http://glossary.example.test/\nhttp://courts.example.test/\n" {
		t.Errorf("seeds file %q", b)
	}
	// no engine configured: says why
	t.Setenv("SEARXNG_URL", "")
	t.Setenv("BRAVE_API_KEY", "")
	if _, err := runCLI(t, "seeds", "--profile", prof); err == nil || !strings.Contains(err.Error(), "SEARXNG_URL") || !strings.Contains(err.Error(), "BRAVE_API_KEY") {
		t.Errorf("no engine: %v", err)
	}
}

// TestSeedsTestbed: the simulated web's engine, asked for auto's keywords,
// names sites of the simulated web, mostly of the auto domain.
func TestSeedsTestbed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the simulated web")
	}
	out, err := runCLI(t, "seeds", "--testbed", "--profile", filepath.Join("..", "..", "domains", "auto.lua"), "--max", "10")
	if err != nil {
		t.Fatal(err)
	}
	w, err := app.LoadWeb(app.WebOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	topic := map[string]simweb.SiteInfo{}
	for _, s := range w.Sites() {
		topic["http://"+s.Host+"/"] = s
	}
	lines := strings.Fields(out)
	auto := 0
	for _, l := range lines {
		s, ok := topic[l]
		if !ok {
			t.Errorf("%s is not a site of the simulated web", l)
		}
		if s.Topic == "auto" || strings.Contains(strings.Join(s.Domains, " "), "auto") {
			auto++
		}
	}
	if len(lines) != 10 || auto < 7 {
		t.Errorf("%d seeds, %d of them auto sites:\n%s", len(lines), auto, out)
	}
}
