package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

// carSite is a used-car catalogue behind a multi-field form, written for
// these tests: a keyword box q, selects make and year that filter, a select
// sort that only orders, conjunctive keywords, five records a page, the
// first k matches only (sorted within them), and a "please enter" page
// when the query is empty.
// With makeRequired, a search without a make is refused (HTTP 400).
type carSite struct {
	cars         []car
	k, pageSize  int
	makeRequired bool
	mu           sync.Mutex
	requests     []string
}

type car struct {
	id, make, model, text string
	year                  int
}

var (
	makes  = []string{"ford", "toyota", "honda"}
	models = map[string][]string{"ford": {"ranger", "pinto", "mustang", "escort"}, "toyota": {"corolla", "celica", "corona"}, "honda": {"civic", "accord", "prelude"}}
	colors = []string{"red", "blue", "white", "black", "green", "silver"}
)

func newCarSite(seed uint64, n int) *carSite {
	r := rand.New(rand.NewPCG(seed, 3))
	s := &carSite{k: 20, pageSize: 5}
	for i := 0; i < n; i++ {
		mk := makes[r.IntN(len(makes))]
		md := models[mk][r.IntN(len(models[mk]))]
		y := 1980 + r.IntN(6)
		c := colors[r.IntN(len(colors))]
		s.cars = append(s.cars, car{id: strconv.Itoa(i), make: mk, model: md, year: y,
			text: fmt.Sprintf("%s %s %d %s sedan, %d miles", mk, md, y, c, 1000*(1+r.IntN(90)))})
	}
	return s
}

const carForm = `<form action="/search" method="get"><label>Keywords <input type="text" name="q"></label>
<select name="make"><option value="">Any make</option><option value="ford">Ford</option><option value="toyota">Toyota</option><option value="honda">Honda</option></select>
<select name="year"><option value="">Any year</option><option>1980</option><option>1981</option><option>1982</option><option>1983</option><option>1984</option><option>1985</option></select>
<select name="sort"><option value="relevance">Best match</option><option value="price">Price</option></select>
<input type="submit" value="Search cars"></form>`

func (s *carSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.RequestURI())
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch r.URL.Path {
	case "/":
		fmt.Fprintf(w, "<html><head><title>Lab Cars</title></head><body><h1>Find a used car</h1>%s<ul class=\"menu\"><li><a href=\"/about\">About us</a></li><li><a href=\"/contact\">Contact</a></li></ul></body></html>", carForm)
		return
	case "/search":
	default:
		if strings.HasPrefix(r.URL.Path, "/car/") {
			fmt.Fprintf(w, "<html><body><main><h1>car %s</h1></main></body></html>", html.EscapeString(r.URL.Path))
			return
		}
		http.NotFound(w, r)
		return
	}
	q := strings.Fields(strings.ToLower(r.FormValue("q")))
	mk, yr := r.FormValue("make"), r.FormValue("year")
	if s.makeRequired && mk == "" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "<html><body><p class=error>Please select a make.</p></body></html>")
		return
	}
	if len(q) == 0 && mk == "" && yr == "" {
		fmt.Fprintf(w, "<html><body>%s<p>Please enter a search term.</p></body></html>", carForm)
		return
	}
	var hits []car
	for _, c := range s.cars {
		words := strings.Fields(strings.NewReplacer(",", " ").Replace(c.text))
		ok := (mk == "" || c.make == mk) && (yr == "" || strconv.Itoa(c.year) == yr)
		for _, t := range q {
			ok = ok && slices.Contains(words, t)
		}
		if ok {
			hits = append(hits, c)
		}
	}
	total := len(hits)
	hits = hits[:min(len(hits), s.k)]
	if r.FormValue("sort") == "price" {
		slices.Reverse(hits) // the order of the same k matches
	}
	pg, _ := strconv.Atoi(r.FormValue("page"))
	pg = max(pg, 1)
	from := (pg - 1) * s.pageSize
	fmt.Fprintf(w, "<html><body>%s", carForm)
	if total == 0 {
		fmt.Fprint(w, "<p>No cars match your search.</p></body></html>")
		return
	}
	to := min(from+s.pageSize, len(hits))
	fmt.Fprintf(w, "<p>Results %d - %d of %d</p><ol class=\"cars\">", from+1, to, total)
	for _, c := range hits[min(from, len(hits)):to] {
		fmt.Fprintf(w, "<li class=\"car\"><a href=\"/car/%s\">%s %s</a><p>%s</p></li>", c.id, c.make, c.model, c.text)
	}
	fmt.Fprint(w, "</ol>")
	if to < len(hits) {
		v := r.URL.Query()
		v.Set("page", strconv.Itoa(pg+1))
		fmt.Fprintf(w, "<a href=\"/search?%s\">Next »</a>", html.EscapeString(v.Encode()))
	}
	fmt.Fprint(w, "</body></html>")
}

// serveCars serves the site on loopback and records its form as a crawl
// does; it returns the stored form and the real fetcher.
func serveCars(t *testing.T, s http.Handler) (store.Form, *fetch.Fetcher) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	fo := fetch.Options{AllowPrivate: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	f, err := fetch.New(fo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	resp, err := f.Fetch(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(resp.URL)
	p, err := page.Parse(resp.Body, "", base)
	if err != nil || len(p.Forms) != 1 {
		t.Fatalf("form page: %v, %d forms", err, len(p.Forms))
	}
	fields, _ := json.Marshal(p.Forms[0].Fields)
	sf := store.Form{ID: "cars", PageURL: resp.URL, Action: p.Forms[0].Action, Method: p.Forms[0].Method, Fields: fields}
	return sf, f
}

func TestParseFormQuery(t *testing.T) {
	tests := []struct{ q, kw, bind string }{
		{"ford", "ford", ""},
		{"ford ranger [make=ford&year=1982]", "ford ranger", "make=ford&year=1982"},
		{"[make=ford]", "", "make=ford"},
		{"a[b]", "a[b]", ""},
		{"[%5B=2]", "", "%5B=2"},
	}
	for _, tt := range tests {
		kw, bind, err := ParseFormQuery(tt.q)
		if err != nil || kw != tt.kw || bind.Encode() != tt.bind {
			t.Errorf("ParseFormQuery(%q) = %q, %q, %v; want %q, %q", tt.q, kw, bind.Encode(), err, tt.kw, tt.bind)
		}
		if tt.bind != "" {
			if back := FormQuery(kw, bind); back != tt.q {
				t.Errorf("FormQuery round trip: %q, want %q", back, tt.q)
			}
		}
	}
	if got := (TermOptions{}).QueryTerms("used cars [make=ford]"); strings.Join(got, " ") != "used cars" {
		t.Errorf("query terms of a form query: %v", got)
	}
}

// TestFormSearcher: pages follow the site's own next link, the total is
// read, the bindings reach the server, the empty query reads one page.
func TestFormSearcher(t *testing.T) {
	site := newCarSite(1, 120)
	sf, f := serveCars(t, site)
	s, err := NewFormSearcher(sf, f, FormOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	seen := map[string]bool{}
	total := -1
	for pg := 1; ; pg++ {
		res, err := s.Search(ctx, "ford [year=1982]", pg)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Docs {
			if seen[d.Key()] || !strings.Contains(d.Text, "ford") || !strings.Contains(d.Text, "1982") {
				t.Errorf("page %d: record %s %q repeated or not a 1982 Ford", pg, d.URL, d.Text)
			}
			seen[d.Key()] = true
		}
		total = res.Total
		if !res.Next {
			break
		}
	}
	want := 0
	for _, c := range site.cars {
		if c.make == "ford" && c.year == 1982 {
			want++
		}
	}
	if total != want || len(seen) != min(want, site.k) {
		t.Errorf("total %d, %d records; want %d and %d", total, len(seen), want, min(want, site.k))
	}
	if o, ok := s.Outcome("ford [year=1982]"); !ok || o.Records != min(5, want) || o.Total != want || o.Status != 200 {
		t.Errorf("outcome %+v", o)
	}
	res, err := s.Search(ctx, "", 1)
	if err != nil || res.Next || len(res.Docs) != 0 {
		t.Errorf("empty query: %+v, %v", res, err)
	}
}

// TestFormPolicy harvests the catalogue through its form: the policy finds
// that make and year change the results and sort does not, enumerates
// make and year (the site shows only the first 20 matches, so their pairs
// too), and downloads almost every car within the budget.
func TestFormPolicy(t *testing.T) {
	seed := uint64(7)
	t.Logf("seed %d", seed)
	site := newCarSite(seed, 150)
	sf, f := serveCars(t, site)
	s, err := NewFormSearcher(sf, f, FormOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewFormPolicy(s, &Adaptive{}, FormPlanOptions{Budget: 120})
	st, err := Harvest(context.Background(), s, p, Options{Source: "form:cars", Budget: 120})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Report()
	t.Logf("%d queries, %d of %d cars; report %+v", len(st.Log()), st.Docs(), len(site.cars), r)
	inf := map[string]bool{}
	for _, in := range r.Inputs {
		if !in.Decided {
			t.Errorf("input %s not decided", in.Name)
		}
		inf[in.Name] = in.Informative
	}
	if !inf["make"] || !inf["year"] || inf["sort"] {
		t.Errorf("informative inputs %v, want make and year, not sort", inf)
	}
	if r.BoxRequired == nil || *r.BoxRequired {
		t.Errorf("box required %v: the site answers a make or a year alone", r.BoxRequired)
	}
	if cov := float64(st.Docs()) / float64(len(site.cars)); cov < 0.95 {
		t.Errorf("coverage %.2f < 0.95", cov)
	}
	pairs := 0
	for _, l := range st.Log() {
		if _, b, _ := ParseFormQuery(l.Query); len(b) == 2 {
			pairs++
		}
	}
	if pairs == 0 {
		t.Error("no template of two inputs, though single values hit the result limit")
	}
}

// TestFormPolicyRequired: a site that refuses every search without a make
// is found out from its answers; keyword queries then carry a make.
func TestFormPolicyRequired(t *testing.T) {
	site := newCarSite(3, 90)
	site.makeRequired = true
	sf, f := serveCars(t, site)
	s, err := NewFormSearcher(sf, f, FormOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewFormPolicy(s, &Adaptive{}, FormPlanOptions{Budget: 80})
	st, err := Harvest(context.Background(), s, p, Options{Source: "form:cars", Budget: 80})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Report()
	t.Logf("%d queries, %d of %d cars; report %+v", len(st.Log()), st.Docs(), len(site.cars), r)
	req, inf := map[string]bool{}, map[string]bool{}
	for _, in := range r.Inputs {
		req[in.Name], inf[in.Name] = in.Required, in.Informative
	}
	if !req["make"] || req["year"] || req["sort"] {
		t.Errorf("required inputs %v, want make only", req)
	}
	if !inf["year"] {
		t.Error("year not found informative (its tests must bind the required make)")
	}
	n := 0
	for _, l := range st.Log() {
		kw, b, _ := ParseFormQuery(l.Query)
		if kw != "" && b.Get("make") == "" && st.Docs() > 0 && l.N > 40 {
			t.Errorf("query %d %q: a keyword without the required make", l.N, l.Query)
		}
		if l.New > 0 {
			n++
		}
	}
	if cov := float64(st.Docs()) / float64(len(site.cars)); cov < 0.9 {
		t.Errorf("coverage %.2f < 0.9 (%d queries brought records)", cov, n)
	}
}

// TestFormPolicyResume: a harvest resumed from its journal rebuilds the
// policy's findings from the replayed queries and sends no query twice.
func TestFormPolicyResume(t *testing.T) {
	site := newCarSite(11, 100)
	sf, f := serveCars(t, site)
	j := &MemJournal{}
	run := func(budget int) (*State, FormReport) {
		s, err := NewFormSearcher(sf, f, FormOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p := NewFormPolicy(s, &Adaptive{}, FormPlanOptions{Budget: 60})
		st, err := Harvest(context.Background(), s, p, Options{Source: "form:cars", Budget: budget, Journal: j})
		if err != nil {
			t.Fatal(err)
		}
		return st, p.Report()
	}
	_, first := run(20)
	st, second := run(60)
	seen := map[string]bool{}
	for _, l := range st.Log() {
		if seen[l.Query] {
			t.Errorf("query %q sent twice", l.Query)
		}
		seen[l.Query] = true
	}
	if len(st.Log()) != 60 {
		t.Errorf("%d queries after the resume, want 60", len(st.Log()))
	}
	for i, in := range first.Inputs {
		if in.Decided && (second.Inputs[i].Informative != in.Informative) {
			t.Errorf("input %s: informative %v before the resume, %v after", in.Name, in.Informative, second.Inputs[i].Informative)
		}
	}
}
