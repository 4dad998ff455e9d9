package crawl

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/probe"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// searchWeb answers the search forms of a hand web: an action under
// /search/cars/db lists three records for any query but the nonsense
// ones (a database), any other action lists the same three offers whatever
// the query (not a database). Every search request is logged.
type searchWeb struct {
	*handWeb
	mu       sync.Mutex
	searches []string
}

func (w *searchWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/search/") {
		w.handWeb.ServeHTTP(rw, r)
		return
	}
	w.mu.Lock()
	w.searches = append(w.searches, r.URL.RequestURI())
	w.mu.Unlock()
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	q := r.FormValue("q")
	if !strings.Contains(r.URL.Path, "/db") {
		q = "latest" // the same offers whatever the query
	} else if strings.HasPrefix(q, "q") && len(q) == 9 {
		fmt.Fprint(rw, "<html><body><h1>Search</h1><p>No results found.</p></body></html>")
		return
	}
	fmt.Fprint(rw, "<html><body><h1>Results</h1><ul class=results>")
	for i := range 3 {
		fmt.Fprintf(rw, `<li class=car><a href="/car/%s-%d">%s car %d</a><p>used %s for sale, 40,000 miles, one owner</p></li>`, q, i, q, i, q)
	}
	fmt.Fprint(rw, "</ul></body></html>")
}

// TestProbeForms crawls a site with three search forms, probing on
// (3 queries a form, a budget of 13): the first two forms found are probed —
// the database judged a database of the topic, the other not a database —
// the third is not (the budget is spent), the probes are stored with the
// forms and counted, and only search forms received requests.
func TestProbeForms(t *testing.T) {
	w := &searchWeb{handWeb: newHandWeb()}
	site := "http://cars.example"
	w.add(site+"/", pageHTML("used cars", []string{"/a", "/b", "/c"}, ""))
	w.add(site+"/a", pageHTML("used cars a", nil, "/search/cars/db"))
	w.add(site+"/b", pageHTML("used cars b", nil, "/search/cars/static"))
	w.add(site+"/c", pageHTML("used cars c", nil, "/search/cars/db2"))
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	fo := fetch.DefaultOptions()
	fo.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	fo.AllowHost = func(h string) bool { return w.hosts[h] }
	fo.Delay = 0
	f, err := fetch.New(fo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	c := newHandCrawl(t, t.TempDir(), f, SCDI, profile.Stop{}, []string{site + "/"}, func(p *profile.Profile, d *Deps) {
		// 3 queries a form, and up to 5 more (words of the page, a
		// general sample) reserved with them: the database takes 4 (its
		// general sample), the static form 5 (none of the profile's terms
		// lists records: two words of its page), and the second
		// database's 8 do not fit in the 4 left
		p.Probe = profile.Probe{Queries: 3, Budget: 13}
		pr, err := probe.New(f, probe.Options{Queries: 3, Terms: []string{"ford", "honda", "toyota"}})
		if err != nil {
			t.Fatal(err)
		}
		d.Prober = pr
	})
	sn, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkCounters(t, c.db, sn)
	if sn.ProbedForms != 2 || sn.ProbeQueries != 9 {
		t.Errorf("snapshot: %d forms probed with %d queries; want 2 with 9 (within the budget of 13)", sn.ProbedForms, sn.ProbeQueries)
	}
	var forms []store.Form
	if err := c.db.ScanForms(func(f store.Form) error { forms = append(forms, f); return nil }); err != nil {
		t.Fatal(err)
	}
	decisions := map[string]string{}
	for _, sf := range forms {
		d := "-"
		if sf.Probe != nil {
			d = sf.Probe.Decision
			want := map[string]int{store.ProbeTopicDatabase: 4, store.ProbeNotDatabase: 5}[d]
			if n := len(sf.Probe.Queries); n != want || len(sf.Probe.Evidence) == 0 {
				t.Errorf("%s: probe %+v", sf.Action, sf.Probe)
			}
			if sf.Relevant != (d == store.ProbeTopicDatabase) {
				t.Errorf("%s: relevant %v with probe decision %s", sf.Action, sf.Relevant, d)
			}
		}
		decisions[sf.Action[strings.Index(sf.Action, "/search/"):]] = d
	}
	probed := 0
	for a, d := range decisions {
		switch {
		case d == "-":
		case a == "/search/cars/db" && d != store.ProbeTopicDatabase,
			a == "/search/cars/static" && d != store.ProbeNotDatabase:
			t.Errorf("%s: decision %s", a, d)
		default:
			probed++
		}
	}
	if len(decisions) != 3 || probed != 2 {
		t.Errorf("decisions %v: want 3 forms, 2 probed", decisions)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.searches) != 9 {
		t.Errorf("%d search requests, want 9: %v", len(w.searches), w.searches)
	}
}
