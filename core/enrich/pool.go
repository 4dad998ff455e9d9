package enrich

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/postings"
	"sort"

	"github.com/dwcrawl/dwcrawl/core/enrich/fpgrowth"
)

// Local is the local table D prepared for crawling: each record's document
// as a set of keyword ids, and the inverted index keyword → records.
type Local struct {
	// Docs holds each record's document text.
	Docs  []string
	dict  *dict
	terms [][]int32 // record -> ascending distinct term ids
	inv   [][]int32 // term -> ascending record ids
}

// NewLocal indexes the documents of the local table.
func NewLocal(docs []string) *Local {
	l := &Local{Docs: docs, dict: newDict(), terms: make([][]int32, len(docs))}
	for i, d := range docs {
		l.terms[i] = l.dict.ids(d)
	}
	l.inv = make([][]int32, len(l.dict.term))
	for i, ts := range l.terms {
		for _, t := range ts {
			l.inv[t] = append(l.inv[t], int32(i))
		}
	}
	return l
}

// Len is the number of local records.
func (l *Local) Len() int { return len(l.Docs) }

// match returns q(D): the records containing every term of q (ascending).
// It scans the rarest term's list and checks each record's own term set,
// which costs |rarest list| · |document| instead of the sum of the lists.
func (l *Local) match(q []int32) []int32 {
	if len(q) == 0 {
		return nil
	}
	best := q[0]
	for _, t := range q[1:] {
		if len(l.inv[t]) < len(l.inv[best]) {
			best = t
		}
	}
	if len(q) == 1 {
		return append([]int32(nil), l.inv[best]...)
	}
	return l.matchInto(nil, q, best)
}

func (l *Local) matchInto(dst []int32, q []int32, best int32) []int32 {
	for _, r := range l.inv[best] {
		if containsAll(l.terms[r], q) {
			dst = append(dst, r)
		}
	}
	return dst
}

// arena hands out int32 slices carved from large chunks, so that a pool of
// a million queries does not make a million small allocations.
type arena struct{ buf []int32 }

func (a *arena) copy(s []int32) []int32 {
	if len(s) > cap(a.buf)-len(a.buf) {
		n := 1 << 20
		if len(s) > n {
			n = len(s)
		}
		a.buf = make([]int32, 0, n)
	}
	start := len(a.buf)
	a.buf = append(a.buf, s...)
	return a.buf[start:len(a.buf):len(a.buf)]
}

// QueryKind tells where a pool query comes from.
type QueryKind uint8

const (
	// Specific is a record's own query: every keyword of its document.
	Specific QueryKind = iota
	// Frequent is a closed keyword set with local support ≥ t.
	Frequent
)

// String names the kind.
func (k QueryKind) String() string {
	if k == Specific {
		return "specific"
	}
	return "frequent"
}

// Query is one query of the pool. Its text is Pool.Text.
type Query struct {
	Kind QueryKind
	// Support is |q(D)|, the local records matching every keyword.
	Support int
	terms   []int32
	recs    []int32 // q(D), ascending
}

// PoolStats describes a query pool.
type PoolStats struct {
	Records  int `json:"records"`
	Terms    int `json:"terms"`
	Specific int `json:"specific"` // distinct specific queries kept
	Frequent int `json:"frequent"` // closed frequent keyword sets kept
	// Mined is the number of keyword sets FP-growth returned.
	Mined int `json:"mined"`
	// Dominated counts the mined sets removed because a proper superset
	// matches the same local records (the superset is kept instead).
	Dominated int `json:"dominated"`
	// Duplicates counts records whose specific query equals another's.
	Duplicates int `json:"duplicates"`
	// Postings is Σ|q(D)|, the size of the forward index.
	Postings int `json:"postings"`
}

// Pool is the query pool of a local table.
type Pool struct {
	Queries []Query
	Stats   PoolStats
	local   *Local
	// specific[r] is the pool index of record r's specific query (-1 when
	// its document has no keyword).
	specific []int32
	arena    arena
	index    map[uint64]int32 // while building: keyword-set hash -> query
	slow     map[string]int32 // hash collisions
}

// PoolOptions configures BuildPool.
type PoolOptions struct {
	// MinSupport is t: keyword sets must match at least t local records
	// (default 2).
	MinSupport int
	// MinTermLen drops keywords shorter than this many characters from
	// frequent-set mining (default 2: initials and single letters only make
	// noisy sets). Specific queries keep every keyword.
	MinTermLen int
	// Limit caps the number of mined keyword sets (0: 5,000,000); exceeding
	// it is an error suggesting a larger MinSupport.
	Limit int
	// NoFrequent builds the specific queries only (NaiveCrawl's pool).
	NoFrequent bool
}

// WithDefaults returns o with the defaults filled in.
func (o PoolOptions) WithDefaults() PoolOptions {
	o.defaults()
	return o
}

func (o *PoolOptions) defaults() {
	if o.MinSupport <= 0 {
		o.MinSupport = 2
	}
	if o.MinTermLen <= 0 {
		o.MinTermLen = 2
	}
	if o.Limit <= 0 {
		o.Limit = 5_000_000
	}
}

// BuildPool builds the query pool of l: one specific query per record and
// the closed keyword sets with support ≥ MinSupport; dominated queries are
// replaced by the superset that dominates them.
func BuildPool(l *Local, opt PoolOptions) (*Pool, error) {
	opt.defaults()
	p := &Pool{local: l, specific: make([]int32, l.Len()), index: make(map[uint64]int32, 2*l.Len()),
		Queries: make([]Query, 0, 4*l.Len())}
	p.Stats.Records = l.Len()
	p.Stats.Terms = len(l.dict.term)
	for r, ts := range l.terms {
		p.specific[r] = -1
		if len(ts) == 0 {
			continue
		}
		i, isNew := p.add(ts, Specific, nil, l)
		p.specific[r] = i
		if !isNew {
			p.Stats.Duplicates++
		}
	}
	p.Stats.Specific = len(p.Queries)
	if opt.NoFrequent {
		return p, nil
	}
	tx := make([][]int32, l.Len())
	for r, ts := range l.terms {
		for _, t := range ts {
			if l.dict.long(t, opt.MinTermLen) {
				tx[r] = append(tx[r], t)
			}
		}
	}
	var recBuf, closBuf, tmp, sorted []int32
	err := fpgrowth.Each(tx, fpgrowth.Options{MinSupport: opt.MinSupport, Merge: true, Limit: opt.Limit}, func(items []int32, support int) bool {
		p.Stats.Mined++
		sorted = append(sorted[:0], items...)
		sortIDs(sorted)
		best := sorted[0]
		for _, t := range sorted[1:] {
			if len(l.inv[t]) < len(l.inv[best]) {
				best = t
			}
		}
		// q(D): scan the rarest keyword's records, stop at the support
		recBuf = recBuf[:0]
		for _, r := range l.inv[best] {
			if containsAll(l.terms[r], sorted) {
				recBuf = append(recBuf, r)
				if len(recBuf) == support {
					break
				}
			}
		}
		// A set is dominated by its closure over all keywords (mining skips
		// the short ones, and merged sets may be non-closed) when that is
		// larger: same q(D), fewer hidden matches. The closure may also be
		// a pool query already.
		closBuf = append(closBuf[:0], l.terms[recBuf[0]]...)
		for _, r := range recBuf[1:] {
			tmp = postings.Intersect(tmp, closBuf, l.terms[r])
			closBuf, tmp = tmp, closBuf
		}
		if _, isNew := p.add(closBuf, Frequent, recBuf, l); !isNew || len(closBuf) != len(sorted) {
			p.Stats.Dominated++
		}
		return true
	})
	if errors.Is(err, fpgrowth.ErrLimit) {
		return nil, fmt.Errorf("enrich: query pool: more than %d keyword sets with support ≥ %d: raise the minimum support: %w", opt.Limit, opt.MinSupport, err)
	}
	if err != nil {
		return nil, fmt.Errorf("enrich: query pool: %w", err)
	}
	p.Stats.Frequent = len(p.Queries) - p.Stats.Specific
	p.index, p.slow = nil, nil
	return p, nil
}

// add appends a query unless one with the same keywords exists; terms and
// recs are copied (recs nil: computed).
func (p *Pool) add(terms []int32, kind QueryKind, recs []int32, l *Local) (int32, bool) {
	h := hashIDs(terms)
	if i, ok := p.index[h]; ok {
		if equalIDs(p.Queries[i].terms, terms) {
			return i, false
		}
		// hash collision: exact map
		if p.slow == nil {
			p.slow = map[string]int32{}
		}
		key := string(keyOf(nil, terms))
		if j, ok := p.slow[key]; ok {
			return j, false
		}
		i := int32(len(p.Queries))
		p.slow[key] = i
		return p.push(terms, kind, recs, l), true
	}
	p.index[h] = int32(len(p.Queries))
	return p.push(terms, kind, recs, l), true
}

func (p *Pool) push(terms []int32, kind QueryKind, recs []int32, l *Local) int32 {
	if recs == nil {
		recs = l.match(terms)
	} else {
		recs = p.arena.copy(recs)
	}
	i := int32(len(p.Queries))
	p.Queries = append(p.Queries, Query{Kind: kind, Support: len(recs), terms: p.arena.copy(terms), recs: recs})
	p.Stats.Postings += len(recs)
	return i
}

func hashIDs(ids []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, id := range ids {
		h ^= uint64(uint32(id))
		h *= 1099511628211
		h ^= h >> 29
	}
	return h ^ uint64(len(ids))
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Text returns the query string of query i (keywords separated by spaces).
func (p *Pool) Text(i int) string { return p.local.dict.text(p.Queries[i].terms) }

func keyOf(b []byte, ids []int32) []byte {
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	return b
}

// Len is the number of queries.
func (p *Pool) Len() int { return len(p.Queries) }

// Local returns the local table the pool was built from.
func (p *Pool) Local() *Local { return p.local }

// Records returns q(D) of query i in the original local table.
func (p *Pool) Records(i int) []int32 { return p.Queries[i].recs }

// Keywords returns the keywords of query i.
func (p *Pool) Keywords(i int) []string { return p.local.dict.words(p.Queries[i].terms) }

// SpecificQuery returns the pool index of record r's specific query, or -1.
func (p *Pool) SpecificQuery(r int) int { return int(p.specific[r]) }

// Top returns the indices of the n queries with the largest support, for
// reports.
func (p *Pool) Top(n int, kind QueryKind) []int {
	var idx []int
	for i, q := range p.Queries {
		if q.Kind == kind {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p.Queries[idx[a]].Support > p.Queries[idx[b]].Support })
	if len(idx) > n {
		idx = idx[:n]
	}
	return idx
}
