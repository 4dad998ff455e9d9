package records

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// Detail reads a record's own page: its labelled fields (dt/dd pairs and
// th/td rows, the label lower-cased) and the text of its main content
// (main, article or role=main, else the body without navigation, header,
// footer and sidebars), the page's title as the field "title" when no
// field holds one.
func Detail(body []byte) (fields map[string]string, text string) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, ""
	}
	fields = map[string]string{}
	var title string
	var mainEl *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Title:
				if title == "" {
					title = textOf(c)
				}
			case atom.Main, atom.Article:
				if mainEl == nil {
					mainEl = c
				}
			case atom.Dt:
				if dd := nextElement(c, atom.Dd); dd != nil {
					if k := strings.ToLower(textOf(c)); k != "" && len(k) <= 60 {
						fields[k] = textOf(dd)
					}
				}
			case atom.Tr:
				var th, td *html.Node
				for x := c.FirstChild; x != nil; x = x.NextSibling {
					if x.Type == html.ElementNode && x.DataAtom == atom.Th && th == nil {
						th = x
					} else if x.Type == html.ElementNode && x.DataAtom == atom.Td && td == nil {
						td = x
					}
				}
				if th != nil && td != nil {
					if k := strings.ToLower(textOf(th)); k != "" && len(k) <= 60 {
						fields[k] = textOf(td)
					}
				}
			}
			if v, ok := attr(c, "role"); ok && strings.EqualFold(v, "main") && mainEl == nil {
				mainEl = c
			}
			walk(c)
		}
	}
	walk(doc)
	if mainEl != nil {
		text = textOf(mainEl)
	} else {
		text = contentText(doc)
	}
	if _, ok := fields["title"]; !ok && title != "" {
		fields["title"] = title
	}
	return fields, text
}

func nextElement(n *html.Node, a atom.Atom) *html.Node {
	for x := n.NextSibling; x != nil; x = x.NextSibling {
		if x.Type == html.ElementNode {
			if x.DataAtom == a {
				return x
			}
			return nil
		}
	}
	return nil
}

// contentText is the body's text without its navigation and furniture.
func contentText(doc *html.Node) string {
	return page.VisibleText(doc, func(c *html.Node) bool {
		k := &node{n: c, tag: c.Data}
		for _, a := range c.Attr {
			switch a.Key {
			case "id":
				k.id = strings.ToLower(a.Val)
			case "class":
				k.classes = classTokens(a.Val)
			}
		}
		return navLike(k)
	}, nil)
}
