package enrich

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// Terms returns the distinct keywords of s as a conjunctive keyword
// interface reads them: text.Tokenize (lower case, letter/digit runs), stop
// words dropped, no stemming (most sites do not stem, and a stemmed keyword
// would not match), in order of first occurrence.
func Terms(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range text.Tokenize(s) {
		if text.IsStop(t) || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// QueryText renders keywords as a query string (space separated).
func QueryText(terms []string) string { return strings.Join(terms, " ") }

// dict numbers terms.
type dict struct {
	id   map[string]int32
	term []string
}

func newDict() *dict { return &dict{id: map[string]int32{}} }

func (d *dict) add(t string) int32 {
	if i, ok := d.id[t]; ok {
		return i
	}
	i := int32(len(d.term))
	d.id[t] = i
	d.term = append(d.term, t)
	return i
}

// ids returns the sorted distinct term ids of s, adding unknown terms.
func (d *dict) ids(s string) []int32 {
	ts := Terms(s)
	out := make([]int32, len(ts))
	for i, t := range ts {
		out[i] = d.add(t)
	}
	sortIDs(out)
	return out
}

// lookup returns the sorted distinct ids of s's known terms and whether all
// of its terms are known.
func (d *dict) lookup(s string) ([]int32, bool) {
	ts := Terms(s)
	out := make([]int32, 0, len(ts))
	all := true
	for _, t := range ts {
		if i, ok := d.id[t]; ok {
			out = append(out, i)
		} else {
			all = false
		}
	}
	sortIDs(out)
	return out, all
}

func (d *dict) text(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = d.term[id]
	}
	return strings.Join(parts, " ")
}

func (d *dict) words(ids []int32) []string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = d.term[id]
	}
	return parts
}

func (d *dict) long(id int32, minLen int) bool {
	return utf8.RuneCountInString(d.term[id]) >= minLen
}

func sortIDs(a []int32) { sort.Slice(a, func(i, j int) bool { return a[i] < a[j] }) }

// containsAll reports whether the ascending set doc holds every id of q
// (ascending).
func containsAll(doc, q []int32) bool {
	j := 0
	for _, x := range q {
		for j < len(doc) && doc[j] < x {
			j++
		}
		if j == len(doc) || doc[j] != x {
			return false
		}
		j++
	}
	return true
}
