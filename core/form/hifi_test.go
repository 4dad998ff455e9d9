package form

import (
	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/page"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestHIFIFixture(t *testing.T) {
	p := fixture(t)
	h, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	ds := h.ClassifyPage(p)
	tests := []struct {
		kind       string
		searchable bool
		domain     string
	}{
		{KindSearch, true, ""}, // a bare site-search box: any domain
		{KindLogin, false, ""},
		{KindExternal, false, ""},
		{KindSearch, true, "auto"},
		{KindNewsletter, false, ""},
	}
	for i, tt := range tests {
		d := ds[i]
		t.Logf("form %d: %+v", i, d)
		if d.Kind != tt.kind || d.Searchable != tt.searchable {
			t.Errorf("form %d: kind %s searchable %v, want %s %v", i, d.Kind, d.Searchable, tt.kind, tt.searchable)
		}
		if tt.domain != "" && (d.Domain != tt.domain || !d.Relevant) {
			t.Errorf("form %d: domain %s p=%.2f relevant %v, want %s", i, d.Domain, d.PDomain, d.Relevant, tt.domain)
		}
		if len(d.Reasons) == 0 {
			t.Errorf("form %d: no reasons", i)
		}
		if d.PSearchable < 0 || d.PSearchable > 1 || d.PKind < 0 || d.PKind > 1 {
			t.Errorf("form %d: probabilities %v %v", i, d.PSearchable, d.PKind)
		}
	}
	if !strings.Contains(ds[2].Reasons[0], "google") {
		t.Errorf("external reason %q", ds[2].Reasons[0])
	}

	// The car form says "auto" on its own; the bare box borrows it from the
	// page; with no page, the bare box has no domain evidence.
	if ds[3].DomainEvidence != LevelForm || ds[0].DomainEvidence != LevelPage || ds[0].Domain != "auto" {
		t.Errorf("evidence: car form %q, bare box %q (%s)", ds[3].DomainEvidence, ds[0].DomainEvidence, ds[0].Domain)
	}
	hb0, _ := NewHIFI(nil, "")
	bare := p.Forms[0]
	bare.Action, bare.Context = "", "" // nor the site's name, nor a heading
	if d := hb0.Classify(&bare, ""); d.Relevant || d.Domain != NoDomain || d.DomainEvidence != "" {
		t.Errorf("bare box without its page: %+v", d)
	}
	if d := hb0.Classify(&p.Forms[0], "springfieldcars.example"); !d.Relevant || d.Domain != "auto" || d.DomainEvidence != LevelPage {
		t.Errorf("bare box with its action's host name (springfieldcars): %+v", d)
	}
	// With a target domain, the form is relevant to it alone.
	ha, _ := NewHIFI(nil, "auto")
	hb, _ := NewHIFI(nil, "book")
	da, db := ha.Classify(&p.Forms[3], "springfieldcars.example"), hb.Classify(&p.Forms[3], "springfieldcars.example")
	if !da.Relevant || db.Relevant || da.Domain != "auto" || db.Domain != "auto" {
		t.Errorf("auto target: %+v\nbook target: %+v", da, db)
	}
	if _, err := NewHIFI(nil, "underwater-basket-weaving"); err == nil {
		t.Error("unknown domain accepted")
	}
	// Without the domain step, no domain is reported.
	hn := &HIFI{Model: mustDefault(t), NoDomainStep: true}
	if d := hn.Classify(&p.Forms[3], ""); d.Domain != "" || !d.Searchable {
		t.Errorf("no domain step: %+v", d)
	}
}

func TestHIFIConcurrent(t *testing.T) {
	p := fixture(t)
	h, _ := NewHIFI(nil, "auto")
	want := h.ClassifyPage(p)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				for i, d := range h.ClassifyPage(p) {
					if d.Kind != want[i].Kind || d.PDomain != want[i].PDomain {
						t.Errorf("form %d: %+v vs %+v", i, d, want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestHIFIHeldOutTargets checks the domain step with a target on held-out
// generated forms (a seed the bundled model was not trained on): nearly
// every form is relevant to its own domain, hardly any to another.
func TestHIFIHeldOutTargets(t *testing.T) {
	const seed = 977
	ex, err := BundledDomainExamples(seed, 40)
	if err != nil {
		t.Fatal(err)
	}
	m := mustDefault(t)
	hs := map[string]*HIFI{}
	for _, d := range domain.BuiltIn {
		if hs[d], err = NewHIFI(m, d); err != nil {
			t.Fatal(err)
		}
	}
	var in, inN, out, outN int
	for i := range ex {
		f := &ex[i].Form
		ev := Evidence{PageHost: "forms.example"}
		for _, d := range domain.BuiltIn {
			v := hs[d].ClassifyIn(f, ev)
			if !v.Searchable {
				continue
			}
			if d == ex[i].Domain {
				inN++
				if v.Relevant {
					in++
				}
			} else {
				outN++
				if v.Relevant {
					out++
				}
			}
		}
	}
	t.Logf("seed %d: relevant to their own domain %d/%d, to another %d/%d", seed, in, inN, out, outN)
	if inN == 0 || float64(in) < 0.95*float64(inN) || float64(out) > 0.01*float64(outN) {
		t.Errorf("seed %d: own domain %d/%d, other domains %d/%d", seed, in, inN, out, outN)
	}
}

// TestHIFINothingToFill: a form of hidden values and buttons (MediaWiki's
// "compare selected revisions" on a page with one revision) takes no
// query, whatever the words around it say; the same form with a text box
// is a search form.
func TestHIFINothingToFill(t *testing.T) {
	h, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://wiki.example/index.php?title=X&action=history")
	for _, tt := range []struct {
		html       string
		searchable bool
	}{
		{`<form action="/index.php" id="mw-history-compare"><input type="hidden" value="X" name="title"><input type="hidden" value="historysubmit" name="action"><input type="hidden" value="revision" name="type"></form>`, false},
		{`<form action="/search"><input type="hidden" name="sort" value="date"><input type="submit" value="Search"></form>`, false},
		{`<form action="/search"><input type="hidden" name="sort" value="date"><input name="q"><input type="submit" value="Search"></form>`, true},
	} {
		p, err := page.Parse([]byte("<html><head><title>Search the wiki</title></head><body>"+tt.html+"</body></html>"), "text/html; charset=utf-8", u)
		if err != nil || len(p.Forms) != 1 {
			t.Fatalf("parse: %v", err)
		}
		d := h.ClassifyPage(p)[0]
		if d.Searchable != tt.searchable {
			t.Errorf("%s: searchable %v (p=%.3f, %v), want %v", tt.html, d.Searchable, d.PSearchable, d.Reasons, tt.searchable)
		}
		if strings.Contains(tt.html, `value="Search"`) && !tt.searchable && (d.Reasons[0] != "no field to fill in or choose" || d.PSearchable != 0) {
			t.Errorf("%s: reasons %v p=%.3f, want the rule's", tt.html, d.Reasons, d.PSearchable)
		}
	}
}
