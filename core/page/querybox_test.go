package page

import "testing"

func TestQueryBox(t *testing.T) {
	tests := []struct {
		name   string
		fields []Field
		want   int
	}{
		{"none", []Field{{Tag: "select", Name: "cat"}, {Tag: "input", Type: "submit", Name: "go"}}, -1},
		{"first text box", []Field{{Tag: "input", Type: "hidden", Name: "sid"}, {Tag: "input", Type: "text", Name: "city"}, {Tag: "input", Type: "text", Name: "zip"}}, 1},
		{"named like a query", []Field{{Tag: "input", Type: "text", Name: "user"}, {Tag: "input", Name: "q"}}, 1},
		{"labelled like a query", []Field{{Tag: "input", Type: "text", Name: "a1"}, {Tag: "textarea", Name: "a2", Label: "Search terms"}}, 1},
		{"a search input first", []Field{{Tag: "input", Type: "text", Name: "query"}, {Tag: "input", Type: "search", Name: "s"}}, 1},
		{"disabled and unnamed skipped", []Field{{Tag: "input", Type: "search", Name: "q", Disabled: true}, {Tag: "input", Type: "text"}, {Tag: "input", Type: "text", Name: "title"}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QueryBox(tt.fields); got != tt.want {
				t.Errorf("QueryBox = %d, want %d", got, tt.want)
			}
		})
	}
}
