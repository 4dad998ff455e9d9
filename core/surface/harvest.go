package surface

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// State is the harvest state that policies read: the statistics table over
// the downloaded documents and the issued queries.
type State struct {
	Stats *Stats
	// Source names the interface being harvested.
	Source string
	keys   map[string]int32
	docs   []Doc
	issued map[string]bool
	k      int // result limit, known or inferred (0: unknown)
	cost   float64
	log    []QueryLog
	maxRet int // largest result count seen, and how often
	maxCnt int
	// reported: some answer showed its total; size: the database size the
	// interface reported (0: unknown); est: the last coverage estimate.
	reported bool
	size     int
	est      CoverageEstimate
	every    int
	thin     bool // every doubles past thinAfter queries (default spacing)
	budget   int
	last     []string // keys of the last applied query's results
}

// NewState returns an empty state.
func NewState(source string, terms TermOptions, k int) *State {
	return &State{Stats: NewStats(terms), Source: source, keys: map[string]int32{}, issued: map[string]bool{}, k: k, est: noEstimate(0), every: DefaultEstimateEvery, thin: true}
}

// Coverage estimates the database size and the fraction of it downloaded
// now (see EstimateCoverage); exact when the interface reported the size.
func (st *State) Coverage() CoverageEstimate {
	if st.size > 0 {
		return ExactCoverage(len(st.docs), st.size)
	}
	return st.Stats.EstimateCoverage(st.k)
}

// LastEstimate is the coverage estimate of the last estimate checkpoint.
func (st *State) LastEstimate() CoverageEstimate { return st.est }

// Docs is the number of distinct documents downloaded.
func (st *State) Docs() int { return len(st.docs) }

// Doc returns downloaded document i (in download order).
func (st *State) Doc(i int) Doc { return st.docs[i] }

// Has reports whether a document with this key was downloaded.
func (st *State) Has(key string) bool { _, ok := st.keys[key]; return ok }

// Issued reports whether the query was sent (compared case-insensitively by
// its terms).
func (st *State) Issued(q string) bool { return st.issued[normQuery(st.Stats.opt, q)] }

// K is the result limit, as configured or inferred from the answers.
func (st *State) K() int { return st.k }

// Cost is the cost spent so far.
func (st *State) Cost() float64 { return st.cost }

// Log is the query log.
func (st *State) Log() []QueryLog { return st.log }

// LastResults are the keys of the documents the last applied query
// returned, in result order (an Observer reads them).
func (st *State) LastResults() []string { return st.last }

func normQuery(o TermOptions, q string) string {
	ts := o.QueryTerms(q)
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += t
	}
	return s
}

// QueryLog is one issued query in the harvest log.
type QueryLog struct {
	N        int     `json:"n"` // 1-based query number
	Query    string  `json:"query"`
	Total    int     `json:"total"` // reported matches, -1 hidden
	Returned int     `json:"returned"`
	New      int     `json:"new"`
	Pages    int     `json:"pages"`
	Limited  bool    `json:"limited,omitempty"`
	Est      float64 `json:"est,omitempty"`  // estimated matches at selection (0: none)
	Gain     float64 `json:"gain,omitempty"` // expected new documents at selection
	Cost     float64 `json:"cost"`           // cost of this query
	Docs     int     `json:"docs"`           // documents after the query
	CumCost  float64 `json:"cum_cost"`
	Error    string  `json:"error,omitempty"`
	Time     int64   `json:"time,omitempty"` // unix milliseconds
	// Probe marks a size probe the harvest issued for the coverage
	// estimate (interfaces that hide their totals, see probe.go).
	Probe bool `json:"probe,omitempty"`
	// FromDocs: the policy chose the query from the downloaded documents
	// (Proposal.FromDocs).
	FromDocs bool `json:"from_docs,omitempty"`
	// Analysis: the query studied the interface (Proposal.Analysis).
	Analysis bool `json:"analysis,omitempty"`
	// The coverage estimate after the query (at estimate checkpoints, see
	// Options.EstimateEvery): fraction of the database downloaded, its
	// CoverageLevel interval, the estimated size and the estimator's name.
	CoverageEstimate *float64 `json:"coverage_estimate,omitempty"`
	CoverageLow      *float64 `json:"coverage_low,omitempty"`
	CoverageHigh     *float64 `json:"coverage_high,omitempty"`
	SizeEstimate     *float64 `json:"size_estimate,omitempty"`
	Estimator        string   `json:"estimator,omitempty"`
}

// Proposal is a policy's next query.
type Proposal struct {
	Query string
	// Est is the estimated number of matches (0: no estimate); used for the
	// correction when the interface hides its totals.
	Est float64
	// Gain is the expected number of new documents (0: no estimate).
	Gain float64
	// FromDocs reports that the query was chosen from the downloaded
	// documents (the adaptive policy): how many of them it matches is then
	// no fair recapture count for the coverage estimate (coverage.go).
	FromDocs bool
	// Analysis marks a query that studies the interface (a form's seeds,
	// its empty query, the tests of its other inputs) rather than one
	// chosen to download records: it does not count toward StopAfter.
	Analysis bool
	probe    bool // a size probe (probe.go), not the policy's choice
}

// Policy chooses queries.
type Policy interface {
	// Name is the policy name (adaptive, generic, random, oracle, …).
	Name() string
	// Next proposes the next query; ErrExhausted when none is left. It must
	// not propose a query st.Issued reports.
	Next(ctx context.Context, st *State) (Proposal, error)
}

// ResultLimiter is implemented by Searchers that know the interface's
// result limit k (a plugin that declares it or learned it from an answer).
type ResultLimiter interface {
	ResultLimit() int
}

// Observer is implemented by policies that want to see every answered
// query with the documents it downloaded first.
type Observer interface {
	Observe(st *State, q QueryLog, fresh []Doc)
}

// Progress is reported after every query.
type Progress struct {
	Queries int
	Docs    int
	Cost    float64
	// EstSize is the estimated database size and Coverage = Docs/EstSize,
	// both NaN before an estimate exists; Estimate is the full estimate
	// (interval, estimator) they come from, that of the last estimate
	// checkpoint.
	EstSize, Coverage float64
	Estimate          CoverageEstimate
	Last              QueryLog
}

// DatabaseSizer is implemented by Searchers whose interface reports the
// number of records in the whole database (0: not reported); the coverage
// is then exact.
type DatabaseSizer interface {
	DatabaseSize() int
}

// DefaultEstimateEvery is the default spacing of the estimate checkpoints;
// past thinAfter queries it doubles each time the query count does, since
// an estimate costs time in proportion to the queries.
const (
	DefaultEstimateEvery = 5
	thinAfter            = 500
)

// checkpoint reports whether query n gets a coverage estimate.
func (st *State) checkpoint(n int) bool {
	if n == st.budget {
		return true
	}
	every := st.every
	for m := thinAfter; st.thin && n > m; m *= 2 {
		every *= 2
	}
	return n%every == 0
}

// Options configures Harvest.
type Options struct {
	// Source names the harvested interface (a plugin name or a form ID); it
	// keys the journal.
	Source string
	// Budget is the maximum number of queries (0: no limit), counted over
	// the whole harvest including resumed queries.
	Budget int
	// CostBudget stops the harvest once the spent cost reaches it (0: none).
	CostBudget float64
	// Cost is the cost model (zero: one unit per query).
	Cost Cost
	// K is the result limit when known (0: inferred from the answers).
	K int
	// MaxPages caps the result pages read per query (0: all).
	MaxPages int
	// First is the first query (empty: the policy's choice).
	First string
	// Terms says how the interface reads queries (stop words, length).
	Terms TermOptions
	// Journal persists the harvest for resume (nil: memory only).
	Journal Journal
	// Progress is called after every query.
	Progress func(Progress)
	// MaxFailures stops the harvest after this many consecutive failed
	// queries (default 5).
	MaxFailures int
	// StopAfter ends the harvest once this many consecutive queries
	// downloaded nothing new (0: never): the database looks exhausted.
	StopAfter int
	// StalePages stops reading a query's result pages after this many pages
	// in a row that list only records already downloaded, when the answer
	// states its total (0: read them all). The query's match count is then
	// the stated total; its answer counts as cut (not a full match set).
	StalePages int
	// EstimateEvery is the spacing, in queries, of the coverage estimate
	// checkpoints whose estimate is logged and journaled (default
	// DefaultEstimateEvery, thinned past 500 queries); the last query of the
	// budget is one too.
	EstimateEvery int
	// Size is the number of records in the database when known (0:
	// estimated, or reported by a DatabaseSizer).
	Size int
	// NoProbe turns off the size probes (probe.go) an interface that hides
	// its totals gets while its complete answers are too few to estimate
	// the coverage from.
	NoProbe bool
}

// Harvest runs the query loop of Algorithm 2.1: ask the policy for a query,
// issue it, read its result pages (up to the interface's limit), download
// the new documents (deduplicated by ID, else URL, else content), update the
// statistics table, log the query and repeat until the budget is spent or
// the policy has nothing left. With a Journal, earlier queries are replayed
// first, so a harvest resumes where it stopped.
func Harvest(ctx context.Context, s Searcher, p Policy, opt Options) (*State, error) {
	st := NewState(opt.Source, opt.Terms, opt.K)
	st.size = opt.Size
	if ds, ok := s.(DatabaseSizer); ok && st.size <= 0 {
		st.size = ds.DatabaseSize()
	}
	if opt.EstimateEvery > 0 {
		st.every, st.thin = opt.EstimateEvery, false
	}
	st.budget = opt.Budget
	if opt.Journal != nil {
		if err := Replay(ctx, opt.Journal, st, p); err != nil {
			return st, err
		}
	}
	maxFail := opt.MaxFailures
	if maxFail <= 0 {
		maxFail = 5
	}
	fails := 0
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if opt.Budget > 0 && len(st.log) >= opt.Budget {
			st.finish(opt)
			return st, nil
		}
		if opt.CostBudget > 0 && st.cost >= opt.CostBudget {
			st.finish(opt)
			return st, nil
		}
		if opt.StopAfter > 0 && st.fruitless() >= opt.StopAfter {
			st.finish(opt)
			return st, nil
		}
		var prop Proposal
		if len(st.log) == 0 && opt.First != "" {
			prop = Proposal{Query: opt.First}
		} else if pr, ok := st.probe(opt); ok {
			prop = pr
		} else {
			var err error
			prop, err = p.Next(ctx, st)
			if errors.Is(err, ErrExhausted) {
				st.finish(opt)
				return st, nil
			}
			if err != nil {
				return st, fmt.Errorf("surface: %s policy: %w", p.Name(), err)
			}
		}
		entry, fresh, applied, err := st.issue(ctx, s, prop, opt)
		if err != nil {
			if ctx.Err() != nil && !applied {
				return st, ctx.Err()
			}
			if errors.Is(err, ErrBudget) && !applied {
				st.finish(opt)
				return st, nil
			}
			fails++
			if fails >= maxFail {
				return st, fmt.Errorf("surface: %d consecutive failed queries, last %q: %w", fails, prop.Query, err)
			}
			if opt.Progress != nil && !applied {
				pr := st.progress()
				pr.Last = QueryLog{Query: prop.Query, Total: -1, Error: err.Error()}
				opt.Progress(pr)
			}
		} else {
			fails = 0
		}
		if !applied {
			continue
		}
		if opt.Journal != nil {
			if jerr := opt.Journal.Append(ctx, entry); jerr != nil {
				return st, fmt.Errorf("surface: journal: %w", jerr)
			}
		}
		if ob, ok := p.(Observer); ok {
			ob.Observe(st, entry.Log, fresh)
		}
		if opt.Progress != nil {
			opt.Progress(st.progress())
		}
	}
}

// fruitless counts the last queries in a row that downloaded nothing new.
func (st *State) fruitless() int {
	n := 0
	for i := len(st.log) - 1; i >= 0 && st.log[i].New == 0; i-- {
		if !st.log[i].Analysis {
			n++
		}
	}
	return n
}

// finish gives the last query of a harvest its coverage estimate (in the
// log, not the journal) when it was not an estimate checkpoint.
func (st *State) finish(opt Options) {
	n := len(st.log)
	if n == 0 || st.log[n-1].Estimator != "" {
		return
	}
	st.estimate(&st.log[n-1])
	if opt.Progress != nil {
		opt.Progress(st.progress())
	}
}

// estimate computes the coverage estimate and records it in l.
func (st *State) estimate(l *QueryLog) {
	e := st.Coverage()
	st.est = e
	l.Estimator = e.Estimator
	if !e.Valid() {
		l.CoverageEstimate, l.CoverageLow, l.CoverageHigh, l.SizeEstimate = nil, nil, nil, nil
		return
	}
	r := func(x float64) *float64 { v := math.Round(x*1e4) / 1e4; return &v }
	l.CoverageEstimate, l.CoverageLow, l.CoverageHigh = r(e.Coverage), r(e.Low), r(e.High)
	sz := math.Round(e.Size)
	l.SizeEstimate = &sz
}

func (st *State) progress() Progress {
	pr := Progress{Queries: len(st.log), Docs: len(st.docs), Cost: st.cost, EstSize: st.est.Size, Coverage: st.est.Coverage, Estimate: st.est}
	if len(st.log) > 0 {
		pr.Last = st.log[len(st.log)-1]
	}
	return pr
}

// issue sends one query, reads its pages and applies the answer. A query
// whose first page fails is not applied (applied false): it is skipped for
// the rest of this run but not journaled, so a resumed harvest tries it
// again. A failure after some pages keeps what was read.
func (st *State) issue(ctx context.Context, s Searcher, prop Proposal, opt Options) (e Entry, fresh []Doc, applied bool, err error) {
	var docs []Doc
	total := -1
	pages := 0
	next := false
	var qerr error
	seen := map[string]bool{}
	stale := 0
	for page := 1; opt.MaxPages <= 0 || page <= opt.MaxPages; page++ {
		pg, err := s.Search(ctx, prop.Query, page)
		if err != nil {
			qerr = fmt.Errorf("query %q page %d: %w", prop.Query, page, err)
			break
		}
		pages++
		if pg.Total >= 0 {
			total = pg.Total
		}
		added, known := 0, 0
		for _, d := range pg.Docs {
			k := d.Key()
			if seen[k] {
				continue
			}
			seen[k] = true
			docs = append(docs, d)
			added++
			if st.Has(k) {
				known++
			}
		}
		next = pg.Next
		if !pg.Next || added == 0 {
			break
		}
		if stale++; known < added {
			stale = 0
		}
		if opt.StalePages > 0 && stale >= opt.StalePages && total >= 0 {
			break // next stays set: the answer is cut
		}
	}
	if qerr != nil && pages == 0 {
		st.issued[normQuery(st.Stats.opt, prop.Query)] = true
		if qt := st.Stats.opt.QueryTerms(prop.Query); len(qt) == 1 {
			st.Stats.Ban(qt[0])
		}
		return Entry{}, nil, false, qerr
	}
	if rl, ok := s.(ResultLimiter); ok && st.k == 0 {
		st.k = rl.ResultLimit()
	}
	e = st.apply(prop, opt, docs, total, next || qerr != nil, pages)
	if qerr != nil {
		e.Log.Error = qerr.Error()
		st.log[len(st.log)-1].Error = e.Log.Error
	}
	return e, e.Docs, true, qerr
}

// inferLimit learns the result limit from the answers and reports whether
// this answer was cut by it.
func (st *State) inferLimit(n, total int, cut bool) bool {
	if total >= 0 && n < total && !cut && n > st.k {
		// the site stopped before its reported total: that is its limit
		st.k = n
	}
	if n > st.maxRet {
		st.maxRet, st.maxCnt = n, 1
	} else if n == st.maxRet && n > 0 {
		st.maxCnt++
	}
	limited := cut || (total >= 0 && n < total)
	if total < 0 && !limited {
		if st.k > 0 {
			limited = n >= st.k
		} else if n == st.maxRet && st.maxCnt >= 2 && n >= 10 {
			// hidden totals: several answers stop at the same size
			limited, st.k = true, n
		}
	}
	return limited
}

// apply records an answered query: new documents, statistics, log.
func (st *State) apply(prop Proposal, opt Options, docs []Doc, total int, cut bool, pages int) Entry {
	limited := st.inferLimit(len(docs), total, cut)
	return st.record(prop, docs, total, limited, pages, func(n, fresh int) float64 {
		return opt.Cost.Of(float64(n), float64(fresh))
	})
}

// replayApply re-applies a journaled query with its logged outcome.
func (st *State) replayApply(prop Proposal, l QueryLog, docs []Doc) Entry {
	st.inferLimit(len(docs), l.Total, false)
	e := st.record(prop, docs, l.Total, l.Limited, l.Pages, func(int, int) float64 { return l.Cost })
	e.Log.Time, e.Log.Error = l.Time, l.Error
	st.log[len(st.log)-1] = e.Log
	return e
}

func (st *State) record(prop Proposal, docs []Doc, total int, limited bool, pages int, costOf func(n, fresh int) float64) Entry {
	n := len(docs)
	e := Entry{Log: QueryLog{N: len(st.log) + 1, Query: prop.Query, Total: total, Returned: n, Pages: pages, Limited: limited, Est: prop.Est, Gain: prop.Gain, Analysis: prop.Analysis, Time: time.Now().UnixMilli()}}
	res := make([]Result, 0, n)
	e.Results = make([]string, 0, n)
	for i, d := range docs {
		k := d.Key()
		e.Results = append(e.Results, k)
		num, ok := st.keys[k]
		fresh := !ok
		if fresh {
			num = st.Stats.addDoc(d.Content())
			st.keys[k] = num
			st.docs = append(st.docs, d)
			e.Fresh = append(e.Fresh, k)
			e.Docs = append(e.Docs, d)
		}
		res = append(res, Result{Doc: num, Fresh: fresh, Pos: i + 1})
	}
	iq := st.Stats.Observe(prop.Query, res, total, prop.Est, prop.Gain, limited)
	cq := &st.Stats.caps.queries[len(st.Stats.caps.queries)-1]
	cq.probe, cq.fromDocs = prop.probe, prop.FromDocs
	e.Log.Probe, e.Log.FromDocs = prop.probe, prop.FromDocs
	if total >= 0 {
		st.reported = true
	}
	if n == 0 {
		if qt := st.Stats.opt.QueryTerms(prop.Query); len(qt) == 1 {
			st.Stats.Ban(qt[0])
		}
	}
	st.issued[normQuery(st.Stats.opt, prop.Query)] = true
	st.last = e.Results
	e.Log.New = iq.New
	e.Log.Cost = costOf(n, iq.New)
	st.cost += e.Log.Cost
	e.Log.Docs = len(st.docs)
	e.Log.CumCost = st.cost
	if st.checkpoint(e.Log.N) {
		st.estimate(&e.Log)
	}
	st.log = append(st.log, e.Log)
	return e
}
