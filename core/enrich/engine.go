package enrich

import (
	"context"
	"errors"
	"fmt"
	"github.com/dwcrawl/dwcrawl/core/postings"
	"github.com/dwcrawl/dwcrawl/core/pqueue"
	"math"
	"math/rand"
	"sort"
	"strings"
	"time"
)

// Method is a query-selection method.
type Method string

// The methods. smart-* are SmartCrawl's QSel variants; naive, full and ideal
// are the paper's baselines.
const (
	// SmartBiased is QSel-Est with the biased estimators (Table 1).
	SmartBiased Method = "smart-b"
	// SmartUnbiased is QSel-Est with the unbiased estimators (Table 1).
	SmartUnbiased Method = "smart-u"
	// SmartSimple is QSel-Simple: benefit |q(D)|.
	SmartSimple Method = "smart-s"
	// SmartBound is QSel-Bound: benefit min(|q(D)|, k).
	SmartBound Method = "smart-bound"
	// Naive is NaiveCrawl: each local record's specific query, in random order.
	Naive Method = "naive"
	// Full is FullCrawl: the sample's keywords in decreasing frequency.
	Full Method = "full"
	// Ideal is IdealCrawl: greedy on the true benefits (needs an Oracle).
	Ideal Method = "ideal"
)

// Methods lists every method.
var Methods = []Method{SmartBiased, SmartUnbiased, SmartSimple, SmartBound, Naive, Full, Ideal}

// ParseMethods parses a comma-separated method list.
func ParseMethods(s string) ([]Method, error) {
	var out []Method
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		ok := false
		for _, m := range Methods {
			if string(m) == part {
				out = append(out, m)
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown method %q (want %s)", part, methodList())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no method given (want %s)", methodList())
	}
	return out, nil
}

func methodList() string {
	var s []string
	for _, m := range Methods {
		s = append(s, string(m))
	}
	return strings.Join(s, ", ")
}

// NeedsSample reports whether the method uses the hidden-database sample.
func (m Method) NeedsSample() bool { return m == SmartBiased || m == SmartUnbiased || m == Full }

func (m Method) usesPool() bool { return m != Full }

// Oracle knows the truth, for IdealCrawl: the local records a query would
// cover (their true hidden record is among the query's top k).
type Oracle interface {
	Covers(query string) []int
}

// Options configures an Engine.
type Options struct {
	Method Method
	// Budget is the number of queries b.
	Budget int
	// K is the interface's result limit.
	K int
	// Sample is Hs with its ratio θ (smart-b, smart-u, full).
	Sample *Sample
	// Alpha is the ratio used when the local table stands in for the sample
	// (q(Hs) empty): |q(H)| ≈ |q(D)| / α. Zero means θ·|D| / |Hs|, i.e.
	// |D| / |Ĥ| with |Ĥ| = |Hs| / θ.
	Alpha float64
	// Seed orders NaiveCrawl's records.
	Seed int64
	// Oracle is required by Ideal.
	Oracle Oracle
	// Progress, when set, is called after every query.
	Progress func(Progress)
}

// Progress reports one step of a run.
type Progress struct {
	Queries     int
	Budget      int
	Covered     int
	Uncoverable int
	Local       int
	Query       string
	Returned    int
	New         int
	Solid       bool
}

// Entry is the journal record of one query: enough to replay its effect
// without asking the interface again.
type Entry struct {
	N        int    `json:"n"`
	Query    string `json:"query"`
	Pool     int    `json:"pool"` // pool index, -1 for queries outside the pool
	Returned int    `json:"returned"`
	Total    int    `json:"total"`
	Solid    bool   `json:"solid"`
	// Docs are the returned records that matched a local record.
	Docs []Doc `json:"docs,omitempty"`
	Hits []Hit `json:"hits,omitempty"`
	// New is the number of records newly covered.
	New int `json:"new"`
}

// Hit links a local record to a returned record of an Entry.
type Hit struct {
	Record int     `json:"r"`
	Doc    int     `json:"d"` // index into Entry.Docs, -1 for the oracle
	Score  float64 `json:"s"`
}

// Cover is how a local record was covered.
type Cover struct {
	Doc   Doc
	Score float64
	Query string
	// N is the 1-based number of the covering query.
	N int
}

// Report summarises a run.
type Report struct {
	Method      Method    `json:"method"`
	Local       int       `json:"local_size"`
	Budget      int       `json:"budget"`
	Queries     int       `json:"queries"`
	Covered     int       `json:"covered"`
	Uncoverable int       `json:"uncoverable"`
	Solid       int       `json:"solid"`
	Overflowing int       `json:"overflowing"`
	Pool        PoolStats `json:"pool"`
	SampleSize  int       `json:"sample_size"`
	Theta       float64   `json:"theta"`
	Alpha       float64   `json:"alpha"`
	K           int       `json:"k"`
	// SearchTime is the time spent inside the interface.
	SearchTime time.Duration `json:"search_ns"`
}

// Engine runs one selection method over a query pool.
type Engine struct {
	opt   Options
	pool  *Pool
	local *Local
	match Matcher
	n     int

	covered []bool
	gone    []bool
	removed []bool
	best    []int32
	covers  []Cover
	nCov    int
	nGone   int

	queries, solid int
	used           []bool
	issued         map[string]bool

	// per pool query
	sets  [][]int32 // q(D) (or the oracle's covers for Ideal)
	nD    []int32   // uncovered records of sets[q]
	nDHs  []int32   // uncovered records of q(D) whose sample match is in q(Hs)
	nHs   []int32   // |q(Hs)|
	estH  []float64 // predicted |q(H)|
	theta float64
	alpha float64

	fwdStart []int32 // forward index, CSR: record -> queries
	fwd      []int32
	fwdHs    map[int32][]int32
	heap     pqueue.Queue[prio] // lazy-update queue of the pool queries (heap.go)

	order     []int32 // NaiveCrawl
	pos       int
	fullTerms []string // FullCrawl
	fpos      int

	searchTime time.Duration
	// matches of returned records by id: a record comes back from many
	// queries, and its local matches never change
	mcache map[string][]Match
}

// NewEngine prepares a run of opt.Method over pool, matching returned
// records with m.
func NewEngine(pool *Pool, m Matcher, opt Options) (*Engine, error) {
	if opt.K <= 0 {
		return nil, errors.New("enrich: k must be positive")
	}
	if opt.Budget < 0 {
		return nil, errors.New("enrich: negative budget")
	}
	if opt.Method.NeedsSample() && (opt.Sample == nil || len(opt.Sample.Docs) == 0) {
		return nil, fmt.Errorf("enrich: method %s needs a hidden-database sample", opt.Method)
	}
	if (opt.Method == SmartBiased || opt.Method == SmartUnbiased) && opt.Sample.Theta <= 0 {
		return nil, fmt.Errorf("enrich: method %s needs the sampling ratio θ", opt.Method)
	}
	if opt.Method == Ideal && opt.Oracle == nil {
		return nil, errors.New("enrich: ideal needs an oracle")
	}
	l := pool.local
	n := l.Len()
	e := &Engine{opt: opt, pool: pool, local: l, match: m, n: n,
		covered: make([]bool, n), gone: make([]bool, n), removed: make([]bool, n), best: make([]int32, n),
		used: make([]bool, pool.Len()), issued: map[string]bool{}, mcache: map[string][]Match{}}
	for i := range e.best {
		e.best[i] = -1
	}
	switch opt.Method {
	case Naive:
		rng := rand.New(rand.NewSource(opt.Seed))
		e.order = make([]int32, n)
		for i, p := range rng.Perm(n) {
			e.order[i] = int32(p)
		}
	case Full:
		e.fullTerms = sampleTermsByFrequency(opt.Sample)
	}
	if opt.Sample != nil {
		e.theta = opt.Sample.Theta
	}
	if opt.Method.usesPool() {
		e.initPool()
	}
	return e, nil
}

// sampleTermsByFrequency lists the keywords of the sample records' searched
// text (SearchText) by decreasing document frequency, ties by keyword.
func sampleTermsByFrequency(s *Sample) []string {
	df := map[string]int{}
	for _, d := range s.Docs {
		for _, t := range Terms(SearchText(d)) {
			df[t]++
		}
	}
	out := make([]string, 0, len(df))
	for t := range df {
		out = append(out, t)
	}
	sort.Slice(out, func(a, b int) bool {
		if df[out[a]] != df[out[b]] {
			return df[out[a]] > df[out[b]]
		}
		return out[a] < out[b]
	})
	return out
}

func (e *Engine) initPool() {
	p := e.pool
	m := p.Len()
	e.sets = make([][]int32, m)
	if e.opt.Method == Ideal {
		for i := range p.Queries {
			cov := e.opt.Oracle.Covers(p.Text(i))
			s := make([]int32, len(cov))
			for j, r := range cov {
				s[j] = int32(r)
			}
			sortIDs(s)
			e.sets[i] = s
		}
	} else {
		for i := range p.Queries {
			e.sets[i] = p.Queries[i].recs
		}
	}
	e.nD = make([]int32, m)
	cnt := make([]int32, e.n+1)
	for i, s := range e.sets {
		e.nD[i] = int32(len(s))
		for _, r := range s {
			cnt[r+1]++
		}
	}
	for r := 1; r <= e.n; r++ {
		cnt[r] += cnt[r-1]
	}
	e.fwdStart = cnt
	e.fwd = make([]int32, cnt[e.n])
	fill := append([]int32(nil), cnt[:e.n]...)
	for i, s := range e.sets {
		for _, r := range s {
			e.fwd[fill[r]] = int32(i)
			fill[r]++
		}
	}
	if e.opt.Method == SmartBiased || e.opt.Method == SmartUnbiased {
		e.initSample()
	}
	a := make([]prio, 0, m)
	for i := range p.Queries {
		if e.nD[i] > 0 {
			a = append(a, prio{key: e.benefit(int32(i)), nd: e.nD[i], terms: int32(len(p.Queries[i].terms)), q: int32(i)})
		}
	}
	e.heap = pqueue.New(prio.before)
	e.heap.Init(a)
}

// initSample computes |q(Hs)| (a sample record matches q when its searched
// text, SearchText, holds every keyword of q, as the interface would decide),
// the predicted |q(H)| of every pool query and, for the unbiased estimator,
// which local records count in q(D) ∩ q(Hs).
func (e *Engine) initSample() {
	s := e.opt.Sample
	p := e.pool
	m := p.Len()
	sterms := make([][]int32, len(s.Docs))
	sinv := map[int32][]int32{}
	for i, d := range s.Docs {
		ids, _ := e.local.dict.lookup(SearchText(d))
		sterms[i] = ids
		for _, t := range ids {
			sinv[t] = append(sinv[t], int32(i))
		}
	}
	e.alpha = e.opt.Alpha
	if e.alpha <= 0 {
		e.alpha = e.theta * float64(e.n) / float64(len(s.Docs))
	}
	e.nHs = make([]int32, m)
	e.estH = make([]float64, m)
	var buf, cur []int32
	for i := range p.Queries {
		q := p.Queries[i].terms
		cur = append(cur[:0], sinv[q[0]]...)
		for _, t := range q[1:] {
			if len(cur) == 0 {
				break
			}
			buf = postings.Intersect(buf, cur, sinv[t])
			cur, buf = buf, cur
		}
		e.nHs[i] = int32(len(cur))
		if len(cur) > 0 {
			e.estH[i] = float64(len(cur)) / e.theta
		} else {
			e.estH[i] = float64(p.Queries[i].Support) / e.alpha
		}
	}
	// q(D) ∩ q(Hs): local records whose matching sample record contains q
	e.nDHs = make([]int32, m)
	e.fwdHs = map[int32][]int32{}
	if e.match == nil {
		return
	}
	sampleOf := map[int32]int32{}
	score := map[int32]float64{}
	for si, d := range s.Docs {
		for _, mt := range e.match.Match(d) {
			r := int32(mt.Record)
			if old, ok := score[r]; !ok || mt.Score > old {
				sampleOf[r] = int32(si)
				score[r] = mt.Score
			}
		}
	}
	for r, si := range sampleOf {
		for _, q := range e.fwd[e.fwdStart[r]:e.fwdStart[r+1]] {
			if containsAll(sterms[si], p.Queries[q].terms) {
				e.fwdHs[r] = append(e.fwdHs[r], q)
				e.nDHs[q]++
			}
		}
	}
}

// benefit is the estimated number of new local records query q covers.
func (e *Engine) benefit(q int32) float64 {
	nd := float64(e.nD[q])
	k := float64(e.opt.K)
	switch e.opt.Method {
	case SmartBound:
		return math.Min(nd, k)
	case SmartBiased:
		if e.estH[q] <= k {
			return nd
		}
		return nd * k / e.estH[q]
	case SmartUnbiased:
		if e.estH[q] <= k {
			return float64(e.nDHs[q]) / e.theta
		}
		if e.nHs[q] == 0 {
			return 0
		}
		return float64(e.nDHs[q]) * k / float64(e.nHs[q])
	}
	return nd // smart-s, ideal, naive
}

// Predicted reports the predicted type of pool query i (true: solid) and
// its estimated |q(H)|; meaningful for smart-b and smart-u.
func (e *Engine) Predicted(i int) (solid bool, hidden float64) {
	if e.estH == nil {
		return true, 0
	}
	return e.estH[i] <= float64(e.opt.K), e.estH[i]
}

// removeRecord applies the delta of record r leaving the uncovered set to
// every pool query containing it.
func (e *Engine) removeRecord(r int) {
	if e.removed[r] {
		return
	}
	e.removed[r] = true
	if e.fwdStart == nil {
		return
	}
	for _, q := range e.fwd[e.fwdStart[r]:e.fwdStart[r+1]] {
		e.nD[q]--
	}
	for _, q := range e.fwdHs[int32(r)] {
		e.nDHs[q]--
	}
}

// pick pops the pool query with the largest current benefit.
func (e *Engine) pick() int {
	for e.heap.Len() > 0 {
		t := e.heap.Pop()
		if e.used[t.q] || e.nD[t.q] <= 0 {
			continue
		}
		cur := prio{key: e.benefit(t.q), nd: e.nD[t.q], terms: t.terms, q: t.q}
		if cur.key == t.key && cur.nd == t.nd {
			return int(t.q)
		}
		e.heap.Push(cur)
	}
	return -1
}

// next chooses the next query: its text and pool index (-1 outside the
// pool); "" when the method has nothing left to send.
func (e *Engine) next() (string, int) {
	switch e.opt.Method {
	case Naive:
		for e.pos < len(e.order) {
			r := e.order[e.pos]
			e.pos++
			if e.removed[r] {
				continue
			}
			if pi := e.pool.specific[r]; pi >= 0 && !e.used[pi] {
				return e.pool.Text(int(pi)), int(pi)
			}
		}
		return "", -1
	case Full:
		for e.fpos < len(e.fullTerms) {
			t := e.fullTerms[e.fpos]
			e.fpos++
			if !e.issued[t] {
				return t, -1
			}
		}
		return "", -1
	}
	if pi := e.pick(); pi >= 0 {
		return e.pool.Text(pi), pi
	}
	return "", -1
}

// Done reports whether the budget is spent or nothing is left to cover.
func (e *Engine) Done() bool {
	return e.queries >= e.opt.Budget || e.nCov+e.nGone >= e.n
}

// Step selects and sends one query, applies its results and returns its
// journal entry; ok is false when the run is over (budget spent, every
// record covered or removed, or no query left).
func (e *Engine) Step(ctx context.Context, s Searcher) (Entry, bool, error) {
	if e.Done() {
		return Entry{}, false, nil
	}
	q, pi := e.next()
	if q == "" {
		return Entry{}, false, nil
	}
	en := Entry{N: e.queries + 1, Query: q, Pool: pi, Total: -1}
	if e.opt.Method == Ideal {
		for _, r := range e.sets[pi] {
			en.Hits = append(en.Hits, Hit{Record: int(r), Doc: -1, Score: 1})
		}
		en.Returned = len(en.Hits)
	} else {
		start := time.Now()
		res, err := FetchAll(ctx, s, q, e.opt.K)
		e.searchTime += time.Since(start)
		if err != nil {
			// the query is not spent: put it back for a later Step
			if pi >= 0 {
				e.heap.Push(prio{key: e.benefit(int32(pi)), nd: e.nD[pi], terms: int32(len(e.pool.Queries[pi].terms)), q: int32(pi)})
			}
			if e.opt.Method == Naive {
				e.pos--
			} else if e.opt.Method == Full {
				e.fpos--
			}
			return Entry{}, false, err
		}
		en.Returned, en.Total, en.Solid = len(res.Docs), res.Total, res.Solid(e.opt.K)
		for _, d := range res.Docs {
			ms, ok := e.mcache[d.ID]
			if !ok || d.ID == "" {
				ms = e.match.Match(d)
				if d.ID != "" {
					e.mcache[d.ID] = ms
				}
			}
			if len(ms) == 0 {
				continue
			}
			di := len(en.Docs)
			en.Docs = append(en.Docs, d)
			for _, m := range ms {
				en.Hits = append(en.Hits, Hit{Record: m.Record, Doc: di, Score: m.Score})
			}
		}
	}
	en.New = e.Apply(en)
	return en, true, nil
}

// Apply records the effect of a query: used for live queries by Step and to
// replay a journal when a run resumes. It returns the records newly
// covered (Step journals them as Entry.New).
func (e *Engine) Apply(en Entry) int {
	e.queries++
	e.issued[en.Query] = true
	if en.Solid {
		e.solid++
	}
	if en.Pool >= 0 && en.Pool < len(e.used) {
		e.used[en.Pool] = true
	}
	newly := 0
	for _, h := range en.Hits {
		if h.Record < 0 || h.Record >= e.n {
			continue
		}
		c := Cover{Score: h.Score, Query: en.Query, N: en.N}
		if h.Doc >= 0 && h.Doc < len(en.Docs) {
			c.Doc = en.Docs[h.Doc]
		}
		r := h.Record
		if !e.covered[r] {
			e.covered[r] = true
			e.nCov++
			newly++
			if e.gone[r] {
				e.gone[r] = false
				e.nGone--
			}
			e.removeRecord(r)
			e.best[r] = int32(len(e.covers))
			e.covers = append(e.covers, c)
		} else if c.Score > e.covers[e.best[r]].Score {
			e.covers[e.best[r]] = c
		}
	}
	// Section 4.2: a solid query returned every hidden record matching it,
	// so the records of q(D) it did not cover are not in H.
	if en.Solid && en.Pool >= 0 && en.Pool < len(e.used) && e.opt.Method != Ideal {
		for _, r := range e.pool.Queries[en.Pool].recs {
			if !e.covered[r] && !e.gone[r] {
				e.gone[r] = true
				e.nGone++
				e.removeRecord(int(r))
			}
		}
	}
	if e.opt.Progress != nil {
		e.opt.Progress(Progress{Queries: e.queries, Budget: e.opt.Budget, Covered: e.nCov, Uncoverable: e.nGone,
			Local: e.n, Query: en.Query, Returned: en.Returned, New: newly, Solid: en.Solid})
	}
	return newly
}

// Run steps until the run is over and returns its report.
func (e *Engine) Run(ctx context.Context, s Searcher) (Report, error) {
	for {
		if err := ctx.Err(); err != nil {
			return e.Report(), err
		}
		_, ok, err := e.Step(ctx, s)
		if err != nil {
			return e.Report(), err
		}
		if !ok {
			return e.Report(), nil
		}
	}
}

// Report summarises the run so far.
func (e *Engine) Report() Report {
	r := Report{Method: e.opt.Method, Local: e.n, Budget: e.opt.Budget, Queries: e.queries, Covered: e.nCov,
		Uncoverable: e.nGone, Solid: e.solid, Overflowing: e.queries - e.solid, Pool: e.pool.Stats,
		Theta: e.theta, Alpha: e.alpha, K: e.opt.K, SearchTime: e.searchTime}
	if e.opt.Sample != nil {
		r.SampleSize = len(e.opt.Sample.Docs)
	}
	return r
}

// Cover returns how local record r was covered.
func (e *Engine) Cover(r int) (Cover, bool) {
	if e.best[r] < 0 {
		return Cover{}, false
	}
	return e.covers[e.best[r]], true
}

// Covered reports whether local record r is covered.
func (e *Engine) Covered(r int) bool { return e.covered[r] }
