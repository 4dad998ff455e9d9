package surface

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// maxPageSize bounds the page size a harvest asks for: a bigger page costs
// the site more per request than a crawler should ask at once.
const maxPageSize = 1000

// pageSizeWords are names and labels of a results-per-page control.
var pageSizeWords = regexp.MustCompile(`(?i)(per.?page|page.?size|results|matches|hits|rows|limit|^max$|^num$|^n$|^ps$|^rpp$|^count$|^show$|^display$|^size$|^lines$)`)

// roundSizes are the page sizes sites offer.
var roundSizes = map[int]bool{5: true, 10: true, 15: true, 20: true, 25: true, 30: true, 40: true, 50: true, 60: true,
	75: true, 100: true, 150: true, 200: true, 250: true, 300: true, 500: true, 1000: true}

// PageSizeControl finds the form's results-per-page select, the control a
// person sets to read more records per page: a select whose options are
// all counts up to maxPageSize, at least one of 20 or more, named or
// labelled as a page size or offering only the round sizes sites offer
// (10, 20, 50, 100). It returns the field's index and the largest value to
// ask for (-1, "" when the form has none). Asking for the largest page
// reads a query's matches in fewer requests and past pagers that link
// only the first pages (twenty pages of ten).
func PageSizeControl(f *page.Form) (int, string) {
	for i, fl := range f.Fields {
		if fl.Tag != "select" || fl.Type == "select-multiple" || fl.Name == "" || fl.Disabled || len(fl.Options) < 2 {
			continue
		}
		best, bestV, round := 0, "", true
		ok := true
		for _, o := range fl.Options {
			n, err := strconv.Atoi(strings.TrimSpace(o.Value))
			if err != nil || n < 1 || n > maxPageSize {
				ok = false
				break
			}
			if !roundSizes[n] {
				round = false
			}
			if n > best {
				best, bestV = n, o.Value
			}
		}
		if !ok || best < 20 {
			continue
		}
		if round || pageSizeWords.MatchString(fl.Name) || pageSizeWords.MatchString(fl.Label) {
			return i, bestV
		}
	}
	return -1, ""
}
