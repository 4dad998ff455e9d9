package hiddendb

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// Record is one row of a hidden database.
type Record struct {
	ID     string
	Fields map[string]string
	// Order is the display order of Fields; fields missing from it are shown
	// after, sorted by name.
	Order []string
}

// Options configures a DB. Zero values take the documented defaults.
type Options struct {
	// K is the result limit: no query returns more than its top K (default 100).
	K int
	// PageSize is the number of results per page (default 10).
	PageSize int
	// IndexFields are the searchable fields; nil means every field of the
	// record except "id".
	IndexFields []string
	// ShowTotal makes the HTTP interfaces report the exact match count; many
	// real sites hide it.
	ShowTotal bool
	// Seed fixes the query-independent ranking.
	Seed int64
}

// DB is an immutable, concurrency-safe keyword-searchable record set.
type DB struct {
	opt    Options
	recs   []Record
	byID   map[string]int
	rankOf []int32            // record index -> rank position (0 = best)
	atRank []int32            // rank position -> record index
	post   map[string][]int32 // term -> ascending rank positions
}

// New indexes recs. Records keep their slice positions as indices.
func New(recs []Record, opt Options) *DB {
	if opt.K <= 0 {
		opt.K = 100
	}
	if opt.PageSize <= 0 {
		opt.PageSize = 10
	}
	db := &DB{opt: opt, recs: recs, byID: make(map[string]int, len(recs)), post: make(map[string][]int32)}
	n := len(recs)
	type keyed struct {
		h uint64
		i int
	}
	ks := make([]keyed, n)
	for i, r := range recs {
		db.byID[r.ID] = i
		ks[i] = keyed{rankHash(opt.Seed, r.ID), i}
	}
	sort.Slice(ks, func(a, b int) bool {
		if ks[a].h != ks[b].h {
			return ks[a].h < ks[b].h
		}
		return ks[a].i < ks[b].i
	})
	db.rankOf = make([]int32, n)
	db.atRank = make([]int32, n)
	for pos, k := range ks {
		db.rankOf[k.i] = int32(pos)
		db.atRank[pos] = int32(k.i)
	}
	for pos := 0; pos < n; pos++ {
		seen := map[string]bool{}
		for _, t := range db.terms(recs[db.atRank[pos]]) {
			if !seen[t] {
				seen[t] = true
				db.post[t] = append(db.post[t], int32(pos))
			}
		}
	}
	return db
}

func rankHash(seed int64, id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatInt(seed, 10)))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return h.Sum64()
}

// terms are the index terms of a record.
func (db *DB) terms(r Record) []string {
	var out []string
	add := func(v string) {
		for _, t := range text.Tokenize(v) {
			if !text.IsStop(t) {
				out = append(out, t)
			}
		}
	}
	if db.opt.IndexFields == nil {
		for k, v := range r.Fields {
			if k != "id" {
				add(v)
			}
		}
	} else {
		for _, f := range db.opt.IndexFields {
			add(r.Fields[f])
		}
	}
	return out
}

// QueryTerms returns the distinct terms of a query as the database reads it:
// tokenized, lower-cased, stop words removed.
func QueryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range text.Tokenize(q) {
		if !text.IsStop(t) && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// matchRanks returns the ascending rank positions of all records matching q.
func (db *DB) matchRanks(q string) []int32 {
	terms := QueryTerms(q)
	if len(terms) == 0 {
		return nil
	}
	lists := make([][]int32, 0, len(terms))
	for _, t := range terms {
		p, ok := db.post[t]
		if !ok {
			return nil
		}
		lists = append(lists, p)
	}
	sort.Slice(lists, func(a, b int) bool { return len(lists[a]) < len(lists[b]) })
	res := append([]int32(nil), lists[0]...)
	for _, l := range lists[1:] {
		res = intersect(res, l)
		if len(res) == 0 {
			return nil
		}
	}
	return res
}

// intersect keeps the elements of a (ascending) that are in b (ascending).
func intersect(a, b []int32) []int32 {
	out := a[:0]
	j := 0
	for _, x := range a {
		// gallop: b is usually much longer than a
		if j < len(b) && b[j] < x {
			lo, step := j, 1
			for lo+step < len(b) && b[lo+step] < x {
				lo += step
				step *= 2
			}
			hi := lo + step
			if hi > len(b) {
				hi = len(b)
			}
			j = lo + sort.Search(hi-lo, func(i int) bool { return b[lo+i] >= x })
		}
		if j < len(b) && b[j] == x {
			out = append(out, x)
			j++
		}
	}
	return out
}

// Match returns the indices of every record matching every query term, in
// rank order. It ignores the top-k limit: it is the ground truth.
func (db *DB) Match(q string) []int {
	ranks := db.matchRanks(q)
	out := make([]int, len(ranks))
	for i, r := range ranks {
		out[i] = int(db.atRank[r])
	}
	return out
}

// Count returns the exact number of records matching q.
func (db *DB) Count(q string) int { return len(db.matchRanks(q)) }

// Hit is one result of a search.
type Hit struct {
	Rank   int // 1-based position in the result list
	Index  int // record index in the DB
	ID     string
	Fields map[string]string
}

// Result is one page of a search.
type Result struct {
	// Total is the exact number of matches (also beyond the top k).
	Total   int
	Records []Hit
	// Next reports whether a further page exists within the top k.
	Next bool
}

// Search returns page (1-based) of the top-k results of q.
func (db *DB) Search(q string, page int) Result {
	if page < 1 {
		page = 1
	}
	ranks := db.matchRanks(q)
	res := Result{Total: len(ranks)}
	limit := len(ranks)
	if limit > db.opt.K {
		limit = db.opt.K
	}
	from := (page - 1) * db.opt.PageSize
	to := from + db.opt.PageSize
	if to > limit {
		to = limit
	}
	for i := from; i < to; i++ {
		idx := int(db.atRank[ranks[i]])
		r := db.recs[idx]
		res.Records = append(res.Records, Hit{Rank: i + 1, Index: idx, ID: r.ID, Fields: r.Fields})
	}
	res.Next = to < limit
	return res
}

// TopK returns the indices of q's top-k results, the set a client can reach.
func (db *DB) TopK(q string) []int {
	m := db.Match(q)
	if len(m) > db.opt.K {
		m = m[:db.opt.K]
	}
	return m
}

// Len is the number of records.
func (db *DB) Len() int { return len(db.recs) }

// Record returns record i.
func (db *DB) Record(i int) Record { return db.recs[i] }

// Lookup returns the index of the record with the given id.
func (db *DB) Lookup(id string) (int, bool) {
	i, ok := db.byID[id]
	return i, ok
}

// Options returns the options in force, defaults applied.
func (db *DB) Options() Options { return db.opt }

// Vocabulary returns every indexed term with its document frequency.
func (db *DB) Vocabulary() map[string]int {
	out := make(map[string]int, len(db.post))
	for t, p := range db.post {
		out[t] = len(p)
	}
	return out
}

// Text is the record's searchable text: the indexed fields in display order.
func (db *DB) Text(i int) string {
	r := db.recs[i]
	var b strings.Builder
	for _, f := range db.fieldOrder(r) {
		if db.opt.IndexFields != nil && !contains(db.opt.IndexFields, f) {
			continue
		}
		if f == "id" || r.Fields[f] == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.Fields[f])
	}
	return b.String()
}

func (db *DB) fieldOrder(r Record) []string {
	out := append([]string(nil), r.Order...)
	var rest []string
	for k := range r.Fields {
		if !contains(r.Order, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
