package enrich

import (
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/postings"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Match is one local record a hidden record was matched to.
type Match struct {
	Record int
	Score  float64
}

// Matcher is entity resolution between hidden records and the local table:
// it returns the local records a returned hidden record refers to.
type Matcher interface {
	Match(d Doc) []Match
}

// DocText returns the document of a hidden record: the values of columns
// found in its fields (in order), else its searched text (SearchText).
func DocText(d Doc, columns []string) string {
	var b strings.Builder
	for _, c := range columns {
		if v := strings.TrimSpace(d.Fields[c]); v != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(v)
		}
	}
	if b.Len() > 0 {
		return b.String()
	}
	return d.Content()
}

// SearchText is the text a keyword interface searches in a record: its Text
// when the interface returns one (hiddendb's API returns the indexed fields),
// else all its fields but id and url in name order (Doc.Content).
func SearchText(d Doc) string { return d.Content() }

// Jaccard is a similarity join on keyword sets: a hidden record matches
// every local record whose document has Jaccard similarity ≥ Threshold with
// the hidden record's document. Candidates come from prefix filtering: a
// local record within the threshold must contain one of the hidden
// document's |h| − ⌈τ|h|⌉ + 1 rarest keywords; a size filter and an exact
// overlap count verify them.
type Jaccard struct {
	Threshold float64
	// Columns name the hidden fields that form its document (see DocText).
	Columns []string
	local   *Local
	stamp   []int32
	gen     int32
}

// NewJaccard returns a Jaccard matcher against l.
func NewJaccard(l *Local, threshold float64, columns []string) *Jaccard {
	return &Jaccard{Threshold: threshold, Columns: columns, local: l, stamp: make([]int32, l.Len())}
}

// Match implements Matcher. It is not safe for concurrent use.
func (j *Jaccard) Match(d Doc) []Match {
	ts := Terms(DocText(d, j.Columns))
	if len(ts) == 0 {
		return nil
	}
	return j.matchTerms(ts)
}

func (j *Jaccard) matchTerms(ts []string) []Match {
	l := j.local
	n := len(ts)
	known := make([]int32, 0, n)
	for _, t := range ts {
		if id, ok := l.dict.id[t]; ok {
			known = append(known, id)
		}
	}
	unknown := n - len(known)
	tau := j.Threshold
	minOverlap := int(math.Ceil(tau*float64(n) - 1e-9))
	if minOverlap < 1 {
		minOverlap = 1
	}
	if len(known) < minOverlap {
		return nil
	}
	// rarest first; unknown keywords (local frequency 0) take prefix slots
	sort.Slice(known, func(a, b int) bool {
		la, lb := len(l.inv[known[a]]), len(l.inv[known[b]])
		if la != lb {
			return la < lb
		}
		return known[a] < known[b]
	})
	prefix := n - minOverlap + 1 - unknown
	if prefix > len(known) {
		prefix = len(known)
	}
	j.gen++
	if j.gen == math.MaxInt32 {
		for i := range j.stamp {
			j.stamp[i] = 0
		}
		j.gen = 1
	}
	sorted := append([]int32(nil), known...)
	sortIDs(sorted)
	minLen := int(math.Ceil(tau*float64(n) - 1e-9))
	maxLen := int(math.Floor(float64(n)/tau + 1e-9))
	var out []Match
	for _, t := range known[:prefix] {
		for _, r := range l.inv[t] {
			if j.stamp[r] == j.gen {
				continue
			}
			j.stamp[r] = j.gen
			doc := l.terms[r]
			if len(doc) < minLen || len(doc) > maxLen {
				continue
			}
			ov := postings.Count(sorted, doc)
			if s := float64(ov) / float64(n+len(doc)-ov); s >= tau-1e-12 {
				out = append(out, Match{Record: int(r), Score: s})
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		return out[a].Record < out[b].Record
	})
	return out
}

// Exact matches on key columns: a hidden record matches the local records
// whose key (the named columns' values, trimmed and lower-cased, joined)
// equals its own. Score is 1.
type Exact struct {
	// HiddenColumns are the hidden fields forming the key, in order.
	HiddenColumns []string
	keys          map[string][]int
}

// NewExact indexes the local table t by the key columns.
func NewExact(t *Table, columns []string) (*Exact, error) {
	idx, err := t.Columns(columns)
	if err != nil {
		return nil, err
	}
	e := &Exact{HiddenColumns: columns, keys: map[string][]int{}}
	for r, row := range t.Rows {
		parts := make([]string, len(idx))
		for i, c := range idx {
			parts[i] = row[c]
		}
		if k := exactKey(parts); k != "" {
			e.keys[k] = append(e.keys[k], r)
		}
	}
	return e, nil
}

func exactKey(parts []string) string {
	empty := true
	for i, p := range parts {
		parts[i] = strings.ToLower(strings.Join(strings.Fields(p), " "))
		if parts[i] != "" {
			empty = false
		}
	}
	if empty {
		return ""
	}
	return strings.Join(parts, "\x00")
}

// Match implements Matcher.
func (e *Exact) Match(d Doc) []Match {
	parts := make([]string, len(e.HiddenColumns))
	for i, c := range e.HiddenColumns {
		parts[i] = d.Fields[c]
	}
	var out []Match
	for _, r := range e.keys[exactKey(parts)] {
		out = append(out, Match{Record: r, Score: 1})
	}
	return out
}

// MatchSpec is a parsed entity-resolution spec: "jaccard:0.9" (the default) or
// "exact:col1+col2" (exact key columns; "," also separates).
type MatchSpec struct {
	Kind      string // "jaccard" or "exact"
	Threshold float64
	Columns   []string
}

// ParseMatch parses an entity-resolution spec.
func ParseMatch(s string) (MatchSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return MatchSpec{Kind: "jaccard", Threshold: 0.9}, nil
	}
	kind, arg, _ := strings.Cut(s, ":")
	switch strings.ToLower(kind) {
	case "jaccard":
		if arg == "" {
			return MatchSpec{Kind: "jaccard", Threshold: 0.9}, nil
		}
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || v <= 0 || v > 1 {
			return MatchSpec{}, fmt.Errorf("match spec %q: threshold must be a number in (0,1]", s)
		}
		return MatchSpec{Kind: "jaccard", Threshold: v}, nil
	case "exact":
		cols := strings.FieldsFunc(arg, func(r rune) bool { return r == '+' || r == ',' })
		if len(cols) == 0 {
			return MatchSpec{}, fmt.Errorf("match spec %q: name the key columns, e.g. exact:isbn", s)
		}
		return MatchSpec{Kind: "exact", Columns: cols}, nil
	}
	return MatchSpec{}, fmt.Errorf("match spec %q: want jaccard:THRESHOLD or exact:COLUMNS", s)
}

// String renders the spec as ParseMatch reads it.
func (m MatchSpec) String() string {
	if m.Kind == "exact" {
		return "exact:" + strings.Join(m.Columns, "+")
	}
	return "jaccard:" + strconv.FormatFloat(m.Threshold, 'g', -1, 64)
}

// New builds the matcher for the local table t (with documents indexed in
// l); docColumns are the document columns, looked up in hidden fields too.
func (m MatchSpec) New(t *Table, l *Local, docColumns []string) (Matcher, error) {
	if m.Kind == "exact" {
		return NewExact(t, m.Columns)
	}
	th := m.Threshold
	if th == 0 {
		th = 0.9
	}
	return NewJaccard(l, th, docColumns), nil
}
