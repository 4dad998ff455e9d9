package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/dwcrawl/dwcrawl/core/testseed"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
)

// One lab serves every test of the package: loading it is the slow part.
var shared struct {
	once sync.Once
	lab  *Lab
	dir  string
	log  bytes.Buffer
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.lab != nil {
		if err := shared.lab.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// startLab starts the shared lab, or skips the test where its packages or the
// shared data are missing.
func startLab(t *testing.T) *Lab {
	t.Helper()
	if testing.Short() {
		t.Skip("lab: loads real web applications (a minute or more); skipped with -short")
	}
	shared.once.Do(func() {
		// DWCRAWL_LAB_DIR reuses (and keeps) a loaded lab directory.
		dir := os.Getenv("DWCRAWL_LAB_DIR")
		if dir == "" {
			// A short path: MariaDB's unix socket lives in it.
			if dir, shared.err = os.MkdirTemp("", "dwlab-"); shared.err != nil {
				return
			}
			shared.dir = dir
		}
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		t0 := time.Now()
		// DWCRAWL_LAB_APPS=a,b runs some applications only.
		var apps []string
		if s := os.Getenv("DWCRAWL_LAB_APPS"); s != "" {
			apps = strings.Split(s, ",")
		}
		shared.lab, shared.err = Start(ctx, dir, Options{Log: &shared.log, Apps: apps})
		if shared.err == nil {
			for _, n := range AppNames() {
				if !slices.Contains(shared.lab.Apps, n) && shared.lab.Missing[n] == "" {
					shared.lab.Missing[n] = "not in DWCRAWL_LAB_APPS"
				}
			}
		}
		fmt.Fprintf(&shared.log, "lab: started in %.1fs\n", time.Since(t0).Seconds())
	})
	var me *MissingError
	switch {
	case errors.As(shared.err, &me):
		t.Skipf("lab: skipped: %v", me)
	case errors.Is(shared.err, shareddata.ErrNotFound):
		t.Skipf("lab: skipped: %v", shared.err)
	case shared.err != nil:
		t.Fatalf("lab: %v\n%s", shared.err, shared.log.String())
	}
	return shared.lab
}

func TestLabStarts(t *testing.T) {
	l := startLab(t)
	t.Log(shared.log.String())
	t.Logf("timing (s): %v", l.Timing)
	for app, why := range l.Missing {
		t.Logf("left out %s: %s", app, why)
	}
	if len(l.Apps) == 0 {
		t.Fatal("no application runs")
	}
	for _, s := range l.Truth.Summaries() {
		t.Logf("%-9s %-15s pages %3d  searchable %3d  non-searchable %3d  records %5d  %v", s.App, s.Host, s.Pages,
			s.Searchable, s.NonSearchable, s.Records, s.Kinds)
	}
}

// TestSearchFindsRecords is the lab's reason to exist: for every database
// behind a searchable form, fetch the page that holds the form, find the form
// in the served HTML, submit a query for a record known to be loaded, and
// find the record among the results, following the application's own
// pagination.
func TestSearchFindsRecords(t *testing.T) {
	l := startLab(t)
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 17))
	for _, name := range AppNames() {
		t.Run(name, func(t *testing.T) {
			if why, ok := notRunning(l, name); ok {
				t.Skip(why)
			}
			if !slices.Contains(l.Apps, name) {
				t.Skip("not among DWCRAWL_LAB_APPS")
			}
			backends := searchBackends(l, name)
			if len(backends) == 0 && !holdsRecords(l, name) {
				t.Skipf("%s holds no records: no search backend", name)
			}
			if len(backends) == 0 {
				t.Fatalf("no searchable form with records in the truth of %s", name)
			}
			for _, b := range backends {
				t.Run(b.Backend, func(t *testing.T) {
					recs := l.Truth.Records[b.Backend]
					form := liveForm(t, l, b)
					ambient := ambientRecords(t, l, b, recs)
					for range 3 {
						r := recs[rng.IntN(len(recs))]
						if ambient[r.ID] && len(ambient) < len(recs) {
							continue // linked from every page: finding it proves nothing
						}
						q := rareWord(recs, r)
						if q == "" {
							continue
						}
						pages, found := searchFor(t, l, form, b, q, recs, &r, 15)
						if !found {
							t.Errorf("query %q: record %s (%q, %s) not among %d result pages", q, r.ID, r.Title, r.Path, pages)
						}
					}
				})
			}
		})
	}
}

// TestPagination follows the result pages of a frequent word: every form
// that paginates (per the truth) must serve a next page with records not on
// the first.
func TestPagination(t *testing.T) {
	l := startLab(t)
	for _, name := range AppNames() {
		t.Run(name, func(t *testing.T) {
			if why, ok := notRunning(l, name); ok {
				t.Skip(why)
			}
			if !slices.Contains(l.Apps, name) {
				t.Skip("not among DWCRAWL_LAB_APPS")
			}
			for _, b := range searchBackends(l, name) {
				if b.PageParam == "" {
					t.Logf("%s: shows every result on one page (no pagination)", b.Backend)
					continue
				}
				t.Run(b.Backend, func(t *testing.T) {
					recs := l.Truth.Records[b.Backend]
					q, df := frequentWord(recs)
					if df <= b.PageSize {
						// gitweb's 100 a page outnumber any title word; its
						// search reads the whole message
						texts := make([]Record, len(recs))
						for i, r := range recs {
							texts[i].Title = r.Text
						}
						q, df = frequentWord(texts)
					}
					if df <= b.PageSize {
						t.Fatalf("no title word in more than %d titles (a page of results)", b.PageSize)
					}
					// The query matches at least the df titles: that many
					// results fill this many pages.
					pages := min(3, (df+b.PageSize-1)/b.PageSize)
					form := liveForm(t, l, b)
					ambient := ambientRecords(t, l, b, recs)
					seen := map[string]int{}
					u := submitURL(t, form, b.QueryField, q)
					for page := 1; page <= pages; page++ {
						body := get(t, l, u)
						var found []string
						for _, id := range recordsOn(t, u, body, recs) {
							if !ambient[id] {
								found = append(found, id)
							}
						}
						if len(found) == 0 {
							t.Fatalf("query %q page %d (%s): no record", q, page, u)
						}
						fresh := 0
						for _, id := range found {
							if _, ok := seen[id]; !ok {
								seen[id] = page
								fresh++
							}
						}
						if fresh == 0 {
							t.Fatalf("query %q page %d (%s): only records of earlier pages", q, page, u)
						}
						if page == pages {
							break
						}
						next := nextPage(t, u, body, b, page)
						if next == "" {
							t.Fatalf("query %q (in %d titles) page %d (%s): no next page link with %s=", q, df, page, u, b.PageParam)
						}
						u = next
					}
					t.Logf("query %q (in %d titles): %d distinct records on %d pages", q, df, len(seen), pages)
				})
			}
		})
	}
}

// TestVirtualHosts checks that each lab host serves its own site and
// robots.txt, and that the truth files are written.
func TestVirtualHosts(t *testing.T) {
	l := startLab(t)
	titles := map[string]string{}
	for _, s := range l.Truth.Sites {
		body := get(t, l, s.Home)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		title := strings.TrimSpace(doc.Find("title").First().Text())
		if other, dup := titles[title]; dup {
			t.Errorf("%s and %s serve the same home page %q", s.Host, other, title)
		}
		titles[title] = s.Host
		if !strings.Contains(title, s.Title) && !strings.Contains(body, s.Title) {
			t.Errorf("%s: home page %q does not name %q", s.Host, title, s.Title)
		}
		if robots := get(t, l, l.URL(s.Host, "/robots.txt")); !strings.Contains(robots, "User-agent") {
			t.Errorf("%s/robots.txt: %q", s.Host, robots)
		}
	}
	// A host name the lab does not serve gets the hub (the default host).
	c := &http.Client{Timeout: 10 * time.Second}
	req, _ := http.NewRequest(http.MethodGet, "http://"+l.Addr+"/", nil)
	req.Host = "unknown." + Domain
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "A small web of real web software") {
		t.Errorf("unknown host: not the hub: %.200s", b)
	}
	for _, f := range []string{"sites.json", "pages.json", "forms.jsonl", "summary.json"} {
		if st, err := os.Stat(filepath.Join(l.Dir, "truth", f)); err != nil || st.Size() == 0 {
			t.Errorf("truth/%s: %v", f, err)
		}
	}
	for b := range l.Truth.Records {
		if _, err := os.Stat(filepath.Join(l.Dir, "truth", "records", backendFile(b))); err != nil {
			t.Errorf("records of %s: %v", b, err)
		}
	}
}

// TestTruthForms checks the truth against what an application is known to
// serve: a search form on its home page, and login/registration forms that
// are never searchable.
func TestTruthForms(t *testing.T) {
	l := startLab(t)
	for _, s := range l.Truth.Sites {
		if s.App == "static" {
			continue
		}
		kinds := map[string]int{}
		homeSearch := false
		home := l.Truth.Pages[firstPage(l, s.Host)].URL
		for _, p := range l.Truth.Pages {
			if p.Host != s.Host {
				continue
			}
			for _, f := range p.Forms {
				kinds[f.Kind]++
				if f.Searchable != (f.Kind == "search") {
					t.Errorf("%s form %d: kind %s but searchable=%v", p.URL, f.Index, f.Kind, f.Searchable)
				}
				if f.Searchable && f.Backend == "" {
					t.Errorf("%s form %d: searchable without records", p.URL, f.Index)
				}
				if f.Searchable && p.URL == home {
					homeSearch = true
				}
			}
		}
		if !homeSearch && len(s.Backends) > 0 {
			t.Errorf("%s: no search form on the home page", s.Host)
		}
		// The applications with user accounts serve their forms.
		accounts := map[string]bool{"mediawiki": true, "wordpress": true, "dokuwiki": true}
		if accounts[s.App] && (kinds["login"] == 0 || kinds["registration"] == 0) {
			t.Errorf("%s: want login and registration forms beside the search form, have %v", s.Host, kinds)
		}
	}
	// The Formasaurus pages keep their annotated kinds, searchable or not.
	var search, other int
	for _, p := range l.Truth.Pages {
		if p.Host != "forms."+Domain {
			continue
		}
		for _, f := range p.Forms {
			if f.Searchable {
				search++
			} else {
				other++
			}
		}
	}
	if search == 0 || other == 0 {
		t.Errorf("forms site: %d searchable, %d other forms", search, other)
	}
}

// TestCurlResolve reaches a lab host the way the README says: curl with
// --resolve, the name-based virtual host answering.
func TestCurlResolve(t *testing.T) {
	l := startLab(t)
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	for _, host := range []string{"wiki." + Domain, Hub} {
		if _, ok := l.Hosts[host]; !ok {
			continue
		}
		out, err := exec.Command(curl, "-sS", "-L", "--max-time", "30",
			"--resolve", fmt.Sprintf("%s:%d:127.0.0.1", host, l.Port), l.URL(host, "/")).Output()
		if err != nil {
			t.Fatalf("curl %s: %v", host, err)
		}
		want := map[string]string{"wiki." + Domain: "Lab Film Wiki", Hub: "A small web of real web software"}[host]
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("curl --resolve %s: no %q in %.200s", host, want, out)
		}
	}
}

// holdsRecords reports whether an application loaded records (one without
// any, an administration tool, serves no search form).
func holdsRecords(l *Lab, app string) bool {
	return slices.ContainsFunc(l.Truth.Sites, func(s Site) bool { return s.App == app && len(s.Backends) > 0 })
}

func firstPage(l *Lab, host string) int {
	return slices.IndexFunc(l.Truth.Pages, func(p Page) bool { return p.Host == host })
}

// ambientRecords are the records linked from the page that holds the form
// (a "recent posts" widget shows on result pages too), which a result page
// does not show because of the query.
func ambientRecords(t *testing.T, l *Lab, f Form, recs []Record) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, id := range recordsOn(t, f.Page, get(t, l, f.Page), recs) {
		m[id] = true
	}
	return m
}

// searchBackends is one truth form per database of an application, taken
// from the first page that has it (the home page where it is there).
func searchBackends(l *Lab, app string) []Form {
	var out []Form
	seen := map[string]bool{}
	at := map[string]int{}
	for _, f := range l.Truth.SearchForms(app) {
		if f.Backend == "" {
			continue
		}
		if seen[f.Backend] {
			// the tests submit by GET: a later GET form of a database
			// stands in for a POST one (ht://Dig's search.html posts,
			// its result pages' form gets)
			if i := at[f.Backend]; out[i].Method != "GET" && f.Method == "GET" {
				out[i] = f
			}
			continue
		}
		seen[f.Backend] = true
		at[f.Backend] = len(out)
		out = append(out, f)
	}
	return out
}

// liveForm fetches the truth form's page and finds the form in the HTML
// served now: same action, method and query field.
func liveForm(t *testing.T, l *Lab, want Form) Form {
	t.Helper()
	body := get(t, l, want.Page)
	base, _ := url.Parse(want.Page)
	forms, err := ParseForms(base, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forms {
		if f.Action == want.Action && f.Method == want.Method && slices.ContainsFunc(f.Fields, func(x Field) bool {
			return x.Name == want.QueryField && (x.Type == "text" || x.Type == "search")
		}) {
			return f
		}
	}
	t.Fatalf("%s: no form with action %s and a text box %q among %d forms", want.Page, want.Action, want.QueryField, len(forms))
	return Form{}
}

// submitURL is the GET request a browser makes when q is typed in the query
// box and the form is submitted with its default (first) submit button.
func submitURL(t *testing.T, f Form, field, q string) string {
	t.Helper()
	if f.Method != "GET" {
		t.Fatalf("%s: search form method %s", f.Page, f.Method)
	}
	u, err := url.Parse(f.Action)
	if err != nil {
		t.Fatal(err)
	}
	v := url.Values{}
	submitted := false
	for _, x := range f.Fields {
		switch {
		case x.Name == field:
			v.Add(x.Name, q)
		case x.Type == "submit" || x.Type == "button" || x.Type == "image":
			if !submitted && x.Type != "image" {
				v.Add(x.Name, x.Value)
				submitted = true
			}
		case x.Type == "checkbox" || x.Type == "radio":
			if x.Checked {
				v.Add(x.Name, x.Value)
			}
		default:
			v.Add(x.Name, x.Value)
		}
	}
	u.RawQuery = v.Encode() // a GET form's action query is replaced, as browsers do
	return u.String()
}

// searchFor submits q and follows "next" links until the record is found or
// max pages were read; it returns the pages read.
func searchFor(t *testing.T, l *Lab, f Form, truth Form, q string, recs []Record, want *Record, max int) (int, bool) {
	t.Helper()
	u := submitURL(t, f, truth.QueryField, q)
	for page := 1; page <= max; page++ {
		body := get(t, l, u)
		if slices.Contains(recordsOn(t, u, body, recs), want.ID) {
			t.Logf("query %q: record %s (%q) on result page %d", q, want.ID, want.Title, page)
			return page, true
		}
		if truth.PageParam == "" {
			return page, false
		}
		if u = nextPage(t, u, body, truth, page); u == "" {
			return page, false
		}
	}
	return max, false
}

// recordsOn lists the ids of the records linked from a result page.
func recordsOn(t *testing.T, pageURL, body string, recs []Record) []string {
	t.Helper()
	byKey := map[string]string{}
	for _, r := range recs {
		for _, k := range linkKeys(r.Path) {
			byKey[k] = r.ID
		}
	}
	base, _ := url.Parse(pageURL)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]bool{}
	doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		u, err := base.Parse(s.AttrOr("href", ""))
		if err != nil || u.Host != base.Host {
			return
		}
		for _, k := range linkKeys(u.String()) {
			if id, ok := byKey[k]; ok && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	})
	return out
}

// linkKeys are the keys a link to a record page matches on: its path, and
// its path with each single query parameter (a result link may carry more,
// like DokuWiki's highlight s[]=).
func linkKeys(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	q := query(u)
	if len(q) == 0 {
		return []string{u.Path}
	}
	var keys []string
	for k, vs := range q {
		for _, v := range vs {
			if k == "title" {
				v = strings.ReplaceAll(v, " ", "_") // MediaWiki titles
			}
			keys = append(keys, u.Path+"?"+k+"="+v)
		}
	}
	return keys
}

// nextPage is the request for the result page after page number page: a
// link, or a click on the result form's button for the next page number.
func nextPage(t *testing.T, pageURL, body string, truth Form, page int) string {
	t.Helper()
	if truth.PageControl != "button" {
		return nextLink(t, pageURL, body, truth.PageParam)
	}
	base, _ := url.Parse(pageURL)
	forms, err := ParseForms(base, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(page + 1)
	for _, f := range forms {
		i := slices.IndexFunc(f.Fields, func(x Field) bool {
			return x.Name == truth.PageParam && x.Type == "submit" && x.Value == want
		})
		if i < 0 {
			continue
		}
		// The browser sends the form's fields and the button clicked.
		var fields []Field
		for j, x := range f.Fields {
			if j == i || (x.Type != "submit" && x.Type != "image" && x.Type != "button") {
				fields = append(fields, x)
			}
		}
		f.Fields = fields
		q := ""
		for _, x := range f.Fields {
			if x.Name == truth.QueryField {
				q = x.Value
			}
		}
		return submitURL(t, f, truth.QueryField, q)
	}
	return ""
}

// nextLink finds the result page's link to the next page: a link carrying
// param with the smallest value above the current page's.
func nextLink(t *testing.T, pageURL, body, param string) string {
	t.Helper()
	base, _ := url.Parse(pageURL)
	cur := pageNumber(query(base).Get(param))
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	best, bestN := "", -1
	doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		u, err := base.Parse(s.AttrOr("href", ""))
		if err != nil || u.Host != base.Host || !query(u).Has(param) {
			return
		}
		if n := pageNumber(query(u).Get(param)); n > cur && (bestN < 0 || n < bestN) {
			best, bestN = u.String(), n
		}
	})
	return best
}

// query is u's query parameters, ";" separating them as "&" does: HTML 4
// (B.2.2) asks servers to take both, and ht://Dig's result links use ";",
// which net/url refuses.
func query(u *url.URL) url.Values {
	q, _ := url.ParseQuery(strings.ReplaceAll(u.RawQuery, ";", "&"))
	return q
}

func pageNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// rareWord is the word of r's title found in the fewest titles of recs.
func rareWord(recs []Record, r Record) string {
	df := titleDF(recs)
	best := ""
	for _, w := range Words(r.Title) {
		if len(w) < 4 || strings.Contains(w, "'") {
			continue
		}
		if best == "" || df[w] < df[best] {
			best = w
		}
	}
	return best
}

// frequentWord is the word in the most titles of recs, and in how many.
func frequentWord(recs []Record) (string, int) {
	df := titleDF(recs)
	best := ""
	for w, n := range df {
		if len(w) < 4 || strings.Contains(w, "'") || commonWords[w] {
			continue
		}
		if n > df[best] || n == df[best] && w < best {
			best = w
		}
	}
	return best, df[best]
}

// commonWords are words some applications' search drops or every record
// carries (cgit's commit subjects all begin with "Add").
var commonWords = map[string]bool{"with": true, "from": true, "that": true, "this": true, "have": true}

func titleDF(recs []Record) map[string]int {
	df := map[string]int{}
	for _, r := range recs {
		seen := map[string]bool{}
		for _, w := range Words(r.Title) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	// a word in every title tells the records apart no better than none
	for w, n := range df {
		if n == len(recs) {
			delete(df, w)
		}
	}
	return df
}

func get(t *testing.T, l *Lab, u string) string {
	t.Helper()
	resp, err := l.Client().Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %.300s", u, resp.StatusCode, b)
	}
	return string(b)
}

// notRunning says why an application is not running: its package is missing,
// or DWCRAWL_LAB_APPS left it out.
func notRunning(l *Lab, name string) (string, bool) {
	if why, ok := l.Missing[name]; ok {
		return why, true
	}
	if !slices.Contains(l.Apps, name) {
		return name + " not started (DWCRAWL_LAB_APPS)", true
	}
	return "", false
}
