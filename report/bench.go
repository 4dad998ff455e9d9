package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// csvFile is a CSV file read whole, its columns found by name.
type csvFile struct {
	path string
	col  map[string]int
	rows [][]string
}

// readCSV reads path; every column in need must be present.
func readCSV(path string, need ...string) (*csvFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("report: %s: empty file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	c := &csvFile{path: path, col: map[string]int{}}
	for i, h := range head {
		c.col[strings.TrimSpace(h)] = i
	}
	for _, n := range need {
		if _, ok := c.col[n]; !ok {
			return nil, fmt.Errorf("report: %s:1: no column %q", path, n)
		}
	}
	c.rows, err = cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	return c, nil
}

// get is row i's value of column name ("" when absent).
func (c *csvFile) get(i int, name string) string {
	j, ok := c.col[name]
	if !ok || j >= len(c.rows[i]) {
		return ""
	}
	return strings.TrimSpace(c.rows[i][j])
}

// num parses row i's column name as a number, naming file, line and
// column when it is not one.
func (c *csvFile) num(i int, name string) (float64, error) {
	v := c.get(i, name)
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("report: %s:%d: column %s: %q is not a number", c.path, i+2, name, v)
	}
	return f, nil
}

// harvestRun is one domain × strategy of a harvest bench.
type harvestRun struct {
	domain, strategy string
	row              int // in harvest.csv, -1 when there is none
}

// loadHarvestBench reads a bench harvest --out directory: curve-*.csv for
// the plots, harvest.csv for the table.
func (b *builder) loadHarvestBench(dir, label string) error {
	var runs []harvestRun
	var summary *csvFile
	if _, err := os.Stat(filepath.Join(dir, "harvest.csv")); err == nil {
		s, err := readCSV(filepath.Join(dir, "harvest.csv"), "domain", "strategy")
		if err != nil {
			return err
		}
		summary = s
		for i := range s.rows {
			if s.get(i, "error") == "" {
				runs = append(runs, harvestRun{s.get(i, "domain"), s.get(i, "strategy"), i})
			}
		}
	} else {
		files, _ := filepath.Glob(filepath.Join(dir, "curve-*.csv"))
		sort.Strings(files)
		for _, f := range files {
			name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "curve-"), ".csv")
			if i := strings.LastIndex(name, "-"); i > 0 {
				runs = append(runs, harvestRun{name[:i], name[i+1:], -1})
			}
		}
	}
	within := ""
	if b.multi {
		within = label
	}
	curves := 0
	for _, r := range runs {
		path := filepath.Join(dir, "curve-"+r.domain+"-"+r.strategy+".csv")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		c, err := readCSV(path, "pages", "relevant_forms", "deep_sites")
		if err != nil {
			return err
		}
		forms, sites := []Point{{0, 0}}, []Point{{0, 0}}
		for i := range c.rows {
			p, err := c.num(i, "pages")
			if err != nil {
				return err
			}
			nf, err := c.num(i, "relevant_forms")
			if err != nil {
				return err
			}
			ns, err := c.num(i, "deep_sites")
			if err != nil {
				return err
			}
			if p == 0 {
				forms[0].Y, sites[0].Y = nf, ns
				continue
			}
			forms = append(forms, Point{p, nf})
			sites = append(sites, Point{p, ns})
		}
		curves++
		f := b.figure("bench-harvest-"+r.domain+"-forms", "Relevant forms vs pages fetched: "+r.domain+" (ground truth)", "pages fetched", "true relevant searchable forms")
		f.Series = append(f.Series, Series{Label: seriesLabel(within, r.strategy), Points: forms})
		f = b.figure("bench-harvest-"+r.domain+"-sites", "Deep sites vs pages fetched: "+r.domain+" (ground truth)", "pages fetched", "true deep sites")
		f.Series = append(f.Series, Series{Label: seriesLabel(within, r.strategy), Points: sites})
		last := len(forms) - 1
		row := []string{label, r.domain, r.strategy, ftoa(forms[last].X), ftoa(forms[last].Y), ftoa(sites[last].Y), ratio(forms[last].Y, forms[last].X)}
		if r.row >= 0 {
			for i, col := range []string{"pages", "relevant_forms", "deep_sites", "harvest_rate"} {
				if v := summary.get(r.row, col); v != "" {
					row[3+i] = v
				}
			}
		}
		t := b.table("bench-harvest", "Harvest bench (scored against the simulated web's ground truth)",
			"run", "domain", "strategy", "pages", "relevant forms", "deep sites", "harvest rate")
		t.Rows = append(t.Rows, row)
	}
	if curves == 0 {
		return fmt.Errorf("report: %s: a harvest bench output without curves (no curve-<domain>-<strategy>.csv for its runs; did every run fail?): %w", dir, ErrNoData)
	}
	return nil
}

// loadSurfaceBench reads the <policy>.csv curves of a bench surface --out
// directory; ok is false when dir has none.
func (b *builder) loadSurfaceBench(dir, label string) (ok bool, err error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	sort.Strings(files)
	within := ""
	if b.multi {
		within = label
	}
	for _, path := range files {
		c, err := readCSV(path)
		if err != nil {
			return true, err
		}
		if !hasColumns(c, "query", "docs", "coverage") {
			continue
		}
		ok = true
		policy := strings.TrimSuffix(filepath.Base(path), ".csv")
		pts := []Point{{0, 0}}
		var ests []benchEstimate
		for i := range c.rows {
			q, err := c.num(i, "query")
			if err != nil {
				return true, err
			}
			cov, err := c.num(i, "coverage")
			if err != nil {
				return true, err
			}
			pts = append(pts, Point{q, cov})
			e, err := csvEstimate(c, i, q, cov)
			if err != nil {
				return true, err
			}
			if e.Estimator != "" {
				ests = append(ests, e)
			}
		}
		f := b.figure("bench-surface-coverage", "Surfacing: coverage vs queries", "queries", "coverage (fraction of the database)")
		f.Series = append(f.Series, Series{Label: seriesLabel(within, policy), Points: pts})
		row := []string{label, policy, "0", "0", "0", "0"}
		if n := len(c.rows); n > 0 {
			row = []string{label, policy, c.get(n-1, "query"), c.get(n-1, "docs"), c.get(n-1, "coverage"), c.get(n-1, "cost")}
		}
		row = append(row, estimateCells(ests)...)
		t := b.table("bench-surface", "Surfacing bench", "run", "policy", "queries", "documents", "coverage", "cost",
			"estimate", levelName()+" interval", "estimator", "in interval", "intervals holding the truth")
		t.Rows = append(t.Rows, row)
		b.truthAndEstimate(within, policy, pts, ests)
	}
	return ok, nil
}

// benchEstimate is a bench's coverage estimate at a checkpoint next to
// the true coverage there.
type benchEstimate struct {
	Estimate
	Truth float64
	// In: the interval holds the truth.
	In bool
}

// csvEstimate reads the estimate columns of row i of a bench surface CSV
// (query q, true coverage cov); the Estimator is "" when the row has none
// (no checkpoint, or a file written before the columns existed).
func csvEstimate(c *csvFile, i int, q, cov float64) (benchEstimate, error) {
	e := benchEstimate{Estimate: Estimate{Query: int(q), Estimator: c.get(i, "estimator")}, Truth: cov}
	if e.Estimator == "" {
		return e, nil
	}
	e.Coverage, e.Low, e.High, e.Size = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if c.get(i, "coverage_estimate") == "" {
		return e, nil // estimator "none"
	}
	for _, col := range []struct {
		name string
		v    *float64
	}{{"coverage_estimate", &e.Coverage}, {"coverage_low", &e.Low}, {"coverage_high", &e.High}} {
		v, err := c.num(i, col.name)
		if err != nil {
			return e, err
		}
		*col.v = v
	}
	// as the bench decides in_interval: the truth rounded as the bounds are
	truth := math.Round(cov*1e4) / 1e4
	e.In = e.Low <= truth && truth <= e.High
	return e, nil
}

// estimateCells are the bench table's estimate columns: the last
// checkpoint's estimate, interval, estimator and whether the interval
// holds the truth, then at how many of the checkpoints with an estimate
// it did; empty without estimates.
func estimateCells(ests []benchEstimate) []string {
	cells := make([]string, 5)
	if len(ests) == 0 {
		return cells
	}
	last := ests[len(ests)-1]
	cells[2] = last.Estimator
	if last.Valid() {
		cells[0], cells[1], cells[3] = ftoa(last.Coverage), interval(last.Low, last.High), yesNo(last.In)
	}
	in, valid := 0, 0
	for _, e := range ests {
		if e.Valid() {
			valid++
			if e.In {
				in++
			}
		}
	}
	if valid > 0 {
		cells[4] = strconv.Itoa(in) + "/" + strconv.Itoa(valid)
	}
	return cells
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// truthAndEstimate adds the plot of a policy's true coverage with the
// estimate and its interval band over it, when there are estimates.
func (b *builder) truthAndEstimate(within, policy string, truth []Point, ests []benchEstimate) {
	var plain []Estimate
	for _, e := range ests {
		plain = append(plain, e.Estimate)
	}
	est, ok := estimateSeries(seriesLabel(within, "estimate"), plain)
	if !ok {
		return
	}
	f := b.figure("bench-surface-estimate-"+policy, "Surfacing, "+policy+": true and estimated coverage ("+levelName()+" interval shaded)",
		"queries", "coverage (fraction of the database)")
	f.Series = append(f.Series, Series{Label: seriesLabel(within, "true coverage"), Points: append([]Point(nil), truth...)}, est)
}

func hasColumns(c *csvFile, names ...string) bool {
	for _, n := range names {
		if _, ok := c.col[n]; !ok {
			return false
		}
	}
	return true
}

// benchRow is one object of a bench --json output; which fields are set
// tells which bench wrote it.
type benchRow struct {
	// bench enrich
	Method    *string `json:"method"`
	Budget    *int    `json:"budget"`
	Covered   *int    `json:"covered"`
	LocalSize int     `json:"local_size"`
	Matched   int     `json:"matched"`
	Queries   *int    `json:"queries"`
	// bench surface
	Policy           *string  `json:"policy"`
	Coverage         *float64 `json:"coverage"`
	CoverageEstimate *float64 `json:"coverage_estimate"`
	CoverageLow      *float64 `json:"coverage_low"`
	CoverageHigh     *float64 `json:"coverage_high"`
	Estimator        string   `json:"estimator"`
	InInterval       *bool    `json:"in_interval"`
	// bench harvest
	Strategy *string `json:"strategy"`
	Domain   *string `json:"domain"`
}

// loadBenchJSON reads the --json output of bench enrich or bench surface.
func (b *builder) loadBenchJSON(path, label string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var rows []benchRow
	if err := json.Unmarshal(data, &rows); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("report: %s: offset %d: %w", path, se.Offset, err)
		}
		return fmt.Errorf("report: %s: not a bench --json output (an array of objects): %w", path, err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("report: %s: an empty array: %w", path, ErrNoData)
	}
	switch r := rows[0]; {
	case r.Method != nil && r.Budget != nil && r.Covered != nil:
		return b.enrichJSON(path, label, rows)
	case r.Policy != nil && r.Queries != nil && r.Coverage != nil:
		return b.surfaceJSON(path, label, rows)
	case r.Strategy != nil && r.Domain != nil:
		return fmt.Errorf("report: %s: bench harvest --json holds no curves: give the directory of bench harvest --out instead", path)
	}
	return fmt.Errorf("report: %s: not the --json output of bench enrich ({method, budget, covered…}) or bench surface ({policy, queries, coverage})", path)
}

// enrichJSON adds bench enrich results: covered records at each budget,
// one line per method across every file given.
func (b *builder) enrichJSON(path, label string, rows []benchRow) error {
	f := b.figure("bench-enrich-covered", "Enrichment: local records covered vs query budget", "query budget", "local records covered")
	t := b.table("bench-enrich", "Enrichment bench", "run", "method", "budget", "queries", "covered", "local records", "matched")
	for i, r := range rows {
		if r.Method == nil || r.Budget == nil || r.Covered == nil {
			return fmt.Errorf("report: %s: object %d lacks method, budget or covered", path, i+1)
		}
		s := f.series(*r.Method)
		if len(s.Points) == 0 {
			s.Points = append(s.Points, Point{0, 0}) // no query covers nothing
		}
		s.Points = append(s.Points, Point{float64(*r.Budget), float64(*r.Covered)})
		q := ""
		if r.Queries != nil {
			q = strconv.Itoa(*r.Queries)
		}
		t.Rows = append(t.Rows, []string{label, *r.Method, strconv.Itoa(*r.Budget), q, strconv.Itoa(*r.Covered), strconv.Itoa(r.LocalSize), strconv.Itoa(r.Matched)})
	}
	return nil
}

// surfaceJSON adds the checkpoints of bench surface --json: the coverage
// curves, and where the objects carry the harvest's estimates, a plot per
// policy of the truth against the estimate's band and a table of the
// checkpoints.
func (b *builder) surfaceJSON(path, label string, rows []benchRow) error {
	within := ""
	if b.multi {
		within = label
	}
	f := b.figure("bench-surface-coverage", "Surfacing: coverage vs queries", "queries", "coverage (fraction of the database)")
	var policies []string
	truth := map[string][]Point{}
	ests := map[string][]benchEstimate{}
	for i, r := range rows {
		if r.Policy == nil || r.Queries == nil || r.Coverage == nil {
			return fmt.Errorf("report: %s: object %d lacks policy, queries or coverage", path, i+1)
		}
		s := f.series(seriesLabel(within, *r.Policy))
		if len(s.Points) == 0 {
			s.Points = append(s.Points, Point{0, 0})
			policies = append(policies, *r.Policy)
		}
		s.Points = append(s.Points, Point{float64(*r.Queries), *r.Coverage})
		truth[*r.Policy] = s.Points
		if r.Estimator == "" {
			continue // written before the estimates
		}
		e := benchEstimate{Estimate: Estimate{Query: *r.Queries, Coverage: math.NaN(), Low: math.NaN(), High: math.NaN(), Size: math.NaN(), Estimator: r.Estimator}, Truth: *r.Coverage}
		if r.CoverageEstimate != nil {
			if r.CoverageLow == nil || r.CoverageHigh == nil {
				return fmt.Errorf("report: %s: object %d has a coverage_estimate without coverage_low and coverage_high", path, i+1)
			}
			e.Coverage, e.Low, e.High = *r.CoverageEstimate, *r.CoverageLow, *r.CoverageHigh
			e.In = e.Low <= e.Truth && e.Truth <= e.High
			if r.InInterval != nil {
				e.In = *r.InInterval // the bench's own verdict
			}
		}
		ests[*r.Policy] = append(ests[*r.Policy], e)
	}
	for _, p := range policies {
		if len(ests[p]) == 0 {
			continue
		}
		b.truthAndEstimate(within, p, truth[p], ests[p])
		t := b.table("bench-surface-checkpoints", "Surfacing bench: true coverage and the estimate at the checkpoints",
			"run", "policy", "queries", "coverage", "estimate", levelName()+" interval", "estimator", "in interval")
		for _, e := range ests[p] {
			row := []string{label, p, strconv.Itoa(e.Query), ftoa(e.Truth), "", "", e.Estimator, ""}
			if e.Valid() {
				row[4], row[5], row[7] = ftoa(e.Coverage), interval(e.Low, e.High), yesNo(e.In)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return nil
}

// series returns the figure's series labelled label, adding it if needed.
func (f *Figure) series(label string) *Series {
	for i := range f.Series {
		if f.Series[i].Label == label {
			return &f.Series[i]
		}
	}
	f.Series = append(f.Series, Series{Label: label})
	return &f.Series[len(f.Series)-1]
}
