package records

import (
	"bytes"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// Record is one record listed on a result page.
type Record struct {
	// URL is the record's own page (canonical, parameters that only repeat
	// the query removed), "" when the record links nowhere.
	URL string `json:"url,omitempty"`
	// Title is the text of its link.
	Title string `json:"title,omitempty"`
	// Text is the record's visible text on the result page.
	Text string `json:"text"`
	// Data is Text without the result template's labels, counts and
	// printed URLs (see templateText): the words a query can find.
	Data string `json:"data,omitempty"`
}

// Result is what a result page shows.
type Result struct {
	Records []Record
	// Wrapper is the record template the records were read with: the one
	// given in Options when it matched, else the one found; its Parent is ""
	// when no record region was found.
	Wrapper Wrapper
	// Learned is set when Wrapper was found on this page, not given.
	Learned bool
	// Fallback is set when no record list was understood and the records
	// are the page's new links to its own site instead (links outside
	// navigation that the form's page does not show).
	Fallback bool
	// Score is the found region's score (its number of items, discounted
	// for short text, missing or repeated links, navigation), 0 with a
	// given wrapper or no region.
	Score float64
	// Total is the number of results the page states, -1 when it states
	// none; TotalText is the phrase it was read from.
	Total     int
	TotalText string
	// Counts are every count of results the page states, the total first:
	// a count that every query's page states alike ("this index contains
	// 2,000 documents") is the site's, which a caller comparing pages
	// sets aside.
	Counts []Count
	// NoResults is the page's own phrase saying nothing matched ("" if none).
	NoResults string
	// Next is the control to the following result page, nil when none.
	Next *Request
	// Forms are the page's forms (page.Parse).
	Forms []page.Form
	// Title is the page's title; Text its visible text.
	Title, Text string
}

// Options guide Extract.
type Options struct {
	// Wrapper is the site's record template learned from earlier result
	// pages (zero: find it on this page).
	Wrapper Wrapper
	// Query is the query the page answers: parameters of the record links
	// that only repeat it are removed.
	Query string
	// Page is the page's number among the query's result pages (0:
	// unknown); it identifies numbered links and buttons to the next one.
	Page int
	// Template is the record-like regions of the page that holds the form
	// (TemplateOf): a region at the same place of a result page whose links
	// are mostly the same is the site's furniture (a "recent posts" box),
	// not results.
	Template *Template
	// Fallback reads the page's new same-site links as its records when
	// no record list is understood (Result.Fallback); it needs Template.
	Fallback bool
	// MinScore is the score a region found on the page needs to count as
	// records (default 1.5, about two records with text and links).
	MinScore float64
	// Selectors are the site's own selectors, which replace the inference
	// of the parts they set (see Selectors).
	Selectors Selectors
}

// Extract reads a result page fetched from base (its final URL): its
// records, total, "no results" message and next-page control.
func Extract(body []byte, base *url.URL, opt Options) (*Result, error) {
	if base == nil {
		return nil, fmt.Errorf("records: no base URL")
	}
	pg, err := page.Parse(body, "text/html; charset=utf-8", base)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("records: parse %s: %w", base, err)
	}
	if opt.MinScore <= 0 {
		opt.MinScore = 1.5
	}
	root := build(doc)
	q := newEcho(opt.Query)
	res := &Result{Total: -1, Forms: pg.Forms, Title: pg.Title, Text: pg.Text}

	var chosen []*region
	fromWrapper := false
	if opt.Wrapper.Known() {
		if r := wrapped(root, opt.Wrapper); len(r.items) > 0 {
			r.evaluate(base, q, nil)
			// a list at the same place that links elsewhere is another
			// page's (the help page a site shows for an empty query)
			if sameFamily(r, opt.Wrapper.Pattern) {
				chosen = append(chosen, r)
				res.Wrapper, fromWrapper = opt.Wrapper, true
			}
		}
	}
	found := mine(root)
	for _, r := range found {
		r.evaluate(base, q, opt.Template.links(r))
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	if len(chosen) == 0 && len(found) > 0 && found[0].score >= opt.MinScore {
		best := found[0]
		// with a template known, a region of another kind of record is not
		// this site's results; without a query, a list whose items mostly
		// link nowhere is the site's help ("how to search"), not a listing
		if (!opt.Wrapper.Known() || best.pattern == opt.Wrapper.Pattern) && (strings.TrimSpace(opt.Query) != "" || linkedShare(best) >= 0.5) {
			chosen = append(chosen, best)
			res.Wrapper = Wrapper{Parent: best.parentPath, Item: best.shape, Classes: best.classes, Pattern: best.pattern}
			res.Learned, res.Score = !opt.Wrapper.Known(), best.score
		}
	}
	if len(chosen) > 0 {
		main := chosen[0]
		for _, r := range found {
			if r == main || r.nav || r.template > 0.5 || r.score < opt.MinScore || r.pattern == "" || r.pattern != main.pattern {
				continue
			}
			if overlaps(r, chosen) {
				continue
			}
			chosen = append(chosen, r)
		}
	}
	inRecord := map[*html.Node]bool{}
	seen := map[string]bool{}
	type placed struct {
		order int
		rec   Record
	}
	var recs []placed
	order := docOrder(doc)
	for _, r := range chosen {
		items := make(map[*html.Node]bool, len(r.items))
		for _, it := range r.items {
			items[it.n] = true
		}
		chrome := templateText(r.items, q)
		for i, it := range r.items {
			l := r.links[i]
			rec := recordOf(it.n, l, items, chrome)
			if pagerRow(rec.Text) && (l.url == "" || pattern(l.url, nil) != r.pattern) {
				// the table's last row holds the pager (gitweb), not a
				// record titled "first" that links like the others
				continue
			}
			inRecord[it.n] = true
			key := rec.URL
			if key == "" {
				key = "text:" + rec.Text
			}
			if seen[key] || rec.Text == "" && rec.URL == "" {
				continue
			}
			seen[key] = true
			recs = append(recs, placed{order[it.n], rec})
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].order < recs[j].order })
	for _, p := range recs {
		res.Records = append(res.Records, p.rec)
	}

	before, after := outsideText(doc, inRecord)
	res.Counts = append(CountsIn(before), CountsIn(after)...)
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
	if res.NoResults != "" && !fromWrapper && res.Total <= 0 {
		// the page says nothing matched: a region found on it is furniture
		// ("popular pages")
		res.Records, res.Wrapper, res.Learned, res.Score = nil, Wrapper{}, false, 0
		inRecord = map[*html.Node]bool{}
	}
	if opt.Fallback && len(chosen) == 0 && !opt.Wrapper.Known() && res.NoResults == "" && strings.TrimSpace(opt.Query) != "" && opt.Template != nil && opt.Template.all != nil {
		res.Records = newSiteLinks(doc, base, opt.Template.all)
		res.Fallback = len(res.Records) > 0
	}
	if res.Total < 0 && res.NoResults != "" && len(res.Records) == 0 {
		res.Total, res.TotalText = 0, res.NoResults
	}
	res.Next = findNext(doc, pg.Forms, base, base.String(), opt.Page, inRecord)
	if opt.Selectors.Given() {
		if err := applySelectors(doc, pg.Forms, base, opt, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// recordOf is the record an item of a list shows: its link, and its text
// without the template's pieces (chrome), with the text an inline item's
// line goes on with and a term's descriptions (<dt>title</dt><dd>snippet</dd>).
func recordOf(n *html.Node, l link, items map[*html.Node]bool, chrome map[string]bool) Record {
	// Text is the item's own text as a person reads it in place; Data
	// adds a term's descriptions and leaves the template out
	rec := Record{URL: l.url, Title: l.text, Text: textOf(n)}
	if n.DataAtom == atom.A || inline[n.DataAtom] {
		if tail := inlineTail(n, items); tail != "" {
			rec.Text += " " + tail
		}
	}
	rec.Data = recordText(n, l, items, chrome).Text
	return rec
}

// recordText is recordOf's record with the text pieces chrome names left
// out of its text.
func recordText(n *html.Node, l link, items map[*html.Node]bool, chrome map[string]bool) Record {
	rec := Record{URL: l.url, Title: l.text, Text: dataText(n, chrome)}
	if n.DataAtom == atom.A || inline[n.DataAtom] {
		if tail := inlineTail(n, items); tail != "" {
			rec.Text += " " + tail
		}
	}
	if n.DataAtom == atom.Dt {
		for c := n.NextSibling; c != nil && !items[c]; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Dd {
				if d := dataText(c, chrome); d != "" {
					rec.Text += " " + d
				}
			} else if c.Type == html.ElementNode && c.DataAtom == atom.Dt {
				break
			}
		}
	}
	return rec
}

// templateText are the text pieces that most items of a record list
// repeat, digits aside: the result template's labels and chrome ("Document
// Size:", "-- rank: 1000", "(574 bytes)", "[show matches]"), which are no
// record's data and would make poor queries; pieces holding a word of the
// query q are data. Nil for fewer than 4 items.
func templateText(items []*node, q *echo) map[string]bool {
	if len(items) < 4 {
		return nil
	}
	counts := map[string]int{}
	for _, it := range items {
		seen := map[string]bool{}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				switch {
				case c.Type == html.TextNode:
					if k := chromeKey(c.Data); k != "" && !seen[k] {
						seen[k] = true
						counts[k]++
					}
				case c.Type == html.ElementNode && !skipped[c.DataAtom] && c.DataAtom != atom.A:
					// a link's text is the record's title ("Heat (1995
					// film)"): never the template's
					walk(c)
				}
			}
		}
		walk(it.n)
		if it.n.DataAtom == atom.Dt {
			for c := it.n.NextSibling; c != nil && c.DataAtom != atom.Dt; c = c.NextSibling {
				if c.DataAtom == atom.Dd {
					walk(c)
				}
			}
		}
	}
	out := map[string]bool{}
	for k, c := range counts {
		// the query's words repeat in every record (highlighted apart)
		// and are data; so are plain words every record repeats (a
		// topic, a category): only labels, counts and bracketed notes are
		// the template's
		if 5*c >= 4*len(items) && !q.within(k) && templatePiece(k) {
			out[k] = true
		}
	}
	return out
}

// templatePiece reports whether a repeated text piece (digits folded to
// '#') reads as a template's: it holds a number ("-- rank: #", "(# bytes)"),
// ends in a label's colon ("Document Size:") or is a bracketed note
// ("[show matches]").
func templatePiece(k string) bool {
	k = strings.TrimSpace(k)
	if strings.Contains(k, "#") || strings.HasSuffix(k, ":") {
		return true
	}
	return len(k) > 2 && (k[0] == '(' && k[len(k)-1] == ')' || k[0] == '[' && k[len(k)-1] == ']')
}

// chromeKey is a text piece with its digits folded, "" for blank text.
func chromeKey(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '#'
		}
		return r
	}, s)
}

// dataText is the visible text of n without the template's pieces and
// without pieces that are only a URL or path (the record's address
// printed under it).
func dataText(n *html.Node, chrome map[string]bool) string {
	if chrome == nil {
		return textOf(n)
	}
	return page.VisibleText(n, nil, func(t string) bool { return chrome[chromeKey(t)] || urlLike(strings.TrimSpace(t)) })
}

// urlLike reports whether a text piece is one URL or path and nothing else.
func urlLike(t string) bool {
	if t == "" || strings.ContainsAny(t, " \t") {
		return false
	}
	return strings.Contains(t, "://") || strings.HasPrefix(t, "www.") || strings.HasPrefix(t, "/") && strings.Count(t, "/") >= 2
}

// maxFallback bounds the records a page read without a template yields.
const maxFallback = 50

// newSiteLinks are the fallback records of a page whose records were not
// understood: its links to its own host, outside navigation, that are not
// pager controls, not a page of the same search and not on the form's page
// (known), each once.
func newSiteLinks(doc *html.Node, base *url.URL, known map[string]bool) []Record {
	var out []Record
	seen := map[string]bool{}
	for _, l := range allLinks(doc, base) {
		u, err := url.Parse(l.url)
		if err != nil || u.Host != base.Host || known[l.url] || seen[l.url] || l.text == "" || pagerText(l.text) {
			continue
		}
		if u.Path == base.Path && u.RawQuery != "" {
			continue // another page or ordering of this search
		}
		seen[l.url] = true
		out = append(out, Record{URL: l.url, Title: l.text, Text: l.text})
		if len(out) == maxFallback {
			break
		}
	}
	return out
}

// allLinks are the links of a page outside its navigation, header and
// footer, in document order.
func allLinks(doc *html.Node, base *url.URL) []link {
	var out []link
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped[c.DataAtom] || navTags[c.DataAtom] {
				continue
			}
			if c.DataAtom == atom.A {
				if l, ok := anchorLink(c, base); ok && strings.HasPrefix(l.url, "http") {
					out = append(out, l)
				}
				continue
			}
			walk(c)
		}
	}
	walk(doc)
	return out
}

// linkedShare is the share of a region's items that link somewhere.
func linkedShare(r *region) float64 {
	if len(r.links) == 0 {
		return 0
	}
	n := 0
	for _, l := range r.links {
		if l.url != "" {
			n++
		}
	}
	return float64(n) / float64(len(r.links))
}

// sameFamily reports whether some of a region's links lead where the
// records of a wrapper's pattern do: the same host and first path segment
// (records of one site spread over directories: /papers/conf/x/,
// /papers/books/y/). Only a wrapper whose records link nowhere takes a
// region without links.
func sameFamily(r *region, pat string) bool {
	if pat == "" {
		return true
	}
	fam := family(pat)
	for _, l := range r.links {
		if l.url != "" && family(l.url) == fam {
			return true
		}
	}
	return false
}

// family is the host and first path segment of a URL or pattern.
func family(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "http://"), "https://")
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	parts := strings.SplitN(s, "/", 3)
	if len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// Template is what a page's record-like regions link to, by place.
type Template struct {
	regions map[string]map[string]bool // parent path | shape -> links
	all     map[string]bool            // every link of the page
}

// TemplateOf reads the record-like regions of a page (the page that holds
// a form) and their links.
func TemplateOf(body []byte, base *url.URL) (*Template, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("records: parse %s: %w", base, err)
	}
	t := &Template{regions: map[string]map[string]bool{}, all: map[string]bool{}}
	for _, l := range allLinks(doc, base) {
		t.all[l.url] = true
	}
	for _, r := range mine(build(doc)) {
		key := r.parentPath + "|" + r.shape
		m := t.regions[key]
		if m == nil {
			m = map[string]bool{}
			t.regions[key] = m
		}
		for _, it := range r.items {
			if l := primaryLink(it.n, base); l.url != "" {
				m[l.url] = true
			}
		}
	}
	return t, nil
}

// links returns the links of the template's region at r's place (nil when
// the template has none there).
func (t *Template) links(r *region) map[string]bool {
	if t == nil {
		return nil
	}
	return t.regions[r.parentPath+"|"+r.shape]
}

// overlaps reports whether r's items contain or lie in items of the chosen
// regions.
func overlaps(r *region, chosen []*region) bool {
	in := map[*node]bool{}
	for _, c := range chosen {
		for _, it := range c.items {
			in[it] = true
		}
	}
	for _, it := range r.items {
		for a := it; a != nil; a = a.parent {
			if in[a] {
				return true
			}
		}
	}
	for _, c := range chosen {
		for _, it := range c.items {
			for a := it.parent; a != nil; a = a.parent {
				for _, x := range r.items {
					if x == a {
						return true
					}
				}
			}
		}
	}
	return false
}

// docOrder numbers the elements of doc in document order.
func docOrder(doc *html.Node) map[*html.Node]int {
	m := map[*html.Node]int{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				m[c] = len(m)
				walk(c)
			}
		}
	}
	walk(doc)
	return m
}

// outsideText returns the visible text before the first record and after
// the last one (everything when there are none), the records' own text
// left out: a count or "no results" message is the page's, not a record's
// ("44 hits" in a DokuWiki result).
func outsideText(doc *html.Node, inRecord map[*html.Node]bool) (before, after string) {
	seen := false // the walk has reached the first record
	before = page.VisibleText(doc, func(c *html.Node) bool {
		seen = seen || inRecord[c]
		return seen
	}, func(string) bool { return seen })
	seen = false
	after = page.VisibleText(doc, func(c *html.Node) bool {
		seen = seen || inRecord[c]
		return inRecord[c]
	}, func(string) bool { return !seen })
	return before, after
}

// pagerRow reports whether a record element's whole text is a pager
// caption ("next", "« prev · next »"): a short text, every word of it a
// pager word or a separator.
func pagerRow(text string) bool {
	ws := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '·' || r == '⋅' || r == '|' || r == '\u00a0' })
	if len(ws) == 0 || len(ws) > 4 {
		return false
	}
	words := 0
	for _, w := range ws {
		switch {
		case pagerText(w):
			words++
		case normCaption(w) != "":
			return false
		} // else punctuation between the words
	}
	return words > 0
}
