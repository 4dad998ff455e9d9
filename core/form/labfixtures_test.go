package form

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// labFixture is one page of testdata/lab-nonsearch: where it was served
// from and its non-search forms with the kind the lab gives them.
type labFixture struct {
	File  string `json:"file"`
	URL   string `json:"url"`
	Forms []struct {
		Index int    `json:"index"`
		Kind  string `json:"kind"`
	} `json:"forms"`
}

// TestLabNonSearchForms checks the classifier on pages saved from the lab's
// real applications (testdata/lab-nonsearch): every form the index lists
// (language selectors, jump menus, list display and filter panels, export
// options, log-in forms) is not searchable, and every other form of those
// pages — their site-search boxes — is searchable.
func TestLabNonSearchForms(t *testing.T) {
	dir := filepath.Join("testdata", "lab-nonsearch")
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index []labFixture
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	h, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range index {
		t.Run(fx.File, func(t *testing.T) {
			p := labPage(t, filepath.Join(dir, fx.File), fx.URL)
			kinds := map[int]string{}
			for _, f := range fx.Forms {
				if f.Index >= len(p.Forms) {
					t.Fatalf("form %d of %d", f.Index, len(p.Forms))
				}
				kinds[f.Index] = f.Kind
			}
			ds := h.ClassifyPage(p)
			for i, d := range ds {
				kind, listed := kinds[i]
				if !listed {
					kind = KindSearch
				}
				if d.Searchable != !listed {
					t.Errorf("form %d (%s, action %s): searchable=%v p=%.3f kind %s; reasons %v",
						i, kind, p.Forms[i].Action, d.Searchable, d.PSearchable, d.Kind, d.Reasons)
				}
			}
		})
	}
}

// labPage parses a saved page as served from rawURL.
func labPage(tb testing.TB, file, rawURL string) *page.Page {
	tb.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := page.Parse(b, "text/html; charset=utf-8", u)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
