package serve_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/testseed"
	"github.com/dwcrawl/dwcrawl/report"
	"github.com/dwcrawl/dwcrawl/serve"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// TestTenCrawls starts ten crawls at once on one server, stops each one
// while it runs, resumes it, and checks that all finish and that no form
// recorded before a stop is missing after the resume.
func TestTenCrawls(t *testing.T) {
	if testing.Short() {
		t.Skip("ten crawls of 1500 pages: not in -short runs")
	}
	rng := rand.New(rand.NewSource(int64(testseed.Seed(t)))) // order of the stops
	h := newHarness(t, "", testWeb(t), nil)
	profiles := []string{"auto", "book", "job", "movie", "airfare"}
	const budget = 1500
	ids := make([]string, 10)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := mustJSON(t, map[string]any{"profile": filepath.Join(domainsDir(t), profiles[i%len(profiles)]+".lua"),
				"testbed": true, "pages": budget, "strategy": crawl.Strategies[i%len(crawl.Strategies)], "seed": i + 1})
			code, b := h.do("POST", "/api/crawls", body)
			if code != http.StatusCreated {
				t.Errorf("POST %s: %d %s", body, code, b)
				return
			}
			ids[i] = strings.Split(strings.Split(string(b), `"id": "`)[1], `"`)[0]
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("id %s given twice: %v", id, ids)
		}
		seen[id] = true
	}
	var list []serve.CrawlStatus
	h.json("GET", "/api/crawls", "", 200, &list)
	if len(list) != 10 {
		t.Fatalf("%d crawls listed, want 10", len(list))
	}

	before := map[string]map[string]bool{}
	stopped := 0
	for _, i := range rng.Perm(len(ids)) {
		id := ids[i]
		// let it record something, then stop it
		deadline := time.Now().Add(2 * time.Minute)
		for st := h.status(id); st.State == serve.StateRunning && st.Pages < 60; st = h.status(id) {
			if time.Now().After(deadline) {
				t.Fatalf("crawl %s made no progress: %+v", id, st)
			}
			time.Sleep(50 * time.Millisecond)
		}
		code, b := h.do("POST", "/api/crawls/"+id+"/stop", "")
		switch code {
		case http.StatusOK:
			stopped++
			st := h.status(id)
			if st.State != serve.StateStopped || st.FinishedAt == nil {
				t.Fatalf("crawl %s after stop: %+v", id, st)
			}
		case http.StatusConflict: // it had finished already
		default:
			t.Fatalf("stop %s: %d %s", id, code, b)
		}
		before[id] = h.formIDs(id)
	}
	t.Logf("%d of 10 crawls stopped while running", stopped)
	if stopped < 5 {
		t.Fatalf("only %d crawls were still running to be stopped: the test web is too small", stopped)
	}
	for _, id := range ids {
		if h.status(id).State == serve.StateStopped {
			h.json("POST", "/api/crawls/"+id+"/resume", "", 200, nil)
		}
	}
	for _, id := range ids {
		st := h.waitDone(id, 5*time.Minute)
		if st.State != serve.StateDone {
			t.Fatalf("crawl %s ended %s: %s", id, st.State, st.Error)
		}
		if st.Pages > budget {
			t.Fatalf("crawl %s fetched %d pages, budget %d", id, st.Pages, budget)
		}
		after := h.formIDs(id)
		for f := range before[id] {
			if !after[f] {
				t.Fatalf("crawl %s lost form %s across stop and resume", id, f)
			}
		}
		if len(after) < len(before[id]) || int64(len(after)) != st.SearchableForms {
			t.Fatalf("crawl %s: %d forms before the stop, %d after, %d counted", id, len(before[id]), len(after), st.SearchableForms)
		}
		t.Logf("%s (%s): %d pages, %d forms before the stop, %d after", id, st.Strategy, st.Pages, len(before[id]), len(after))
	}
}

// TestMetrics scrapes /metrics during and after a crawl and parses it as
// the Prometheus text format.
func TestMetrics(t *testing.T) {
	h := newHarness(t, "", testWeb(t), nil)
	id := h.startCrawl(mustJSON(t, map[string]any{"profile": filepath.Join(domainsDir(t), "auto.lua"), "testbed": true, "pages": 1200}))
	var worst time.Duration
	var times []time.Duration
	scrape := func() map[string]*dto.MetricFamily {
		start := time.Now()
		code, b := h.do("GET", "/metrics", "")
		took := time.Since(start)
		if took > worst {
			worst = took
		}
		times = append(times, took)
		if code != 200 {
			t.Fatalf("/metrics: %d %s", code, b)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("/metrics is not the Prometheus text format: %v", err)
		}
		return fams
	}
	for h.status(id).State == serve.StateRunning {
		scrape()
		time.Sleep(100 * time.Millisecond)
	}
	slices.Sort(times)
	t.Logf("/metrics during the crawl (not asserted): %d scrapes, median %s, 90th percentile %s, slowest %s",
		len(times), times[len(times)/2], times[len(times)*9/10], worst)
	st := h.waitDone(id, 2*time.Minute)
	times, worst = nil, 0
	for range 50 {
		scrape()
	}
	slices.Sort(times)
	t.Logf("/metrics after the crawl: median %s, slowest %s", times[len(times)/2], worst)
	fams := scrape()
	value := func(name string, labels ...string) (float64, bool) {
		f := fams[name]
		if f == nil {
			return 0, false
		}
	next:
		for _, m := range f.Metric {
			got := map[string]string{}
			for _, l := range m.Label {
				got[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if got[labels[i]] != labels[i+1] {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
		}
		return 0, false
	}
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"dwcrawl_crawl_pages_fetched_total", []string{"crawl", id}, float64(st.Pages)},
		{"dwcrawl_crawl_pages_failed_total", []string{"crawl", id}, float64(st.Failed)},
		{"dwcrawl_crawl_relevant_forms", []string{"crawl", id}, float64(st.RelevantForms)},
		{"dwcrawl_crawl_forms_seen_total", []string{"crawl", id}, float64(st.Forms)},
		{"dwcrawl_crawl_deep_sites", []string{"crawl", id}, float64(st.DeepSites)},
		{"dwcrawl_crawl_sites", []string{"crawl", id}, float64(st.Sites)},
		{"dwcrawl_crawl_frontier_size", []string{"crawl", id, "frontier", "sites"}, float64(st.FrontierSites)},
		{"dwcrawl_crawl_frontier_size", []string{"crawl", id, "frontier", "links"}, float64(st.FrontierLinks)},
		{"dwcrawl_queries_sent_total", []string{"job", id, "kind", "reverse"}, float64(st.ReverseQueries)},
		{"dwcrawl_job_state", []string{"job", id, "kind", "crawl", "state", "done"}, 1},
		// every page fetch is timed once (the budget counts fetches)
		{"dwcrawl_fetch_duration_seconds", []string{"crawl", id}, float64(st.Pages)},
	} {
		got, ok := value(tc.name, tc.labels...)
		if !ok || got != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	kinds := 0.0
	for _, m := range fams["dwcrawl_crawl_forms"].GetMetric() {
		kinds += m.Gauge.GetValue()
	}
	if kinds != float64(st.SearchableForms) || kinds == 0 {
		t.Errorf("forms by kind sum to %v, %d searchable forms recorded", kinds, st.SearchableForms)
	}
	causes := 0.0
	for _, m := range fams["dwcrawl_crawl_fetch_failures_total"].GetMetric() {
		causes += m.Counter.GetValue()
	}
	if causes > float64(st.Failed) {
		t.Errorf("fetch failures by cause sum to %v, more than the %d failed pages", causes, st.Failed)
	}
	for _, f := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if fams[f] == nil {
			t.Errorf("no %s", f)
		}
	}
	t.Log(fmt.Sprintf("%d metric families", len(fams)))
}

// TestSurfaceAndEnrichJobs runs a surfacing of a form a crawl found and an
// enrichment of an inline table through the API.
func TestSurfaceAndEnrichJobs(t *testing.T) {
	h := newHarness(t, "", testWeb(t), nil)
	id := h.startCrawl(mustJSON(t, map[string]any{"profile": filepath.Join(domainsDir(t), "book.lua"), "testbed": true, "pages": 300}))
	h.waitDone(id, 2*time.Minute)
	var forms []report.FormRow
	h.json("GET", "/api/crawls/"+id+"/forms?relevant=1", "", 200, &forms)
	if len(forms) == 0 {
		t.Fatal("the crawl found no relevant form to surface")
	}
	var sid struct{ ID string }
	h.json("POST", "/api/surface", mustJSON(t, map[string]any{"crawl": id, "form": forms[0].ID, "budget": 6}), 201, &sid)
	ss := h.waitSurface(sid.ID)
	if ss.State != serve.StateDone || ss.Queries == 0 || ss.Queries > 6 || ss.Docs == 0 || ss.Source != "form:"+forms[0].ID {
		t.Fatalf("surfacing %s of form %s: %+v", sid.ID, forms[0].PageURL, ss)
	}
	var sc serve.TaskCurve
	h.json("GET", "/api/surface/"+sid.ID+"/curve", "", 200, &sc)
	if len(sc.Points) != ss.Queries+1 || sc.Points[len(sc.Points)-1] != [2]float64{float64(ss.Queries), float64(ss.Docs)} {
		t.Fatalf("surfacing curve %v for %d queries, %d documents", sc.Points, ss.Queries, ss.Docs)
	}
	var slist []serve.SurfaceStatus
	h.json("GET", "/api/surface", "", 200, &slist)
	if len(slist) != 1 || slist[0].ID != sid.ID {
		t.Fatalf("surface list: %+v", slist)
	}
	// the crawl's store holds the harvest; the crawl still reads
	if n := len(h.formIDs(id)); n == 0 {
		t.Fatal("the crawl's forms are gone")
	}

	recs := hiddendb.Synthetic(3, 2000)
	hdb := hiddendb.New(recs, hiddendb.Options{K: 30, PageSize: 10, Seed: 3})
	api := httptest.NewServer(hdb.Handler(""))
	defer api.Close()
	local := hiddendb.LocalCSV(recs, 200)
	var eid struct{ ID string }
	h.json("POST", "/api/enrich", mustJSON(t, map[string]any{"local_csv": local, "columns": []string{"title", "author"},
		"interface": api.URL, "budget": 10, "sample_queries": 40, "seed": 1}), 201, &eid)
	var es serve.EnrichStatus
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		h.json("GET", "/api/enrich/"+eid.ID, "", 200, &es)
		if es.State != serve.StateRunning || time.Now().After(deadline) {
			break
		}
	}
	if es.State != serve.StateDone || es.Queries != 10 || es.Covered == 0 || es.Local != 200 {
		t.Fatalf("enrichment %s: %+v", eid.ID, es)
	}
	code, b := h.do("GET", es.Output, "")
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if code != 200 || err != nil || len(rows) != 201 {
		t.Fatalf("enriched table: status %d, err %v, %d rows", code, err, len(rows))
	}
	var ec serve.TaskCurve
	h.json("GET", "/api/enrich/"+eid.ID+"/curve", "", 200, &ec)
	if last := ec.Points[len(ec.Points)-1]; last != [2]float64{10, float64(es.Covered)} {
		t.Fatalf("enrichment curve ends at %v, want [10 %d]", last, es.Covered)
	}
	// resuming a finished enrichment replays its journal and sends nothing
	h.json("POST", "/api/enrich/"+eid.ID+"/resume", "", 200, nil)
	var es2 serve.EnrichStatus
	for ; ; time.Sleep(100 * time.Millisecond) {
		h.json("GET", "/api/enrich/"+eid.ID, "", 200, &es2)
		if es2.State != serve.StateRunning {
			break
		}
	}
	if es2.State != serve.StateDone || es2.Queries != 10 || es2.Covered != es.Covered {
		t.Fatalf("resumed enrichment: %+v, before %+v", es2, es)
	}
	code, b = h.do("GET", "/metrics", "")
	for _, want := range []string{
		fmt.Sprintf(`dwcrawl_queries_sent_total{job=%q,kind="surface"} %d`, sid.ID, ss.Queries),
		fmt.Sprintf(`dwcrawl_queries_sent_total{job=%q,kind="enrich"} 10`, eid.ID),
	} {
		if code != 200 || !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// through a JSON search API that reports its totals the estimate comes
	// with its interval and the estimator, as dwcrawl surface prints them
	counted := httptest.NewServer(hiddendb.New(recs, hiddendb.Options{K: 30, PageSize: 10, Seed: 3, ShowTotal: true}).Handler(""))
	defer counted.Close()
	var aid struct{ ID string }
	h.json("POST", "/api/surface", mustJSON(t, map[string]any{"interface": counted.URL, "budget": 12, "first": hiddendb.SyntheticWord(1)}), 201, &aid)
	as := h.waitSurface(aid.ID)
	if as.State != serve.StateDone || as.Coverage == nil || as.CoverageLow == nil || as.CoverageHigh == nil || as.Estimator == "" ||
		*as.CoverageLow > *as.Coverage || *as.Coverage > *as.CoverageHigh {
		t.Errorf("surfacing %s: no estimate with interval and estimator: %+v", aid.ID, as)
	} else {
		t.Logf("surfacing %s: %d documents, coverage %.3f [%.3f, %.3f] by %s", aid.ID, as.Docs, *as.Coverage, *as.CoverageLow, *as.CoverageHigh, as.Estimator)
		want := fmt.Sprintf("est. coverage %.0f%% [%.0f–%.0f%%] by %s", 100**as.Coverage, 100**as.CoverageLow, 100**as.CoverageHigh, as.Estimator)
		if code, b := h.do("GET", "/", ""); code != 200 || !strings.Contains(string(b), want) {
			t.Errorf("the dashboard (status %d) does not show %q", code, want)
		}
	}
}

// waitSurface polls a surfacing job until it stops running (2 minutes at most).
func (h *harness) waitSurface(id string) serve.SurfaceStatus {
	var ss serve.SurfaceStatus
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		h.json("GET", "/api/surface/"+id, "", 200, &ss)
		if ss.State != serve.StateRunning || time.Now().After(deadline) {
			return ss
		}
	}
}

// TestResumeOnRestart: a server that shuts down under a running crawl marks
// it interrupted, and the next server started with Resume continues it.
func TestResumeOnRestart(t *testing.T) {
	// a web the crawl cannot finish before the shutdown (the whole crawl
	// of the 600-site web takes about a second, which a shutdown once
	// missed), and a budget the resumed crawl ends under the race detector
	// on a loaded machine (4,000 pages once did not in two minutes)
	web := testWebSites(t, 5000)
	h := newHarness(t, "", web, nil)
	id := h.startCrawl(mustJSON(t, map[string]any{"profile": filepath.Join(domainsDir(t), "auto.lua"), "testbed": true, "pages": 1500, "workers": 1}))
	// shut down once some searchable form is recorded, so that "no form
	// lost" is a check
	for st := h.status(id); st.Pages < 20 || st.SearchableForms == 0; st = h.status(id) {
		if st.State != serve.StateRunning {
			t.Fatalf("crawl ended before the restart: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	root := h.root
	h.close()
	h2 := newHarness(t, root, web, nil) // without Resume: listed as stopped
	st := h2.status(id)
	if st.State != serve.StateStopped || st.Pages == 0 {
		t.Fatalf("after a shutdown: %+v", st)
	}
	before := h2.formIDs(id)
	if len(before) == 0 {
		t.Fatalf("no form listed after the shutdown: %+v", st)
	}
	h2.close()
	h3 := newHarness(t, root, web, func(o *serve.Options) { o.Resume = true })
	st = h3.waitDone(id, 5*time.Minute)
	if st.State != serve.StateDone {
		t.Fatalf("resumed on restart: %+v", st)
	}
	after := h3.formIDs(id)
	for f := range before {
		if !after[f] {
			t.Fatalf("form %s lost across the restart", f)
		}
	}
	t.Logf("%s: %d forms at the shutdown, %d at the end (%d pages)", id, len(before), len(after), st.Pages)
}
