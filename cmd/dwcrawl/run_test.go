package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// usedCarSite serves a small site on loopback: a homepage with a search
// form and links to a page that exists and one that does not.
func usedCarSite(t *testing.T) (port string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/":
			fmt.Fprint(w, `<html><head><title>Used cars for sale</title></head><body><h1>Used cars</h1>
<a href="/inventory">Browse used car inventory</a> <a href="/gone">Old deals</a> <a href="/private/x">Dealers</a>
<form action="/search"><select name="make"><option>Ford</option></select><input name="zip"><input type="submit" value="Search used cars"></form>
</body></html>`)
		case "/inventory":
			fmt.Fprint(w, `<html><head><title>Inventory</title></head><body>Used cars by make and model.</body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	return port
}

func TestRunRealWebPath(t *testing.T) {
	port := usedCarSite(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "cars.lua")
	os.WriteFile(prof, []byte(`return { name = "cars", domain = "auto",
  keywords = { "used cars", "car", "make", "model" },
  seeds = { "http://cars.example.test:`+port+`/" },
  politeness = { delay = "10ms" } }`), 0o644)
	crawlDir := filepath.Join(dir, "crawl")

	// the seed's name maps to loopback: refused without --allow-private,
	// exit status 1, the cause, and the flag that fixes it
	_, errOut, err := runApp(t, "run", "--dir", crawlDir, "--resolve", "cars.example.test:"+port+":127.0.0.1", prof)
	var ee errExit
	if !asErrExit(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "no seed could be fetched") || !strings.Contains(err.Error(), "blocked") {
		t.Fatalf("refused seed: err %v", err)
	}
	if !strings.Contains(errOut, "was refused by the address policy") || !strings.Contains(errOut, "--allow-private") {
		t.Errorf("no --allow-private hint:\n%s", errOut)
	}
	// the profile names no engine: said at start
	if !strings.Contains(errOut, "reverse search off: the profile names no search engine") {
		t.Errorf("reverse search status not said:\n%s", errOut)
	}

	// with --allow-private the same command retries the seed and crawls
	out, _, err := runApp(t, "run", "--dir", crawlDir, "--allow-private", "--resolve", "cars.example.test:"+port+":127.0.0.1", "--json", prof)
	if err != nil {
		t.Fatal(err)
	}
	var sn struct {
		Pages           int64            `json:"pages"`
		SearchableForms int64            `json:"searchable_forms"`
		Failures        map[string]int64 `json:"failures"`
		HarvestRate     *float64         `json:"harvest_rate"`
	}
	if err := json.Unmarshal([]byte(out), &sn); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if sn.SearchableForms != 1 || sn.Failures["http-404"] != 1 || sn.Failures["robots"] != 1 || sn.Failures["blocked"] != 0 || sn.HarvestRate == nil {
		t.Errorf("summary %+v\n%s", sn, out)
	}
	out, err = runCLI(t, "failures", "--dir", crawlDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/gone", "http-404", "/private/x", "robots", "2 failed URLs: http-404 1, robots 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("failures table lacks %q:\n%s", want, out)
		}
	}
	out, err = runCLI(t, "failures", "--dir", crawlDir, "--format", "jsonl", "--cause", "http-404")
	var f struct {
		URL      string `json:"url"`
		Cause    string `json:"cause"`
		Attempts int    `json:"attempts"`
		Runs     int    `json:"runs"`
	}
	if err != nil || json.Unmarshal([]byte(out), &f) != nil || f.Cause != "http-404" || f.Attempts != 1 || f.Runs != 1 || !strings.HasSuffix(f.URL, "/gone") {
		t.Errorf("jsonl %q: %v", out, err)
	}
}

// TestRunReverseSearchEngine: a profile listing the bundled engines uses the
// first one whose environment is set, says so at start, and sends its
// reverse searches to it; with none set it says why reverse search is off.
func TestRunReverseSearchEngine(t *testing.T) {
	port := usedCarSite(t)
	srv, asked := fakeSearXNG(t, nil)
	dir := t.TempDir()
	prof := filepath.Join(dir, "cars.lua")
	os.WriteFile(prof, []byte(`return { name = "cars", domain = "auto",
  keywords = { "used cars", "car", "make", "model" },
  seeds = { "http://cars.example.test:`+port+`/" },
  reverse = { plugins = { "search/searxng", "search/brave", "search/google" } },
  politeness = { delay = "10ms" } }`), 0o644)
	for _, k := range []string{"SEARXNG_URL", "BRAVE_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CSE_ID"} {
		t.Setenv(k, "")
	}
	args := []string{"run", "--allow-private", "--resolve", "cars.example.test:" + port + ":127.0.0.1", "--proxy", "direct"}

	_, errOut, err := runApp(t, append(args, "--dir", filepath.Join(dir, "off"), prof)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reverse search off: ", "SEARXNG_URL", "BRAVE_API_KEY", "GOOGLE_API_KEY"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no engine set: start lines lack %q:\n%s", want, errOut)
		}
	}
	if len(*asked) != 0 {
		t.Errorf("the engine was asked %q with SEARXNG_URL unset", *asked)
	}

	t.Setenv("SEARXNG_URL", srv.URL)
	t.Setenv("BRAVE_API_KEY", "unused")
	_, errOut, err = runApp(t, append(args, "--dir", filepath.Join(dir, "on"), prof)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "dwcrawl: reverse search: search/searxng\n") {
		t.Errorf("engine in use not said:\n%s", errOut)
	}
	if len(*asked) == 0 {
		t.Errorf("the crawl sent no reverse search to the engine\n%s", errOut)
	}
	t.Logf("queries to the engine: %q", *asked)
}

// TestRunDeadSeed: a seed whose server refuses connections fails every run
// with status 1 and the cause; after crawl.MaxFailedRuns runs it is no
// longer retried, and the message says so.
func TestRunDeadSeed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close() // nothing listens there now: connections are refused
	dir := t.TempDir()
	prof := filepath.Join(dir, "dead.lua")
	os.WriteFile(prof, []byte(`return { name = "dead", domain = "auto", keywords = { "used cars" },
  seeds = { "http://dead.example.test:`+port+`/" }, politeness = { delay = "10ms" } }`), 0o644)
	args := []string{"run", "--dir", filepath.Join(dir, "crawl"), "--allow-private", "--resolve", "dead.example.test:" + port + ":127.0.0.1", "--json", prof}
	for run := 1; run <= 4; run++ {
		out, _, err := runApp(t, args...)
		var ee errExit
		if !asErrExit(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "dead.example.test:"+port+"/: refused") {
			t.Fatalf("run %d: err %v", run, err)
		}
		spent := strings.Contains(err.Error(), "do not retry them")
		if spent != (run >= 3) {
			t.Errorf("run %d: %v", run, err)
		}
		var sn struct {
			Failures map[string]int64 `json:"failures"`
		}
		if json.Unmarshal([]byte(out), &sn) != nil || sn.Failures["refused"] != 1 {
			t.Errorf("run %d: summary %s", run, out)
		}
	}
	out, err := runCLI(t, "failures", "--dir", filepath.Join(dir, "crawl"), "--format", "jsonl")
	var f struct {
		Cause string `json:"cause"`
		Runs  int    `json:"runs"`
	}
	if err != nil || json.Unmarshal([]byte(out), &f) != nil || f.Cause != "refused" || f.Runs != 3 {
		t.Errorf("failures: %q %v", out, err)
	}
}

// TestRunProfileHeadersAndCookies: the profile's User-Agent and headers go
// with every request, robots.txt included, and the cookies a site sets in
// one run are sent by the next run on the same directory.
func TestRunProfileHeadersAndCookies(t *testing.T) {
	type seen struct{ path, ua, lang, cookie string }
	var mu sync.Mutex
	var reqs []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs = append(reqs, seen{r.URL.Path, r.UserAgent(), r.Header.Get("Accept-Language"), r.Header.Get("Cookie")})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3cr3t", Path: "/", MaxAge: 3600})
			fmt.Fprint(w, `<html><head><title>Used cars</title></head><body><a href="/inventory">Used car inventory</a>
<form action="/search"><input name="make"><input type="submit" value="Search used cars"></form></body></html>`)
		default:
			fmt.Fprint(w, `<html><head><title>Inventory</title></head><body>Used cars by make.</body></html>`)
		}
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dir := t.TempDir()
	prof := filepath.Join(dir, "cars.lua")
	os.WriteFile(prof, []byte(`return { name = "cars", domain = "auto", keywords = { "used cars" },
  seeds = { "http://cars.example.test:`+port+`/" },
  politeness = { delay = "10ms", user_agent = "carbot/2.0 (+http://cars.example.test/bot)",
                 headers = { ["Accept-Language"] = "de-CH" } } }`), 0o644)
	args := []string{"run", "--dir", filepath.Join(dir, "crawl"), "--allow-private", "--proxy", "direct",
		"--resolve", "cars.example.test:" + port + ":127.0.0.1", prof}
	if _, errOut, err := runApp(t, append([]string{args[0], "--pages", "1"}, args[1:]...)...); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	mu.Lock()
	first := len(reqs)
	mu.Unlock()
	if out, errOut, err := runApp(t, append([]string{args[0], "--pages", "10"}, args[1:]...)...); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	} else {
		t.Logf("second run:\n%s%s", errOut, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if first == 0 || len(reqs) <= first {
		t.Fatalf("requests %+v (first run %d)", reqs, first)
	}
	for i, r := range reqs {
		if r.ua != "carbot/2.0 (+http://cars.example.test/bot)" || r.lang != "de-CH" {
			t.Errorf("%s: User-Agent %q, Accept-Language %q", r.path, r.ua, r.lang)
		}
		if i >= first && r.path != "/robots.txt" && r.cookie != "sid=s3cr3t" {
			t.Errorf("second run, %s: Cookie %q, want the first run's sid", r.path, r.cookie)
		}
	}
	t.Logf("requests: %+v (first run %d)", reqs, first)
}
