package surface

import (
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

func TestPageSizeControl(t *testing.T) {
	opts := func(vs ...string) []page.Option {
		var out []page.Option
		for _, v := range vs {
			out = append(out, page.Option{Value: v})
		}
		return out
	}
	sel := func(name, label string, vs ...string) page.Field {
		return page.Field{Tag: "select", Type: "select-one", Name: name, Label: label, Options: opts(vs...)}
	}
	box := page.Field{Tag: "input", Type: "text", Name: "query"}
	tests := []struct {
		name  string
		field page.Field
		want  string // "" for none
	}{
		{"round sizes", sel("max", "", "10", "20", "30", "50", "100"), "100"},
		{"named per page", sel("matchesperpage", "", "10", "25", "35", "90"), "90"},
		{"labelled", sel("x", "Results per page", "12", "24", "48"), "48"},
		{"years", sel("year", "Year", "1990", "1991", "2024"), ""},
		{"guests", sel("adults", "Adults", "1", "2", "3", "4"), ""},
		{"prices", sel("price", "Max price", "100", "200", "400", "800"), ""},
		{"words", sel("sort", "Sort", "score", "date"), ""},
		{"capped", sel("rows", "", "10", "100", "5000"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &page.Form{Fields: []page.Field{box, tt.field}}
			i, v := PageSizeControl(f)
			if tt.want == "" {
				if i >= 0 {
					t.Errorf("found %s=%s, want none", f.Fields[i].Name, v)
				}
				return
			}
			if i != 1 || v != tt.want {
				t.Errorf("got %d %q, want 1 %q", i, v, tt.want)
			}
		})
	}
}
