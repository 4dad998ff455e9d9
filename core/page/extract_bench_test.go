package page

import (
	"net/url"

	"golang.org/x/net/html"
)

// extractTree runs the extraction of Parse on a built tree.
func extractTree(root *html.Node, base *url.URL, _ int) *Page { return extract(root, base) }
