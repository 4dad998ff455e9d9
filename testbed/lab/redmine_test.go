package lab

import (
	"net/url"
	"os"
	"testing"
)

// TestRedmineLabelsResultPage labels the forms of a saved Redmine result
// page (the mobile menu's and the header's quick search, the search page's
// own form): all three are the issues' search, queried in q, paged by
// page= links.
func TestRedmineLabelsResultPage(t *testing.T) {
	f, err := os.Open("../../core/records/testdata/lab/redmine/q1.html")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	base, _ := url.Parse("http://clinic.lab.test:8470/search?q=medicine")
	forms, err := ParseForms(base, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(forms) != 3 {
		t.Fatalf("%d forms, want 3", len(forms))
	}
	r := &redmine{}
	for _, fm := range forms {
		lb := r.label(&fm)
		if lb.Kind != "search" || lb.QueryField != "q" || lb.PageParam != "page" || lb.Backend != r.backend() {
			t.Errorf("form %d (%s): %+v", fm.Index, fm.Action, lb)
		}
		if err := fm.apply(lb); err != nil {
			t.Errorf("form %d: %v", fm.Index, err)
		}
	}
}
