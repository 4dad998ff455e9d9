// Package surfacebench measures the query-selection policies of package
// surface (Ntoulas, Zerfos & Cho: random, generic-frequency, adaptive, and
// the oracle as the reference) on a corpus served as a top-k hidden
// database (testbed/hiddendb), recording the coverage after every query
// and, at every checkpoint, the harvest's own coverage estimate (interval,
// estimator) next to the true coverage: `dwcrawl bench surface`.
package surfacebench

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// DefaultCheckpoints are the query counts the bench reports.
var DefaultCheckpoints = []int{10, 25, 50, 100, 200, 500}

// Options configures Run.
type Options struct {
	// Corpus is a .jsonl or .csv file of records, or several separated by
	// commas (one database, see LoadCorpora).
	Corpus string
	// IDField is the record id field ("" : id, ID or key when present and
	// unique, else the line number).
	IDField string
	// TextFields are the searchable fields (nil: every field but the id).
	TextFields []string
	K          int // result limit (default 100)
	PageSize   int // results per page (default 100)
	Budget     int // queries per policy (default 500)
	Policies   []string
	Seed       int64
	Select     surface.SelectOptions // estimator, cost, rank awareness of adaptive
	Words      []string              // word list of random/generic (nil: bundled)
	// HideTotal makes the interface hide its match counts.
	HideTotal bool
	// InProcess searches the database directly instead of over loopback HTTP.
	InProcess bool
	// Checkpoints are the query counts reported (nil: DefaultCheckpoints).
	Checkpoints []int
	// NoProbe turns off the harvest's size probes (surface.Options.NoProbe).
	NoProbe bool
	// Progress, when set, receives a line per policy per 50 queries.
	Progress io.Writer
}

// Report is the outcome of Run.
type Report struct {
	Corpus    string        `json:"corpus"`
	Records   int           `json:"records"`
	K         int           `json:"k"`
	Seed      int64         `json:"seed"`
	HideTotal bool          `json:"hide_total"`
	Curves    []PolicyCurve `json:"curves"`
	Points    []int         `json:"checkpoints"`
}

// PolicyCurve is one policy's coverage after every query.
type PolicyCurve struct {
	Policy   string             `json:"policy"`
	Coverage []float64          `json:"-"` // after query i+1
	Docs     []int              `json:"-"`
	Cost     []float64          `json:"-"`
	Queries  []string           `json:"-"`
	Elapsed  time.Duration      `json:"-"`
	Log      []surface.QueryLog `json:"-"`
	// Estimates are the harvest's coverage estimates after every query
	// (those of the estimate checkpoints, which include the report's).
	Estimates []surface.CoverageEstimate `json:"-"`
}

// EstimateAt is the coverage estimate after n queries (the final one when
// the policy stopped earlier).
func (c PolicyCurve) EstimateAt(n int) surface.CoverageEstimate {
	if len(c.Estimates) == 0 {
		return surface.CoverageEstimate{Estimator: surface.EstimatorNone, Coverage: math.NaN(), Low: math.NaN(), High: math.NaN()}
	}
	if n > len(c.Estimates) {
		n = len(c.Estimates)
	}
	return c.Estimates[n-1]
}

// CoverageAt is the coverage after n queries (the final one when the policy
// stopped earlier).
func (c PolicyCurve) CoverageAt(n int) float64 {
	if len(c.Coverage) == 0 {
		return 0
	}
	if n > len(c.Coverage) {
		n = len(c.Coverage)
	}
	return c.Coverage[n-1]
}

// LoadCorpus reads a corpus (.jsonl/.ndjson, .csv, or .json holding either
// JSON lines or one array of objects) and picks its id field: idField, else
// the first of id, ID, Id, key, _id whose values are present and unique,
// else the line number.
func LoadCorpus(path, idField string) ([]hiddendb.Record, string, error) {
	recs, err := loadRecords(path)
	if err != nil {
		return nil, "", err
	}
	if idField == "" && len(recs) > 0 {
		for _, cand := range []string{"id", "ID", "Id", "key", "_id"} {
			if _, ok := recs[0].Fields[cand]; ok && uniqueField(recs, cand) {
				idField = cand
				break
			}
		}
	}
	if idField != "" {
		for i := range recs {
			v := recs[i].Fields[idField]
			if v == "" {
				return nil, "", fmt.Errorf("surface: %s: record %d has no %q", path, i+1, idField)
			}
			recs[i].ID = v
		}
		if !uniqueField(recs, idField) {
			return nil, "", fmt.Errorf("surface: %s: field %q is not unique", path, idField)
		}
	}
	return recs, idField, nil
}

// LoadCorpora reads one or more corpus files as one database (each file's
// id field picked as LoadCorpus does) and returns the records with their
// searchable fields: every field but the files' id fields, in order of
// appearance. Ids must be unique across the files; when two files share
// one, both get their file's base name as a prefix.
func LoadCorpora(paths []string, idField string) ([]hiddendb.Record, []string, error) {
	var recs []hiddendb.Record
	var fields []string
	seenField := map[string]bool{}
	firstOf := map[string]int{} // id -> index of the file that has it
	clash := map[int]bool{}
	var spans [][2]int
	for fi, path := range paths {
		path = strings.TrimSpace(path)
		if path == "" {
			continue
		}
		rs, idf, err := LoadCorpus(path, idField)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range rs {
			if f, ok := firstOf[r.ID]; ok && f != fi {
				clash[f], clash[fi] = true, true
			}
			firstOf[r.ID] = fi
			for _, k := range recordFields(r) {
				if k != idf && !seenField[k] {
					seenField[k] = true
					fields = append(fields, k)
				}
			}
		}
		spans = append(spans, [2]int{len(recs), fi})
		recs = append(recs, rs...)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("surface: corpus %q: no records", strings.Join(paths, ","))
	}
	for s, sp := range spans {
		if !clash[sp[1]] {
			continue
		}
		end := len(recs)
		if s+1 < len(spans) {
			end = spans[s+1][0]
		}
		base := filepath.Base(strings.TrimSpace(paths[sp[1]]))
		for i := sp[0]; i < end; i++ {
			recs[i].ID = base + ":" + recs[i].ID
		}
	}
	return recs, fields, nil
}

// recordFields lists a record's fields in display order, then the others
// sorted, so the searchable fields come out in a stable order.
func recordFields(r hiddendb.Record) []string {
	out := make([]string, 0, len(r.Fields))
	seen := make(map[string]bool, len(r.Fields))
	for _, k := range r.Order {
		if _, ok := r.Fields[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	var rest []string
	for k := range r.Fields {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func uniqueField(recs []hiddendb.Record, f string) bool {
	seen := make(map[string]bool, len(recs))
	for _, r := range recs {
		v := r.Fields[f]
		if v == "" || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// Run serves a corpus as a hidden database (top-k, paginated,
// conjunctive keyword search) and harvests it with each policy under the
// same query budget, recording the coverage after every query.
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.K <= 0 {
		opt.K = 100
	}
	if opt.PageSize <= 0 {
		opt.PageSize = 100
	}
	if opt.Budget <= 0 {
		opt.Budget = 500
	}
	if len(opt.Policies) == 0 {
		opt.Policies = []string{"adaptive", "generic", "random", "oracle"}
	}
	if opt.Checkpoints == nil {
		opt.Checkpoints = DefaultCheckpoints
	}
	recs, fields, err := LoadCorpora(strings.Split(opt.Corpus, ","), opt.IDField)
	if err != nil {
		return nil, err
	}
	if opt.TextFields != nil {
		fields = opt.TextFields
	}
	db := hiddendb.New(recs, hiddendb.Options{K: opt.K, PageSize: opt.PageSize, IndexFields: fields, ShowTotal: !opt.HideTotal, Seed: opt.Seed})
	var searcher surface.Searcher = hiddendb.Searcher{DB: db}
	if !opt.InProcess {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("surface: bench listener: %w", err)
		}
		srv := &http.Server{Handler: db.Handler("/db"), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		tr := &http.Transport{MaxIdleConnsPerHost: 4}
		defer tr.CloseIdleConnections()
		searcher = &keyword.APISearcher{Base: "http://" + ln.Addr().String() + "/db", Client: &http.Client{Transport: tr, Timeout: time.Minute}}
	}
	var points []int
	for _, n := range opt.Checkpoints {
		if n <= opt.Budget {
			points = append(points, n)
		}
	}
	rep := &Report{Corpus: opt.Corpus, Records: db.Len(), K: opt.K, Seed: opt.Seed, HideTotal: opt.HideTotal, Points: points}
	every := 0 // estimate at every checkpoint
	for _, n := range points {
		every = gcd(every, n)
	}
	terms := surface.TermOptions{}
	for _, name := range opt.Policies {
		var p surface.Policy
		if name == "oracle" {
			p = surface.NewOracle(db, terms)
		} else {
			p, err = surface.NewPolicy(name, surface.PolicyOptions{Words: opt.Words, Seed: opt.Seed, Select: opt.Select})
			if err != nil {
				return nil, err
			}
		}
		curve := PolicyCurve{Policy: name}
		start := time.Now()
		hopt := surface.Options{Source: name, Budget: opt.Budget, Cost: opt.Select.Cost, Terms: terms, EstimateEvery: every, NoProbe: opt.NoProbe, Progress: func(pr surface.Progress) {
			if pr.Queries == len(curve.Coverage) && pr.Queries > 0 {
				// the final estimate of a harvest that stopped off a checkpoint
				curve.Estimates[pr.Queries-1] = pr.Estimate
				return
			}
			curve.Estimates = append(curve.Estimates, pr.Estimate)
			curve.Coverage = append(curve.Coverage, float64(pr.Docs)/float64(db.Len()))
			curve.Docs = append(curve.Docs, pr.Docs)
			curve.Cost = append(curve.Cost, pr.Cost)
			curve.Queries = append(curve.Queries, pr.Last.Query)
			if opt.Progress != nil && pr.Queries%50 == 0 {
				e := pr.Estimate
				fmt.Fprintf(opt.Progress, "%s: %d queries, %d docs (%.1f%%), est. %.1f%% [%.1f–%.1f%%] (%s), last %q total %d new %d\n",
					name, pr.Queries, pr.Docs, 100*float64(pr.Docs)/float64(db.Len()), 100*e.Coverage, 100*e.Low, 100*e.High, e.Estimator, pr.Last.Query, pr.Last.Total, pr.Last.New)
			}
		}}
		st, err := surface.Harvest(ctx, searcher, p, hopt)
		if err != nil {
			return nil, fmt.Errorf("surface: bench %s: %w", name, err)
		}
		curve.Log = st.Log()
		curve.Elapsed = time.Since(start)
		rep.Curves = append(rep.Curves, curve)
	}
	return rep, nil
}

// CheckpointRow is one JSON line of the bench output: the true coverage
// and the harvest's estimate of it, with its interval (level
// surface.CoverageLevel) and estimator; the estimate fields are null while
// the estimator is "none". InInterval reports whether the interval holds
// the true coverage.
type CheckpointRow struct {
	Policy           string   `json:"policy"`
	Queries          int      `json:"queries"`
	Coverage         float64  `json:"coverage"`
	CoverageEstimate *float64 `json:"coverage_estimate"`
	CoverageLow      *float64 `json:"coverage_low"`
	CoverageHigh     *float64 `json:"coverage_high"`
	Estimator        string   `json:"estimator"`
	InInterval       bool     `json:"in_interval"`
}

// Rows returns the coverage of every policy at every checkpoint.
func (r *Report) Rows() []CheckpointRow {
	var out []CheckpointRow
	for _, c := range r.Curves {
		for _, n := range r.Points {
			row := CheckpointRow{Policy: c.Policy, Queries: n, Coverage: round4(c.CoverageAt(n))}
			e := c.EstimateAt(n)
			row.Estimator = e.Estimator
			if e.Valid() {
				est, lo, hi := round4(e.Coverage), round4(e.Low), round4(e.High)
				row.CoverageEstimate, row.CoverageLow, row.CoverageHigh = &est, &lo, &hi
				row.InInterval = lo <= row.Coverage && row.Coverage <= hi
			}
			out = append(out, row)
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// WriteJSON writes the checkpoint rows as a JSON array.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Rows())
}

// WriteTable writes a coverage table: one row per policy, one column per
// checkpoint, in percent.
func (r *Report) WriteTable(w io.Writer) error {
	var names []string
	for _, p := range strings.Split(r.Corpus, ",") {
		names = append(names, filepath.Base(strings.TrimSpace(p)))
	}
	totals := "totals shown"
	if r.HideTotal {
		totals = "totals hidden"
	}
	fmt.Fprintf(w, "%s: %d records, k=%d, %s, seed %d\n", strings.Join(names, ","), r.Records, r.K, totals, r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"policy"}
	for _, n := range r.Points {
		hdr = append(hdr, strconv.Itoa(n))
	}
	hdr = append(hdr, "time")
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	for _, c := range r.Curves {
		row := []string{c.Policy}
		for _, n := range r.Points {
			row = append(row, fmt.Sprintf("%.1f%%", 100*c.CoverageAt(n)))
		}
		row = append(row, c.Elapsed.Round(100*time.Millisecond).String())
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return r.writeEstimates(w)
}

// writeEstimates writes, for every policy and checkpoint, the true coverage
// next to the harvest's estimate, its interval and estimator, and how often
// the interval held the truth.
func (r *Report) writeEstimates(w io.Writer) error {
	fmt.Fprintf(w, "\nestimated coverage (%.0f%% interval) next to the true coverage:\n", 100*surface.CoverageLevel)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "policy\tqueries\ttrue\testimate\tinterval\tin\testimator")
	in, valid := 0, 0
	for _, row := range r.Rows() {
		est, iv, mark := "-", "-", "-"
		if row.CoverageEstimate != nil {
			valid++
			est = fmt.Sprintf("%.1f%%", 100**row.CoverageEstimate)
			iv = fmt.Sprintf("%.1f–%.1f%%", 100**row.CoverageLow, 100**row.CoverageHigh)
			mark = "no"
			if row.InInterval {
				mark = "yes"
				in++
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%s\t%s\t%s\t%s\n", row.Policy, row.Queries, 100*row.Coverage, est, iv, mark, row.Estimator)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "interval holds the true coverage at %d of %d checkpoints with an estimate\n", in, valid)
	return err
}

// WriteCSV writes one file per policy, <dir>/<policy>.csv, with the columns
// query, term, docs, coverage, cost, then the estimate of the estimate
// checkpoints: coverage_estimate, coverage_low, coverage_high, estimator
// (empty elsewhere).
func (r *Report) WriteCSV(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("surface: %w", err)
	}
	for _, c := range r.Curves {
		f, err := os.Create(filepath.Join(dir, c.Policy+".csv"))
		if err != nil {
			return fmt.Errorf("surface: %w", err)
		}
		cw := csv.NewWriter(f)
		cw.Write([]string{"query", "term", "docs", "coverage", "cost", "coverage_estimate", "coverage_low", "coverage_high", "estimator"})
		for i := range c.Coverage {
			rec := []string{strconv.Itoa(i + 1), c.Queries[i], strconv.Itoa(c.Docs[i]), strconv.FormatFloat(c.Coverage[i], 'f', 6, 64), strconv.FormatFloat(c.Cost[i], 'g', -1, 64), "", "", "", ""}
			if i < len(c.Log) && c.Log[i].Estimator != "" {
				l := c.Log[i]
				rec[8] = l.Estimator
				if l.CoverageEstimate != nil {
					rec[5], rec[6], rec[7] = ftoa(*l.CoverageEstimate), ftoa(*l.CoverageLow), ftoa(*l.CoverageHigh)
				}
			}
			cw.Write(rec)
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			f.Close()
			return fmt.Errorf("surface: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("surface: %w", err)
		}
	}
	return nil
}

// loadRecords reads a corpus file; a .json file may be one JSON array.
func loadRecords(path string) ([]hiddendb.Record, error) {
	if !strings.HasSuffix(path, ".json") {
		return hiddendb.Load(path, "")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("surface: %w", err)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return hiddendb.ReadJSONL(bytes.NewReader(b), path, "")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(trimmed, &items); err != nil {
		return nil, fmt.Errorf("surface: %s: %w", path, err)
	}
	var lines bytes.Buffer
	for _, it := range items {
		if err := json.Compact(&lines, it); err != nil {
			return nil, fmt.Errorf("surface: %s: %w", path, err)
		}
		lines.WriteByte('\n')
	}
	return hiddendb.ReadJSONL(&lines, path, "")
}
