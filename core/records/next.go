package records

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/page"
)

// Request is how to get a result page: a link to follow or a form to
// submit.
type Request struct {
	// Method is "GET" or "POST".
	Method string `json:"method"`
	// URL is the page (GET) or the form's action (POST).
	URL string `json:"url"`
	// Values is the POST body.
	Values url.Values `json:"values,omitempty"`
	// Control says what the page offered: "rel-next" (a link with
	// rel=next), "link" (a link saying next), "number" (a link to the
	// following page number), "button" (a form's submit button).
	Control string `json:"control"`
	// PageSize is the number of records per page the request asks for
	// when it chose the largest page the site offers (see widen; 0: the
	// site's own).
	PageSize int `json:"page_size,omitempty"`
}

// Control names, from the most to the least certain.
const (
	ControlRelNext = "rel-next"
	ControlLink    = "link"
	ControlButton  = "button"
	ControlNumber  = "number"
)

// nextWords are the captions of a next-page control once lower-cased and
// stripped of punctuation and arrows.
var nextWords = regexp.MustCompile(`^(next|next page|next results?|next \d+( results)?|more|more results|show more|older|older posts|older entries|older articles|suivant|suivante|page suivante|weiter|nächste|nächste seite|siguiente|siguientes|successiva|successivo|avanti|próxima|próximo|seguinte|volgende|næste|nästa|neste|następna|další|dalej|далее|следующая|次へ|下一页)$`)

// arrowNext are captions that are only an arrow pointing forward.
var arrowNext = map[string]bool{"»": true, "›": true, ">": true, ">>": true, "→": true, "→→": false, "⟩": true, "❯": true, "▶": true, "▸": true}

// backWords mark controls that go back or jump to the ends.
var backWords = regexp.MustCompile(`\b(prev|previous|newer|back|first|last|zurück|précédent|anterior)\b`)

// normCaption lower-cases a caption and strips brackets and punctuation
// around it ("[next]", "Next »", "Older posts").
func normCaption(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = strings.Trim(s, " []()|:.,;-_*'\"«")
	return s
}

// nextCaption reports whether a caption says "next page".
func nextCaption(s string) bool {
	c := normCaption(s)
	if c == "" || backWords.MatchString(c) {
		return false
	}
	if arrowNext[c] {
		return true
	}
	words := strings.TrimSpace(strings.TrimRight(c, " »›>→❯▶▸"))
	return nextWords.MatchString(words)
}

var pageNumber = regexp.MustCompile(`^(?:page\s+)?(\d{1,5})$`)

// captionNumber returns the page number a caption names, 0 for none.
func captionNumber(s string) int {
	m := pageNumber.FindStringSubmatch(normCaption(s))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// pagerText reports whether a link text belongs to a pager: a number, or
// next/previous/first/last.
func pagerText(s string) bool {
	if captionNumber(s) > 0 || nextCaption(s) {
		return true
	}
	c := normCaption(s)
	return backWords.MatchString(c) || c == "«" || c == "‹" || c == "<" || c == "<<"
}

// classSaysNext reports whether an element's class, id or rel names the
// next page ("next page-numbers", "mw-nextlink", "pager-next").
func classSaysNext(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "class", "id":
			v := strings.ToLower(a.Val)
			if strings.Contains(v, "next") && !strings.Contains(v, "prev") {
				return true
			}
		}
	}
	return false
}

// findNext returns the page's control to the following page. current is
// the page's own URL, pageNum its number (0: unknown), inRecord tells the
// elements of the records apart (a record titled "Next Generation" is not
// a pager).
func findNext(doc *html.Node, forms []page.Form, base *url.URL, current string, pageNum int, inRecord map[*html.Node]bool) *Request {
	var relNext, word, number *Request
	var wordBtn, numberBtn *Request
	var links, pager []string
	formIdx := -1
	var walk func(n *html.Node, form int)
	walk = func(n *html.Node, form int) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || inRecord[c] {
				continue
			}
			f := form
			switch c.DataAtom {
			case atom.Form:
				formIdx++
				f = formIdx
			case atom.Script, atom.Style, atom.Template:
				continue
			case atom.Link:
				if relNext == nil && relHasNext(c) {
					if u := resolveHref(base, c, current); u != "" {
						relNext = &Request{Method: "GET", URL: u, Control: ControlRelNext}
					}
				}
			case atom.A:
				href := resolveHref(base, c, current)
				if href == "" {
					break
				}
				links = append(links, href)
				t := linkCaption(c)
				if !inRecord[c] && (t == "" || pagerText(t)) {
					pager = append(pager, href)
				}
				switch {
				case relNext == nil && relHasNext(c):
					relNext = &Request{Method: "GET", URL: href, Control: ControlRelNext}
				case word == nil && (nextCaption(t) || (classSaysNext(c) && !pagerBack(t))):
					word = &Request{Method: "GET", URL: href, Control: ControlLink}
				case word == nil && c.Parent != nil && c.Parent.DataAtom == atom.Li && classSaysNext(c.Parent) && !pagerBack(t):
					word = &Request{Method: "GET", URL: href, Control: ControlLink}
				case number == nil && pageNum > 0 && captionNumber(t) == pageNum+1:
					number = &Request{Method: "GET", URL: href, Control: ControlNumber}
				}
				continue
			case atom.Input, atom.Button:
				if f < 0 || f >= len(forms) {
					if fa, ok := attr(c, "form"); ok {
						f = formByID(forms, fa)
					}
				}
				if f < 0 || f >= len(forms) {
					break
				}
				if _, off := attr(c, "disabled"); off {
					break
				}
				name, _ := attr(c, "name")
				value, _ := attr(c, "value")
				typ, _ := attr(c, "type")
				typ = strings.ToLower(typ)
				if c.DataAtom == atom.Input && typ != "submit" && typ != "image" {
					break
				}
				if c.DataAtom == atom.Button && typ != "" && typ != "submit" {
					break
				}
				caption := value
				if c.DataAtom == atom.Button {
					caption = textOf(c)
				} else if typ == "image" {
					caption, _ = attr(c, "alt")
				}
				// an arrow alone on a button is as often "go" (DokuWiki's
				// tools menu) as "next": only a pager's arrow counts
				isNext := (nextCaption(caption) && !arrowNext[normCaption(caption)]) || nextCaption(name) && !arrowNext[normCaption(name)] ||
					arrowNext[normCaption(caption)] && numberedButtons(&forms[f]) >= 2
				isNum := pageNum > 0 && captionNumber(caption) == pageNum+1
				if !isNext && !isNum {
					break
				}
				r := buttonRequest(&forms[f], c.DataAtom == atom.Button, name, value, typ)
				if r == nil {
					break
				}
				if isNext && wordBtn == nil {
					wordBtn = r
				} else if isNum && numberBtn == nil {
					numberBtn = r
				}
			}
			walk(c, f)
		}
	}
	walk(doc, -1)
	for _, r := range []*Request{relNext, word, wordBtn, number, numberBtn} {
		if r != nil {
			return widen(r, links)
		}
	}
	if r := movingParam(pager, current); r != nil {
		return widen(r, links)
	}
	return nil
}

// linkCaption is what a link says: its text, else the alt text of its
// image (a pager of buttons drawn as images, <a><img alt="next"></a>),
// else its title or aria-label.
func linkCaption(a *html.Node) string {
	if t := textOf(a); t != "" {
		return t
	}
	if t := imgAlt(a); t != "" {
		return t
	}
	for _, k := range []string{"aria-label", "title"} {
		if v, ok := attr(a, k); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// movingParam finds the next page among pager-like links (captioned with a
// number, a pager word or nothing readable) when no caption names it: the
// links to the current page's path that differ from each other in one
// integer parameter, the page number or offset, whose values step evenly.
// The next page is the smallest value past the current page's own (its
// URL's value, or the first page's when its URL has none).
func movingParam(links []string, current string) *Request {
	cu, err := url.Parse(current)
	if err != nil {
		return nil
	}
	cq := queryOf(cu)
	type group struct {
		param string
		vals  map[int]string // value -> URL
	}
	groups := map[string]*group{}
	for i, a := range links {
		au, err := url.Parse(a)
		if err != nil || au.Host != cu.Host || au.Path != cu.Path {
			continue
		}
		aq := queryOf(au)
		for _, b := range links[i+1:] {
			bu, err := url.Parse(b)
			if err != nil || bu.Host != au.Host || bu.Path != au.Path {
				continue
			}
			k, ok := oneIntDiff(aq, queryOf(bu))
			if !ok {
				continue
			}
			g := groups[k]
			if g == nil {
				g = &group{param: k, vals: map[int]string{}}
				groups[k] = g
			}
			va, _ := strconv.Atoi(aq.Get(k))
			vb, _ := strconv.Atoi(queryOf(bu).Get(k))
			g.vals[va], g.vals[vb] = a, b
		}
	}
	var best *Request
	bestN := 0
	for _, g := range groups {
		var vs []int
		for v := range g.vals {
			vs = append(vs, v)
		}
		if len(vs) < 2 || !evenSteps(vs) {
			continue
		}
		cur, ok := 0, false
		if c := cq.Get(g.param); c != "" {
			cur, err = strconv.Atoi(c)
			ok = err == nil
		}
		lo := vs[0]
		for _, v := range vs {
			lo = min(lo, v)
		}
		if !ok {
			// the first page: its own link, if any, carries the smallest
			// value (page 1, offset 0); page 2 or the second offset are the
			// smallest a pager without it shows. Larger values (years) are
			// not a pager's.
			if lo > 2*step(vs) {
				continue
			}
			cur = lo
			if lo > 1 {
				cur = lo - 1
			}
		}
		next := -1
		for _, v := range vs {
			if v > cur && (next < 0 || v < next) {
				next = v
			}
		}
		if next < 0 {
			continue
		}
		if best == nil || len(vs) > bestN {
			best, bestN = &Request{Method: "GET", URL: g.vals[next], Control: ControlNumber}, len(vs)
		}
	}
	return best
}

// oneIntDiff reports the one parameter in which two queries differ when
// both give it as a different integer and agree on every other.
func oneIntDiff(a, b url.Values) (string, bool) {
	key := ""
	for k := range a {
		if !b.Has(k) {
			return "", false
		}
	}
	for k := range b {
		if !a.Has(k) {
			return "", false
		}
		if a.Get(k) == b.Get(k) {
			continue
		}
		if key != "" {
			return "", false
		}
		if _, err := strconv.Atoi(a.Get(k)); err != nil {
			return "", false
		}
		if _, err := strconv.Atoi(b.Get(k)); err != nil {
			return "", false
		}
		key = k
	}
	return key, key != ""
}

// step is the smallest gap between distinct integers of vs.
func step(vs []int) int {
	s := 0
	for i, a := range vs {
		for _, b := range vs[i+1:] {
			if d := max(a-b, b-a); d > 0 && (s == 0 || d < s) {
				s = d
			}
		}
	}
	return s
}

// evenSteps reports whether integers step evenly: every gap between
// neighbours a multiple of the smallest, as page numbers (1, 2, 3) and
// offsets (10, 20, 40) do, and unlike record ids.
func evenSteps(vs []int) bool {
	s := append([]int(nil), vs...)
	slices.Sort(s)
	step := 0
	for i := 1; i < len(s); i++ {
		if d := s[i] - s[i-1]; d > 0 && (step == 0 || d < step) {
			step = d
		}
	}
	if step == 0 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if (s[i]-s[i-1])%step != 0 {
			return false
		}
	}
	return s[len(s)-1]-s[0] <= 200*step
}

// maxPageSize bounds the page size widen asks for: a bigger page costs the
// site more per request than a crawler should ask at once.
const maxPageSize = 1000

// widen asks for the largest page the site offers (at most maxPageSize
// records) when the page links to other page sizes, as MediaWiki does
// ("show 20 | 50 | 100 | 250 | 500 results per page"): results in a fixed
// order (MediaWiki on SQLite lists matches by title) repeat the records
// already downloaded page after page, and 20 at a time a query is given up
// before it reaches new ones. Such links are GET links to the next link's
// URL that differ from it in exactly two parameters: the page size, whose
// values differ from link to link and exceed the next link's, and the
// offset, which they all reset to one value below the next link's. The
// offset the next link asks for is kept, so no record is skipped.
func widen(next *Request, links []string) *Request {
	if next.Method != "GET" {
		return next
	}
	nu, err := url.Parse(next.URL)
	if err != nil {
		return next
	}
	nq := nu.Query()
	type cand struct {
		size, offset string // the two differing parameters
		sizeV        int
		offV         string
	}
	var cs []cand
	for _, l := range links {
		lu, err := url.Parse(l)
		if err != nil || lu.Scheme != nu.Scheme || lu.Host != nu.Host || lu.Path != nu.Path {
			continue
		}
		lq := queryOf(lu)
		var diff []string
		for k := range lq {
			if lq.Get(k) != nq.Get(k) || !nq.Has(k) {
				diff = append(diff, k)
			}
		}
		for k := range nq {
			if !lq.Has(k) {
				diff = append(diff, k)
			}
		}
		if len(diff) != 2 {
			continue
		}
		for i, k := range diff {
			o := diff[1-i]
			v, err := strconv.Atoi(lq.Get(k))
			s0, err0 := strconv.Atoi(nq.Get(k))
			off, noff := intOr0(lq.Get(o)), intOr0(nq.Get(o))
			if err != nil || err0 != nil || v <= s0 || off >= noff {
				continue
			}
			cs = append(cs, cand{size: k, offset: o, sizeV: v, offV: lq.Get(o)})
		}
	}
	best, seen := -1, map[int]bool{}
	for i, c := range cs {
		if c.size != cs[0].size || c.offset != cs[0].offset || c.offV != cs[0].offV {
			return next // links of another shape: not a page-size choice
		}
		seen[c.sizeV] = true
		if c.sizeV <= maxPageSize && (best < 0 || c.sizeV > cs[best].sizeV) {
			best = i
		}
	}
	if len(seen) < 2 || best < 0 {
		return next
	}
	nq.Set(cs[best].size, strconv.Itoa(cs[best].sizeV))
	nu.RawQuery = nq.Encode()
	w := *next
	w.URL = nu.String()
	w.PageSize = cs[best].sizeV
	return &w
}

// intOr0 reads an offset parameter ("" and non-numbers are 0).
func intOr0(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// numberedButtons counts the submit buttons of f captioned with a number.
func numberedButtons(f *page.Form) int {
	n := 0
	for _, i := range f.Submitters() {
		if captionNumber(f.Fields[i].Value) > 0 {
			n++
		}
	}
	return n
}

func pagerBack(t string) bool { return backWords.MatchString(normCaption(t)) }

func relHasNext(n *html.Node) bool {
	v, ok := attr(n, "rel")
	if !ok {
		return false
	}
	for _, t := range strings.Fields(strings.ToLower(v)) {
		if t == "next" {
			return true
		}
	}
	return false
}

// resolveHref is the canonical http(s) URL of an element's href, "" when
// it has none, it is a fragment or script, or it is the current page.
func resolveHref(base *url.URL, n *html.Node, current string) string {
	href, ok := attr(n, "href")
	if !ok || strings.HasPrefix(strings.TrimSpace(href), "#") {
		return ""
	}
	u, err := canon.Resolve(base, href)
	if err != nil || u == current {
		return ""
	}
	return u
}

func formByID(forms []page.Form, id string) int {
	for i := range forms {
		if forms[i].ID == id {
			return i
		}
	}
	return -1
}

// buttonRequest is the submission of f with the button (tag button or
// input of type typ, named name with value value) as its submitter.
func buttonRequest(f *page.Form, isButton bool, name, value, typ string) *Request {
	sub := page.NoSubmitter
	for i, fl := range f.Fields {
		if fl.Name != name || fl.Value != value {
			continue
		}
		if (isButton && fl.Tag == "button") || (!isButton && fl.Tag == "input" && fl.Type == typ) {
			sub = i
			break
		}
	}
	vals := f.DataSet(sub)
	if sub == page.NoSubmitter && name != "" {
		vals.Set(name, value)
	}
	s, err := f.Submit(vals)
	if err != nil {
		return nil
	}
	r := &Request{Method: s.Method, URL: s.URL, Control: ControlButton}
	if s.Method == "POST" {
		r.Values = vals
	}
	return r
}

// queryOf is a URL's query, read with ";" as a separator as well as "&"
// (CGIs such as ht://Dig's and gitweb's write "a=1;b=2", which url.Query
// drops).
func queryOf(u *url.URL) url.Values {
	v, _ := url.ParseQuery(strings.ReplaceAll(u.RawQuery, ";", "&"))
	return v
}
