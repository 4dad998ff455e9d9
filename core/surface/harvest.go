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
	last   []string // keys of the last applied query's results
}

// NewState returns an empty state.
func NewState(source string, terms TermOptions, k int) *State {
	return &State{Stats: NewStats(terms), Source: source, keys: map[string]int32{}, issued: map[string]bool{}, k: k}
}

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
}

// Proposal is a policy's next query.
type Proposal struct {
	Query string
	// Est is the estimated number of matches (0: no estimate); used for the
	// correction when the interface hides its totals.
	Est float64
	// Gain is the expected number of new documents (0: no estimate).
	Gain float64
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
	// both NaN before an estimate exists.
	EstSize, Coverage float64
	Last              QueryLog
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
}

// Harvest runs the query loop of Algorithm 2.1: ask the policy for a query,
// issue it, read its result pages (up to the interface's limit), download
// the new documents (deduplicated by ID, else URL, else content), update the
// statistics table, log the query and repeat until the budget is spent or
// the policy has nothing left. With a Journal, earlier queries are replayed
// first, so a harvest resumes where it stopped.
func Harvest(ctx context.Context, s Searcher, p Policy, opt Options) (*State, error) {
	st := NewState(opt.Source, opt.Terms, opt.K)
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
			return st, nil
		}
		if opt.CostBudget > 0 && st.cost >= opt.CostBudget {
			return st, nil
		}
		if opt.StopAfter > 0 && st.fruitless() >= opt.StopAfter {
			return st, nil
		}
		var prop Proposal
		if len(st.log) == 0 && opt.First != "" {
			prop = Proposal{Query: opt.First}
		} else {
			var err error
			prop, err = p.Next(ctx, st)
			if errors.Is(err, ErrExhausted) {
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
		n++
	}
	return n
}

func (st *State) progress() Progress {
	pr := Progress{Queries: len(st.log), Docs: len(st.docs), Cost: st.cost, EstSize: math.NaN(), Coverage: math.NaN()}
	if size, ok := st.Stats.Size(); ok {
		pr.EstSize = size
		pr.Coverage = float64(len(st.docs)) / size
	}
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
		added := 0
		for _, d := range pg.Docs {
			k := d.Key()
			if seen[k] {
				continue
			}
			seen[k] = true
			docs = append(docs, d)
			added++
		}
		next = pg.Next
		if !pg.Next || added == 0 {
			break
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
	e := Entry{Log: QueryLog{N: len(st.log) + 1, Query: prop.Query, Total: total, Returned: n, Pages: pages, Limited: limited, Est: prop.Est, Gain: prop.Gain, Time: time.Now().UnixMilli()}}
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
	st.log = append(st.log, e.Log)
	return e
}
