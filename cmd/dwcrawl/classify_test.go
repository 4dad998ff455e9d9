package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

const classifyPage = `<html><head><title>Cars</title></head><body>
<form action="/search"><input name="q" placeholder="Search used cars"><input type="submit" value="Search"></form>
<form method="post" action="/login"><input name="user"><input type="password" name="pass"><input type="submit" value="Sign in"></form>
</body></html>`

func asFormsExit(err error, ee *errExit) bool { return errors.As(err, ee) }

func TestClassify(t *testing.T) {
	file := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(file, []byte(classifyPage), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runFormsCmd(t, "classify", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"2 form(s)", "kind search", "kind login", "p(searchable)="} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = runFormsCmd(t, "classify", "--json", "--domain", "auto", file)
	if err != nil || !strings.Contains(out, `"kind": "search"`) || !strings.Contains(out, `"domain": "auto"`) {
		t.Errorf("json: %v\n%s", err, out)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(classifyPage))
	}))
	defer srv.Close()
	if out, err = runFormsCmd(t, "classify", "--allow-private", srv.URL+"/"); err != nil || !strings.Contains(out, "2 form(s)") {
		t.Errorf("loopback URL: %v\n%s", err, out)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	named := "http://cars.example.test:" + port + "/"
	if out, err = runFormsCmd(t, "classify", "--allow-private", "--resolve", "cars.example.test:"+port+":127.0.0.1", named); err != nil ||
		!strings.Contains(out, named+": 2 form(s)") {
		t.Errorf("--resolve: %v\n%s", err, out)
	}
	// loopback without --allow-private: refused, and the error says what to do
	if _, err = runFormsCmd(t, "classify", srv.URL+"/"); err == nil || !strings.Contains(err.Error(), "--allow-private") {
		t.Errorf("loopback URL without --allow-private: %v", err)
	}
	var ee errExit
	if _, err = runFormsCmd(t, "classify"); !asFormsExit(err, &ee) || ee.code != 2 {
		t.Errorf("no argument: %v", err)
	}
	if _, err = runFormsCmd(t, "classify", "--domain", "nope", file); err == nil {
		t.Error("unknown domain accepted")
	}
}

// TestClassifyProbe runs classify --probe on a loopback page with a search
// form over a small car database and a login form: the search form is
// submitted the profile's terms and a nonsense term and judged, the login
// form never receives a request.
func TestClassifyProbe(t *testing.T) {
	var mu sync.Mutex
	var hits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.Method+" "+r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/search":
			q := r.FormValue("q")
			if strings.HasPrefix(q, "q") && len(q) == 9 {
				w.Write([]byte(`<html><body><p>No results found.</p></body></html>`))
				return
			}
			var b strings.Builder
			b.WriteString(`<html><body><h1>Results</h1><ul class="results">`)
			for i, car := range []string{"Toyota Camry", "Ford Focus", "Honda Civic", "Mazda 3"} {
				fmt.Fprintf(&b, `<li class="car"><a href="/car/%d">Used %s</a><p>%s for sale by a dealer, 42,000 miles, automatic, one owner, price $9,500</p></li>`, i, car, car)
			}
			b.WriteString(`</ul></body></html>`)
			w.Write([]byte(b.String()))
		default:
			w.Write([]byte(classifyPage))
		}
	}))
	defer srv.Close()
	out, err := runFormsCmd(t, "classify", "--probe", "--profile", "../../domains/auto.lua", "--queries", "3", "--allow-private", "--json", srv.URL+"/")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var res struct {
		Forms []app.ProbedForm `json:"forms"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Forms) != 2 || res.Forms[0].Probe == nil || res.Forms[1].Probe != nil || res.Forms[1].NotProbed == "" {
		t.Fatalf("forms %+v", res.Forms)
	}
	if p := res.Forms[0].Probe; len(p.Queries) < 3 || p.Queries[0].Kind != "nonsense" || p.Decision == "" || p.Queries[1].Records != 4 {
		t.Errorf("probe %+v", p)
	}
	mu.Lock()
	for _, h := range hits {
		if strings.Contains(h, "/login") {
			t.Errorf("the login form was submitted: %v", hits)
		}
	}
	mu.Unlock()
	var ee errExit
	for _, args := range [][]string{
		{"classify", "--queries", "3", srv.URL + "/"},
		{"classify", "--probe", "--allow-private", srv.URL + "/"},
		{"classify", "--probe", "--profile", "../../domains/auto.lua", "--queries", "1", srv.URL + "/"},
	} {
		if _, err := runFormsCmd(t, args...); !asFormsExit(err, &ee) || ee.code != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
