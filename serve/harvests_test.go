package serve_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/dataset"
	"github.com/dwcrawl/dwcrawl/serve"
	"github.com/dwcrawl/dwcrawl/store"
)

func TestHarvestBadRequests(t *testing.T) {
	h := newHarness(t, "", testWeb(t), nil)
	auto := filepath.Join(domainsDir(t), "auto.lua")
	for _, tc := range []struct {
		name, method, path, body string
		want                     int
		msg                      string
	}{
		{"no profile", "POST", "/api/harvests", `{"testbed": true}`, 400, "exactly one of profile"},
		{"unknown field", "POST", "/api/harvests", `{"profile": "` + auto + `", "budget": 5}`, 400, "unknown field"},
		{"negative queries per db", "POST", "/api/harvests", `{"profile": "` + auto + `", "queries_per_db": -1}`, 400, "queries_per_db"},
		{"negative total", "POST", "/api/harvests", `{"profile": "` + auto + `", "queries": -3}`, 400, "queries must not be negative"},
		{"stop after", "POST", "/api/harvests", `{"profile": "` + auto + `", "stop_after": -2}`, 400, "stop_after"},
		{"bad strategy", "POST", "/api/harvests", `{"profile": "` + auto + `", "strategy": "dfs"}`, 400, "strategy"},
		{"server's field", "POST", "/api/harvests", mustJSON(t, map[string]any{"profile": auto, "profile_file": auto}), 400, "set by the server"},
		{"outside", "POST", "/api/harvests", `{"profile": "/etc/passwd"}`, 403, "outside"},
		{"unknown harvest", "GET", "/api/harvests/harvest-auto-9", "", 404, "harvest-auto-9"},
		{"unknown curve", "GET", "/api/harvests/harvest-auto-9/curve", "", 404, "harvest-auto-9"},
		{"unknown stop", "POST", "/api/harvests/harvest-auto-9/stop", "", 404, "harvest-auto-9"},
		{"unknown page", "GET", "/harvests/harvest-auto-9", "", 404, "harvest-auto-9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(tc.method, tc.path, tc.body)
			if code != tc.want || !strings.Contains(string(body), tc.msg) {
				t.Fatalf("%s %s: status %d, want %d with %q: %s", tc.method, tc.path, code, tc.want, tc.msg, body)
			}
		})
	}
	var list []serve.HarvestStatus
	h.json("GET", "/api/harvests", "", 200, &list)
	if len(list) != 0 {
		t.Fatalf("refused requests created harvests: %+v", list)
	}
}

func (h *harness) harvest(id string) serve.HarvestStatus {
	h.t.Helper()
	var st serve.HarvestStatus
	h.json("GET", "/api/harvests/"+id, "", http.StatusOK, &st)
	return st
}

// waitHarvest polls a harvest until cond holds or it stops running.
func (h *harness) waitHarvest(id string, cond func(serve.HarvestStatus) bool) serve.HarvestStatus {
	h.t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		st := h.harvest(id)
		if st.State != serve.StateRunning || cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("harvest %s still running after 3 minutes: %+v", id, st.Stages)
		}
	}
}

// TestHarvestJob runs a harvest through the API on the simulated web:
// stopped once databases are being surfaced, the server restarted, the
// harvest resumed with a larger total budget to its end. Its status lists
// the databases as the store's dataset does (verdict, queries, records),
// queries only to databases of the topic and within the budgets, its curve
// ends at each database's counts, and the metrics, the dashboard and the
// list agree.
func TestHarvestJob(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web and surfaces its databases")
	}
	web := testWeb(t)
	h := newHarness(t, "", web, nil)
	const pages, perDB, total1, total2 = 500, 10, 15, 40
	var created struct{ ID string }
	h.json("POST", "/api/harvests", mustJSON(t, map[string]any{"profile": filepath.Join(domainsDir(t), "auto.lua"), "testbed": true,
		"pages": pages, "queries_per_db": perDB, "queries": total1, "parallel": 2, "seed": 3}), http.StatusCreated, &created)
	id := created.ID
	if !strings.HasPrefix(id, "harvest-auto-") {
		t.Fatalf("harvest id %q", id)
	}
	st := h.waitHarvest(id, func(st serve.HarvestStatus) bool { return st.Stages.Surfacing > 0 && st.Queries > 0 })
	if st.State == serve.StateRunning {
		var stopped serve.HarvestStatus
		h.json("POST", "/api/harvests/"+id+"/stop", "", 200, &stopped)
		if stopped.State != serve.StateStopped {
			t.Fatalf("after stop: %s", stopped.State)
		}
		for _, d := range stopped.Databases {
			if d.State == "surfacing" {
				t.Errorf("stopped harvest lists database %s as surfacing", d.ID)
			}
		}
		st = stopped
	} else {
		t.Logf("the harvest ended (%s) before it could be stopped", st.State)
	}
	if code, _ := h.do("POST", "/api/harvests/"+id+"/stop", ""); code != http.StatusConflict {
		t.Errorf("stopping a harvest that is not running: status %d, want 409", code)
	}
	before := map[string]int{}
	for _, d := range st.Databases {
		before[d.ID] = d.Records
	}
	t.Logf("%s at the stop: %d pages, stages %+v, %d records in %d queries", id, st.Pages, st.Stages, st.Records, st.Queries)

	// a new server lists it from its record, then resumes it with a larger
	// total budget
	root := h.root
	h.close()
	h = newHarness(t, root, web, nil)
	if again := h.harvest(id); again.State != st.State || again.Records != st.Records || len(again.Databases) != len(st.Databases) {
		t.Fatalf("after the restart: %s, %d records, %d databases; before: %s, %d, %d", again.State, again.Records, len(again.Databases), st.State, st.Records, len(st.Databases))
	}
	h.json("POST", "/api/harvests/"+id+"/resume", fmt.Sprintf(`{"queries": %d}`, total2), 200, nil)
	if code, _ := h.do("POST", "/api/harvests/"+id+"/resume", ""); code != http.StatusConflict && h.harvest(id).State == serve.StateRunning {
		t.Errorf("resuming a running harvest: status %d, want 409", code)
	}
	st = h.waitHarvest(id, func(serve.HarvestStatus) bool { return false })
	if st.State != serve.StateDone || !st.DiscoveryDone || st.Pages != pages {
		t.Fatalf("resumed harvest: %s (%s), discovery done %v, %d pages", st.State, st.Error, st.DiscoveryDone, st.Pages)
	}
	t.Logf("%s done: stages %+v, %d records in %d queries", id, st.Stages, st.Records, st.Queries)
	if st.Queries <= total1 && st.Stages.Topic > 1 || st.Queries > total2 {
		t.Errorf("%d queries after resuming with a total of %d (first run: %d)", st.Queries, total2, total1)
	}
	topic, sumRecords, sumQueries := 0, 0, 0
	for _, d := range st.Databases {
		sumRecords += d.Records
		sumQueries += d.Queries
		switch {
		case d.Records < before[d.ID]:
			t.Errorf("database %s: %d records after resuming, %d before", d.ID, d.Records, before[d.ID])
		case d.Verdict != store.ProbeTopicDatabase && (d.Queries > 0 || d.State != "skipped"):
			t.Errorf("database %s judged %s: %s with %d queries", d.ID, d.Verdict, d.State, d.Queries)
		case d.Queries > perDB:
			t.Errorf("database %s: %d queries over its budget of %d", d.ID, d.Queries, perDB)
		case d.Verdict == store.ProbeTopicDatabase && d.State == "surfacing":
			t.Errorf("database %s still surfacing in a finished harvest", d.ID)
		}
		if d.Verdict == store.ProbeTopicDatabase {
			topic++
		}
	}
	if topic == 0 || st.Records == 0 {
		t.Fatalf("the harvest surfaced no database of the topic: %+v", st.Databases)
	}
	if st.Stages.Found != len(st.Databases) || st.Stages.Topic != topic || sumRecords != st.Records || sumQueries != st.Queries {
		t.Errorf("stages %+v and totals %d/%d do not count the %d databases listed (%d of the topic, %d records, %d queries)",
			st.Stages, st.Records, st.Queries, len(st.Databases), topic, sumRecords, sumQueries)
	}

	// the curve: each database with queries, from [0 0] to its counts
	var curve serve.HarvestCurve
	h.json("GET", "/api/harvests/"+id+"/curve", "", 200, &curve)
	byID := map[string]serve.DatabaseCurve{}
	for _, c := range curve.Databases {
		byID[c.ID] = c
		for i := 1; i < len(c.Points); i++ {
			if c.Points[i][0] != c.Points[i-1][0]+1 || c.Points[i][1] < c.Points[i-1][1] {
				t.Errorf("curve of %s: %v then %v", c.ID, c.Points[i-1], c.Points[i])
			}
		}
	}
	for _, d := range st.Databases {
		c, ok := byID[d.ID]
		switch {
		case d.Queries == 0 && ok:
			t.Errorf("database %s has no query but a curve", d.ID)
		case d.Queries > 0 && !ok:
			t.Errorf("database %s: %d queries, no curve", d.ID, d.Queries)
		case ok && (c.Points[0] != [2]float64{} || c.Points[len(c.Points)-1] != [2]float64{float64(d.Queries), float64(d.Records)} || c.Site != d.Site):
			t.Errorf("curve of %s (%s) from %v to %v, want to [%d %d] of %s", d.ID, c.Site, c.Points[0], c.Points[len(c.Points)-1], d.Queries, d.Records, d.Site)
		}
	}

	// the metrics count what the status shows
	code, b := h.do("GET", "/metrics", "")
	for _, want := range []string{
		fmt.Sprintf(`dwcrawl_queries_sent_total{job=%q,kind="harvest"} %d`, id, st.Queries),
		fmt.Sprintf(`dwcrawl_harvest_records{job=%q} %d`, id, st.Records),
		fmt.Sprintf(`dwcrawl_harvest_databases{job=%q,stage="topic"} %d`, id, topic),
		fmt.Sprintf(`dwcrawl_crawl_pages_fetched_total{crawl=%q} %d`, id, st.Pages),
		fmt.Sprintf(`dwcrawl_job_state{job=%q,kind="harvest",state="done"} 1`, id),
	} {
		if code != 200 || !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// the list, the front page and the harvest's page
	var list []serve.HarvestStatus
	h.json("GET", "/api/harvests", "", 200, &list)
	if len(list) != 1 || list[0].ID != id || list[0].Records != st.Records {
		t.Errorf("harvest list: %+v", list)
	}
	if code, b := h.do("GET", "/", ""); code != 200 || !strings.Contains(string(b), `href="/harvests/`+id+`"`) {
		t.Errorf("the front page (status %d) does not link the harvest", code)
	}
	code, b = h.do("GET", "/harvests/"+id, "")
	for _, d := range st.Databases {
		if row := fmt.Sprintf(`<tr data-id="%s">`, d.ID); code != 200 || !strings.Contains(string(b), row) || !strings.Contains(string(b), d.CoverageText()) {
			t.Errorf("the harvest page (status %d) has no row for %s with %q", code, d.ID, d.CoverageText())
		}
	}

	// the store's dataset, read without the server, lists the same counts
	h.close()
	db, err := store.OpenReadOnly(filepath.Join(root, id), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := dataset.Load(db, "")
	if err != nil {
		t.Fatal(err)
	}
	fromStore := map[string]dataset.Database{}
	for _, d := range ds.Databases() {
		fromStore[d.Source] = d
	}
	for _, d := range st.Databases {
		got := fromStore["form:"+d.ID]
		if got.Records != d.Records || got.Queries != d.Queries || d.Queries > 0 && got.Verdict != d.Verdict {
			t.Errorf("database %s: status says %s, %d records, %d queries; the dataset %+v", d.ID, d.Verdict, d.Records, d.Queries, got)
		}
	}
}
