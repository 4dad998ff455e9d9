package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/cluster/clustertest"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
)

// probeWeb is a small web of used-car sites on loopback (hosts
// carsN.test): each homepage links to three pages with a bare search box
// (a text field and "Search": its domain is not in the form's text). An
// action under /db/ answers queries from a database (three cars for any
// query, none for nonsense), /static/ lists the same offers whatever the
// query.
func probeWeb(t *testing.T, sites int) (seeds []string, resolve string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch p := r.URL.Path; {
		case p == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case p == "/":
			fmt.Fprint(w, "<html><head><title>Used cars</title></head><body><h1>Used cars for sale</h1>")
			for _, k := range []string{"db", "static", "db2"} {
				fmt.Fprintf(w, `<p>See the <a href="/find/%s">used car listings</a> here.</p>`, k)
			}
			fmt.Fprint(w, "</body></html>")
		case strings.HasPrefix(p, "/find/"):
			k := strings.TrimPrefix(p, "/find/")
			fmt.Fprintf(w, `<html><head><title>Used cars %s</title></head><body><h1>Search</h1>`, k)
			fmt.Fprintf(w, `<form action="/search/%s" method="get"><input type="text" name="q"><input type="submit" value="Search"></form>`, k)
			fmt.Fprint(w, "<p>Used cars for sale from dealers: every make and model, certified pre-owned.</p></body></html>")
		case strings.HasPrefix(p, "/search/"):
			q := r.FormValue("q")
			if !strings.HasPrefix(p, "/search/db") {
				q = "latest"
			} else if strings.HasPrefix(q, "q") && len(q) == 9 {
				fmt.Fprint(w, "<html><body><h1>Search</h1><p>No results found.</p></body></html>")
				return
			}
			fmt.Fprint(w, "<html><body><h1>Results</h1><ul class=results>")
			for i := range 3 {
				fmt.Fprintf(w, `<li class=car><a href="/car/%s-%d">%s car %d</a><p>used %s for sale, 40,000 miles, one owner</p></li>`, q, i, q, i, q)
			}
			fmt.Fprint(w, "</ul></body></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")
	for i := range sites {
		seeds = append(seeds, fmt.Sprintf("http://cars%d.test:%s/", i, port))
	}
	return seeds, "*.test:" + port + ":127.0.0.1"
}

// TestClusterProbes crawls with post-query probing on: the workers probe
// the searchable forms whose domain their text does not tell, within one
// probe budget for the whole cluster, and the probes (decision and
// evidence) reach the coordinator's store, its counters and the forms
// stream (`dwcrawl forms --nats`), as a single-machine crawl records them.
func TestClusterProbes(t *testing.T) {
	const sites, perForm, probeBudget = 6, 3, 30 // 18 forms, 6 to 10 probed
	seeds, resolve := probeWeb(t, sites)
	src, err := os.ReadFile(filepath.Join("..", "domains", "auto.lua"))
	if err != nil {
		t.Fatal(err)
	}
	lua := string(src)
	i, j := strings.Index(lua, "  seeds = {"), strings.Index(lua, "  keywords = {")
	lua = lua[:i] + "  seeds = {\"" + strings.Join(seeds, "\", \"") + "\"},\n" + lua[j:]
	lua = strings.Replace(lua, "probe = { queries = 0, budget = 200 }", fmt.Sprintf("probe = { queries = %d, budget = %d }", perForm, probeBudget), 1)
	lua = strings.Replace(lua, `delay          = "2s"`, `delay          = "0s"`, 1)
	path := filepath.Join(t.TempDir(), "probecars.lua")
	if err := os.WriteFile(path, []byte(lua), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Probe.Queries != perForm || len(p.Seeds) != sites {
		t.Fatalf("profile: probe %+v, %d seeds", p.Probe, len(p.Seeds))
	}

	// one machine's decisions, by form action (the same on every site)
	single := map[string]string{}
	sc, err := app.NewCrawl(context.Background(), app.CrawlOptions{Profile: p, Dir: t.TempDir(), Pages: 200, Seed: webSeed, Strategy: crawl.SCDI,
		Net: app.NetOptions{AllowPrivate: true, Resolve: []string{resolve}}, Logger: quiet(), Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	ssn, err := sc.Run(context.Background())
	if err == nil {
		err = sc.DB.ScanForms(func(f store.Form) error {
			if f.Probe != nil {
				single[actionPath(f.Action)] = f.Probe.Decision
			}
			return nil
		})
	}
	sc.Close()
	if err != nil {
		t.Fatal(err)
	}
	// a form reserves its queries, two words of its page and the general
	// sample's three (5 more, core/crawl's generalProbes) before it is
	// probed, and gives back what it did not send: the budget is a
	// ceiling, reached to within one reservation
	const reserve = perForm + 5
	if ssn.ProbeQueries > probeBudget || ssn.ProbeQueries <= probeBudget-reserve || len(single) == 0 {
		t.Fatalf("one machine: %d probe queries, decisions %v", ssn.ProbeQueries, single)
	}

	ts := clustertest.StartServer(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	wctx, stopWorkers := context.WithCancel(ctx)
	dirs, wait := startWorkers(t, wctx, ts.URL(), 3)
	coordDir := t.TempDir()
	o := app.ClusterRunOptions{NATS: ts.URL(), Name: "probes", CrawlOptions: app.CrawlOptions{Profile: p, Dir: coordDir, Pages: 200, Seed: webSeed,
		Strategy: crawl.SCDI, Net: app.NetOptions{AllowPrivate: true, Resolve: []string{resolve}}, Logger: quiet(), Workers: 8}}
	sn, err := app.ClusterRun(ctx, o)
	stopWorkers()
	wait()
	if err != nil {
		t.Fatal(err)
	}
	db := openStore(t, coordDir)
	defer db.Close()
	stored := map[string]*store.Probe{}
	var queries int64
	decisions := map[string]int{}
	db.ScanForms(func(f store.Form) error {
		if f.Probe == nil {
			return nil
		}
		stored[f.ID] = f.Probe
		queries += int64(len(f.Probe.Queries))
		decisions[f.Probe.Decision]++
		if len(f.Probe.Evidence) == 0 {
			t.Errorf("form %s: probe without evidence", f.ID)
		}
		if f.Relevant != (f.Probe.Decision == store.ProbeTopicDatabase) {
			t.Errorf("form %s (%s): decision %s, relevant %v", f.ID, f.Action, f.Probe.Decision, f.Relevant)
		}
		if d, ok := single[actionPath(f.Action)]; ok && d != f.Probe.Decision {
			t.Errorf("form %s (%s): decision %s, one machine's %s", f.ID, f.Action, f.Probe.Decision, d)
		}
		return nil
	})
	if len(stored) < 2 {
		t.Fatalf("%d forms probed (%d searchable)", len(stored), sn.SearchableForms)
	}
	if sn.ProbedForms != int64(len(stored)) || sn.ProbeQueries != queries {
		t.Errorf("counters: %d forms probed with %d queries; store: %d with %d", sn.ProbedForms, sn.ProbeQueries, len(stored), queries)
	}
	// one budget for the cluster: the three workers together stop at it
	if queries > probeBudget || queries <= probeBudget-reserve {
		t.Errorf("%d probe queries over the cluster, budget %d", queries, probeBudget)
	}
	rows, err := app.ClusterForms(ctx, ts.URL(), "probes", false)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, r := range rows {
		want := stored[r.ID]
		switch {
		case want == nil && (r.Probe != nil || r.ProbeDecision != ""):
			t.Errorf("form %s: probed in the stream, not in the store", r.ID)
		case want != nil && (r.Probe == nil || r.ProbeDecision != want.Decision || len(r.Probe.Queries) != len(want.Queries) || len(r.Probe.Evidence) != len(want.Evidence)):
			t.Errorf("form %s: stream probe %q %+v, store %+v", r.ID, r.ProbeDecision, r.Probe, want)
		case want != nil:
			got++
		}
	}
	if got != len(stored) {
		t.Errorf("%d probed forms in the forms stream, %d in the store", got, len(stored))
	}
	t.Logf("%d pages, %d searchable forms, %d probed with %d queries (budget %d) by %d workers: %v; one machine: %v", sn.Pages, sn.SearchableForms, len(stored), queries, probeBudget, len(dirs), decisions, single)
}

// actionPath is the path of a form's action.
func actionPath(action string) string {
	if u, err := url.Parse(action); err == nil {
		return u.Path
	}
	return action
}
