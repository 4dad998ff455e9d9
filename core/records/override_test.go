package records

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// labFixture returns a saved lab result page and its index entry.
func labFixture(t *testing.T, app, file string) ([]byte, labPage) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "lab", app, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pages []labPage
	if err := json.Unmarshal(raw, &pages); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if p.File == file {
			body, err := os.ReadFile(filepath.Join("testdata", "lab", app, file))
			if err != nil {
				t.Fatal(err)
			}
			return body, p
		}
	}
	t.Fatalf("%s/%s: not in index.json", app, file)
	return nil, labPage{}
}

// TestSelectorsOnLabPages reads saved real result pages with a person's
// selectors instead of the inference: the records are the elements the
// records selector matches, their URLs the record_link matches, the next
// page the first next match.
func TestSelectorsOnLabPages(t *testing.T) {
	tests := []struct {
		name, app, file string
		sel             Selectors
		// records: -1 the fixture's own records; else their number
		records int
		// urlHas is in every record's URL ("" no check)
		urlHas string
		// next: "=" the fixture's next page, "" none, else a URL part
		next        string
		nextControl string
		total       int
	}{
		{"dt records and a caption", "namazu", "q1.html",
			Selectors{Records: "dl > dt", RecordLink: "a", Next: "a:contains('[2]')"}, -1, "", "=", ControlSelector, 128},
		{"records only, next inferred", "namazu", "q1.html",
			Selectors{Records: "dl > dt"}, -1, "", "=", ControlNumber, 128},
		{"next only, records inferred", "redmine", "q1.html",
			Selectors{Next: "li.next a"}, -1, "", "=", ControlSelector, 115},
		{"next holder element", "redmine", "q1.html",
			Selectors{Records: "dl#search-results > dt", Next: "li.next"}, -1, "", "=", ControlSelector, 115},
		{"record link picks another link", "gitweb", "q1.html",
			Selectors{Records: "table.commit_search tr:has(a.subject)", RecordLink: "td.link a:contains('commitdiff')", Next: "a[accesskey=n]"},
			100, "a=commitdiff", "=", ControlSelector, -1},
		{"last page: no next match", "namazu", "q3-p20.html",
			Selectors{Records: "dl > dt", Next: "a:contains('Next')"}, -1, "", "", "", 543},
		{"no records page", "namazu", "empty.html",
			Selectors{Records: "dl > dt:has(a)"}, 0, "", "", "", -2},
		{"a list of links", "swish", "q1.html",
			Selectors{Records: "dl > dt", RecordLink: "a[href^='/terms/']"}, -1, "/terms/", "=", ControlLink, 124},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, p := labFixture(t, tt.app, tt.file)
			res, err := Extract(body, mustURL(t, p.URL), Options{Query: p.Query, Page: pageOf(p.File), Selectors: tt.sel})
			if err != nil {
				t.Fatal(err)
			}
			got := urls(res.Records)
			switch {
			case tt.records < 0:
				if strings.Join(got, "\n") != strings.Join(p.Records, "\n") {
					t.Errorf("records:\n got %d %.300q\nwant %d %.300q", len(got), got, len(p.Records), p.Records)
				}
			case len(got) != tt.records:
				t.Errorf("%d records, want %d: %.300q", len(got), tt.records, got)
			}
			for _, u := range got {
				if !strings.Contains(u, tt.urlHas) {
					t.Errorf("record URL %s lacks %q", u, tt.urlHas)
					break
				}
			}
			switch {
			case tt.next == "" && res.Next != nil:
				t.Errorf("next %+v, want none", res.Next)
			case tt.next != "" && res.Next == nil:
				t.Errorf("no next, want one")
			case tt.next == "=" && !sameRequest(res.Next, p.Next):
				t.Errorf("next %+v, want %s", res.Next, p.Next)
			case res.Next != nil && res.Next.Control != tt.nextControl:
				t.Errorf("next control %q, want %q", res.Next.Control, tt.nextControl)
			}
			if tt.total > -2 && res.Total != tt.total {
				t.Errorf("total %d (%q), want %d; counts %+v", res.Total, res.TotalText, tt.total, res.Counts)
			}
			if tt.sel.Records != "" && len(res.Records) > 0 && (res.Learned || !res.Wrapper.Known()) {
				t.Errorf("wrapper %+v learned %v: want the selected elements' place, not learned", res.Wrapper, res.Learned)
			}
		})
	}
}

// TestSelectorsButton follows a submit button the next selector names: its
// form is submitted with it, as a browser would.
func TestSelectorsButton(t *testing.T) {
	body := []byte(`<html><body><ol><li><a href="/r/1">one</a></li><li><a href="/r/2">two</a></li></ol>
<form action="/search" method="post"><input type="hidden" name="q" value="x"><input type="hidden" name="o" value="10">
<input type="submit" name="go" value="Forward"></form></body></html>`)
	res, err := Extract(body, mustURL(t, "http://db.test/search"), Options{Query: "x", Page: 1,
		Selectors: Selectors{Records: "ol > li", Next: "input[value=Forward]"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 2 || res.Records[0].URL != "http://db.test/r/1" {
		t.Errorf("records %+v", res.Records)
	}
	n := res.Next
	if n == nil || n.Method != "POST" || n.URL != "http://db.test/search" || n.Values.Get("o") != "10" || n.Values.Get("go") != "Forward" || n.Control != ControlSelector {
		t.Errorf("next %+v, want the form posted with its Forward button", n)
	}
}

func TestSelectorsCheck(t *testing.T) {
	tests := []struct {
		sel  Selectors
		key  string
		want string
	}{
		{Selectors{Records: "dl > dt", RecordLink: "a.title", Next: "a[rel=next], a:contains('Next')"}, "", ""},
		{Selectors{Records: "dl >"}, "records", "invalid CSS selector"},
		{Selectors{Records: "li", Next: "a[rel=next"}, "next", "invalid CSS selector"},
		{Selectors{RecordLink: "a"}, "record_link", "needs records"},
		{Selectors{Records: "  "}, "records", "empty CSS selector"},
	}
	for _, tt := range tests {
		key, err := tt.sel.Check()
		if key != tt.key || (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %q, %v; want %q, %q", tt.sel, key, err, tt.key, tt.want)
		}
	}
	if _, err := Extract([]byte("<p>x</p>"), mustURL(t, "http://db.test/"), Options{Selectors: Selectors{Next: "a["}}); err == nil || !strings.Contains(err.Error(), "selector next") {
		t.Errorf("Extract with a bad selector: %v", err)
	}
}
