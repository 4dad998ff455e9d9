package script

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	lua "github.com/yuin/gopher-lua"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// selectDoc parses html and returns the elements matching the CSS selector.
func selectDoc(L *lua.LState, fn string) *goquery.Selection {
	html := L.CheckString(1)
	css := L.CheckString(2)
	m, err := cascadia.Compile(css)
	if err != nil {
		raise(L, "%s: invalid CSS selector %q: %v", fn, css, err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		raise(L, "%s: parse HTML: %v", fn, err)
	}
	return doc.FindMatcher(m)
}

// dwHTMLSelect is dw.html.select(html, css): a list of {text=, html=,
// attrs={}} for the matching elements, in document order. text is the
// visible text (page.VisibleText); html is the element's outer HTML.
func dwHTMLSelect(L *lua.LState) int {
	sel := selectDoc(L, "dw.html.select")
	defer holding(L)()
	out := L.CreateTable(sel.Length(), 0)
	sel.Each(func(_ int, s *goquery.Selection) {
		el := L.CreateTable(0, 4)
		text := page.VisibleText(s.Nodes[0], nil, nil)
		h, _ := goquery.OuterHtml(s)
		holdL(L, int64(len(text)+len(h))+4*sizeHashSlot, "dw.html.select") // nested matches repeat the same HTML
		el.RawSetString("text", lua.LString(text))
		el.RawSetString("html", lua.LString(h))
		attrs := L.NewTable()
		if n := s.Get(0); n != nil {
			el.RawSetString("tag", lua.LString(n.Data))
			for _, a := range n.Attr {
				attrs.RawSetString(a.Key, lua.LString(a.Val))
			}
		}
		el.RawSetString("attrs", attrs)
		out.Append(el)
	})
	L.Push(out)
	return 1
}

// dwHTMLAttr is dw.html.attr(html, css, name): the attribute of the first
// matching element that has it, or nil.
func dwHTMLAttr(L *lua.LState) int {
	sel := selectDoc(L, "dw.html.attr")
	name := L.CheckString(3)
	var val lua.LValue = lua.LNil
	sel.EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if v, ok := s.Attr(name); ok {
			reserveL(L, int64(len(v)), "dw.html.attr")
			val = lua.LString(v)
			return false
		}
		return true
	})
	L.Push(val)
	return 1
}

// dwHTMLText is dw.html.text(html, css): the collapsed text of the first
// matching element (page.VisibleText), or nil.
func dwHTMLText(L *lua.LState) int {
	sel := selectDoc(L, "dw.html.text").First()
	if sel.Length() == 0 {
		L.Push(lua.LNil)
		return 1
	}
	text := page.VisibleText(sel.Nodes[0], nil, nil)
	reserveL(L, int64(len(text)), "dw.html.text")
	L.Push(lua.LString(text))
	return 1
}
