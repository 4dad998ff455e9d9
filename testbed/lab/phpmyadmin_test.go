package lab

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNonSearchFixtures checks that the saved pages of real non-search forms
// (core/form/testdata/lab-nonsearch, the form classifier's fixtures) carry
// the kinds the applications' own labels give their forms, so the fixtures
// and the lab's truth cannot drift apart. It needs no running lab.
func TestNonSearchFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "core", "form", "testdata", "lab-nonsearch")
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index []struct {
		File  string `json:"file"`
		URL   string `json:"url"`
		Forms []struct {
			Index int    `json:"index"`
			Kind  string `json:"kind"`
		} `json:"forms"`
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	apps := map[string]app{}
	for _, a := range allApps() {
		apps[a.info().Host] = a
	}
	for _, fx := range index {
		base, err := url.Parse(fx.URL)
		if err != nil {
			t.Fatal(err)
		}
		a := apps[base.Hostname()]
		if a == nil {
			t.Errorf("%s: %s is no lab application's host", fx.File, base.Hostname())
			continue
		}
		page, err := os.ReadFile(filepath.Join(dir, fx.File))
		if err != nil {
			t.Fatal(err)
		}
		forms, err := ParseForms(base, strings.NewReader(string(page)))
		if err != nil {
			t.Fatal(err)
		}
		if len(fx.Forms) == 0 {
			t.Errorf("%s: no form listed", fx.File)
		}
		for _, want := range fx.Forms {
			if want.Index >= len(forms) {
				t.Errorf("%s: form %d of %d", fx.File, want.Index, len(forms))
				continue
			}
			if got := a.label(&forms[want.Index]).Kind; got != want.Kind || got == "search" {
				t.Errorf("%s form %d: the lab labels it %s, the fixture %s", fx.File, want.Index, got, want.Kind)
			}
		}
	}
}
