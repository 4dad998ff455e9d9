package form

import (
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

func TestExternal(t *testing.T) {
	box := func(action string, hidden ...string) *page.Form {
		f := &page.Form{Action: action, Method: "GET", Fields: []page.Field{{Tag: "input", Type: "text", Name: "q"}}}
		for i := 0; i+1 < len(hidden); i += 2 {
			f.Fields = append(f.Fields, page.Field{Tag: "input", Type: "hidden", Name: hidden[i], Value: hidden[i+1]})
		}
		return f
	}
	tests := []struct {
		name     string
		f        *page.Form
		pageHost string
		want     bool
	}{
		{"google", box("https://www.google.com/search"), "shop.example", true},
		{"google uk", box("https://www.google.co.uk/search"), "shop.example", true},
		{"bing", box("https://www.bing.com/search"), "shop.example", true},
		{"duckduckgo", box("https://duckduckgo.com/"), "shop.example", true},
		{"yahoo", box("https://search.yahoo.com/search"), "shop.example", true},
		{"simweb engine", box("http://search.simweb/search"), "cars.example", true},
		{"engine on its own site", box("https://www.google.com/search"), "www.google.com", false},
		{"sitesearch field", box("http://shop.example/results", "sitesearch", "shop.example"), "shop.example", true},
		{"custom search cx", box("http://shop.example/results", "cx", "0123:abcd"), "shop.example", true},
		{"own search", box("http://shop.example/search"), "shop.example", false},
		{"ask subdomain of other site", box("http://ask.shop.example/search"), "shop.example", false},
		{"empty sitesearch", box("http://shop.example/search", "sitesearch", ""), "shop.example", false},
		{"no text box", &page.Form{Action: "http://shop.example/x", Fields: []page.Field{{Tag: "input", Type: "hidden", Name: "sitesearch", Value: "a"}}}, "shop.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := External(tt.f, tt.pageHost)
			if got != tt.want {
				t.Errorf("External = %v (%s), want %v", got, why, tt.want)
			}
			if got && why == "" {
				t.Error("no reason")
			}
		})
	}
}
