package form

import (
	"strings"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// gCount are the words that make a text box a count or a position in a
// listing (how many rows, which page): "n", "max", "per_page", "Show … per
// page". A box named so sets how a listing is shown, not which records.
var gCount = group("count",
	"n num max limit count rows offset page pg per pp perpage pagesize results items entries show display",
	"pagesize perpage maxresults maxrows numresults")

// countBox reports whether a text-like control is a count box: its name,
// or its label, is made of count words only ("n", "limit", "per_page",
// "Max:"), and it is not wide enough for words (size at most
// maxCountSize: "n" may also stand for "name" in a box forty wide).
// Being numeric is not enough: a numeric box named for what it constrains
// ("minimum_price", "year", "days") narrows the records, and the real
// forms of Formasaurus label such price-range and date boxes search forms.
func countBox(fd *page.Field, links []string) bool {
	if fd.Size > maxCountSize {
		return false
	}
	return allCount(tokenize(fd.Name)) || allCount(without(tokenize(fd.Label), links))
}

// maxCountSize is the widest box (size attribute) taken for a count: a
// count has a few digits; browsers show 20 characters when size is unset.
const maxCountSize = 8

// allCount reports whether toks are all count words (and there is one).
func allCount(toks []string) bool {
	for _, t := range toks {
		if !gCount.match(t) {
			return false
		}
	}
	return len(toks) > 0
}

// optionsOnly reports whether f is a display-options form: it has at
// least one count box ([countBox]) and no other box to type into (text,
// search, number, textarea), and none of its own words say "search" — its
// action, names, id/class, captions, placeholders, labels and text, not
// counting the text of links inside it (a "Search" link leads to the
// search form; it does not make this one). Such a form sets how many rows
// and which kinds of a listing to show (a timeline's "Max" and type
// select, a "per page" box beside sort selects); it queries nothing.
func optionsOnly(a *analysis) bool {
	f := a.f
	links := tokenize(f.LinkText)
	counts := 0
	for i := range f.Fields {
		fd := &f.Fields[i]
		typ := strings.ToLower(fd.Type)
		switch {
		case typ == "textarea":
			return false
		case isTextType(typ) || typ == "number" || typ == "range":
			if !countBox(fd, links) {
				return false
			}
			counts++
		}
	}
	return counts > 0 && !saysSearch(a, true)
}

// saysSearch reports whether a search word is among f's own words: its
// action, field names, captions, placeholders, labels, values and text
// (less the text of the links inside it), and with hidden its hidden
// fields and its id/name/class too. A page-options rule must never
// overrule a form that says it searches.
func saysSearch(a *analysis, hidden bool) bool {
	f, v := a.f, a.v
	links := tokenize(f.LinkText)
	own := [][]string{v.action, v.names, v.captions, without(v.words, links)}
	if hidden {
		own = append(own, v.hiddenNames, v.attrs)
	}
	for i := range f.Fields {
		// A label found in the nearby text may be the text of a link.
		fd := &f.Fields[i]
		if !hidden && strings.EqualFold(fd.Type, "hidden") {
			continue
		}
		own = append(own, tokenize(fd.Placeholder+" "+fd.Value), without(tokenize(fd.Label), links))
	}
	for _, toks := range own {
		for _, t := range toks {
			if gSearch.match(t) {
				return true
			}
		}
	}
	return false
}

// without returns toks less one occurrence of each token of drop.
func without(toks, drop []string) []string {
	if len(drop) == 0 {
		return toks
	}
	n := make(map[string]int, len(drop))
	for _, t := range drop {
		n[t]++
	}
	var out []string
	for _, t := range toks {
		if n[t] > 0 {
			n[t]--
			continue
		}
		out = append(out, t)
	}
	return out
}
