package main

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/testseed"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
)

// harvestRecords lists the records a harvest directory holds, by source and
// key, through `dwcrawl docs` (a reader beside a running harvest).
func harvestRecords(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out, err := runCLI(t, "docs", "--dir", dir, "--format", "jsonl")
	if err != nil {
		// before the run has stored anything: its directory is not there
		// yet, or not yet a store
		if strings.Contains(err.Error(), "no records") || strings.Contains(err.Error(), "no such crawl directory") ||
			strings.Contains(err.Error(), "no database in it") {
			return map[string]bool{}
		}
		t.Fatal(err)
	}
	got := map[string]bool{}
	for sc := bufio.NewScanner(strings.NewReader(out)); sc.Scan(); {
		var d struct {
			Source string `json:"source"`
			Key    string `json:"key"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		got[d.Source+" "+d.Key] = true
	}
	return got
}

// TestHarvestCommand runs `dwcrawl harvest --testbed --json` and checks its
// summary against the directory: the databases with their verdicts,
// queries only to databases of the topic, each within its budget, the
// records counted as `docs` exports them; a second run resumes and sends no
// query a finished database does not need.
func TestHarvestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web and surfaces its databases")
	}
	dir := filepath.Join(t.TempDir(), "harvest")
	args := []string{"harvest", "--testbed", "--pages", "400", "--queries-per-db", "30", "--dir", dir, "--json", "--quiet", autoProfile}
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var sum app.HarvestSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	var raw map[string]any
	json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"pages", "databases", "records"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("--json summary has no %q", k)
		}
	}
	if sum.Pages != 400 {
		t.Errorf("pages %d, want the budget of 400", sum.Pages)
	}
	surfaced, records := 0, 0
	for _, d := range sum.Databases {
		switch {
		case d.Verdict != store.ProbeTopicDatabase && d.Queries > 0:
			t.Errorf("database %s judged %s got %d queries", d.ID, d.Verdict, d.Queries)
		case d.Queries > 30:
			t.Errorf("database %s: %d queries over its budget of 30", d.ID, d.Queries)
		case d.Verdict == store.ProbeTopicDatabase && d.State != "done":
			t.Errorf("database %s of the topic ended %s (%s)", d.ID, d.State, d.Error)
		}
		if d.Queries > 0 {
			surfaced++
		}
		records += d.Records
	}
	if surfaced == 0 {
		t.Fatalf("no database surfaced: %s", out)
	}
	got := harvestRecords(t, dir)
	if records != sum.Records || len(got) != sum.Records {
		t.Errorf("summary: %d records (databases: %d); docs exports %d", sum.Records, records, len(got))
	}
	// again: discovery's budget is spent, every database is done
	out, err = runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var again app.HarvestSummary
	if err := json.Unmarshal([]byte(out), &again); err != nil {
		t.Fatal(err)
	}
	if again.Queries != sum.Queries || again.Records != sum.Records {
		t.Errorf("a second run went from %d queries, %d records to %d, %d", sum.Queries, sum.Records, again.Queries, again.Records)
	}
	t.Logf("%d pages, %d databases (%d surfaced), %d records in %d queries", sum.Pages, len(sum.Databases), surfaced, sum.Records, sum.Queries)
}

// TestHarvestKill kills a harvest (this test binary running as dwcrawl)
// with SIGKILL at random moments (seeded, logged) and runs it again each
// time: every record listed before a kill is there at the end, and the last
// run finishes every database.
func TestHarvestKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills harvests")
	}
	const kills = 5
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 0)) // the kill moments
	dir := filepath.Join(t.TempDir(), "harvest")
	args := []string{"harvest", "--testbed", "--pages", "600", "--queries-per-db", "40", "--dir", dir, "--json", "--quiet", autoProfile}
	seen := map[string]bool{}
	killed := 0
	for i := 0; i < kills; i++ {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), selfMainEnv+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// each kill comes a seeded moment after the run stored records
		// the earlier ones had not: whatever the machine's speed, every
		// kill interrupts surfacing under way
		before := len(seen)
		ended := false
	wait:
		for {
			select {
			case err := <-done:
				t.Logf("run %d ended by itself before its kill (%v)", i+1, err)
				ended = true
				break wait
			case <-time.After(500 * time.Millisecond):
			}
			if n := len(harvestRecords(t, dir)); n > before {
				break
			}
		}
		if ended {
			break
		}
		delay := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
		select {
		case err := <-done:
			t.Logf("run %d ended by itself before its kill (%v)", i+1, err)
			ended = true
		case <-time.After(delay):
		}
		if ended {
			break
		}
		for k := range harvestRecords(t, dir) {
			seen[k] = true
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		killed++
		t.Logf("kill %d, %v after new records: %d records seen so far", killed, delay, len(seen))
	}
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var sum app.HarvestSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	final := harvestRecords(t, dir)
	lost := 0
	for k := range seen {
		if !final[k] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of the %d records listed before the kills are missing", lost, len(seen))
	}
	for _, d := range sum.Databases {
		if d.Verdict == store.ProbeTopicDatabase && d.State != "done" {
			t.Errorf("database %s ended %s (%s)", d.ID, d.State, d.Error)
		}
	}
	if killed == 0 || len(seen) == 0 {
		t.Fatalf("%d kills with %d records seen: too quick to test anything", killed, len(seen))
	}
	t.Logf("%d kills, %d records seen before them, %d at the end, %d lost", killed, len(seen), len(final), lost)
}

// TestHarvestTotalBudget holds a harvest to --queries for all its
// databases together.
func TestHarvestTotalBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web and surfaces its databases")
	}
	dir := filepath.Join(t.TempDir(), "harvest")
	out, err := runCLI(t, "harvest", "--testbed", "--pages", "400", "--queries", "45", "--queries-per-db", "30", "--dir", dir, "--json", "--quiet", autoProfile)
	if err != nil {
		t.Fatal(err)
	}
	var sum app.HarvestSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for _, d := range sum.Databases {
		if d.Stopped == "queries" {
			stopped++
		}
	}
	if sum.Queries > 45 || stopped == 0 {
		t.Errorf("%d queries for a budget of 45, %d databases stopped by it: %s", sum.Queries, stopped, out)
	}
	t.Logf("%d queries, %d databases stopped by the budget", sum.Queries, stopped)
}
