package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/store"
)

// EnrichOptions configure an enrichment run.
type EnrichOptions struct {
	// Local is the local table (CSV with a header row).
	Local string
	// Columns form each record's document.
	Columns []string
	// HiddenColumns name the fields of a returned record that form its
	// document, in the order of Columns (default: Columns; a record without
	// them is read through its text).
	HiddenColumns []string
	// Interface is the hidden database's keyword interface.
	Interface enrich.Searcher
	// K is the interface's result limit; 0 asks the interface (TopKer).
	K int
	// Budget is the number of queries b; when zero, BudgetFraction·|D|.
	Budget         int
	BudgetFraction float64
	// Method defaults to smart-b.
	Method enrich.Method
	// SamplePath is a hidden-database sample (JSONL); Theta its ratio (0:
	// from the sample's meta file).
	SamplePath string
	Theta      float64
	// SampleQueries is the number of sampling queries sent to build a sample
	// when none is given (not counted in Budget). Default 100.
	SampleQueries int
	Match         enrich.MatchSpec
	Pool          enrich.PoolOptions
	// Out is the enriched CSV to write ("" for none).
	Out string
	// Dir is a store directory that makes the run resumable ("" for none).
	Dir  string
	Seed int64
	// Progress receives live progress lines (stderr); nil for none.
	Progress io.Writer
	// OnProgress, when set, receives the progress after every query.
	OnProgress func(enrich.Progress)
	// DB, when set, is the store of Dir already open (a server shares one
	// handle between a job and its readers); Enrich leaves it open.
	DB *store.DB
	// Log receives setup messages; nil for none.
	Log io.Writer
}

// EnrichResult is what Enrich returns.
type EnrichResult struct {
	Report  enrich.Report
	Resumed int // queries replayed from the directory
	// SampleQueries is the number of queries spent building the sample.
	SampleQueries int
	Elapsed       time.Duration
}

// Enrich enriches the local table (SmartCrawl and its baselines): builds the pool, obtains the sample,
// resumes the journal in Dir, sends queries until the budget is spent and
// writes the enriched table. On interruption (ctx) it still writes what it
// has and returns the context's error.
func Enrich(ctx context.Context, opt EnrichOptions) (*EnrichResult, error) {
	start := time.Now()
	logf := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "enrich: "+format+"\n", a...)
		}
	}
	if opt.Interface == nil {
		return nil, errors.New("enrich: no interface")
	}
	if opt.Method == "" {
		opt.Method = enrich.SmartBiased
	}
	if opt.Method == enrich.Ideal {
		return nil, errors.New("enrich: ideal needs the truth; it is only available in `dwcrawl bench enrich`")
	}
	if len(opt.HiddenColumns) == 0 {
		opt.HiddenColumns = opt.Columns
	}
	if opt.Match.Kind == "" {
		opt.Match = enrich.MatchSpec{Kind: "jaccard", Threshold: 0.9}
	}
	opt.Pool = opt.Pool.WithDefaults()
	raw, err := os.ReadFile(opt.Local)
	if err != nil {
		return nil, fmt.Errorf("enrich: %w", err)
	}
	tab, err := enrich.ReadTable(bytes.NewReader(raw), opt.Local)
	if err != nil {
		return nil, err
	}
	docs, err := tab.Docs(opt.Columns)
	if err != nil {
		return nil, err
	}
	k := opt.K
	if k <= 0 {
		tk, ok := opt.Interface.(enrich.TopKer)
		if !ok {
			return nil, fmt.Errorf("enrich: %w", ErrNoK)
		}
		if k, err = tk.TopK(ctx); err != nil {
			return nil, fmt.Errorf("enrich: %w: asking the interface: %w", ErrNoK, err)
		}
	}
	budget := opt.Budget
	if budget <= 0 {
		budget = int(opt.BudgetFraction*float64(len(docs)) + 0.5)
	}
	if budget <= 0 {
		return nil, errors.New("enrich: the budget must be positive")
	}
	l := enrich.NewLocal(docs)
	pool, err := enrich.BuildPool(l, opt.Pool)
	if err != nil {
		return nil, err
	}
	logf("local table %s: %d records, %d keywords; query pool %d (%d specific, %d frequent with support ≥ %d, %d dominated removed)",
		opt.Local, len(docs), pool.Stats.Terms, pool.Len(), pool.Stats.Specific, pool.Stats.Frequent, opt.Pool.MinSupport, pool.Stats.Dominated)

	var j *enrich.Journal
	switch {
	case opt.DB != nil:
		j = enrich.JournalOn(opt.DB)
	case opt.Dir != "":
		if j, err = enrich.OpenJournal(opt.Dir); err != nil {
			return nil, err
		}
		defer j.Close()
	}
	if j != nil {
		sum := sha256.Sum256(raw)
		abs, _ := filepath.Abs(opt.Local)
		cfg := enrich.RunConfig{Local: abs, LocalHash: hex.EncodeToString(sum[:]), Columns: opt.Columns, Method: opt.Method,
			Match: opt.Match.String(), MinSupport: opt.Pool.MinSupport, K: k, Seed: opt.Seed}
		if err := j.Config(cfg); err != nil {
			return nil, fmt.Errorf("enrich: %s: %w", opt.Dir, err)
		}
	}
	res := &EnrichResult{}
	var sample *enrich.Sample
	if opt.Method.NeedsSample() {
		if sample, res.SampleQueries, err = obtainSample(ctx, opt, j, l, k, logf); err != nil {
			return nil, err
		}
	}
	matcher, err := opt.Match.New(tab, l, opt.HiddenColumns)
	if err != nil {
		return nil, err
	}
	prog := newProgressPrinter(opt.Progress)
	prog.on = opt.OnProgress
	eng, err := enrich.NewEngine(pool, matcher, enrich.Options{Method: opt.Method, Budget: budget, K: k, Sample: sample, Seed: opt.Seed,
		Progress: prog.update})
	if err != nil {
		return nil, err
	}
	if j != nil {
		prog.quiet = true
		err := j.Replay(func(e enrich.Entry) error {
			eng.Apply(e)
			res.Resumed++
			return nil
		})
		prog.quiet = false
		if err != nil {
			return nil, err
		}
		if res.Resumed > 0 {
			rep := eng.Report()
			logf("resumed %s: %d queries already sent, %d records covered", opt.Dir, rep.Queries, rep.Covered)
		}
	}
	var runErr error
	for runErr == nil {
		if err := ctx.Err(); err != nil {
			runErr = err
			break
		}
		e, ok, err := eng.Step(ctx, opt.Interface)
		if errors.Is(err, keyword.ErrBudget) {
			logf("the interface's request budget is spent")
			break
		}
		if err != nil {
			runErr = err
			break
		}
		if !ok {
			break
		}
		if j != nil {
			if err := j.Append(e); err != nil {
				runErr = fmt.Errorf("enrich: journal: %w", err)
			}
		}
	}
	prog.done()
	res.Report = eng.Report()
	res.Elapsed = time.Since(start)
	if opt.Out != "" {
		if err := writeEnrichedFile(opt.Out, tab, eng); err != nil {
			return res, err
		}
	}
	return res, runErr
}

// obtainSample loads the sample file, or the one stored in the run
// directory, or builds one through the interface.
func obtainSample(ctx context.Context, opt EnrichOptions, j *enrich.Journal, l *enrich.Local, k int, logf func(string, ...any)) (*enrich.Sample, int, error) {
	if opt.SamplePath != "" {
		s, err := enrich.LoadSample(opt.SamplePath)
		if err != nil {
			return nil, 0, err
		}
		if opt.Theta > 0 {
			s.Theta = opt.Theta
		}
		if s.Theta <= 0 && opt.Method != enrich.Full {
			return nil, 0, fmt.Errorf("enrich: sample %s: %w", opt.SamplePath, ErrNoTheta)
		}
		logf("sample %s: %d records, θ = %g", opt.SamplePath, len(s.Docs), s.Theta)
		return s, 0, nil
	}
	if j != nil {
		if s, ok, err := j.Sample(); err != nil {
			return nil, 0, err
		} else if ok {
			if opt.Theta > 0 {
				s.Theta = opt.Theta
			}
			logf("sample from %s: %d records, θ = %g", opt.Dir, len(s.Docs), s.Theta)
			return s, 0, nil
		}
	}
	n := opt.SampleQueries
	if n <= 0 {
		n = 100
	}
	logf("building a hidden-database sample with %d queries (not counted in the budget)", n)
	s, meta, err := enrich.BuildSample(ctx, opt.Interface, enrich.SampleOptions{Queries: n, K: k, Vocabulary: l.Vocabulary(), Columns: opt.HiddenColumns, Seed: opt.Seed})
	if err != nil {
		return nil, 0, err
	}
	if opt.Theta > 0 {
		s.Theta = opt.Theta
	}
	if s.Theta <= 0 || len(s.Docs) == 0 {
		return nil, n, fmt.Errorf("enrich: %w (%d records, θ %g)", ErrEmptySample, len(s.Docs), s.Theta)
	}
	logf("sample: %d records from %d queries (%d solid), θ ≈ %.4g, |H| ≈ %.0f", len(s.Docs), meta.Queries, meta.Solid, s.Theta, meta.HiddenSize)
	if j != nil {
		if err := j.PutSample(s, meta); err != nil {
			return nil, n, err
		}
	}
	return s, n, nil
}

func writeEnrichedFile(path string, t *enrich.Table, e *enrich.Engine) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("enrich: %w", err)
	}
	if err := enrich.WriteEnriched(f, t, e); err != nil {
		f.Close()
		return fmt.Errorf("enrich: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("enrich: write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// WriteEnrichReport prints the coverage report.
func WriteEnrichReport(w io.Writer, r *EnrichResult) {
	rep := r.Report
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	fmt.Fprintf(w, "method          %s (k = %d)\n", rep.Method, rep.K)
	fmt.Fprintf(w, "local records   %d\n", rep.Local)
	fmt.Fprintf(w, "query pool      %d (%d specific, %d frequent keyword sets, %d dominated removed)\n",
		rep.Pool.Specific+rep.Pool.Frequent, rep.Pool.Specific, rep.Pool.Frequent, rep.Pool.Dominated)
	if rep.SampleSize > 0 {
		fmt.Fprintf(w, "sample          %d records, θ = %.4g, α = %.4g", rep.SampleSize, rep.Theta, rep.Alpha)
		if r.SampleQueries > 0 {
			fmt.Fprintf(w, " (%d sampling queries)", r.SampleQueries)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "queries         %d of %d (%d solid, %d overflowing)", rep.Queries, rep.Budget, rep.Solid, rep.Overflowing)
	if r.Resumed > 0 {
		fmt.Fprintf(w, ", %d replayed from the journal", r.Resumed)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "covered         %d (%.1f%%)\n", rep.Covered, pct(rep.Covered, rep.Local))
	fmt.Fprintf(w, "not in hidden   %d (removed after solid queries)\n", rep.Uncoverable)
	fmt.Fprintf(w, "uncovered       %d\n", rep.Local-rep.Covered-rep.Uncoverable)
	fmt.Fprintf(w, "time            %s (interface %s)\n", r.Elapsed.Round(time.Millisecond), rep.SearchTime.Round(time.Millisecond))
}

// progressPrinter writes live progress: rewritten in place on a terminal,
// a line every ~2 s otherwise.
type progressPrinter struct {
	w     io.Writer
	on    func(enrich.Progress)
	tty   bool
	quiet bool
	last  time.Time
	p     enrich.Progress
	shown bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	pp := &progressPrinter{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			pp.tty = true
		}
	}
	return pp
}

func (pp *progressPrinter) update(p enrich.Progress) {
	pp.p = p
	if pp.on != nil {
		pp.on(p)
	}
	if pp.w == nil || pp.quiet {
		return
	}
	every := 2 * time.Second
	if pp.tty {
		every = 100 * time.Millisecond
	}
	if time.Since(pp.last) < every {
		return
	}
	pp.last = time.Now()
	pp.print()
}

func (pp *progressPrinter) print() {
	p := pp.p
	line := fmt.Sprintf("enrich: %d/%d queries, %d/%d records covered (%.1f%%), %d not in hidden database",
		p.Queries, p.Budget, p.Covered, p.Local, 100*float64(p.Covered)/float64(max(1, p.Local)), p.Uncoverable)
	if pp.tty {
		fmt.Fprintf(pp.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(pp.w, line)
	}
	pp.shown = true
}

func (pp *progressPrinter) done() {
	if pp.w == nil || pp.p.Budget == 0 {
		return
	}
	pp.print()
	if pp.tty {
		fmt.Fprintln(pp.w)
	}
}
