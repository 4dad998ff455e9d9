package records

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// node is an element of the result page with what the region search needs.
type node struct {
	n       *html.Node
	tag     string
	id      string   // without digits: "post-12" says nothing across pages
	classes []string // sorted, tokens with digits left out
	parent  *node
	kids    []*node // element children, invisible ones left out
	text    int     // visible text length (bytes, white space collapsed) of the subtree
	links   int     // <a href> in the subtree
	control bool    // a form control or inside one (select, option, button…)
	path    string  // tag path from the root, computed on demand
}

// skipped elements hold no visible content.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Svg: true, atom.Iframe: true, atom.Object: true,
}

// controls are form controls: they never hold records.
var controls = map[atom.Atom]bool{
	atom.Select: true, atom.Option: true, atom.Optgroup: true, atom.Input: true,
	atom.Button: true, atom.Textarea: true, atom.Datalist: true,
}

// inline elements format text; they do not make a record's structure.
var inline = map[atom.Atom]bool{
	atom.B: true, atom.I: true, atom.Em: true, atom.Strong: true, atom.Span: true,
	atom.Small: true, atom.Br: true, atom.Font: true, atom.U: true, atom.Mark: true,
	atom.Abbr: true, atom.Code: true, atom.Sup: true, atom.Sub: true, atom.Wbr: true,
	atom.Time: true, atom.Cite: true, atom.Q: true, atom.S: true, atom.Tt: true,
}

// build returns the tree of the document's elements.
func build(doc *html.Node) *node {
	root := &node{n: doc, tag: "#document"}
	var walk func(p *node, n *html.Node, inControl bool)
	walk = func(p *node, n *html.Node, inControl bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if t := collapsedLen(c.Data); t > 0 {
					p.text += t
				}
			case html.ElementNode:
				if skipped[c.DataAtom] {
					continue
				}
				k := &node{n: c, tag: c.Data, parent: p, control: inControl || controls[c.DataAtom]}
				for _, a := range c.Attr {
					switch a.Key {
					case "id":
						if !hasDigit(a.Val) {
							k.id = strings.ToLower(strings.TrimSpace(a.Val))
						}
					case "class":
						k.classes = classTokens(a.Val)
					case "href":
						if c.DataAtom == atom.A {
							k.links++
						}
					}
				}
				walk(k, c, k.control)
				p.text += k.text
				p.links += k.links
				p.kids = append(p.kids, k)
			}
		}
	}
	walk(root, doc, false)
	return root
}

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// classTokens are the class names of an element, lower case and sorted,
// without those holding a digit (per-item ids such as "post-2060").
func classTokens(s string) []string {
	var out []string
	for _, t := range strings.Fields(strings.ToLower(s)) {
		if !hasDigit(t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// collapsedLen is the length of s with white space collapsed and trimmed.
func collapsedLen(s string) int {
	n, space := 0, true
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				n++
				space = true
			}
			continue
		}
		n += len(string(r))
		space = false
	}
	if space && n > 0 {
		n--
	}
	return n
}

// shape is the structural signature of an element: its tag and the tags of
// its children, runs of one tag and inline formatting elements left out
// (one result has a bold word where the next has none).
func (k *node) shape() string {
	var b strings.Builder
	b.WriteString(k.tag)
	b.WriteByte('(')
	last := ""
	for _, c := range k.kids {
		if inline[c.n.DataAtom] {
			continue
		}
		if c.tag == last {
			continue
		}
		if last != "" {
			b.WriteByte(',')
		}
		b.WriteString(c.tag)
		last = c.tag
	}
	b.WriteByte(')')
	return b.String()
}

// step is an element's part of a tag path: tag, id and classes. The
// classes of html and body are left out: sites mark the page's state there
// ("search-no-results", "paged-2").
func (k *node) step() string {
	s := k.tag
	if k.id != "" {
		s += "#" + k.id
	}
	if k.tag != "html" && k.tag != "body" {
		for _, c := range k.classes {
			s += "." + c
		}
	}
	return s
}

// tagPath is the path of steps from the document root to k.
func (k *node) tagPath() string {
	if k.path != "" || k.parent == nil {
		return k.path
	}
	if k.parent.parent == nil {
		k.path = k.step()
	} else {
		k.path = k.parent.tagPath() + ">" + k.step()
	}
	return k.path
}

// jaccard is the similarity of two sorted class lists (1 when both are empty).
func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// blockTags separate runs of text: text() puts a space between them.
var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Br: true,
	atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Footer: true, atom.H1: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Table: true, atom.Tbody: true, atom.Td: true,
	atom.Th: true, atom.Thead: true, atom.Tr: true, atom.Ul: true, atom.Figure: true, atom.Figcaption: true,
}

// textOf returns the visible text of n (page.VisibleText).
func textOf(n *html.Node) string { return page.VisibleText(n, nil, nil) }

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// inlineTail is the text that follows an inline record element up to the
// next line break, block element or record: a list written as lines of
// one cell ("<a>json</a>- JSON encoder and decoder<br>", pydoc's search
// results) holds each record's text beside its link, not inside it.
func inlineTail(n *html.Node, items map[*html.Node]bool) string {
	var b strings.Builder
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			continue
		}
		if c.Type != html.ElementNode || skipped[c.DataAtom] {
			continue
		}
		if items[c] || c.DataAtom == atom.Br || c.DataAtom == atom.Hr || blockTags[c.DataAtom] || controls[c.DataAtom] {
			break
		}
		b.WriteString(" " + textOf(c) + " ")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
