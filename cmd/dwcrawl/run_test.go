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
