package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/cluster/clustertest"
)

// TestClusterCommands runs the distributed mode through the CLI on an
// embedded NATS server: two `dwcrawl worker` runs, `dwcrawl run --nats
// --testbed --json`, resumed with a larger budget, `dwcrawl forms --nats
// --crawl` and `dwcrawl budget`.
func TestClusterCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("a testbed crawl on two workers; skipped in -short mode")
	}
	ts := clustertest.StartServer(t, t.TempDir())
	url := ts.URL()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := newApp()
			a.Writer, a.ErrWriter = &strings.Builder{}, &strings.Builder{}
			dir := filepath.Join(t.TempDir(), "w")
			if err := a.RunContext(ctx, []string{"dwcrawl", "worker", "--nats", url, "--dir", dir, "--sites", "2", "--log-level", "error"}); err != nil && ctx.Err() == nil {
				t.Errorf("worker %d: %v", i, err)
			}
		}()
	}
	defer wg.Wait()
	defer cancel()

	dir := t.TempDir()
	prof := filepath.Join("..", "..", "domains", "auto.lua")
	var prev int64
	for _, pages := range []int{150, 250} {
		out, errOut, err := runApp(t, "run", "--nats", url, "--testbed", "--pages", strconv.Itoa(pages), "--crawl", "cli", "--dir", dir, "--json", prof)
		if err != nil {
			t.Fatalf("run --nats: %v\n%s", err, errOut)
		}
		if !strings.Contains(errOut, "crawl cli on "+url) {
			t.Errorf("run --nats said:\n%s", errOut)
		}
		var sum struct {
			Pages           int64 `json:"pages"`
			SearchableForms int64 `json:"searchable_forms"`
		}
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("run --nats --json: %v\n%s", err, out)
		}
		if sum.Pages != int64(pages) || sum.Pages <= prev {
			t.Errorf("run --nats --pages %d: %d pages (before: %d)", pages, sum.Pages, prev)
		}
		prev = sum.Pages
		forms, _, err := runApp(t, "forms", "--nats", url, "--crawl", "cli", "--format", "jsonl")
		if err != nil {
			t.Fatal(err)
		}
		n := int64(strings.Count(forms, "\n"))
		if n != sum.SearchableForms {
			t.Errorf("forms --nats: %d forms, the crawl counted %d", n, sum.SearchableForms)
		}
		local, _, err := runApp(t, "forms", "--dir", dir, "--format", "jsonl")
		if err != nil || int64(strings.Count(local, "\n")) != n {
			t.Errorf("forms --dir of the coordinator: %d lines (%v), the cluster's stream %d", strings.Count(local, "\n"), err, n)
		}
	}

	if _, errOut, err := runApp(t, "budget", "--nats", url, "--set", "7", "q"); err != nil {
		t.Fatalf("budget --set: %v\n%s", err, errOut)
	}
	out, _, err := runApp(t, "budget", "--nats", url, "--json", "q")
	if err != nil {
		t.Fatal(err)
	}
	var b struct{ Limit, Used, Left int64 }
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.Limit != 7 || b.Left != 7 {
		t.Errorf("budget --json: %s (%v)", out, err)
	}
	// a surfacing run spends the shared budget and stops when it is spent
	rel, _, err := runApp(t, "forms", "--dir", dir, "--relevant", "--format", "csv")
	lines := strings.Split(strings.TrimSpace(rel), "\n")
	if err != nil || len(lines) < 2 {
		t.Fatalf("no relevant form to surface (%v):\n%s", err, rel)
	}
	form := strings.SplitN(lines[1], ",", 2)[0]
	if _, errOut, err := runApp(t, "surface", "--form", form, "--dir", dir, "--budget", "50", "--quiet",
		"--nats", url, "--budget-name", "q"); err != nil {
		t.Fatalf("surface --budget-name: %v\n%s", err, errOut)
	}
	out, _, err = runApp(t, "budget", "--nats", url, "--json", "q")
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.Used != 7 || b.Left != 0 {
		t.Errorf("after surfacing with the shared budget of 7 queries: %s (%v)", out, err)
	}
	if _, _, err := runApp(t, "budget", "--nats", url, "nosuch"); err == nil {
		t.Error("budget of an unknown name: no error")
	}
}
