package form

import (
	"bufio"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// appForm is one form of testdata/apps with its expected class.
type appForm struct {
	file       string
	index      int
	searchable bool
	what       string
}

// appForms reads testdata/apps/expect.tsv.
func appForms(tb testing.TB) []appForm {
	tb.Helper()
	f, err := os.Open("testdata/apps/expect.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []appForm
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if sc.Text() == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 4 {
			tb.Fatalf("expect.tsv:%d: want 4 columns, got %d", line, len(c))
		}
		i, err := strconv.Atoi(c[1])
		if err != nil || (c[2] != "yes" && c[2] != "no") {
			tb.Fatalf("expect.tsv:%d: bad form index or searchable %q %q", line, c[1], c[2])
		}
		out = append(out, appForm{c[0], i, c[2] == "yes", c[3]})
	}
	return out
}

// appPage parses one page of testdata/apps as served from lab.test.
func appPage(tb testing.TB, file string) *page.Page {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/apps", file))
	if err != nil {
		tb.Fatal(err)
	}
	u, _ := url.Parse("http://lab.test/" + file)
	p, err := page.Parse(b, "text/html; charset=utf-8", u)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestPlainSearchForms checks the embedded model on the search, login,
// registration and comment forms of common web applications (wikis, blogs,
// code browsers, trackers, search CGIs), written after their own markup and
// never used in training: every search form is searchable, no other form is.
func TestPlainSearchForms(t *testing.T) {
	h, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]*page.Page{}
	for _, af := range appForms(t) {
		p := pages[af.file]
		if p == nil {
			p = appPage(t, af.file)
			pages[af.file] = p
		}
		if af.index >= len(p.Forms) {
			t.Errorf("%s: form %d of %d", af.file, af.index, len(p.Forms))
			continue
		}
		d := h.Classify(&p.Forms[af.index], "lab.test")
		if d.Searchable != af.searchable {
			t.Errorf("%s#%d (%s): searchable=%v p=%.2f kind %s, want %v; reasons %v", af.file, af.index, af.what, d.Searchable, d.PSearchable, d.Kind, af.searchable, d.Reasons)
		}
	}
	for f, p := range pages {
		n := 0
		for _, af := range appForms(t) {
			if af.file == f {
				n++
			}
		}
		if n != len(p.Forms) {
			t.Errorf("%s has %d forms, expect.tsv lists %d", f, len(p.Forms), n)
		}
	}
}
