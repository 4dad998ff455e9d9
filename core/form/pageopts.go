package form

import (
	"regexp"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// Page-options forms change how a site or a listing is shown — its
// language, theme, columns, grouping, which namespace or range of a list
// — or jump to a section; they query no hidden database, though their
// GET shape and choice controls look like a search form's to the SFC.
// The rules below recognise them by what their controls are for, never
// by the application that serves them, and only when the form says
// nothing about searching ([saysSearch]).

// gPrefs are the words of a reader's preferences for the whole site:
// language, locale, theme, skin, style sheet, character set, currency.
var gPrefs = group("prefs",
	"lang lng langid language languages locale locales hl theme themes themeid skin skins skinid "+
		"style styles styleid stylesheet charset encoding currency "+
		"sprache langue idioma lingua язык 言語 语言 語言 언어",
	"language locale stylesheet")

// gLayout are the words of how a listing is laid out: which columns,
// grouped how, shown as what.
var gLayout = group("layout",
	"column columns cols display layout view views group groupby grouping",
	"column layout")

// gOrdering are the words of a listing's order and length. On their own
// they do not make a form page options: the Formasaurus annotators call
// a lone "Sort by" select a search form as often as not; beside a
// preference or layout control they do.
var gOrdering = group("ordering",
	"sort sortby sorting order orderby ordering dir direction asc desc limit per perpage pagesize show hide invert",
	"sort perpage pagesize")

// gBound are the words of a range bound of a listing ("from", "to",
// "starting at"): a box named so picks where a list starts, not what it
// holds, when its label says it is about display.
var gBound = group("bound", "from to start end begin until since after before first last min max", "")

// Choice kinds of a control name: what the controls of that name are for.
const (
	choiceOther  = iota // narrows the records, as far as words tell
	choiceWeak          // order or length of a listing
	choiceStrong        // a site preference or a listing's layout
)

// pageOptions returns why f is a page-options or navigation form and not
// a query, or "" when it is not one.
func pageOptions(a *analysis) string {
	if optionsOnly(a) {
		return "display options: only choices and count boxes, no search words of its own"
	}
	if saysSearch(a, false) {
		return ""
	}
	switch {
	case viewPanel(a):
		return "page options: its choices set the language, theme or layout of the page, nothing to type a query into"
	case filterPanel(a):
		return "page options: its only boxes are filters or range bounds of a listing beside option controls, none reads like a query"
	case jumpMenu(a.f):
		return "navigation: one select of site sections with their sizes"
	}
	return ""
}

// named returns the fields of f a user sets and the browser submits:
// visible, enabled and named (an unnamed control submits nothing; it
// drives a script).
func named(f *page.Form) []*page.Field {
	var out []*page.Field
	for i := range f.Fields {
		fd := &f.Fields[i]
		switch strings.ToLower(fd.Type) {
		case "hidden", "submit", "button", "reset", "image":
			continue
		}
		if fd.Name != "" && !fd.Disabled {
			out = append(out, fd)
		}
	}
	return out
}

// isChoice reports whether fd is chosen rather than typed.
func isChoice(fd *page.Field) bool {
	switch strings.ToLower(fd.Type) {
	case "checkbox", "radio", "select-one", "select-multiple":
		return true
	}
	return strings.EqualFold(fd.Tag, "select")
}

// choiceKind says what one control is for, from the words of its name,
// id and label (less link text) and, for a select, from its options.
func choiceKind(fd *page.Field, links []string) int {
	toks := append(tokenize(fd.Name+" "+fd.ID), without(tokenize(fd.Label), links)...)
	kind := choiceOther
	for _, t := range toks {
		switch {
		case gPrefs.match(t) || gLayout.match(t):
			return choiceStrong
		case gOrdering.match(t):
			kind = choiceWeak
		}
	}
	if languageSelect(fd) {
		return choiceStrong
	}
	return kind
}

// viewPanel reports whether f's controls set how the page is shown: no
// box to type into (a count box aside), at least one site-preference or
// layout control, and the controls for order, length, preference or
// layout at least twice as many as the others (by name: a group of
// checkboxes sharing a name is one control). A language or theme
// selector, a list's column and grouping choices, an export's column and
// encoding choices are such panels; a car search by make and model is not.
func viewPanel(a *analysis) bool {
	links := tokenize(a.f.LinkText)
	kinds := map[string]int{}
	for _, fd := range named(a.f) {
		if !isChoice(fd) {
			if !countBox(fd, links) {
				return false
			}
			continue
		}
		// a name's kind is the strongest of its controls': a list's
		// column select and the column checkboxes beside it share one
		kinds[fd.Name] = max(kinds[fd.Name], choiceKind(fd, links))
	}
	strong, shown, other := 0, 0, 0
	for _, k := range kinds {
		switch k {
		case choiceStrong:
			strong++
			shown++
		case choiceWeak:
			shown++
		default:
			other++
		}
	}
	return strong > 0 && shown >= 2*other
}

// filterPanel reports whether f's boxes only narrow a listing already on
// the page: every box is a filter box (named or labelled "filter"), a
// count box, or a range bound whose label speaks of display ("Display
// pages starting at"); no box reads like a query ([searchName], search or
// query words in its label or placeholder); and at least two choice
// controls, as many as the boxes, sit beside them. A recent-changes
// form's tag filter beside its namespace select and toggles, or a page
// index's from/to bounds, are such panels; a flight search's from/to
// boxes, labelled with no display word, are not.
func filterPanel(a *analysis) bool {
	links := tokenize(a.f.LinkText)
	boxes, choices := 0, 0
	for _, fd := range named(a.f) {
		if isChoice(fd) {
			choices++
			continue
		}
		typ := strings.ToLower(fd.Type)
		if !isTextType(typ) && typ != "number" {
			return false
		}
		if queryLike(fd, links) || !(countBox(fd, links) || filterBox(fd, links) || boundBox(fd, links)) {
			return false
		}
		boxes++
	}
	return boxes > 0 && choices >= 2 && choices >= boxes
}

// queryLike reports whether a box reads like a keyword box: its name is a
// search name, or its label or placeholder holds a search or query word.
func queryLike(fd *page.Field, links []string) bool {
	if searchName(fd.Name) || searchName(fd.ID) {
		return true
	}
	for _, t := range append(tokenize(fd.Placeholder), without(tokenize(fd.Label), links)...) {
		if gSearch.match(t) || gQuery.match(t) {
			return true
		}
	}
	return false
}

// filterBox reports whether a box is named or labelled a filter.
func filterBox(fd *page.Field, links []string) bool {
	for _, t := range append(tokenize(fd.Name+" "+fd.ID), without(tokenize(fd.Label), links)...) {
		if strings.Contains(t, "filter") {
			return true
		}
	}
	return false
}

// boundBox reports whether a box is a listing's range bound: its name is
// made of bound words only and its label says it is about display.
func boundBox(fd *page.Field, links []string) bool {
	name := tokenize(fd.Name)
	if len(name) == 0 {
		return false
	}
	for _, t := range name {
		if !gBound.match(t) {
			return false
		}
	}
	for _, t := range without(tokenize(fd.Label), links) {
		if gLayout.match(t) || gOrdering.match(t) {
			return true
		}
	}
	return false
}

// sizedOption matches an option that ends in a count, "Books (833)": a
// section listed with the number of its entries.
var sizedOption = regexp.MustCompile(`\(\s*\d[\d,.\s]*\)\s*$`)

// jumpMenu reports whether f is a jump menu to the site's sections: its
// one control is a select of at least three options, most of them
// sections with their sizes ("Conference papers (1,390)"). The reader
// picks a section to browse; the database is not queried, its table of
// contents is shown.
func jumpMenu(f *page.Form) bool {
	fs := named(f)
	if len(fs) != 1 || !strings.EqualFold(fs[0].Tag, "select") || len(fs[0].Options) < 3 {
		return false
	}
	sized := 0
	for _, o := range fs[0].Options {
		if sizedOption.MatchString(o.Text) {
			sized++
		}
	}
	// the first option is often a placeholder ("Select Category")
	return 2*sized >= len(fs[0].Options)-1
}
