package form

import (
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

func feat(x []float64, name string) float64 {
	for i, f := range structural {
		if f.name == name {
			return x[i]
		}
	}
	panic("no feature " + name)
}

func TestStructural(t *testing.T) {
	p := fixture(t)
	tests := []struct {
		form int
		want map[string]float64
	}{
		{0, map[string]float64{"text_inputs": 1, "password_fields": 0, "single_text_box": 1, "method_get": 1,
			"main_box_search_name": 1, "submits": 1, "action_search": 1, "caption_search": 1, "attrs_search": 1, "hints_search": 1}},
		{1, map[string]float64{"text_inputs": 1, "password_fields": 1, "checkboxes": 1, "single_text_box": 0, "method_get": 0,
			"main_box_search_name": 0, "action_login": 1, "names_login": 3}},
		{3, map[string]float64{"selects": 4, "text_inputs": 1, "single_text_box": 1, "method_get": 1, "action_search": 1,
			"caption_search": 1, "visible_fields": 5}},
		{4, map[string]float64{"email_inputs": 1, "text_inputs": 0, "method_get": 0, "action_newsletter": 2, "caption_newsletter": 1}},
	}
	if len(StructuralAttrs()) != len(structural) {
		t.Fatal("attrs and features differ")
	}
	for _, tt := range tests {
		x := Structural(&p.Forms[tt.form])
		for name, want := range tt.want {
			if got := feat(x, name); got != want {
				t.Errorf("form %d %s = %v, want %v", tt.form, name, got, want)
			}
		}
	}
}

func TestSearchName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"q", true}, {"query", true}, {"searchTerm", true}, {"site_search", true}, {"keywords", true},
		{"suchbegriff", true}, {"q1_name", false}, {"username", false}, {"", false}, {"email", false}, {"s", true},
	}
	for _, tt := range tests {
		if got := searchName(tt.name); got != tt.want {
			t.Errorf("searchName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	f := page.Form{Method: "GET", Action: "http://x.example/site/search?lang=en", ID: "searchForm",
		Fields:  []page.Field{{Tag: "input", Type: "text", Name: "q", Placeholder: "Find products"}, {Tag: "input", Type: "hidden", Name: "cat"}},
		Submits: []string{"Go"}, Text: "Find products Go"}
	got := Tokens(&f)
	for _, want := range []string{"a:search", "a:lang", "n:q", "h:cat", "f:search", "f:form", "s:go", "p:find", "t:product", "ty:text", "ty:hidden", "m:get"} {
		if !slices.Contains(got, want) {
			t.Errorf("tokens lack %q: %s", want, strings.Join(got, " "))
		}
	}
}

func TestKindOfLabel(t *testing.T) {
	for l, want := range map[string]string{"s": KindSearch, "l": KindLogin, "r": KindRegistration, "p": KindPassword,
		"c": KindContact, "m": KindNewsletter, "b": KindOrder, "o": KindOther, "P": KindOther, "V": KindOther, "N": KindOther, "C": KindOther} {
		if k, ok := KindOfLabel(l); !ok || k != want {
			t.Errorf("%s -> %s %v", l, k, ok)
		}
	}
	for _, l := range []string{"-", "X", ""} {
		if _, ok := KindOfLabel(l); ok {
			t.Errorf("%q accepted", l)
		}
	}
}
