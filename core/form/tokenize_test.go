package form

import (
	"slices"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/text"
)

func TestTokenizeMatchesText(t *testing.T) {
	cases := []string{"", "searchTerm", "q1_name", "HTTPServer page2 mp3", "  --a--B  ", "ctl00$Content$txtSearch",
		"Поиск по сайту", "café au lait", "ABC", "aB1c", "x", "123abc456", "Search cars!"}
	for _, s := range cases {
		if got, want := tokenize(s), text.Tokenize(s); !slices.Equal(got, want) {
			t.Errorf("tokenize(%q) = %q, want %q", s, got, want)
		}
	}
	// And on every string of the real forms.
	if dir, _ := formasaurusDir(); dir != "" {
		ex, _ := formasaurus(t)
		n := 0
		for i := range ex {
			f := &ex[i].Form
			strs := []string{f.Text, f.Action, f.ID, f.Class, f.Name, f.Context}
			for _, fd := range f.Fields {
				strs = append(strs, fd.Name, fd.ID, fd.Label, fd.Placeholder, fd.Value)
			}
			for _, s := range strs {
				n++
				if got, want := tokenize(s), text.Tokenize(s); !slices.Equal(got, want) {
					t.Fatalf("tokenize(%q) = %q, want %q", s, got, want)
				}
			}
		}
		t.Logf("%d strings agree", n)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"searchTerm", "q1_name", "a-B", "Ünïcode"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := tokenize(s), text.Tokenize(s); !slices.Equal(got, want) {
			t.Errorf("tokenize(%q) = %q, want %q", s, got, want)
		}
	})
}
