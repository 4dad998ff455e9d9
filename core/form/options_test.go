package form

import (
	"net/url"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

func parseForm(t *testing.T, doc string) *page.Form {
	t.Helper()
	u, _ := url.Parse("http://lab.test/list")
	p, err := page.Parse([]byte(doc), "text/html", u)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Forms) != 1 {
		t.Fatalf("%d forms in %s", len(p.Forms), doc)
	}
	return &p.Forms[0]
}

// TestOptionsOnly checks which forms are display options: choices and
// count boxes with no word of their own about searching.
func TestOptionsOnly(t *testing.T) {
	const views = `<select name=ss><option>Modern View</option><option>Compact View</option></select>`
	const types = `<select name=y><option>Any Type</option><option>Check-ins</option><option>Wiki</option></select>`
	tests := []struct {
		name string
		doc  string
		want bool
	}{
		{"timeline with links to search", `<form action=/timeline><a href=/adv>Advanced</a> <a href=/search>Search</a>` + views + `Max:<input name=n size=4>` + types + `</form>`, true},
		{"per page box by label", `<form action=/issues>` + types + `Per page: <input name=x1 value=25 size=3><input type=submit value=Show></form>`, true},
		{"limit box named so, no label", `<form action=/log><input name=limit value=50>` + types + `</form>`, true},
		{"search button", `<form action=/timeline>` + views + `Max:<input name=n size=4><input type=submit value=Search></form>`, false},
		{"search in the form's own text", `<form action=/timeline>Search the timeline: ` + types + `Max:<input name=n size=4></form>`, false},
		{"search action", `<form action=/search>` + types + `Max:<input name=n size=4></form>`, false},
		{"query box beside the count", `<form action=/timeline><input name=s size=40>` + types + `Max:<input name=n size=4></form>`, false},
		{"price range is a query", `<form action=/sofas><input name=minimum_price size=4 value=min><input name=maximum_price size=4 value=max><input type=submit value=Filtern></form>`, false},
		{"wide box named n", `<form action=/people><input name=n size=40>` + types + `</form>`, false},
		{"choices only", `<form action=/cars>` + types + views + `<input type=submit value=Go></form>`, false},
		{"textarea", `<form action=/post>` + types + `Max:<input name=n size=4><textarea name=body></textarea></form>`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := optionsOnly(analyze(parseForm(t, tc.doc))); got != tc.want {
				t.Errorf("optionsOnly = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOptionsFormNotSearchable checks the classifier's verdict on a
// display-options form whose links say "Search", and that the same form
// with a search button of its own is still judged by the model. The
// threshold is lowered so that the rule is reached whatever the model's
// probability.
func TestOptionsFormNotSearchable(t *testing.T) {
	h, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	h.MinSearch = 1e-6
	const body = `<select name=ss><option>Modern View</option><option>Compact View</option></select>
Max:<input name=n size=4 maxlength=4><select name=y><option>Any Type</option><option>Check-ins</option></select>`
	d := h.Classify(parseForm(t, `<form action=/timeline><a href=/adv>Advanced</a> <a href=/search>Search</a>`+body+`</form>`), "lab.test")
	if d.Searchable || d.PSearchable != 0 || len(d.Reasons) == 0 || !strings.HasPrefix(d.Reasons[0], "display options") {
		t.Errorf("options form: searchable %v p %.3f reasons %v, want not searchable for display options", d.Searchable, d.PSearchable, d.Reasons)
	}
	d = h.Classify(parseForm(t, `<form action=/timeline>`+body+`<input type=submit value=Search></form>`), "lab.test")
	for _, r := range d.Reasons {
		if strings.HasPrefix(r, "display options") {
			t.Errorf("form with a Search button ruled display options: %v", d.Reasons)
		}
	}
}
