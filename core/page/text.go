package page

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textRole is how an element's content enters the visible text of a
// document. The page walker (Page.Text) and VisibleText follow the same
// roles; TestVisibleTextIsPageText holds them together.
type textRole uint8

const (
	roleBlock  textRole = iota // its text, apart from the text around it
	roleInline                 // its text, run together with the text around it
	roleBox                    // shown without its text (a select or datalist, an image, noscript and template content): apart from the text around it
	roleNone                   // not shown (scripts, styles, embedded documents, the title, metadata)
)

// roleOf returns the role of the element n.
func roleOf(n *html.Node) textRole {
	if n.Namespace != "" { // SVG, MathML: only their text counts
		switch n.Data {
		case "title", "desc", "style", "script":
			return roleNone
		}
		return roleInline
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Iframe, atom.Noembed, atom.Noframes, atom.Title, atom.Base, atom.Meta:
		return roleNone
	case atom.Noscript, atom.Template, atom.Select, atom.Datalist, atom.Img:
		return roleBox
	case atom.Area, atom.Label:
		return roleInline
	}
	if isInline(n.DataAtom) {
		return roleInline
	}
	return roleBlock
}

// VisibleText returns the visible text of the content of n, as Page.Text
// reads a document: white space collapsed to single spaces, block elements
// apart from the text around them, inline ones run together with it, and
// nothing of scripts, styles, select options, noscript or template content.
// skip, when not nil, leaves out the elements it reports with their
// content; drop, the text pieces it reports. Both separate the text around
// them.
func VisibleText(n *html.Node, skip func(*html.Node) bool, drop func(string) bool) string {
	var t textBuf
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if drop != nil && drop(c.Data) {
					t.brk()
					continue
				}
				t.add(c.Data)
			case html.ElementNode:
				switch role := roleOf(c); {
				case role == roleNone:
				case role == roleBox || skip != nil && skip(c):
					t.brk()
				case role == roleInline:
					walk(c)
				default:
					t.brk()
					walk(c)
					t.brk()
				}
			}
		}
	}
	walk(n)
	return string(t.b)
}
