package surface

import (
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// clusterSite is a keyword search over records of two parts (categories)
// whose words never meet: the words of one part's records never list a
// record of the other.
type clusterSite struct {
	recs []string
	k    int
}

func newClusterSite(seed uint64, perPart int, parts ...string) *clusterSite {
	r := rand.New(rand.NewPCG(seed, 9))
	s := &clusterSite{k: 10}
	for _, part := range parts {
		for i := 0; i < perPart; i++ {
			// each part has its own vocabulary: part name + its own words
			w1, w2 := part+word(r.IntN(40)), part+word(r.IntN(40))
			s.recs = append(s.recs, fmt.Sprintf("%s: %s %s", part, w1, w2))
		}
	}
	return s
}

const clusterForm = `<form action="/search" method="get"><input type="text" name="q"><input type="submit" value="Search"></form>`

func (s *clusterSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.URL.Path == "/" {
		fmt.Fprintf(w, "<html><head><title>Terms</title></head><body><h1>Search the terms</h1>%s</body></html>", clusterForm)
		return
	}
	q := strings.ToLower(strings.TrimSpace(r.FormValue("q")))
	var hits []int
	for i, rec := range s.recs {
		if q != "" && strings.Contains(" "+strings.NewReplacer(":", " ").Replace(rec)+" ", " "+q+" ") {
			hits = append(hits, i)
		}
	}
	fmt.Fprintf(w, "<html><body>%s", clusterForm)
	if len(hits) == 0 {
		fmt.Fprint(w, "<p>No results.</p></body></html>")
		return
	}
	fmt.Fprintf(w, "<p>%d results</p><ol class=\"hits\">", len(hits))
	for _, i := range hits[:min(len(hits), s.k)] {
		fmt.Fprintf(w, "<li class=\"hit\"><a href=\"/term/%d\">term %d</a><p>%s</p></li>", i, i, html.EscapeString(s.recs[i]))
	}
	fmt.Fprint(w, "</ol></body></html>")
}

// TestFormPolicyAllSeeds: every keyword the user gave is asked, not only
// until the first finds records: a part of the database that the words of
// the first part's records never reach is found through its keyword.
func TestFormPolicyAllSeeds(t *testing.T) {
	const seed = 5
	t.Logf("seed %d", seed)
	site := newClusterSite(seed, 60, "anatomy", "genetics")
	sf, f := serveCars(t, site)
	s, err := NewFormSearcher(sf, f, FormOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const budget = 80
	p := NewFormPolicy(s, &Adaptive{}, FormPlanOptions{Budget: budget, Seeds: []string{"anatomy", "genetics", "unheard"}})
	st, err := Harvest(context.Background(), s, p, Options{Source: "form:terms", Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]int{}
	for i := range st.Docs() {
		// the record's text holds the part's words ("anatomy: …")
		for _, part := range []string{"anatomy", "genetics"} {
			if strings.Contains(st.Doc(i).Text, part+":") {
				parts[part]++
			}
		}
	}
	t.Logf("%d queries, %d of %d records: %v", len(st.Log()), st.Docs(), len(site.recs), parts)
	if parts["anatomy"] == 0 || parts["genetics"] == 0 {
		t.Errorf("records of the parts %v: each part's keyword should have opened it", parts)
	}
	for i, q := range []string{"anatomy", "genetics", "unheard"} {
		if !st.Issued(q) {
			t.Errorf("seed %d %q never asked", i, q)
		}
	}
}
