// Package enrichbench measures the enrichment methods of package enrich
// (SmartCrawl with its biased and unbiased estimators, NaiveCrawl, FullCrawl
// and the IdealCrawl oracle; Wang et al.) on a simulated top-k hidden
// database built from real records (testbed/hiddendb), against the truth of
// which hidden record each local record is: `dwcrawl bench enrich`.
package enrichbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// ErrNoIDColumn is returned (wrapped, naming the table and its columns)
// when the local table lacks the id column that links a local record to
// its true hidden record.
var ErrNoIDColumn = errors.New("no id column")

// Options configures Run.
type Options struct {
	// Hidden lists the files of the hidden database H (.csv or .jsonl).
	Hidden []string
	// Local is the local table D (.csv).
	Local string
	// Columns form each record's document, in D and in H.
	Columns []string
	// HiddenColumns are the fields H's keyword search indexes (default
	// Columns).
	HiddenColumns []string
	// IDColumn is the column shared by D and H that identifies the true
	// hidden record of a local record. Hidden records without it get fresh
	// ids, so they are never the truth of a local record.
	IDColumn string
	K        int
	Theta    float64
	// Budget is the query budget b; when zero, BudgetFraction·|D|.
	Budget         int
	BudgetFraction float64
	Methods        []enrich.Method
	// Error is the fraction of local records given one data error (a word
	// removed, added or replaced, chosen uniformly).
	Error float64
	// Missing is the fraction of local records whose hidden record is
	// removed from H.
	Missing float64
	Seed    int64
	// SampleQueries, when positive, builds the sample through the
	// interface (BuildSample over the local vocabulary, θ estimated)
	// instead of drawing a uniform θ-sample from H.
	SampleQueries int
	Match         enrich.MatchSpec
	Pool          enrich.PoolOptions
	// ShowTotal makes the interface report match counts.
	ShowTotal bool
	// PageSize is the interface's page size (default k).
	PageSize int
	// InProcess queries H in process instead of over loopback HTTP.
	InProcess bool
	// Progress, when set, receives each method's steps.
	Progress func(enrich.Method, enrich.Progress)
	// Log, when set, receives setup messages.
	Log func(format string, args ...any)
}

// Result is one method's outcome.
type Result struct {
	Method enrich.Method `json:"method"`
	Budget int           `json:"budget"`
	// Covered counts the local records whose true hidden record was
	// returned by one of the method's queries.
	Covered   int `json:"covered"`
	LocalSize int `json:"local_size"`
	// Matched counts the local records the matcher linked to a returned
	// record (what the user's enriched table gets).
	Matched int     `json:"matched"`
	Queries int     `json:"queries"`
	Seconds float64 `json:"seconds"`
}

// Info describes the benchmark's setup.
type Info struct {
	Hidden     int
	Local      int
	Coverable  int // local records whose true record is in H
	Errors     int
	Missing    int
	SampleSize int
	Theta      float64
	K          int
	Budget     int
	Pool       enrich.PoolStats
	PoolTime   time.Duration
}

// Run measures the methods on a simulated hidden database built from the
// given files, served with conjunctive top-k search and a fixed ranking.
func Run(ctx context.Context, opt Options) ([]Result, Info, error) {
	var info Info
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if opt.IDColumn == "" {
		opt.IDColumn = "id"
	}
	if opt.K <= 0 {
		opt.K = 100
	}
	if len(opt.HiddenColumns) == 0 {
		opt.HiddenColumns = opt.Columns
	}
	if opt.PageSize <= 0 {
		opt.PageSize = opt.K
	}
	// independent streams, so that e.g. the records removed from H are not
	// the ones NaiveCrawl tries first
	rng := rand.New(rand.NewSource(opt.Seed))
	errRng := rand.New(rand.NewSource(opt.Seed + 1))
	sampleRng := rand.New(rand.NewSource(opt.Seed + 2))
	tab, err := enrich.LoadTable(opt.Local)
	if err != nil {
		return nil, info, err
	}
	idCol, ok := tab.Column(opt.IDColumn)
	if !ok {
		return nil, info, fmt.Errorf("%s: %w %q (columns: %s)", tab.Name, ErrNoIDColumn, opt.IDColumn, strings.Join(tab.Header, ", "))
	}
	docCols, err := tab.Columns(opt.Columns)
	if err != nil {
		return nil, info, err
	}
	hidden, err := loadHidden(opt.Hidden, opt.IDColumn)
	if err != nil {
		return nil, info, err
	}
	info.Local = len(tab.Rows)
	// records of D missing from H
	byID := map[string]int{}
	for i, r := range hidden {
		byID[r.ID] = i
	}
	drop := map[int]bool{}
	if opt.Missing > 0 {
		for _, r := range rng.Perm(len(tab.Rows))[:int(opt.Missing*float64(len(tab.Rows))+0.5)] {
			if hi, ok := byID[tab.Rows[r][idCol]]; ok {
				drop[hi] = true
			}
		}
		kept := hidden[:0:0]
		for i, r := range hidden {
			if !drop[i] {
				kept = append(kept, r)
			}
		}
		hidden = kept
		info.Missing = len(drop)
	}
	// data errors in D
	rows := make([][]string, len(tab.Rows))
	for i, r := range tab.Rows {
		rows[i] = append([]string(nil), r...)
	}
	if opt.Error > 0 {
		info.Errors = injectErrors(rows, docCols, opt.Error, errRng)
	}
	local := &enrich.Table{Name: tab.Name, Header: tab.Header, Rows: rows, Lines: tab.Lines}
	docs, err := local.Docs(opt.Columns)
	if err != nil {
		return nil, info, err
	}
	db := hiddendb.New(hidden, hiddendb.Options{K: opt.K, PageSize: opt.PageSize, IndexFields: opt.HiddenColumns, ShowTotal: opt.ShowTotal, Seed: opt.Seed})
	info.Hidden = db.Len()
	info.K = opt.K
	truth := make([]int, len(rows)) // local -> hidden index, -1 none
	hiddenToLocal := map[int][]int{}
	for i, r := range rows {
		truth[i] = -1
		if hi, ok := db.Lookup(r[idCol]); ok && r[idCol] != "" {
			truth[i] = hi
			hiddenToLocal[hi] = append(hiddenToLocal[hi], i)
			info.Coverable++
		}
	}
	budget := opt.Budget
	if budget <= 0 {
		budget = int(opt.BudgetFraction*float64(len(rows)) + 0.5)
	}
	info.Budget = budget
	hdocs := make([]enrich.Doc, db.Len())
	for i := range hdocs {
		r := db.Record(i)
		hdocs[i] = enrich.Doc{ID: r.ID, Fields: r.Fields, Text: db.Text(i)}
	}
	start := time.Now()
	l := enrich.NewLocal(docs)
	pool, err := enrich.BuildPool(l, opt.Pool)
	if err != nil {
		return nil, info, err
	}
	info.Pool, info.PoolTime = pool.Stats, time.Since(start)

	// totals as the DB was built (opt.ShowTotal); no Text, so results stay
	// comparable with the earlier measurements
	var searcher enrich.Searcher = hiddendb.Searcher{DB: db, OmitText: true}
	if !opt.InProcess {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, info, fmt.Errorf("enrich: bench listener: %w", err)
		}
		srv := &http.Server{Handler: db.Handler(""), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		hs, err := enrich.NewHTTPSearcher("http://" + ln.Addr().String())
		if err != nil {
			return nil, info, err
		}
		searcher = hs
	}
	var sample *enrich.Sample
	if opt.SampleQueries > 0 {
		s, meta, err := enrich.BuildSample(ctx, searcher, enrich.SampleOptions{Queries: opt.SampleQueries, K: opt.K, Vocabulary: l.Vocabulary(), Columns: opt.Columns, Seed: opt.Seed + 2})
		if err != nil {
			return nil, info, err
		}
		if s.Theta <= 0 {
			return nil, info, fmt.Errorf("enrich: bench: %d sampling queries gave no θ estimate: send more", opt.SampleQueries)
		}
		sample = s
		logf("sample through the interface: %d records from %d queries, θ ≈ %.4g (true ratio %.4g)", len(s.Docs), meta.Queries, s.Theta, float64(len(s.Docs))/float64(db.Len()))
	} else {
		sample = enrich.UniformSample(hdocs, opt.Theta, sampleRng)
	}
	info.SampleSize, info.Theta = len(sample.Docs), sample.Theta
	logf("hidden %d records, local %d (%d coverable, %d with errors, %d missing from H), sample %d (θ=%g), pool %d queries (%d specific, %d frequent, %d dominated) in %s",
		info.Hidden, info.Local, info.Coverable, info.Errors, info.Missing, info.SampleSize, info.Theta,
		pool.Len(), pool.Stats.Specific, pool.Stats.Frequent, pool.Stats.Dominated, info.PoolTime.Round(time.Millisecond))
	oracle := oracleFunc(func(q string) []int {
		var out []int
		for _, hi := range db.TopK(q) {
			out = append(out, hiddenToLocal[hi]...)
		}
		return out
	})
	var results []Result
	for _, m := range opt.Methods {
		matcher, err := opt.Match.New(local, l, opt.Columns)
		if err != nil {
			return nil, info, err
		}
		rec := &recorder{s: searcher, ids: map[string]bool{}}
		eo := enrich.Options{Method: m, Budget: budget, K: opt.K, Sample: sample, Seed: opt.Seed + 3, Oracle: oracle}
		if opt.Progress != nil {
			m := m
			eo.Progress = func(p enrich.Progress) { opt.Progress(m, p) }
		}
		t0 := time.Now()
		eng, err := enrich.NewEngine(pool, matcher, eo)
		if err != nil {
			return nil, info, err
		}
		rep, err := eng.Run(ctx, rec)
		if err != nil {
			return nil, info, fmt.Errorf("bench %s: %w", m, err)
		}
		covered := 0
		for i, hi := range truth {
			if hi < 0 {
				continue
			}
			if m == enrich.Ideal {
				if eng.Covered(i) {
					covered++
				}
			} else if rec.ids[db.Record(hi).ID] {
				covered++
			}
		}
		results = append(results, Result{Method: m, Budget: budget, Covered: covered, LocalSize: len(rows),
			Matched: rep.Covered, Queries: rep.Queries, Seconds: time.Since(t0).Seconds()})
	}
	return results, info, nil
}

type oracleFunc func(string) []int

// Covers implements enrich.Oracle.
func (f oracleFunc) Covers(q string) []int { return f(q) }

// recorder remembers the ids of every record the interface returned.
type recorder struct {
	s   enrich.Searcher
	ids map[string]bool
}

// Search implements enrich.Searcher, remembering the returned ids.
func (r *recorder) Search(ctx context.Context, q string, page int) (enrich.Page, error) {
	p, err := r.s.Search(ctx, q, page)
	for _, d := range p.Docs {
		r.ids[d.ID] = true
	}
	return p, err
}

// loadHidden reads the hidden files. The id column becomes the record ID and
// leaves the searchable fields; records without it get "<file>#<n>" ids.
func loadHidden(paths []string, idColumn string) ([]hiddendb.Record, error) {
	var out []hiddendb.Record
	used := map[string]bool{}
	for _, path := range paths {
		base := filepath.Base(path)
		var recs []hiddendb.Record
		if strings.HasSuffix(strings.ToLower(path), ".csv") {
			t, err := enrich.LoadTable(path)
			if err != nil {
				return nil, err
			}
			idc, _ := t.Column(idColumn)
			order := make([]string, 0, len(t.Header))
			for i, h := range t.Header {
				if i != idc {
					order = append(order, h)
				}
			}
			for r, row := range t.Rows {
				rec := hiddendb.Record{Fields: make(map[string]string, len(row)), Order: order}
				for i, v := range row {
					if i == idc {
						rec.ID = strings.TrimSpace(v)
					} else if v != "" {
						rec.Fields[t.Header[i]] = v
					}
				}
				if rec.ID == "" {
					rec.ID = base + "#" + strconv.Itoa(r+1)
				}
				recs = append(recs, rec)
			}
		} else {
			rs, err := hiddendb.Load(path, "")
			if err != nil {
				return nil, err
			}
			for i, rec := range rs {
				rec.ID = strings.TrimSpace(rec.Fields[idColumn])
				delete(rec.Fields, idColumn)
				if rec.ID == "" {
					rec.ID = base + "#" + strconv.Itoa(i+1)
				}
				recs = append(recs, rec)
			}
		}
		for _, rec := range recs {
			if used[rec.ID] {
				rec.ID = base + "#dup-" + rec.ID
			}
			used[rec.ID] = true
			out = append(out, rec)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("enrich: bench: no hidden records in %s", strings.Join(paths, ", "))
	}
	return out, nil
}

// injectErrors gives round(frac·n) records one error each in a document
// column: a word removed, a word added or a word replaced (uniformly). Only
// keyword-bearing words are removed or replaced, and new words are other
// keywords of the local documents, so every error changes the record's
// keyword set. It returns the number of records changed.
func injectErrors(rows [][]string, docCols []int, frac float64, rng *rand.Rand) int {
	var words []string
	for _, r := range rows {
		for _, c := range docCols {
			words = append(words, enrich.Terms(r[c])...)
		}
	}
	if len(words) == 0 {
		return 0
	}
	n := int(frac*float64(len(rows)) + 0.5)
	picked := rng.Perm(len(rows))[:n]
	sort.Ints(picked)
	for _, r := range picked {
		var cols []int
		for _, c := range docCols {
			if len(enrich.Terms(rows[r][c])) > 0 {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			cols = docCols
		}
		c := cols[rng.Intn(len(cols))]
		ws := strings.Fields(rows[r][c])
		var keyed []int // words carrying a keyword
		for i, w := range ws {
			if len(enrich.Terms(w)) > 0 {
				keyed = append(keyed, i)
			}
		}
		have := map[string]bool{}
		for _, t := range enrich.Terms(rows[r][c]) {
			have[t] = true
		}
		w := words[rng.Intn(len(words))]
		for try := 0; try < 20 && have[w]; try++ {
			w = words[rng.Intn(len(words))]
		}
		op := rng.Intn(3)
		if op != 1 && len(keyed) < 2 {
			op = 1 // never leave a column without keywords
		}
		switch op {
		case 0:
			i := keyed[rng.Intn(len(keyed))]
			ws = append(ws[:i], ws[i+1:]...)
		case 1:
			i := rng.Intn(len(ws) + 1)
			ws = append(ws[:i], append([]string{w}, ws[i:]...)...)
		default:
			ws[keyed[rng.Intn(len(keyed))]] = w
		}
		rows[r][c] = strings.Join(ws, " ")
	}
	return n
}
