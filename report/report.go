package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Report is what Load gathered: plots and summary tables.
type Report struct {
	// Title heads the HTML page.
	Title string
	// Inputs are the paths read, in order.
	Inputs []string
	// Figures are the plots, in a fixed order (harvest, surfacing,
	// enrichment).
	Figures []*Figure
	// Tables summarise each kind of run.
	Tables []*Table
}

// Figure is one plot: one line per run.
type Figure struct {
	// Key identifies the plot (the HTML element id); runs whose curves
	// share a key are drawn together.
	Key    string
	Title  string
	XLabel string
	YLabel string
	Series []Series
}

// Series is one run's curve.
type Series struct {
	Label  string
	Points []Point
	// Band, when set, is an interval around the curve (a coverage
	// estimate's), drawn as a shaded band under the line.
	Band []Interval
}

// Point is one point of a curve.
type Point struct{ X, Y float64 }

// Interval bounds a curve at X: from Low to High.
type Interval struct{ X, Low, High float64 }

// Table is a summary table.
type Table struct {
	Key    string
	Title  string
	Header []string
	Rows   [][]string
}

// ErrNoData is wrapped by Load's error for an input that holds nothing to
// report.
var ErrNoData = errors.New("nothing to report")

// Load reads every input (a crawl directory, a bench --out directory or a
// bench --json file) and gathers their curves and tables.
func Load(inputs ...string) (*Report, error) {
	if len(inputs) == 0 {
		return nil, errors.New("report: no input")
	}
	b := newBuilder(len(inputs) > 1)
	labels := runLabels(inputs)
	for i, in := range inputs {
		if err := b.load(in, labels[i]); err != nil {
			return nil, err
		}
	}
	return b.report(inputs), nil
}

func newBuilder(multi bool) *builder {
	return &builder{figs: map[string]*Figure{}, tables: map[string]*Table{}, multi: multi}
}

// report orders what was gathered.
func (b *builder) report(inputs []string) *Report {
	r := &Report{Title: "dwcrawl report", Inputs: inputs}
	for _, k := range sortedKeys(b.figs) {
		f := b.figs[k]
		for _, s := range f.Series {
			// points gathered from several files (bench enrich at several
			// budgets) come in file order
			sort.SliceStable(s.Points, func(a, b int) bool { return s.Points[a].X < s.Points[b].X })
			sort.SliceStable(s.Band, func(a, b int) bool { return s.Band[a].X < s.Band[b].X })
		}
		r.Figures = append(r.Figures, f)
	}
	for _, k := range sortedKeys(b.tables) {
		r.Tables = append(r.Tables, b.tables[k])
	}
	return r
}

// builder collects figures and tables by key.
type builder struct {
	figs   map[string]*Figure
	tables map[string]*Table
	// multi: several inputs, so series labels name their input
	multi bool
}

// figure returns the figure of key, creating it with the given texts.
func (b *builder) figure(key, title, x, y string) *Figure {
	f, ok := b.figs[key]
	if !ok {
		f = &Figure{Key: key, Title: title, XLabel: x, YLabel: y}
		b.figs[key] = f
	}
	return f
}

// table returns the table of key, creating it with the given header.
func (b *builder) table(key, title string, header ...string) *Table {
	t, ok := b.tables[key]
	if !ok {
		t = &Table{Key: key, Title: title, Header: header}
		b.tables[key] = t
	}
	return t
}

// load detects what in is and reads it.
func (b *builder) load(in, label string) error {
	st, err := os.Stat(in)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("report: %s: no such directory or file", in)
		}
		return fmt.Errorf("report: %w", err)
	}
	if !st.IsDir() {
		if strings.EqualFold(filepath.Ext(in), ".json") {
			return b.loadBenchJSON(in, label)
		}
		return fmt.Errorf("report: %s: not a directory (a crawl directory or a bench --out directory) nor a bench --json file", in)
	}
	ents, err := os.ReadDir(in)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if len(ents) == 0 {
		return fmt.Errorf("report: %s: empty directory: %w", in, ErrNoData)
	}
	if m, _ := filepath.Glob(filepath.Join(in, "MANIFEST-*")); len(m) > 0 {
		return b.loadCrawl(in, label)
	}
	curves, _ := filepath.Glob(filepath.Join(in, "curve-*.csv"))
	if _, err := os.Stat(filepath.Join(in, "harvest.csv")); err == nil || len(curves) > 0 {
		return b.loadHarvestBench(in, label)
	}
	if ok, err := b.loadSurfaceBench(in, label); ok || err != nil {
		return err
	}
	return fmt.Errorf("report: %s: neither a crawl directory (no database) nor a bench output (no harvest.csv, curve-*.csv or <policy>.csv with query,term,docs,coverage,cost): %w", in, ErrNoData)
}

// runLabels names each input by its base name, adding parent directories
// until the names differ.
func runLabels(inputs []string) []string {
	labels := make([]string, len(inputs))
	for depth := 1; depth <= 4; depth++ {
		seen := map[string]int{}
		for i, in := range inputs {
			labels[i] = lastElems(in, depth)
			seen[labels[i]]++
		}
		dup := false
		for _, n := range seen {
			dup = dup || n > 1
		}
		if !dup {
			break
		}
	}
	return labels
}

func lastElems(p string, n int) string {
	p = filepath.Clean(p)
	if abs, err := filepath.Abs(p); err == nil && (p == "." || strings.HasPrefix(p, "..")) {
		p = abs
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	if len(parts) > n {
		parts = parts[len(parts)-n:]
	}
	return strings.TrimSuffix(strings.Join(parts, "/"), filepath.Ext(p))
}

// order ranks the figure and table keys: harvest first, then surfacing,
// then enrichment.
func order(key string) int {
	for i, p := range []string{"crawl", "harvest", "bench-harvest", "surface", "bench-surface", "enrich", "bench-enrich"} {
		if strings.HasPrefix(key, p+"-") || key == p {
			return i
		}
	}
	return 99
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if oa, ob := order(keys[a]), order(keys[b]); oa != ob {
			return oa < ob
		}
		return keys[a] < keys[b]
	})
	return keys
}

// seriesLabel is what a run's line is called: the input's label, and
// what distinguishes the line within it (a strategy, a policy, a source).
func seriesLabel(input, within string) string {
	switch {
	case within == "":
		return input
	case input == "":
		return within
	}
	return input + ": " + within
}
