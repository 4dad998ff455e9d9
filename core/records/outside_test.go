package records

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestOutsideText: the text before the first record and after it, the
// records' own text left out.
func TestOutsideText(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<p>About <b>44</b> hits</p><ul><li id=r1>one</li><li>between</li><li id=r2>two</li></ul><p>page 2</p>`))
	if err != nil {
		t.Fatal(err)
	}
	in := map[*html.Node]bool{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if id, _ := attr(n, "id"); strings.HasPrefix(id, "r") {
			in[n] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	before, after := outsideText(doc, in)
	if before != "About 44 hits" || after != "between page 2" {
		t.Errorf("outsideText = %q, %q; want %q, %q", before, after, "About 44 hits", "between page 2")
	}
}
