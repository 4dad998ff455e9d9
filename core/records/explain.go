package records

import (
	"bytes"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Candidate is a repeated region of a result page that Extract weighed as
// the records: where it is, how many items, its score and whether it lies
// in the page's navigation or furniture.
type Candidate struct {
	Wrapper Wrapper `json:"wrapper"`
	Items   int     `json:"items"`
	Score   float64 `json:"score"`
	// Nav is set for a region inside navigation, a header, a footer, a
	// sidebar or a pager (its score is cut).
	Nav bool `json:"nav,omitempty"`
}

// Candidates returns the n best-scored repeated regions of a result page,
// best first, as Extract weighs them for query (without the form page's
// template): what a person reads to see why no region, or the wrong one,
// was taken.
func Candidates(body []byte, base *url.URL, query string, n int) ([]Candidate, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("records: parse %s: %w", base, err)
	}
	found := mine(build(doc))
	q := newEcho(query)
	for _, r := range found {
		r.evaluate(base, q, nil)
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	var out []Candidate
	for _, r := range found[:min(n, len(found))] {
		out = append(out, Candidate{Wrapper: Wrapper{Parent: r.parentPath, Item: r.shape, Classes: r.classes, Pattern: r.pattern},
			Items: len(r.items), Score: r.score, Nav: r.nav})
	}
	return out, nil
}

// NoNextReason says why a result page (number pageNum, 0 unknown) offers
// no next page as Extract looks for one: what controls it checked for and
// what pager-like controls the page holds instead, e.g. "no link with
// rel=next, no link or button captioned next (next, more, », …), no link
// numbered 2, no links to this page stepping one parameter with the page;
// the page has 31 links, numbered links 1, 3; 2 submit buttons".
func NoNextReason(body []byte, base *url.URL, pageNum int) string {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return "the page cannot be parsed: " + err.Error()
	}
	current := base.String()
	links, buttons := 0, 0
	var numbers, back []string
	seenNum := map[int]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || skipped[c.DataAtom] {
				continue
			}
			switch c.DataAtom {
			case atom.A:
				if resolveHref(base, c, current) == "" {
					break
				}
				links++
				t := linkCaption(c)
				if k := captionNumber(t); k > 0 && !seenNum[k] && len(numbers) < 12 {
					seenNum[k] = true
					numbers = append(numbers, strconv.Itoa(k))
				} else if pagerBack(t) && len(back) < 4 {
					back = append(back, strconvQuote(t))
				}
			case atom.Input, atom.Button:
				typ, _ := attr(c, "type")
				typ = strings.ToLower(typ)
				if c.DataAtom == atom.Input && (typ == "submit" || typ == "image") || c.DataAtom == atom.Button && (typ == "" || typ == "submit") {
					buttons++
				}
			}
			walk(c)
		}
	}
	walk(doc)
	want := "the following page number"
	if pageNum > 0 {
		want = strconv.Itoa(pageNum + 1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no link with rel=next, no link or button captioned next (next, more, older, », …), no link or button numbered %s, no links to this page stepping one parameter with the page", want)
	fmt.Fprintf(&b, "; the page has %d links", links)
	if len(numbers) > 0 {
		fmt.Fprintf(&b, ", links numbered %s", strings.Join(numbers, ", "))
	}
	if len(back) > 0 {
		fmt.Fprintf(&b, ", links back (%s)", strings.Join(back, ", "))
	}
	fmt.Fprintf(&b, ", %d submit buttons", buttons)
	return b.String()
}

func strconvQuote(s string) string {
	if len(s) > 30 {
		s = s[:30]
	}
	return strconv.Quote(s)
}
