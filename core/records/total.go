package records

import (
	"regexp"
	"strconv"
	"strings"
)

// num is a count as pages print it: 2917, 2,917, 2.917 or 2 917.
const num = `(\d{1,3}(?:[,.\x{a0}\x{202f} ]\d{3})+|\d+)`

// qualifier is the hedge some sites put before a count.
const qualifier = `(?:about|approximately|approx\.?|around|over|more than|exactly|nearly|ca\.?|~)?\s*`

// countNouns are what a result count counts.
const countNouns = `(?:results?|matches|match|hits|records|documents|entries|items|articles|posts|pages|listings|products|titles|books|jobs|vehicles|cars|properties|papers|publications|treffer|ergebnisse|résultats|resultados|risultati)`

var (
	// "1–20 of 2,917", "Results 1 - 10 of 3881", "1-10 of exactly 599 matches"
	rangeOf = regexp.MustCompile(`(?i)\b\d[\d,.]*\s*(?:-|–|—|to|bis|à)\s*\d[\d,.]*\s+(?:of|from|out of|von|de|sur|di|van)\s+` + qualifier + num)
	// "About 599 results", "We found 1788 results", "2,917 matches found"
	countNoun = regexp.MustCompile(`(?i)(?:^|[^\w.,])` + qualifier + num + `\s+` + countNouns + `\b`)
	// "Results: 120", "Total: 120", "found 1788", "Treffer: 12"
	nounCount = regexp.MustCompile(`(?i)\b(?:results?|matches|hits|total|found|treffer|résultats)\s*:?\s+` + qualifier + num + `\b`)
	// "Results (115)", "(1-10/115)"
	nounParen  = regexp.MustCompile(`(?i)\b(?:results?|matches|hits|found|treffer|résultats)\s*\(\s*` + num + `\s*\)`)
	rangeSlash = regexp.MustCompile(`\(\s*\d[\d,.]*\s*(?:-|–)\s*\d[\d,.]*\s*/\s*` + num + `\s*\)`)
	// a count of the whole collection, not of a query's matches: "this
	// index contains 2,000 documents", "the database holds 3,881 records"
	siteCount = regexp.MustCompile(`(?i)\b(?:index|database|collection|archive|catalog(?:ue)?|library|site|corpus)\s+(?:now\s+)?(?:contains|has|holds|includes|comprises)\s*$|\b(?:indexed|in\s+(?:the|this|our)\s+(?:index|database|collection))\s*:?\s*$`)
)

// noResults are the phrases of a page saying that nothing matched.
var noResults = regexp.MustCompile(`(?i)\b(?:no\s+(?:\w+\s+){0,2}(?:results?|matches|documents|records|entries|items|hits|posts|pages|articles|products)\b` +
	`|nothing\s+(?:was\s+)?(?:found|matched)|did\s*(?:n't|not)\s+match\s+any|0\s+(?:results|matches|hits|records|documents|items)\b` +
	`|(?:your|the)\s+search\s+(?:\w+\s+){0,3}(?:returned|produced|yielded)\s+no\b|keine\s+(?:ergebnisse|treffer)|aucun\s+résultat|sin\s+resultados|nessun\s+risultato)`)

// parseCount reads a count, its thousands separators removed.
func parseCount(s string) (int, bool) {
	s = strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	if s == "" || len(s) > 12 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// Count is a number of results a page states, with the phrase it was read
// from.
type Count struct {
	N    int    `json:"n"`
	Text string `json:"text"`
	// Site is set for a count of the whole collection, not of the
	// query's matches.
	Site bool `json:"site,omitempty"`
}

// CountsIn returns every number of results the text states, ranges
// ("a–b of N") first, then bare counts, each in text order.
// Counts of the whole collection ("this index contains 2,000 documents")
// come last.
func CountsIn(text string) []Count {
	var out, site []Count
	seen := map[int]bool{}
	for _, re := range []*regexp.Regexp{rangeOf, rangeSlash, nounParen, countNoun, nounCount} {
		for _, m := range re.FindAllStringSubmatchIndex(text, 8) {
			n, ok := parseCount(text[m[2]:m[3]])
			if !ok || seen[n] {
				continue
			}
			seen[n] = true
			c := Count{N: n, Text: strings.TrimSpace(text[m[0]:m[1]])}
			if siteCount.MatchString(text[max(0, m[0]-40):m[0]]) {
				c.Site = true
				site = append(site, c)
			} else {
				out = append(out, c)
			}
		}
	}
	return append(out, site...)
}

// findTotal returns the number of results the text states and the phrase
// it comes from, -1 when it states none. A range "a–b of N" wins over a
// bare "N results".
func findTotal(text string) (int, string) {
	for _, re := range []*regexp.Regexp{rangeOf, rangeSlash, nounParen, countNoun, nounCount} {
		if m := re.FindStringSubmatchIndex(text); m != nil {
			if n, ok := parseCount(text[m[2]:m[3]]); ok {
				return n, strings.TrimSpace(text[m[0]:m[1]])
			}
		}
	}
	return -1, ""
}

// saysNoResults returns the phrase of text that says nothing matched, "" if
// none does.
func saysNoResults(text string) string {
	return noResults.FindString(text)
}
