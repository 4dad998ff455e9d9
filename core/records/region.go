package records

import (
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dwcrawl/dwcrawl/core/canon"
)

// Wrapper is the record template learned from a site's result pages: where
// its records sit and what each looks like. The zero Wrapper knows nothing.
type Wrapper struct {
	// Parent is the tag path of the elements that hold the records.
	Parent string `json:"parent"`
	// Item is the shape of a record element: its tag and its children's.
	Item string `json:"item"`
	// Classes are the classes the records shared.
	Classes []string `json:"classes,omitempty"`
	// Pattern is the URL pattern (host, directory, parameter names) of the
	// records' own pages.
	Pattern string `json:"pattern,omitempty"`
}

// Known reports whether the wrapper was learned.
func (w Wrapper) Known() bool { return w.Parent != "" && w.Item != "" }

// region is a run of records: sibling elements of one shape, under one or
// several parents at the same tag path.
type region struct {
	parentPath string
	shape      string
	classes    []string
	items      []*node
	parents    map[*node]bool
	score      float64
	nav        bool    // inside navigation, header, footer, sidebar or pager
	template   float64 // share of the items linking where the form page links
	pattern    string  // most common URL pattern of the items' links
	links      []link  // primary link of each item (URL "" when none)
}

// link is the main link of a record element.
type link struct {
	url, text string
}

// mine groups the siblings of every element by shape and classes and
// merges groups whose parents share a tag path.
func mine(root *node) []*region {
	var regions []*region
	byKey := map[string][]*region{}
	var visit func(p *node)
	visit = func(p *node) {
		if p.control {
			return
		}
		shapes := map[string][]*node{}
		var order []string
		// in a definition list a record is a term with its descriptions:
		// the <dd>s belong to their <dt> (Extract joins them) and are no
		// list of their own
		terms := false
		for _, c := range p.kids {
			terms = terms || c.n.DataAtom == atom.Dt
		}
		for _, c := range p.kids {
			if c.control || (c.text == 0 && c.links == 0) || terms && c.n.DataAtom == atom.Dd {
				continue
			}
			s := c.shape()
			if _, ok := shapes[s]; !ok {
				order = append(order, s)
			}
			shapes[s] = append(shapes[s], c)
		}
		for _, s := range order {
			kids := shapes[s]
			if len(kids) < 2 {
				continue
			}
			for _, cl := range clusterByClass(kids) {
				if len(cl) < 2 {
					continue
				}
				key := p.tagPath() + "|" + s
				var r *region
				for _, old := range byKey[key] {
					if jaccard(old.classes, cl[0].classes) >= 0.5 {
						r = old
						break
					}
				}
				if r == nil {
					r = &region{parentPath: p.tagPath(), shape: s, classes: commonClasses(cl), parents: map[*node]bool{}}
					byKey[key] = append(byKey[key], r)
					regions = append(regions, r)
				}
				r.items = append(r.items, cl...)
				r.parents[p] = true
			}
		}
		for _, c := range p.kids {
			visit(c)
		}
	}
	visit(root)
	return regions
}

// clusterByClass splits elements of one shape into runs of similar classes
// (Jaccard ≥ 0.5 with the first element of the cluster), in document order.
// Clusters whose elements interleave are one list styled in turns (zebra
// rows: gitweb's "dark" and "light", "odd" and "even"), and merge.
func clusterByClass(kids []*node) [][]*node {
	var out [][]*node
	var pos [][]int // each cluster's indexes in kids
	for at, k := range kids {
		placed := false
		for i := range out {
			if jaccard(out[i][0].classes, k.classes) >= 0.5 {
				out[i] = append(out[i], k)
				pos[i] = append(pos[i], at)
				placed = true
				break
			}
		}
		if !placed {
			out = append(out, []*node{k})
			pos = append(pos, []int{at})
		}
	}
	for merged := true; merged && len(out) > 1; {
		merged = false
		for i := 0; i < len(out) && !merged; i++ {
			for j := i + 1; j < len(out); j++ {
				if !interleave(pos[i], pos[j]) {
					continue
				}
				pos[i] = append(pos[i], pos[j]...)
				sort.Ints(pos[i])
				out[i] = out[i][:0]
				for _, at := range pos[i] {
					out[i] = append(out[i], kids[at])
				}
				out = append(out[:j], out[j+1:]...)
				pos = append(pos[:j], pos[j+1:]...)
				merged = true
				break
			}
		}
	}
	return out
}

// interleave reports whether two sorted runs of sibling indexes alternate
// (each has an element between two of the other's), each run of at least
// two: a lone element inside a list is not a style in turns.
func interleave(a, b []int) bool {
	if len(a) < 2 || len(b) < 2 {
		return false
	}
	inside := func(x, y []int) bool {
		for _, v := range y {
			if v > x[0] && v < x[len(x)-1] {
				return true
			}
		}
		return false
	}
	return inside(a, b) && inside(b, a)
}

// commonClasses are the classes every element of cl has.
func commonClasses(cl []*node) []string {
	out := append([]string(nil), cl[0].classes...)
	for _, k := range cl[1:] {
		keep := out[:0]
		for _, c := range out {
			if containsStr(k.classes, c) {
				keep = append(keep, c)
			}
		}
		out = keep
	}
	return out
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// wrapped returns the elements the wrapper describes.
func wrapped(root *node, w Wrapper) *region {
	r := &region{parentPath: w.Parent, shape: w.Item, classes: w.Classes, parents: map[*node]bool{}}
	var visit func(p *node)
	visit = func(p *node) {
		if p.control {
			return
		}
		if p.tagPath() == w.Parent {
			for _, c := range p.kids {
				// a wrapper without classes (zebra rows share none) takes
				// the parent path and shape alone
				if c.control || (c.text == 0 && c.links == 0) || c.shape() != w.Item || len(w.Classes) > 0 && jaccard(c.classes, w.Classes) < 0.5 {
					continue
				}
				r.items = append(r.items, c)
				r.parents[p] = true
			}
		}
		for _, c := range p.kids {
			visit(c)
		}
	}
	visit(root)
	return r
}

// navWord matches the words of ids and classes that mark navigation and
// page furniture rather than content.
var navWord = regexp.MustCompile(`^(nav|navbar|navigation|menu|menus|menubar|footer|header|masthead|sidebar|aside|breadcrumb|breadcrumbs|widget|widgets|pager|pagination|paging|tabs|toolbar|skip|social|share|sharing|sitemap|topbar|subnav|crumbs|portlet|banner|cookie|legal|copyright)$`)

// navTags are the elements of page furniture.
var navTags = map[atom.Atom]bool{atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true}

func navLike(k *node) bool {
	if k.tag == "html" || k.tag == "body" {
		return false // their classes describe the page's state
	}
	if navTags[k.n.DataAtom] {
		return true
	}
	if v, ok := attr(k.n, "role"); ok {
		switch strings.ToLower(v) {
		case "navigation", "banner", "contentinfo", "menu", "menubar", "tablist", "complementary":
			return true
		}
	}
	words := func(s string) bool {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == ' ' }) {
			if navWord.MatchString(w) {
				return true
			}
		}
		return false
	}
	if words(k.id) {
		return true
	}
	for _, c := range k.classes {
		if words(c) {
			return true
		}
	}
	return false
}

// evaluate scores the region: n items, each with text (saturating at 60
// bytes), a link of its own to a distinct page, showing the query's words;
// regions inside navigation, or whose links the form's page shows at the
// same place (exclude), are worth little.
func (r *region) evaluate(base *url.URL, q *echo, exclude map[string]bool) {
	n := len(r.items)
	if n == 0 {
		return
	}
	for p := range r.parents {
		for a := p; a != nil && a.parent != nil; a = a.parent {
			if navLike(a) {
				r.nav = true
				break
			}
		}
		break // the parents share their tag path
	}
	if len(r.items) > 0 && navLike(r.items[0]) {
		r.nav = true
	}
	r.links = primaryLinks(r.items, base)
	textSum, echoing := 0, 0
	for _, it := range r.items {
		textSum += min(it.text, 400)
		if q != nil && q.within(textOf(it.n)) {
			echoing++
		}
	}
	r.stripEcho(q)
	withLink, excluded := 0, 0
	urls := map[string]bool{}
	patterns := map[string]int{}
	for _, l := range r.links {
		if l.url == "" {
			continue
		}
		withLink++
		urls[l.url] = true
		if exclude[l.url] {
			excluded++
		}
		patterns[pattern(l.url, nil)]++
	}
	best := 0
	for p, c := range patterns {
		if c > best || (c == best && p < r.pattern) {
			r.pattern, best = p, c
		}
	}
	avg := float64(textSum) / float64(n)
	if avg < 2 {
		r.score = 0
		return
	}
	linkFrac := float64(withLink) / float64(n)
	distinct := 1.0
	if withLink > 0 {
		distinct = float64(len(urls)) / float64(withLink)
		r.template = float64(excluded) / float64(withLink)
	}
	if linkFrac == 1 && distinct == 1 && n >= 5 && best == n {
		// a list of titles only (a "short" result format): every item
		// links to a page of its own, all alike; short text is no doubt
		avg = max(avg, 30)
	}
	r.score = float64(n) * math.Sqrt(math.Min(1, avg/60)) * (0.2 + 0.8*linkFrac) * distinct
	if q != nil && len(q.words) > 0 {
		// a result of a query mostly shows the query's words
		r.score *= 0.25 + 0.75*float64(echoing)/float64(n)
	}
	if r.nav {
		r.score *= 0.05
	}
	if r.template > 0.5 {
		r.score *= 0.05
	}
}

// primaryLinks are the records' own links (see primaryLink), where a link
// that several items of the region share is not an item's own: every row
// of gitweb's search results first links to a search for its author.
func primaryLinks(items []*node, base *url.URL) []link {
	out := make([]link, len(items))
	all := make([][]link, len(items))
	shared := map[string]int{}
	for i, it := range items {
		out[i] = primaryLink(it.n, base)
		all[i] = linksOf(it.n, base)
		seen := map[string]bool{}
		for _, l := range all[i] {
			if !seen[l.url] {
				seen[l.url] = true
				shared[l.url]++
			}
		}
	}
	if len(items) < 2 {
		return out
	}
	for i := range items {
		if shared[out[i].url] <= 1 {
			continue
		}
		for _, l := range all[i] {
			if l.text != "" && !pagerText(l.text) && shared[l.url] == 1 {
				out[i] = l
				break
			}
		}
	}
	return out
}

// linksOf lists the http(s) links of a record element in document order,
// with their text (an image's alt text when they have none).
func linksOf(n *html.Node, base *url.URL) []link {
	var out []link
	if n.DataAtom == atom.A {
		// the item is the link itself (pydoc's "<a>name</a>- synopsis<br>")
		if l, ok := anchorLink(n, base); ok {
			out = append(out, l)
		}
		return out
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped[c.DataAtom] {
				continue
			}
			if c.DataAtom != atom.A {
				walk(c)
				continue
			}
			if l, ok := anchorLink(c, base); ok {
				out = append(out, l)
			}
		}
	}
	walk(n)
	return out
}

// anchorLink is the link of an <a> element (false without an href, or
// with one to a fragment of the page).
func anchorLink(a *html.Node, base *url.URL) (link, bool) {
	href, ok := attr(a, "href")
	if !ok || strings.HasPrefix(strings.TrimSpace(href), "#") {
		return link{}, false
	}
	u, err := canon.Resolve(base, href)
	if err != nil {
		return link{}, false
	}
	t := textOf(a)
	if t == "" {
		t = imgAlt(a)
	}
	return link{u, t}, true
}

// primaryLink is the record's own link: the first http(s) link with text
// that is not a pager control, else the first link at all.
func primaryLink(n *html.Node, base *url.URL) link {
	if n.DataAtom == atom.A {
		l, _ := anchorLink(n, base)
		return l
	}
	var first, best link
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped[c.DataAtom] {
				continue
			}
			if c.DataAtom == atom.A {
				l, ok := anchorLink(c, base)
				if !ok {
					continue
				}
				if first.url == "" {
					first = l
				}
				if l.text != "" && !pagerText(l.text) {
					best = l
					return true
				}
				continue
			}
			if walk(c) {
				return true
			}
		}
		return false
	}
	if walk(n) {
		return best
	}
	return first
}

func imgAlt(n *html.Node) string {
	var alt string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && alt == ""; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Img {
				if v, ok := attr(c, "alt"); ok {
					alt = strings.TrimSpace(v)
				}
			}
			walk(c)
		}
	}
	walk(n)
	return alt
}

// pattern is what the links to the records of one site share: host,
// directory and the names of the query parameters (drop names aside).
func pattern(raw string, drop map[string]bool) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	dir := u.Path
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[:i+1]
	}
	var names []string
	for k := range queryNames(u.RawQuery) {
		if !drop[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return u.Host + dir + "?" + strings.Join(names, "&")
}

// echo holds the words of the query, to recognise the parameters that
// repeat it in result links (DokuWiki's s[]=word highlights the word on the
// record's page): they make one record look like a different page per
// query.
type echo struct {
	words map[string]bool
}

func newEcho(query string) *echo {
	e := &echo{words: map[string]bool{}}
	for _, w := range wordsOf(query) {
		e.words[w] = true
	}
	return e
}

func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
}

// within reports whether s holds one of the query words (as a substring:
// "learning" also finds "machine-learning" and "learnings").
func (e *echo) within(s string) bool {
	if len(e.words) == 0 {
		return false
	}
	s = strings.ToLower(s)
	for w := range e.words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// echoes reports whether every word of v is a query word.
func (e *echo) echoes(v string) bool {
	ws := wordsOf(v)
	if len(ws) == 0 || len(e.words) == 0 {
		return false
	}
	for _, w := range ws {
		if !e.words[w] {
			return false
		}
	}
	return true
}

// stripEcho removes the query-echoing parameters from the items' links: a
// parameter whose value repeats the query words, is the same wherever it
// appears and appears on at least half of the items; with a single item,
// only when another parameter still names the record.
func (r *region) stripEcho(q *echo) {
	if q == nil || len(q.words) == 0 {
		return
	}
	type param struct {
		val      string
		constant bool
		seen     int
	}
	params := map[string]*param{}
	parsed := make([]*url.URL, len(r.links))
	withLink := 0
	for i, l := range r.links {
		if l.url == "" {
			continue
		}
		u, err := url.Parse(l.url)
		if err != nil {
			continue
		}
		parsed[i] = u
		withLink++
		for k, vs := range u.Query() {
			v := strings.Join(vs, "\x00")
			p := params[k]
			if p == nil {
				params[k] = &param{val: v, constant: true, seen: 1}
				continue
			}
			p.seen++
			if p.val != v {
				p.constant = false
			}
		}
	}
	drop := map[string]bool{}
	for k, p := range params {
		if p.constant && 2*p.seen >= withLink && q.echoes(strings.ReplaceAll(p.val, "\x00", " ")) {
			drop[k] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	for i, u := range parsed {
		if u == nil {
			continue
		}
		// keep the other parameters as written: re-encoding them would
		// make the same record two URLs ("music:x" and "music%3Ax")
		var kept []string
		dropped := 0
		for _, seg := range strings.Split(u.RawQuery, "&") {
			k, _, _ := strings.Cut(seg, "=")
			if dk, err := url.QueryUnescape(k); err == nil {
				k = dk
			}
			if drop[k] {
				dropped++
				continue
			}
			if seg != "" {
				kept = append(kept, seg)
			}
		}
		if dropped == 0 || (withLink == 1 && len(kept) == 0) {
			continue
		}
		u.RawQuery = strings.Join(kept, "&")
		if c, err := canon.Canonical(u.String()); err == nil {
			r.links[i].url = c
		}
	}
}

// queryNames are the parameter names of a raw query, split at '&' and at
// ';' (gitweb's separator, which url.ParseQuery refuses).
func queryNames(raw string) map[string]bool {
	names := map[string]bool{}
	for _, seg := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, _, _ := strings.Cut(seg, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if k != "" {
			names[k] = true
		}
	}
	return names
}
