package profile

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/script"
)

func TestSites(t *testing.T) {
	src := `return {
  keywords = {'paper'}, seeds = {'archive.example.org'},
  sites = {
    ["archive.example.org"] = {
      records = "dl > dt",
      record_link = "a.title",
      next = "a[rel=next], a:contains('Next')",
    },
    ["*.example.org"] = { next = "li.next a" },
    ["lab.test:8470"] = { records = "ol > li" },
  },
}`
	p, err := LoadSource(context.Background(), filepath.Join(t.TempDir(), "sites.lua"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, records, next string
		ok                  bool
	}{
		{"archive.example.org", "dl > dt", "a[rel=next], a:contains('Next')", true},
		{"Archive.Example.org:8080", "dl > dt", "a[rel=next], a:contains('Next')", true},
		{"books.example.org", "", "li.next a", true},
		{"lab.test:8470", "ol > li", "", true},
		{"lab.test:9999", "", "", false},
		{"example.org", "", "", false},
	}
	for _, tt := range tests {
		s, ok := p.SiteFor(tt.host)
		if ok != tt.ok || s.Records != tt.records || s.Next != tt.next {
			t.Errorf("SiteFor(%s) = %+v, %v", tt.host, s, ok)
		}
	}
	sel := p.Sites["archive.example.org"].Selectors("profile sites.lua")
	if sel.RecordLink != "a.title" || sel.Source != "profile sites.lua" {
		t.Errorf("Selectors: %+v", sel)
	}
	if s := p.String(); !strings.Contains(s, "sites:\n  \"*.example.org\":\n    records: \"\"\n") || !strings.Contains(s, "    record_link: a.title\n") {
		t.Errorf("String():\n%s", s)
	}
	b, err := json.Marshal(p)
	if err != nil || !strings.Contains(string(b), `"sites":{`) || !strings.Contains(string(b), `"record_link":"a.title"`) {
		t.Errorf("JSON %s, %v", b, err)
	}
}

func TestSitesErrors(t *testing.T) {
	head := "return {\n  keywords = {'paper'}, seeds = {'a.org'},\n  sites = {\n"
	tests := []struct {
		name, sites, want string
	}{
		{"unknown key", `    ["a.org"] = { recrods = "li" },`, `x.lua:4: sites["a.org"].recrods: unknown key (did you mean "records"?)`},
		{"wrong type", `    ["a.org"] = { next = 3 },`, `x.lua:4: sites["a.org"].next: expected string, got number`},
		{"not a table", `    ["a.org"] = "li",`, `x.lua:4: sites["a.org"]: expected table, got string`},
		{"bad selector", "    [\"a.org\"] = {\n      records = 'li',\n      next = 'a[rel=next',\n    },", `x.lua:6: sites["a.org"].next: invalid CSS selector "a[rel=next"`},
		{"link without records", `    ["a.org"] = { record_link = "a" },`, `x.lua:4: sites["a.org"].record_link: needs records`},
		{"bad host", `    ["https://a.org/"] = { records = "li" },`, `x.lua:4: sites["https://a.org/"]: want a lower-case host name`},
		{"empty", `    ["a.org"] = {},`, `x.lua:4: sites["a.org"]: set at least one of records, record_link, next`},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSource(context.Background(), filepath.Join(dir, "x.lua"), []byte(head+tt.sites+"\n  },\n}\n"))
			var se *script.Error
			if err == nil || !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want a *script.Error", err, err)
			}
			if got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)); !strings.HasPrefix(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
