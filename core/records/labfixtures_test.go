package records

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labPage is one saved result page of a real search application of the lab
// (testdata/lab/APP/index.json): what a person reads on it.
type labPage struct {
	File     string   `json:"file"`
	URL      string   `json:"url"`
	Method   string   `json:"method"`
	Body     string   `json:"body"`
	Query    string   `json:"query"`
	Records  []string `json:"records"`
	Next     string   `json:"next"`
	NextKind string   `json:"next_kind"`
	Total    *int     `json:"total"`
}

// TestLabResultPages reads real result pages of the lab's applications
// (MediaWiki-free: ht://Dig, Namazu, SWISH-E, gitweb, Redmine, gitit) with
// no per-application knowledge and checks the records (their main links,
// in order), the next page and the total against what the page shows.
func TestLabResultPages(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "lab", "*", "index.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no lab fixtures: %v", err)
	}
	for _, idx := range dirs {
		app := filepath.Base(filepath.Dir(idx))
		raw, err := os.ReadFile(idx)
		if err != nil {
			t.Fatal(err)
		}
		var pages []labPage
		if err := json.Unmarshal(raw, &pages); err != nil {
			t.Fatalf("%s: %v", idx, err)
		}
		for _, p := range pages {
			t.Run(app+"/"+p.File, func(t *testing.T) {
				body, err := os.ReadFile(filepath.Join(filepath.Dir(idx), p.File))
				if err != nil {
					t.Fatal(err)
				}
				res, err := Extract(body, mustURL(t, p.URL), Options{Query: p.Query, Page: pageOf(p.File)})
				if err != nil {
					t.Fatal(err)
				}
				got := urls(res.Records)
				if strings.Join(got, "\n") != strings.Join(p.Records, "\n") {
					t.Errorf("records:\n got %d %.300q\nwant %d %.300q", len(got), got, len(p.Records), p.Records)
				}
				switch {
				case p.Next == "" && res.Next != nil:
					t.Errorf("next %+v, want none", res.Next)
				case p.Next != "" && res.Next == nil:
					t.Errorf("no next, want %s (%s)", p.Next, p.NextKind)
				case p.Next != "" && !sameRequest(res.Next, p.Next):
					t.Errorf("next %+v, want %s", res.Next, p.Next)
				}
				if p.Total != nil && res.Total != *p.Total {
					t.Errorf("total %d (%q), want %d; counts %+v", res.Total, res.TotalText, *p.Total, res.Counts)
				}
			})
		}
	}
}

// pageOf is a fixture's page number by its name (q1-p2.html: 2).
func pageOf(file string) int {
	if i := strings.Index(file, "-p"); i >= 0 {
		n := 0
		for _, c := range file[i+2:] {
			if c < '0' || c > '9' {
				break
			}
			n = 10*n + int(c-'0')
		}
		if n > 0 {
			return n
		}
	}
	return 1
}

// sameRequest compares a next-page request with the URL (GET) or body
// (POST) a fixture names, parameters in any order.
func sameRequest(r *Request, want string) bool {
	if r.Method == "POST" {
		w, err := url.ParseQuery(want)
		return err == nil && w.Encode() == r.Values.Encode()
	}
	a, err1 := url.Parse(r.URL)
	b, err2 := url.Parse(want)
	if err1 != nil || err2 != nil {
		return false
	}
	return a.Host == b.Host && a.Path == b.Path && sortedQuery(a.RawQuery) == sortedQuery(b.RawQuery)
}

func sortedQuery(raw string) string {
	v, _ := url.ParseQuery(strings.ReplaceAll(raw, ";", "&"))
	return v.Encode()
}

// TestLabEmptyQueryPage reads each application's answer to an empty query
// (a help page, the bare form, an error) with the record template learned
// from its first result page: a list at the template's place that links
// elsewhere, or nowhere, is no record.
func TestLabEmptyQueryPage(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "lab", "*", "empty.html"))
	for _, empty := range dirs {
		dir := filepath.Dir(empty)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			q1, err := os.ReadFile(filepath.Join(dir, "q1.html"))
			if err != nil {
				t.Skip("no q1.html")
			}
			base := mustURL(t, "http://app.lab.test:8470/search?q=x")
			res, err := Extract(q1, base, Options{Query: "x", Page: 1})
			if err != nil || !res.Wrapper.Known() {
				t.Fatalf("no template learned from q1.html: %v", err)
			}
			body, err := os.ReadFile(empty)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Extract(body, base, Options{Wrapper: res.Wrapper})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Records) != 0 {
				t.Errorf("%d records on the empty query's page: %+v", len(got.Records), got.Records)
			}
		})
	}
}
