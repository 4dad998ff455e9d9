package text

import "strings"

// stopList is a conventional English stop-word list (function words,
// pronouns, auxiliaries) plus the web-boilerplate tokens every URL carries.
const stopList = `a about above after again against all am an and any are as at be because been
before being below between both but by can cannot could did do does doing down during each few
for from further had has have having he her here hers herself him himself his how i if in into
is it its itself just let me more most my myself no nor not now of off on once only or other
ought our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up upon very was
we were what when where which while who whom why will with would you your yours yourself
yourselves also may might must shall us via etc per
http https www html htm php asp aspx jsp cgi index`

var stopSet = func() map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(stopList) {
		m[w] = struct{}{}
	}
	return m
}()

// IsStop reports whether the lower-case token w is a stop word.
func IsStop(w string) bool {
	_, ok := stopSet[w]
	return ok
}

// StopWords returns the stop-word list, in no particular order.
func StopWords() []string {
	out := make([]string, 0, len(stopSet))
	for w := range stopSet {
		out = append(out, w)
	}
	return out
}
