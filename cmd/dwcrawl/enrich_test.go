package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// enrichFixture writes a hidden table (600 records), a local table (its
// first 150 records) and serves the hidden one over loopback.
func enrichFixture(t *testing.T) (dir, hiddenCSV, localCSV, url string) {
	t.Helper()
	seed := int64(3)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	words := strings.Fields("deep web crawl query keyword hidden database local table enrich sample budget index " +
		"graph mining learning network search ranking top estimator bias record match join similarity cover")
	names := strings.Fields("Wang Shea Wu Ntoulas Zerfos Cho Barbosa Freire Zhao Han Pei Yin")
	var recs []hiddendb.Record
	var all, local bytes.Buffer
	all.WriteString("id,title,author\n")
	for i := 0; i < 600; i++ {
		var title []string
		for _, j := range rng.Perm(len(words))[:3+rng.Intn(4)] {
			title = append(title, words[j])
		}
		author := names[rng.Intn(len(names))] + " and " + names[rng.Intn(len(names))]
		id := strconv.Itoa(i + 1)
		recs = append(recs, hiddendb.Record{ID: id, Fields: map[string]string{"title": strings.Join(title, " "), "author": author}, Order: []string{"title", "author"}})
		line := fmt.Sprintf("%s,%s,%s\n", id, strings.Join(title, " "), author)
		all.WriteString(line)
		if i < 150 {
			if i == 0 {
				local.WriteString("id,title,author\n")
			}
			local.WriteString(line)
		}
	}
	dir = t.TempDir()
	hiddenCSV = filepath.Join(dir, "hidden.csv")
	localCSV = filepath.Join(dir, "local.csv")
	os.WriteFile(hiddenCSV, all.Bytes(), 0o644)
	os.WriteFile(localCSV, local.Bytes(), 0o644)
	srv := httptest.NewServer(hiddendb.New(recs, hiddendb.Options{K: 20, PageSize: 10, Seed: seed}).Handler("/db"))
	t.Cleanup(srv.Close)
	return dir, hiddenCSV, localCSV, srv.URL + "/db"
}

func runApp(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errb
	err := app.Run(append([]string{"dwcrawl"}, args...))
	return out.String(), errb.String(), err
}

func TestEnrichCommand(t *testing.T) {
	dir, _, local, url := enrichFixture(t)
	hs := filepath.Join(dir, "hs.jsonl")
	out, _, err := runApp(t, "sample", "--interface", url, "--queries", "40", "--out", hs, "--local", local, "--columns", "title,author")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "θ ≈") {
		t.Fatalf("sample output: %s", out)
	}
	enriched := filepath.Join(dir, "enriched.csv")
	state := filepath.Join(dir, "state")
	out, errOut, err := runApp(t, "enrich", "--local", local, "--columns", "title,author", "--interface", url,
		"--budget", "10%", "--sample", hs, "--out", enriched, "--dir", state)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, want := range []string{"queries         15 of 15", "covered ", "query pool"} {
		if !strings.Contains(out, want) {
			t.Fatalf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "enrich: 15/15 queries") {
		t.Fatalf("progress:\n%s", errOut)
	}
	b, err := os.ReadFile(enriched)
	if err != nil || !strings.HasPrefix(string(b), "id,title,author,h_id,h_author,h_title,match_score,covered_by\n") {
		t.Fatalf("enriched.csv: %v\n%.300s", err, b)
	}
	// resume with a larger budget, JSON report
	out, _, err = runApp(t, "enrich", "--local", local, "--columns", "title,author", "--interface", url,
		"--budget", "20", "--sample", hs, "--dir", state, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Queries, Covered int
		Method           string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Queries != 20 || rep.Method != "smart-b" || rep.Covered == 0 {
		t.Fatalf("json report %q: %v", out, err)
	}
}

func TestEnrichCommandErrors(t *testing.T) {
	_, _, local, url := enrichFixture(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"enrich", "--local", local, "--columns", "title", "--interface", "ftp://x"}, "want an http(s) URL"},
		{[]string{"enrich", "--local", local, "--columns", "title", "--interface", url, "--method", "magic"}, "--method"},
		{[]string{"enrich", "--local", local, "--columns", "title", "--interface", url, "--budget", "-3"}, "--budget"},
		{[]string{"enrich", "--local", local, "--columns", "title", "--interface", url, "--match", "cosine"}, "--match"},
		{[]string{"enrich", "--local", local, "--columns", "nope", "--interface", url, "--method", "naive"}, `no column "nope"`},
		{[]string{"sample", "--interface", url, "--out", "x.jsonl"}, "vocabulary"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			_, _, err := runApp(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestBenchEnrichCommand(t *testing.T) {
	_, hidden, local, _ := enrichFixture(t)
	out, _, err := runApp(t, "bench", "enrich", "--hidden", hidden, "--local", local, "--columns", "title,author",
		"--k", "20", "--theta", "0.05", "--budget", "20%", "--methods", "smart-b,naive,ideal", "--error", "0.1", "--missing", "0.1", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res []map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res) != 3 {
		t.Fatalf("results %v", res)
	}
	for _, r := range res {
		for _, k := range []string{"method", "budget", "covered", "local_size"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("result %v lacks %q", r, k)
			}
		}
		if r["budget"].(float64) != 30 || r["local_size"].(float64) != 150 {
			t.Fatalf("result %v", r)
		}
	}
	out, _, err = runApp(t, "bench", "enrich", "--hidden", hidden, "--local", local, "--columns", "title,author",
		"--k", "20", "--theta", "0.05", "--budget", "30", "--methods", "smart-b,naive")
	if err != nil || !strings.Contains(out, "smart-b") || !strings.Contains(out, "coverage") {
		t.Fatalf("table: %v\n%s", err, out)
	}
	if _, _, err := runApp(t, "bench", "enrich", "--hidden", hidden, "--local", local, "--columns", "title", "--id-column", "ID"); err == nil || !strings.Contains(err.Error(), `no id column "ID"`) {
		t.Fatalf("id column: %v", err)
	}
}

// TestEnrichWithKeywordPlugin runs sample and enrich through the simweb
// keyword plugin and checks they do what the built-in JSON client does.
func TestEnrichWithKeywordPlugin(t *testing.T) {
	dir, _, local, url := enrichFixture(t)
	spec := "keyword/simweb?url=" + url
	report := func(iface, name string) map[string]any {
		t.Helper()
		hs := filepath.Join(dir, name+".jsonl")
		if _, _, err := runApp(t, "sample", "--interface", iface, "--queries", "30", "--out", hs, "--local", local, "--columns", "title,author"); err != nil {
			t.Fatalf("sample through %s: %v", iface, err)
		}
		out, errOut, err := runApp(t, "enrich", "--local", local, "--columns", "title,author", "--interface", iface,
			"--budget", "15", "--sample", hs, "--json")
		if err != nil {
			t.Fatalf("enrich through %s: %v\n%s", iface, err, errOut)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return rep
	}
	viaPlugin, viaHTTP := report(spec, "plugin"), report(url, "http")
	delete(viaPlugin, "search_ns") // time spent in the interface
	delete(viaHTTP, "search_ns")
	if viaPlugin["covered"] == nil || viaPlugin["covered"].(float64) == 0 || !reflect.DeepEqual(viaPlugin, viaHTTP) {
		t.Errorf("through the plugin %v\nthrough HTTP     %v", viaPlugin, viaHTTP)
	}
	if _, _, err := runApp(t, "enrich", "--local", local, "--columns", "title", "--interface", "keyword/simweb"); err == nil ||
		!strings.Contains(err.Error(), "variable url is required (or set DWCRAWL_KEYWORD_URL)") {
		t.Errorf("missing url: %v", err)
	}
}
