package surface

import (
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// paperSite is a bibliography behind a form of two text boxes, written for
// this test: q (the query box by its name) searches only the venue, of
// which there are three, and author searches the authors, of whom there
// are many; the first k matches are shown. Through q alone at most 3·k
// records can be reached: the second box is the one that matters.
type paperSite struct {
	recs []paperRec
	k    int
}

type paperRec struct{ id, venue, text string }

var (
	paperVenues = []string{"vldb", "sigmod", "icde"}
	paperTitle  = []string{"query", "index", "join", "stream", "graph", "storage", "learned", "transaction"}
)

func newPaperSite(seed uint64, n, authors int) *paperSite {
	r := rand.New(rand.NewPCG(seed, 5))
	s := &paperSite{k: 20}
	for i := 0; i < n; i++ {
		v := paperVenues[r.IntN(len(paperVenues))]
		a1, a2 := "author"+word(r.IntN(authors)), "author"+word(r.IntN(authors))
		t := paperTitle[r.IntN(len(paperTitle))] + " " + paperTitle[r.IntN(len(paperTitle))]
		s.recs = append(s.recs, paperRec{id: strconv.Itoa(i), venue: v, text: fmt.Sprintf("%s processing by %s and %s, %s %d", t, a1, a2, v, 2000+r.IntN(20))})
	}
	return s
}

const paperForm = `<form action="/search" method="get"><label>Search <input type="text" name="q"></label>
<label>Author <input type="text" name="author"></label><input type="submit" value="Find papers"></form>`

func (s *paperSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.URL.Path == "/" {
		fmt.Fprintf(w, "<html><head><title>Papers</title></head><body><h1>Find a paper</h1>%s</body></html>", paperForm)
		return
	}
	if r.URL.Path != "/search" {
		http.NotFound(w, r)
		return
	}
	q, au := strings.ToLower(strings.TrimSpace(r.FormValue("q"))), strings.ToLower(strings.TrimSpace(r.FormValue("author")))
	if q == "" && au == "" {
		fmt.Fprintf(w, "<html><body>%s<p>Please enter a search term.</p></body></html>", paperForm)
		return
	}
	var hits []paperRec
	for _, p := range s.recs {
		words := strings.Fields(strings.NewReplacer(",", " ").Replace(p.text))
		if (q == "" || p.venue == q) && (au == "" || strings.Contains(" "+strings.Join(words, " ")+" ", " "+au+" ") && strings.HasPrefix(au, "author")) {
			hits = append(hits, p)
		}
	}
	fmt.Fprintf(w, "<html><body>%s", paperForm)
	if len(hits) == 0 {
		fmt.Fprint(w, "<p>No papers match.</p></body></html>")
		return
	}
	fmt.Fprintf(w, "<p>%d papers</p><ol class=\"papers\">", len(hits))
	for _, p := range hits[:min(len(hits), s.k)] {
		fmt.Fprintf(w, "<li class=\"paper\"><a href=\"/paper/%s\">paper %s</a><p>%s</p></li>", p.id, p.id, html.EscapeString(p.text))
	}
	fmt.Fprint(w, "</ol></body></html>")
}

// TestFormPolicyTextBoxes: a form with two text boxes where the second
// matters. The policy tests the second box with words of the records,
// finds it informative and sends keywords to it; without it (the query
// box alone) the harvest cannot pass 3·k records.
func TestFormPolicyTextBoxes(t *testing.T) {
	const seed = 11
	t.Logf("seed %d", seed)
	site := newPaperSite(seed, 400, 60)
	run := func(t *testing.T, budget int) (*State, FormReport) {
		t.Helper()
		sf, f := serveCars(t, site)
		s, err := NewFormSearcher(sf, f, FormOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if name := s.Form().Fields[s.Box()].Name; name != "q" {
			t.Fatalf("query box %q, want q", name)
		}
		p := NewFormPolicy(s, &Adaptive{}, FormPlanOptions{Budget: budget, Seeds: paperVenues[:1]})
		st, err := Harvest(context.Background(), s, p, Options{Source: "form:papers", Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		return st, p.Report()
	}
	st, r := run(t, 150)
	t.Logf("%d queries, %d of %d papers; report %+v", len(st.Log()), st.Docs(), len(site.recs), r)
	var author *InputReport
	for i := range r.Inputs {
		if r.Inputs[i].Name == "author" {
			author = &r.Inputs[i]
		}
	}
	if author == nil || author.Kind != "text" || !author.Informative {
		t.Fatalf("the author box: %+v, want an informative text input", author)
	}
	routed := 0
	for _, l := range st.Log() {
		if kw, b, _ := ParseFormQuery(l.Query); kw != "" && b.Get("author") == kw && b.Has("q") && b.Get("q") == "" && l.Returned > 0 {
			routed++
		}
	}
	if routed < 10 {
		t.Errorf("%d keyword queries typed into the author box listed papers", routed)
	}
	if limit := 3 * site.k; st.Docs() < 3*limit {
		t.Errorf("%d papers: the author box should reach far beyond the %d the venue box can", st.Docs(), limit)
	}
	// the venue box is informative too (three distinct answers), so it
	// takes every other keyword, most of them lost on it
	if cov := float64(st.Docs()) / float64(len(site.recs)); cov < 0.6 {
		t.Errorf("coverage %.2f < 0.60", cov)
	}
}
