package records

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// Selectors are a site's own CSS selectors for its result pages, given by a
// person (a profile's sites table) where the inference reads the pages
// wrong. Each one set replaces the inference of its part; the others are
// still inferred.
type Selectors struct {
	// Records matches the record elements: each match is one record (a
	// match inside another match is part of that one).
	Records string `json:"records,omitempty"`
	// RecordLink matches, inside a record, the link to the record's own
	// page; a record without a match keeps its primary link. It needs
	// Records.
	RecordLink string `json:"record_link,omitempty"`
	// Next matches the control to the following page: the first match is
	// followed when it is a link (or holds one), submitted with its form
	// when it is a submit button. A page without a match has no next page.
	Next string `json:"next,omitempty"`
	// Source says who gave them ("profile domains/x.lua"), for reports.
	Source string `json:"source,omitempty"`
}

// ControlSelector is the Request.Control of a next page found with
// Selectors.Next.
const ControlSelector = "selector"

// Given reports whether any selector is set.
func (s Selectors) Given() bool { return s.Records != "" || s.RecordLink != "" || s.Next != "" }

// Check compiles every selector set. It returns the key of the first one
// that is wrong ("records", "record_link", "next") with the error.
func (s Selectors) Check() (key string, err error) {
	for _, f := range []struct{ key, sel string }{{"records", s.Records}, {"record_link", s.RecordLink}, {"next", s.Next}} {
		if f.sel == "" {
			continue
		}
		if err := CheckSelector(f.sel); err != nil {
			return f.key, err
		}
	}
	if s.RecordLink != "" && s.Records == "" {
		return "record_link", fmt.Errorf("needs records: a record link is looked up inside each record")
	}
	return "", nil
}

// CheckSelector reports whether sel is a CSS selector goquery can match
// (cascadia's syntax: :contains("text") and :has(…) included).
func CheckSelector(sel string) error {
	if strings.TrimSpace(sel) == "" {
		return fmt.Errorf("empty CSS selector")
	}
	if _, err := cascadia.Compile(sel); err != nil {
		return fmt.Errorf("invalid CSS selector %q: %w", sel, err)
	}
	return nil
}

// applySelectors replaces the parts of res that opt.Selectors decide: the
// records (and with them the totals read around them and the inferred next
// page, which must not be a record's link) and the next page.
func applySelectors(doc *html.Node, forms []page.Form, base *url.URL, opt Options, res *Result) error {
	s := opt.Selectors
	if key, err := s.Check(); err != nil {
		return fmt.Errorf("records: selector %s: %w", key, err)
	}
	gq := goquery.NewDocumentFromNode(doc)
	if s.Records != "" {
		inRecord := selectRecords(gq, doc, base, opt, res)
		if s.Next == "" {
			res.Next = findNext(doc, forms, base, base.String(), opt.Page, inRecord)
		}
	}
	if s.Next != "" {
		res.Next = selectNext(gq, s.Next, doc, forms, base)
	}
	return nil
}

// selectRecords reads the records the Records selector matches into res,
// with the totals and "no results" phrase of the text around them, and
// returns the record elements.
func selectRecords(gq *goquery.Document, doc *html.Node, base *url.URL, opt Options, res *Result) map[*html.Node]bool {
	s := opt.Selectors
	root := build(doc)
	nodes := map[*html.Node]*node{}
	var index func(k *node)
	index = func(k *node) {
		nodes[k.n] = k
		for _, c := range k.kids {
			index(c)
		}
	}
	index(root)
	matched := map[*html.Node]bool{}
	var items []*node
	gq.Find(s.Records).Each(func(_ int, sel *goquery.Selection) {
		n := sel.Get(0)
		for a := n.Parent; a != nil; a = a.Parent {
			if matched[a] {
				return // inside a record already taken
			}
		}
		if k := nodes[n]; k != nil {
			matched[n] = true
			items = append(items, k)
		}
	})
	res.Records, res.Wrapper, res.Learned, res.Score = nil, Wrapper{}, false, 0
	inRecord := map[*html.Node]bool{}
	if len(items) > 0 {
		r := &region{parentPath: items[0].parent.tagPath(), shape: items[0].shape(), classes: commonClasses(items), items: items, parents: map[*node]bool{}}
		for _, it := range items {
			r.parents[it.parent] = true
		}
		q := newEcho(opt.Query)
		r.evaluate(base, q, nil)
		if s.RecordLink != "" {
			for i, it := range items {
				if l, ok := selectedLink(gq, it.n, s.RecordLink, base); ok {
					r.links[i] = l
				}
			}
			r.stripEcho(q)
		}
		res.Wrapper = Wrapper{Parent: r.parentPath, Item: r.shape, Classes: r.classes, Pattern: r.pattern}
		res.Score = r.score
		res.Records = selectedRecords(r, newEcho(opt.Query), inRecord)
	}
	before, after := outsideText(doc, inRecord)
	res.Counts = append(CountsIn(before), CountsIn(after)...)
	res.Total, res.TotalText, res.NoResults = -1, "", ""
	for _, c := range res.Counts {
		if !c.Site {
			res.Total, res.TotalText = c.N, c.Text
			break
		}
	}
	for _, t := range []string{before, after} {
		if p := saysNoResults(t); p != "" {
			res.NoResults = p
			break
		}
	}
	if res.NoResults != "" && res.Total <= 0 {
		// the page says nothing matched: what the selector matches on it
		// is the page's furniture (a help list), not records
		res.Records = nil
		clear(inRecord)
	}
	if res.Total < 0 && res.NoResults != "" && len(res.Records) == 0 {
		res.Total, res.TotalText = 0, res.NoResults
	}
	return inRecord
}

// selectedRecords are the records of a region of selected elements, their
// elements marked in inRecord.
func selectedRecords(r *region, q *echo, inRecord map[*html.Node]bool) []Record {
	items := make(map[*html.Node]bool, len(r.items))
	for _, it := range r.items {
		items[it.n] = true
	}
	chrome := templateText(r.items, q)
	seen := map[string]bool{}
	var out []Record
	for i, it := range r.items {
		rec := recordOf(it.n, r.links[i], items, chrome)
		inRecord[it.n] = true
		key := rec.URL
		if key == "" {
			key = "text:" + rec.Text
		}
		if seen[key] || rec.Text == "" && rec.URL == "" {
			continue
		}
		seen[key] = true
		out = append(out, rec)
	}
	return out
}

// selectedLink is the first link matching sel in n (n itself included).
func selectedLink(gq *goquery.Document, n *html.Node, sel string, base *url.URL) (link, bool) {
	m := cascadia.MustCompile(sel)
	var found link
	ok := false
	try := func(c *html.Node) bool {
		a := c
		if a.DataAtom != atom.A {
			a = firstAnchor(c)
		}
		if a == nil {
			return false
		}
		found, ok = anchorLink(a, base)
		return ok
	}
	if m.Match(n) && try(n) {
		return found, true
	}
	gq.FindNodes(n).FindMatcher(m).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		return !try(s.Get(0))
	})
	return found, ok
}

// firstAnchor is the first <a href> in n.
func firstAnchor(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.A {
			if _, ok := attr(c, "href"); ok {
				return c
			}
		}
		if a := firstAnchor(c); a != nil {
			return a
		}
	}
	return nil
}

// selectNext is the next-page control the Next selector matches: the
// first match that is a link or holds one (followed), or a submit button
// of a form (its form submitted with it), nil when the page has none.
func selectNext(gq *goquery.Document, sel string, doc *html.Node, forms []page.Form, base *url.URL) *Request {
	current := base.String()
	var next *Request
	gq.Find(sel).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		n := s.Get(0)
		switch n.DataAtom {
		case atom.Input, atom.Button:
			next = selectedButton(doc, forms, n)
		case atom.Link:
			if u := resolveHref(base, n, current); u != "" {
				next = &Request{Method: "GET", URL: u, Control: ControlSelector}
			}
		default:
			a := n
			if a.DataAtom != atom.A {
				a = firstAnchor(n)
			}
			if a != nil {
				if u := resolveHref(base, a, current); u != "" {
					next = &Request{Method: "GET", URL: u, Control: ControlSelector}
				}
			}
		}
		return next == nil
	})
	if next != nil && next.Method == "GET" {
		var links []string
		gq.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
			if u := resolveHref(base, s.Get(0), current); u != "" {
				links = append(links, u)
			}
		})
		next = widen(next, links)
	}
	return next
}

// selectedButton is the submission of the form a submit button belongs to
// (its enclosing form, else the one its form attribute names) with the
// button as submitter; nil for another control or no form.
func selectedButton(doc *html.Node, forms []page.Form, b *html.Node) *Request {
	typ, _ := attr(b, "type")
	typ = strings.ToLower(typ)
	if b.DataAtom == atom.Input && typ != "submit" && typ != "image" || b.DataAtom == atom.Button && typ != "" && typ != "submit" {
		return nil
	}
	f := -1
	if id, ok := attr(b, "form"); ok {
		f = formByID(forms, id)
	} else {
		for a := b.Parent; a != nil && f < 0; a = a.Parent {
			if a.DataAtom == atom.Form {
				f = formIndex(doc, a)
			}
		}
	}
	if f < 0 || f >= len(forms) {
		return nil
	}
	name, _ := attr(b, "name")
	value, _ := attr(b, "value")
	r := buttonRequest(&forms[f], b.DataAtom == atom.Button, name, value, typ)
	if r != nil {
		r.Control = ControlSelector
	}
	return r
}

// formIndex is the index of a form element among the document's forms, in
// document order (as page.Parse numbers them).
func formIndex(doc *html.Node, f *html.Node) int {
	i, found := -1, -1
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && found < 0; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Form {
				i++
				if c == f {
					found = i
					return
				}
			}
			walk(c)
		}
	}
	walk(doc)
	return found
}
