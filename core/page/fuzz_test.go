package page

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dwcrawl/dwcrawl/core/canon"
)

// FuzzParse checks that Parse never panics or fails on any input and that
// what it returns is well formed: canonical http(s) URLs, sane form
// attributes, no more forms than <form tags, valid UTF-8 everywhere.
func FuzzParse(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, name := range fixtures {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, "")
		}
	}
	f.Add([]byte("<form><table><form><tr><td><input name=a></table></form><input name=b>"), "text/html; charset=utf-8")
	base, _ := url.Parse("http://example.com/dir/page.html")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		p, err := Parse(body, contentType, base)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		checkPage(t, p, decode(body, contentType))
	})
}

func checkPage(t *testing.T, p *Page, src []byte) {
	t.Helper()
	if n := countFormTags(src); len(p.Forms) > n {
		t.Errorf("%d forms from %d <form tags", len(p.Forms), n)
	}
	checkText(t, "title", p.Title)
	checkText(t, "text", p.Text)
	for _, l := range p.Links {
		checkURL(t, "link", l.URL)
		checkText(t, "anchor", l.Anchor)
		checkText(t, "before", l.Before)
		checkText(t, "after", l.After)
	}
	for i, fm := range p.Forms {
		if fm.Index != i {
			t.Errorf("form %d has Index %d", i, fm.Index)
		}
		if fm.Method != "GET" && fm.Method != "POST" {
			t.Errorf("form %d method %q", i, fm.Method)
		}
		switch fm.Enctype {
		case "application/x-www-form-urlencoded", "multipart/form-data", "text/plain":
		default:
			t.Errorf("form %d enctype %q", i, fm.Enctype)
		}
		if fm.Action != "" {
			checkURL(t, "action", fm.Action)
		}
		checkText(t, "form text", fm.Text)
		checkText(t, "context", fm.Context)
		for _, fd := range fm.Fields {
			switch fd.Tag {
			case "input", "select", "textarea", "button":
			default:
				t.Errorf("form %d field tag %q", i, fd.Tag)
			}
			if fd.Type == "" || !utf8.ValidString(fd.Label+fd.Name+fd.Value) {
				t.Errorf("form %d field %+v", i, fd)
			}
		}
	}
}

func checkURL(t *testing.T, what, u string) {
	t.Helper()
	if c, err := canon.Canonical(u); err != nil || c != u {
		t.Errorf("%s URL %q is not canonical (%q, %v)", what, u, c, err)
	}
}

// checkText requires valid UTF-8 with white space collapsed.
func checkText(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) || s != strings.TrimSpace(s) || strings.Contains(s, "  ") ||
		strings.ContainsAny(s, "\n\t\r") {
		t.Errorf("%s %q is not collapsed UTF-8 text", what, s)
	}
}

func countFormTags(src []byte) int {
	n := 0
	lower := bytes.ToLower(src)
	for i := 0; ; {
		j := bytes.Index(lower[i:], []byte("<form"))
		if j < 0 {
			return n
		}
		n++
		i += j + 1
	}
}
