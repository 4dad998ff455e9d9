package serve_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/report"
	"github.com/dwcrawl/dwcrawl/serve"
	"github.com/dwcrawl/dwcrawl/store"
)

// inlineAuto is a profile given as Lua text.
const inlineAuto = `return dw.domain{
  name = "inline-auto", domain = "auto",
  seeds = { "www.example-cars.test" },
  keywords = { "used cars", "car", "dealer", "make", "model" },
  forms = { examples = { '<form action="/search"><input name="make"><input name="model"></form>' } },
}`

func TestBadRequests(t *testing.T) {
	h := newHarness(t, "", testWeb(t), nil)
	outside := filepath.Join(t.TempDir(), "auto.lua")
	src, err := os.ReadFile(filepath.Join(domainsDir(t), "auto.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// a link inside an allowed directory to a file outside it
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "link.lua")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	hl := newHarness(t, "", testWeb(t), func(o *serve.Options) { o.Allow = append(o.Allow, linkDir) })
	auto := filepath.Join(domainsDir(t), "auto.lua")
	for _, tc := range []struct {
		name, method, path, body string
		hdr                      []string
		h                        *harness
		want                     int
		msg                      string // in the error
	}{
		{name: "bad json", method: "POST", path: "/api/crawls", body: `{"profile": "x",`, want: 400, msg: "invalid JSON"},
		{name: "not an object", method: "POST", path: "/api/crawls", body: `[1,2]`, want: 400, msg: "request body"},
		{name: "wrong type", method: "POST", path: "/api/crawls", body: `{"profile": "` + auto + `", "pages": "many"}`, want: 400, msg: `field "pages"`},
		{name: "unknown field", method: "POST", path: "/api/crawls", body: `{"profile": "` + auto + `", "budget": 5}`, want: 400, msg: `unknown field "budget"`},
		{name: "empty body", method: "POST", path: "/api/crawls", body: ``, want: 400, msg: "empty"},
		{name: "two values", method: "POST", path: "/api/crawls", body: `{"profile": "` + auto + `"} {}`, want: 400, msg: "more than one"},
		{name: "no profile", method: "POST", path: "/api/crawls", body: `{"testbed": true}`, want: 400, msg: "exactly one of profile"},
		{name: "both profiles", method: "POST", path: "/api/crawls", body: mustJSON(t, map[string]any{"profile": auto, "profile_lua": inlineAuto}), want: 400, msg: "exactly one"},
		{name: "server's field", method: "POST", path: "/api/crawls", body: mustJSON(t, map[string]any{"profile": auto, "profile_file": auto}), want: 400, msg: "set by the server"},
		{name: "bad strategy", method: "POST", path: "/api/crawls", body: `{"profile": "` + auto + `", "strategy": "dfs"}`, want: 400, msg: "strategy"},
		{name: "negative pages", method: "POST", path: "/api/crawls", body: `{"profile": "` + auto + `", "pages": -1}`, want: 400, msg: "negative"},
		{name: "missing profile", method: "POST", path: "/api/crawls", body: `{"profile": "` + filepath.Join(domainsDir(t), "nope.lua") + `"}`, want: 400, msg: "nope.lua"},
		{name: "profile outside", method: "POST", path: "/api/crawls", body: `{"profile": "` + outside + `"}`, want: 403, msg: "outside the directories"},
		{name: "dot-dot escape", method: "POST", path: "/api/crawls", body: `{"profile": "` + filepath.Join(domainsDir(t), "..", "README.md") + `"}`, want: 403, msg: "outside"},
		{name: "symlink escape", method: "POST", path: "/api/crawls", body: `{"profile": "` + link + `"}`, h: hl, want: 403, msg: "outside"},
		{name: "inline lua error", method: "POST", path: "/api/crawls", body: mustJSON(t, map[string]any{"profile_lua": "return dw.domain{\n name = 42,\n}"}), want: 400, msg: "profile_lua:"},
		{name: "inline unknown key", method: "POST", path: "/api/crawls", body: mustJSON(t, map[string]any{"profile_lua": "return dw.domain{ name = 'x', keywords = {'a'}, seeds = {'a.test'}, colour = 1 }"}), want: 400, msg: "colour"},
		{name: "inline sandbox", method: "POST", path: "/api/crawls", body: mustJSON(t, map[string]any{"profile_lua": "os.execute('true')\nreturn dw.domain{}"}), want: 400, msg: "profile_lua:1"},
		{name: "inline file example", method: "POST", path: "/api/crawls", body: mustJSON(t, map[string]any{"profile_lua": strings.Replace(inlineAuto, `'<form action="/search"><input name="make"><input name="model"></form>'`, `"`+auto+`"`, 1)}), want: 400, msg: "inline HTML examples only"},
		{name: "text/plain", method: "POST", path: "/api/crawls", body: `{"profile": "` + auto + `"}`, hdr: []string{"Content-Type", "text/plain"}, want: 415, msg: "application/json"},
		{name: "cross origin", method: "POST", path: "/api/crawls", body: `{"profile": "` + auto + `"}`, hdr: []string{"Origin", "http://evil.example"}, want: 403, msg: "cross-origin"},
		{name: "unknown crawl", method: "GET", path: "/api/crawls/auto-99", want: 404, msg: "auto-99"},
		{name: "unknown crawl forms", method: "GET", path: "/api/crawls/auto-99/forms", want: 404, msg: "auto-99"},
		{name: "unknown crawl failures", method: "GET", path: "/api/crawls/auto-99/failures", want: 404},
		{name: "unknown crawl features", method: "GET", path: "/api/crawls/auto-99/features", want: 404},
		{name: "unknown crawl curve", method: "GET", path: "/api/crawls/auto-99/curve", want: 404},
		{name: "unknown crawl stop", method: "POST", path: "/api/crawls/auto-99/stop", want: 404},
		{name: "unknown crawl resume", method: "POST", path: "/api/crawls/auto-99/resume", want: 404},
		{name: "unknown crawl seeds", method: "POST", path: "/api/crawls/auto-99/seeds", body: `{"seeds": ["http://a.test/"]}`, want: 404},
		{name: "unknown surface", method: "GET", path: "/api/surface/surface-9", want: 404},
		{name: "unknown enrich", method: "GET", path: "/api/enrich/enrich-9", want: 404},
		{name: "unknown enrich output", method: "GET", path: "/api/enrich/enrich-9/output", want: 404},
		{name: "unknown path", method: "GET", path: "/api/nothing", want: 404, msg: "no such API path"},
		{name: "wrong method", method: "DELETE", path: "/api/crawls", want: 404},
		{name: "surface neither", method: "POST", path: "/api/surface", body: `{"policy": "adaptive"}`, want: 400, msg: "exactly one"},
		{name: "surface bad policy", method: "POST", path: "/api/surface", body: `{"interface": "http://127.0.0.1:1/db", "policy": "greedy"}`, want: 400, msg: "policy"},
		{name: "surface unknown crawl", method: "POST", path: "/api/surface", body: `{"crawl": "auto-99", "form": "abc"}`, want: 400, msg: "no crawl job"},
		{name: "surface plugin outside", method: "POST", path: "/api/surface", body: `{"interface": "` + outside + `"}`, want: 403, msg: "outside"},
		{name: "enrich no budget", method: "POST", path: "/api/enrich", body: `{"local_csv": "a\n1\n", "columns": ["a"], "interface": "http://127.0.0.1:1/db"}`, want: 400, msg: "budget"},
		{name: "enrich no columns", method: "POST", path: "/api/enrich", body: `{"local_csv": "a\n1\n", "interface": "http://127.0.0.1:1/db", "budget": 3}`, want: 400, msg: "columns"},
		{name: "enrich local outside", method: "POST", path: "/api/enrich", body: `{"local": "` + outside + `", "columns": ["a"], "interface": "http://127.0.0.1:1/db", "budget": 3}`, want: 403, msg: "outside"},
		{name: "enrich bad method", method: "POST", path: "/api/enrich", body: `{"local_csv": "a\n1\n", "columns": ["a"], "interface": "http://127.0.0.1:1/db", "budget": 3, "method": "ideal"}`, want: 400, msg: "method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hh := tc.h
			if hh == nil {
				hh = h
			}
			code, body := hh.do(tc.method, tc.path, tc.body, tc.hdr...)
			if code != tc.want {
				t.Fatalf("%s %s: status %d, want %d: %s", tc.method, tc.path, code, tc.want, body)
			}
			if tc.method == "DELETE" {
				return
			}
			var e struct{ Error string }
			if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
				t.Fatalf("error body %q is not {\"error\": …}", body)
			}
			if !strings.Contains(e.Error, tc.msg) {
				t.Fatalf("error %q does not say %q", e.Error, tc.msg)
			}
		})
	}
	// nothing was created by the refused requests
	var list []serve.CrawlStatus
	h.json("GET", "/api/crawls", "", 200, &list)
	if len(list) != 0 {
		t.Fatalf("refused requests created crawls: %+v", list)
	}
}

// TestHostCheck: a loopback server without a token answers only loopback
// host names (DNS rebinding); a token makes the name irrelevant.
func TestHostCheck(t *testing.T) {
	web := testWeb(t)
	for _, tc := range []struct {
		name  string
		token string
		host  string
		want  int
	}{
		{"loopback IP", "", "127.0.0.1", http.StatusOK},
		{"localhost with port", "", "localhost:8080", http.StatusOK},
		{"IPv6 loopback", "", "[::1]:8080", http.StatusOK},
		{"rebound name", "", "evil.example:8080", http.StatusMisdirectedRequest},
		{"private address", "", "192.168.1.5", http.StatusMisdirectedRequest},
		{"rebound name with a token", "s3cret", "evil.example", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "", web, func(o *serve.Options) { o.Token = tc.token })
			for _, p := range []string{"/api/crawls", "/metrics", "/"} {
				code, b := h.do("GET", p, "", "Host", tc.host)
				if code != tc.want {
					t.Fatalf("GET %s with Host %q: status %d, want %d: %s", p, tc.host, code, tc.want, b)
				}
				if code == http.StatusMisdirectedRequest && !strings.Contains(string(b), tc.host) {
					t.Fatalf("the refusal does not name the host: %s", b)
				}
			}
			if tc.want != http.StatusOK {
				body := `{"profile": "` + filepath.Join(domainsDir(t), "auto.lua") + `", "testbed": true, "pages": 20}`
				if code, b := h.do("POST", "/api/crawls", body, "Host", tc.host); code != tc.want {
					t.Fatalf("POST with Host %q: status %d, want %d: %s", tc.host, code, tc.want, b)
				}
			}
		})
	}
}

func TestToken(t *testing.T) {
	if _, err := serve.New(serve.Options{Root: t.TempDir(), Loopback: false, Runner: &app.ServeRunner{}}); !errors.Is(err, serve.ErrNoToken) {
		t.Fatalf("a non-loopback server without a token: err = %v, want ErrNoToken", err)
	}
	web := testWeb(t)
	for _, tc := range []struct {
		name     string
		loopback bool
		token    string
	}{
		{"beyond loopback", false, "s3cret"},
		{"loopback with a token", true, "s3cret"},
		{"loopback without a token", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "", web, func(o *serve.Options) { o.Loopback, o.Token = tc.loopback, tc.token })
			body := `{"profile": "` + filepath.Join(domainsDir(t), "auto.lua") + `", "testbed": true, "pages": 20}`
			h.token = ""
			for _, auth := range []string{"", "Bearer wrong", "s3cret", "Bearer s3cret"} {
				code, b := h.do("POST", "/api/crawls", body, "Authorization", auth)
				want := http.StatusUnauthorized
				if tc.token == "" || auth == "Bearer "+tc.token {
					want = http.StatusCreated
				}
				if code != want {
					t.Fatalf("POST with Authorization %q: status %d, want %d: %s", auth, code, want, b)
				}
			}
			// reading never needs the token
			for _, p := range []string{"/api/crawls", "/metrics", "/"} {
				if code, b := h.do("GET", p, ""); code != http.StatusOK {
					t.Fatalf("GET %s: %d %s", p, code, b)
				}
			}
			// stop and resume are guarded too
			if tc.token != "" {
				if code, _ := h.do("POST", "/api/crawls/auto-1/stop", ""); code != http.StatusUnauthorized {
					t.Fatalf("stop without the token: status %d", code)
				}
				if code, _ := h.do("POST", "/api/crawls/auto-1/resume", ""); code != http.StatusUnauthorized {
					t.Fatalf("resume without the token: status %d", code)
				}
			}
			h.token = tc.token
			h.waitDone("auto-1", time.Minute)
		})
	}
}

func TestCrawlAPI(t *testing.T) {
	web := testWeb(t)
	h := newHarness(t, "", web, nil)
	auto := filepath.Join(domainsDir(t), "auto.lua")
	id := h.startCrawl(`{"profile": "` + auto + `", "testbed": true, "pages": 250, "strategy": "smartcrawler"}`)
	inline := h.startCrawl(mustJSON(t, map[string]any{"profile_lua": inlineAuto, "testbed": true, "pages": 120, "strategy": "ache"}))
	if id != "auto-1" || inline != "inline-auto-1" {
		t.Fatalf("ids %q %q, want auto-1 and inline-auto-1", id, inline)
	}
	// the contract's fields, while running or not
	code, raw := h.do("GET", "/api/crawls/"+id, "")
	if code != 200 {
		t.Fatalf("GET: %d %s", code, raw)
	}
	var m map[string]any
	json.Unmarshal(raw, &m)
	for _, k := range []string{"id", "state", "pages", "sites", "deep_sites", "forms", "relevant_forms", "harvest_rate", "started_at",
		"strategy", "profile", "frontier_sites", "frontier_links", "searchable_forms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("GET /api/crawls/%s lacks %q: %s", id, k, raw)
		}
	}
	st := h.waitDone(id, 2*time.Minute)
	sti := h.waitDone(inline, 2*time.Minute)
	if st.State != serve.StateDone || st.Pages != 250 || st.FinishedAt == nil || st.Strategy != "smartcrawler" {
		t.Fatalf("crawl %s: %+v", id, st)
	}
	if sti.State != serve.StateDone || sti.Strategy != "ache" || sti.Profile != "inline-auto" || sti.Pages == 0 {
		t.Fatalf("inline crawl: %+v", sti)
	}
	if st.SearchableForms == 0 || st.RelevantForms == 0 || st.DeepSites == 0 {
		t.Fatalf("the crawl found nothing: %+v", st)
	}
	if want := float64(st.RelevantForms) / float64(st.Pages); st.HarvestRate != want {
		t.Fatalf("harvest_rate %v, want %v", st.HarvestRate, want)
	}
	var list []serve.CrawlStatus
	h.json("GET", "/api/crawls", "", 200, &list)
	if len(list) != 2 || list[0].ID != id || list[1].ID != inline {
		t.Fatalf("list: %+v", list)
	}

	// forms in three formats agree with each other and with the counts
	var forms []report.FormRow
	h.json("GET", "/api/crawls/"+id+"/forms?format=json", "", 200, &forms)
	if int64(len(forms)) != st.SearchableForms {
		t.Fatalf("%d forms listed, %d searchable counted", len(forms), st.SearchableForms)
	}
	relevant, withReasons := 0, 0
	for _, f := range forms {
		if f.Relevant {
			relevant++
		}
		if len(f.Reasons) > 0 {
			withReasons++
		}
		if f.PageURL == "" || f.Kind == "" || f.Searchable <= 0 {
			t.Fatalf("form without page, kind or probability: %+v", f)
		}
	}
	if int64(relevant) != st.RelevantForms || withReasons != len(forms) {
		t.Fatalf("%d relevant forms (counted %d), %d of %d with reasons", relevant, st.RelevantForms, withReasons, len(forms))
	}
	var rel []report.FormRow
	h.json("GET", "/api/crawls/"+id+"/forms?relevant=1", "", 200, &rel)
	if len(rel) != relevant {
		t.Fatalf("relevant=1 lists %d, want %d", len(rel), relevant)
	}
	code, b := h.do("GET", "/api/crawls/"+id+"/forms?format=jsonl", "")
	lines := 0
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); lines++ {
		var f report.FormRow
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil || f.ID != forms[lines].ID {
			t.Fatalf("jsonl line %d: %v %q", lines, err, sc.Text())
		}
	}
	if code != 200 || lines != len(forms) {
		t.Fatalf("jsonl: status %d, %d lines for %d forms", code, lines, len(forms))
	}
	code, b = h.do("GET", "/api/crawls/"+id+"/forms?format=csv", "")
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if code != 200 || err != nil || len(rows) != len(forms)+1 || strings.Join(rows[0], ",") != strings.Join(report.FormsCSVHeader, ",") {
		t.Fatalf("csv: status %d, err %v, %d rows for %d forms", code, err, len(rows), len(forms))
	}
	if code, b := h.do("GET", "/api/crawls/"+id+"/forms?format=xml", ""); code != 400 {
		t.Fatalf("format=xml: %d %s", code, b)
	}

	// failures: grouped by cause, counts add up to the total
	var fl serve.Failures
	h.json("GET", "/api/crawls/"+id+"/failures?examples=2", "", 200, &fl)
	sum := 0
	for _, g := range fl.Failures {
		sum += g.Count
		if g.Cause == "" || len(g.Examples) > 2 || len(g.Examples) == 0 {
			t.Fatalf("failure group %+v", g)
		}
	}
	if sum != fl.Total || int64(fl.Total) < st.Failed {
		t.Fatalf("failures: groups sum to %d, total %d, crawl counted %d failed pages", sum, fl.Total, st.Failed)
	}

	// features: learning rounds as `dwcrawl features --json` prints them
	var feats []map[string]any
	h.json("GET", "/api/crawls/"+id+"/features", "", 200, &feats)
	if int64(len(feats)) != st.LearnSites+st.LearnForms {
		t.Fatalf("%d learning rounds listed, %d+%d counted", len(feats), st.LearnSites, st.LearnForms)
	}

	// curve: steps from (0,0) to (pages, relevant forms)
	var cv serve.Curve
	h.json("GET", "/api/crawls/"+id+"/curve", "", 200, &cv)
	last := cv.Forms[len(cv.Forms)-1]
	if cv.Pages != st.Pages || last[0] != float64(st.Pages) || last[1] != float64(st.RelevantForms) || cv.Forms[0] != [2]float64{0, 0} {
		t.Fatalf("curve: pages %d, last point %v; crawl %d pages %d relevant", cv.Pages, last, st.Pages, st.RelevantForms)
	}
	for i := 1; i < len(cv.Forms); i++ {
		if cv.Forms[i][0] < cv.Forms[i-1][0] || cv.Forms[i][1] < cv.Forms[i-1][1] {
			t.Fatalf("curve not monotone at %d: %v", i, cv.Forms[i-1:i+1])
		}
	}
	deep := map[string]bool{}
	for _, f := range forms {
		if f.Relevant {
			deep[f.Site] = true
		}
	}
	if lastSite := cv.DeepSites[len(cv.DeepSites)-1]; lastSite[1] != float64(len(deep)) {
		t.Fatalf("deep-site curve ends at %v, the forms name %d sites with a relevant form", lastSite, len(deep))
	}

	// stop and resume of a finished crawl
	if code, b := h.do("POST", "/api/crawls/"+id+"/stop", ""); code != http.StatusConflict {
		t.Fatalf("stopping a finished crawl: %d %s", code, b)
	}

	// seeds: a site the crawl never saw, then a resume with a larger budget
	w, err := app.LoadWeb(web)
	if err != nil {
		t.Fatal(err)
	}
	var seed string
	for _, s := range w.Seeds("book", 50) {
		if _, seen := siteOf(t, h, id, canon.Site(s)); !seen {
			seed = s
			break
		}
	}
	if seed == "" {
		t.Fatal("no unseen book site to add as a seed")
	}
	var added struct {
		ID    string
		Added int
		State string
	}
	h.json("POST", "/api/crawls/"+id+"/seeds", mustJSON(t, map[string]any{"seeds": []string{seed}}), 200, &added)
	if added.Added != 1 || added.State != serve.StateDone {
		t.Fatalf("seeds: %+v", added)
	}
	h.json("POST", "/api/crawls/"+id+"/seeds", mustJSON(t, map[string]any{"seeds": []string{seed}}), 200, &added)
	if added.Added != 0 {
		t.Fatalf("the same seed twice: added %d", added.Added)
	}
	if code, b := h.do("POST", "/api/crawls/"+id+"/seeds", `{"seeds": ["ftp://x"]}`); code != 400 {
		t.Fatalf("ftp seed: %d %s", code, b)
	}
	h.json("POST", "/api/crawls/"+id+"/resume", `{"pages": 400}`, 200, nil)
	st2 := h.waitDone(id, 2*time.Minute)
	if st2.State != serve.StateDone || st2.Pages != 400 || st2.Budget != 400 {
		t.Fatalf("resumed crawl: %+v", st2)
	}
	if site, _ := siteOf(t, h, id, canon.Site(seed)); site.From != "seed" || site.Status == store.SiteQueued {
		t.Fatalf("added seed %s: %+v (want explored, from seed)", seed, site)
	}

	// a restarted server lists the crawls with their states and counts
	root := h.root
	h.close()
	h2 := newHarness(t, root, web, nil)
	var again []serve.CrawlStatus
	h2.json("GET", "/api/crawls", "", 200, &again)
	if len(again) != 2 || again[0].ID != id || again[0].State != serve.StateDone || again[0].Pages != st2.Pages ||
		again[0].RelevantForms != st2.RelevantForms || again[1].ID != inline {
		t.Fatalf("after a restart: %+v", again)
	}
	if n := len(h2.formIDs(id)); int64(n) != st2.SearchableForms {
		t.Fatalf("after a restart: %d forms, want %d", n, st2.SearchableForms)
	}
	// and resumes them
	h2.json("POST", "/api/crawls/"+inline+"/resume", `{"pages": 200}`, 200, nil)
	if st := h2.waitDone(inline, 2*time.Minute); st.State != serve.StateDone || st.Pages <= sti.Pages {
		t.Fatalf("resumed after a restart: %+v (before: %d pages)", st, sti.Pages)
	}
}

// siteOf reads a site record from a crawl's directory through the server's
// shared store (a stopped crawl's store is opened by the server itself).
func siteOf(t *testing.T, h *harness, id, url string) (store.Site, bool) {
	t.Helper()
	site, ok, err := h.srv.Site(id, url)
	if err != nil {
		t.Fatal(err)
	}
	return site, ok
}

// TestCrawlRecordsIdentity: a crawl the server runs records what its
// directory holds, as `dwcrawl run` does, so `check` and a later `run
// --dir` on it know it.
func TestCrawlRecordsIdentity(t *testing.T) {
	h := newHarness(t, "", testWeb(t), nil)
	id := h.startCrawl(`{"profile": "` + filepath.Join(domainsDir(t), "auto.lua") + `", "testbed": true, "pages": 20, "strategy": "ache"}`)
	h.waitDone(id, time.Minute)
	h.close() // the server holds the store open until it stops
	got, ok, err := store.PeekIdentity(filepath.Join(h.root, id))
	if err != nil || !ok {
		t.Fatalf("identity of %s: ok=%v err=%v", id, ok, err)
	}
	if got.Kind != store.KindCrawl || got.Profile != "auto" || got.Strategy != "ache" || got.ProfileHash == "" {
		t.Fatalf("recorded identity %+v, want a crawl of profile auto with strategy ache", got)
	}
}
