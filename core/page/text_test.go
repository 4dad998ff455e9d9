package page

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestVisibleTextIsPageText: VisibleText reads every document of the
// scanner corpus (golden pages, generated and hostile ones, all of them
// also cut short) as Page.Text does.
func TestVisibleTextIsPageText(t *testing.T) {
	for i, d := range scannerCorpus(t) {
		root, err := html.ParseWithOptions(markForms(d), html.ParseOptionEnableScripting(false))
		if err != nil {
			t.Fatal(err)
		}
		got := VisibleText(root, nil, nil)
		if want := extract(root, nil).Text; got != want {
			t.Fatalf("document %d (%.200q):\n got %q\nwant %q", i, d, got, want)
		}
	}
}

func TestVisibleText(t *testing.T) {
	tests := []struct {
		name, html string
		skip       string // class of the elements to skip
		drop       string // text piece to drop
		want       string
	}{
		{"blocks apart, inline together", "<div>one</div><div>two<b>three</b> <i>four</i></div>", "", "", "one twothree four"},
		{"white space collapsed", "<p>\n a \t b\u00a0c </p>", "", "", "a b c"},
		{"no scripts, styles, options, noscript", "a<script>x</script>b<style>y</style>c<select><option>o</select>d<noscript>n</noscript>e",
			"", "", "abc d e"},
		{"table cells apart", "<table><tr><td>1</td><td>2</td></tr></table>", "", "", "1 2"},
		{"svg text, not its title", "<p>x<svg><title>t</title><text>s</text></svg>y</p>", "", "", "xsy"},
		{"skip", `<div>keep<nav class="menu">menu</nav>this</div>`, "menu", "", "keep this"},
		{"drop", "<p>a<b>chrome</b>b</p>", "", "chrome", "a b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(tc.html))
			if err != nil {
				t.Fatal(err)
			}
			var skip func(*html.Node) bool
			if tc.skip != "" {
				skip = func(n *html.Node) bool { c, _ := attr(n, "class"); return c == tc.skip }
			}
			var drop func(string) bool
			if tc.drop != "" {
				drop = func(s string) bool { return s == tc.drop }
			}
			if got := VisibleText(doc, skip, drop); got != tc.want {
				t.Errorf("VisibleText(%q) = %q, want %q", tc.html, got, tc.want)
			}
		})
	}
}
