package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/report"
	"github.com/dwcrawl/dwcrawl/store"
)

// SurfaceSpec is the body of POST /api/surface: the keyword Interface of a
// hidden database (a JSON search API URL, or a keyword plugin: a bundled
// name such as keyword/dblp, or a .lua file in an allowed directory,
// followed by ?var=value), or the searchable Form found by Crawl.
type SurfaceSpec struct {
	Crawl     string `json:"crawl,omitempty"`
	Form      string `json:"form,omitempty"`
	Interface string `json:"interface,omitempty"`
	// Policy is adaptive (default), generic or random; Budget the number
	// of queries (0: until the policy runs out).
	Policy string `json:"policy,omitempty"`
	Budget int    `json:"budget,omitempty"`
	K      int    `json:"k,omitempty"`
	First  string `json:"first,omitempty"`
	Seed   int64  `json:"seed,omitempty"`
}

// SurfaceStatus is a surfacing job as GET /api/surface/{id} shows it.
type SurfaceStatus struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	Source    string `json:"source"`
	Crawl     string `json:"crawl,omitempty"`
	Form      string `json:"form,omitempty"`
	Interface string `json:"interface,omitempty"`
	Policy    string `json:"policy"`
	Budget    int    `json:"budget,omitempty"`
	surfaceLast
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// surfaceLast is a surfacing's progress.
type surfaceLast struct {
	Queries  int      `json:"queries"`
	Docs     int      `json:"docs"`
	Cost     float64  `json:"cost"`
	EstSize  *float64 `json:"est_size,omitempty"`
	Coverage *float64 `json:"est_coverage,omitempty"`
	// the estimate's 90% interval and the estimator that produced it, as
	// dwcrawl surface prints them
	CoverageLow  *float64 `json:"est_coverage_low,omitempty"`
	CoverageHigh *float64 `json:"est_coverage_high,omitempty"`
	Estimator    string   `json:"estimator,omitempty"`
	LastQuery    string   `json:"last_query,omitempty"`
}

// CoverageText is the estimate as the dashboard shows it ("" before one
// exists): "est. coverage 57% [25–71%] by stratified-schnabel/rank".
func (l surfaceLast) CoverageText() string {
	if l.Coverage == nil {
		return ""
	}
	t := fmt.Sprintf("est. coverage %.0f%%", 100**l.Coverage)
	if l.CoverageLow != nil && l.CoverageHigh != nil {
		t += fmt.Sprintf(" [%.0f–%.0f%%]", 100**l.CoverageLow, 100**l.CoverageHigh)
	}
	if l.Estimator != "" {
		t += " by " + l.Estimator
	}
	return t
}

// latest is a job's last progress report: the job writes it while status
// requests read it.
type latest[T any] struct {
	mu sync.Mutex
	v  T
}

func (l *latest[T]) set(v T) {
	l.mu.Lock()
	l.v = v
	l.mu.Unlock()
}

func (l *latest[T]) get() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}

// restore reads the report a job record kept.
func (l *latest[T]) restore(raw []byte) error {
	if len(raw) == 0 {
		return nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("last counts: %w", err)
	}
	l.set(v)
	return nil
}

type surfaceWork struct {
	j    *job
	spec SurfaceSpec
	prog latest[surfaceLast]
}

// source keys the surfacing's journal: a crawl's form as the command line
// names it (dwcrawl surface --form resumes it), else the job.
func (w *surfaceWork) source() string {
	if w.spec.Form != "" {
		return "form:" + w.spec.Form
	}
	return w.j.id
}

func (w *surfaceWork) run(ctx context.Context, db *store.DB) error {
	sp := w.spec
	_, err := w.j.srv.opt.Runner.Surface(ctx, SurfaceRequest{Interface: sp.Interface, Form: sp.Form, Source: w.source(), Dir: w.j.ref.dir, DB: db,
		Policy: sp.Policy, Budget: sp.Budget, K: sp.K, First: sp.First, Seed: sp.Seed, OnProgress: w.progress})
	return err
}

func (w *surfaceWork) progress(p surface.Progress) {
	l := surfaceLast{Queries: p.Queries, Docs: p.Docs, Cost: p.Cost, LastQuery: p.Last.Query}
	if !math.IsNaN(p.EstSize) && !math.IsInf(p.EstSize, 0) {
		size, cov := p.EstSize, p.Coverage
		l.EstSize, l.Coverage = &size, &cov
		if e := p.Estimate; e.Valid() {
			lo, hi := e.Low, e.High
			l.CoverageLow, l.CoverageHigh, l.Estimator = &lo, &hi, e.Estimator
		}
	}
	w.prog.set(l)
}

func (w *surfaceWork) last() any { return w.prog.get() }

func (w *surfaceWork) status() SurfaceStatus {
	rec := w.j.record()
	l := w.prog.get()
	policy := w.spec.Policy
	if policy == "" {
		policy = "adaptive"
	}
	return SurfaceStatus{ID: rec.ID, State: rec.State, Source: w.source(), Crawl: w.spec.Crawl, Form: w.spec.Form, Interface: w.spec.Interface,
		Policy: policy, Budget: w.spec.Budget, surfaceLast: l, StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt, Error: rec.Error}
}

func (s *Server) restoreSurface(j *job, rec record) error {
	w := &surfaceWork{j: j}
	if err := json.Unmarshal(rec.Spec, &w.spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	if err := w.prog.restore(rec.Last); err != nil {
		return err
	}
	j.ref = s.ref(j.dir)
	if w.spec.Crawl != "" {
		// the form's crawl holds the harvest
		j.ref = s.ref(filepath.Join(s.opt.Root, w.spec.Crawl))
	}
	j.work = w
	return nil
}

// checkInterface checks a keyword-interface spec: a URL, a bundled plugin,
// or a plugin file in an allowed directory (returned as an absolute path).
func (s *Server) checkInterface(spec string) (string, error) {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		return spec, nil
	}
	ref, query, hasQuery := strings.Cut(spec, "?")
	if strings.HasSuffix(ref, ".lua") || strings.ContainsAny(ref, `\`) || strings.Count(ref, "/") > 1 || strings.HasPrefix(ref, ".") {
		abs, err := s.allowedFile("interface", ref)
		if err != nil {
			return "", err
		}
		ref = abs
	}
	if hasQuery {
		return ref + "?" + query, nil
	}
	return ref, nil
}

func (s *Server) createSurface(w http.ResponseWriter, r *http.Request) error {
	var spec SurfaceSpec
	if err := decode(r, &spec, false); err != nil {
		return err
	}
	if (spec.Interface == "") == (spec.Form == "") {
		return badRequest("give exactly one of interface (a keyword interface) and form (with crawl: a form the crawl found)")
	}
	if spec.Budget < 0 || spec.K < 0 {
		return badRequest("budget and k must not be negative")
	}
	switch spec.Policy {
	case "", "adaptive", "generic", "random":
	default:
		return badRequest("policy: want adaptive, generic or random, got %q", spec.Policy)
	}
	if spec.Form != "" {
		cj, ok := s.get(KindCrawl, spec.Crawl)
		if !ok {
			return badRequest("crawl: no crawl job %q (form needs the crawl that found it)", spec.Crawl)
		}
		found := false
		if _, err := cj.read(func(db *store.DB) (err error) { _, found, err = db.GetForm(spec.Form); return err }); err != nil {
			return err
		}
		if !found {
			return badRequest("form: crawl %s has no form %q", spec.Crawl, spec.Form)
		}
	} else {
		if spec.Crawl != "" {
			return badRequest("crawl: only with form")
		}
		var err error
		if spec.Interface, err = s.checkInterface(spec.Interface); err != nil {
			return err
		}
	}
	id, dir, err := s.newID(KindSurface)
	if err != nil {
		return err
	}
	j, err := s.newJob(KindSurface, id, dir, spec)
	if err != nil {
		s.unreserve(id, dir)
		return err
	}
	if err := j.start(); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
	return nil
}

// EnrichSpec is the body of POST /api/enrich: the local table (a CSV file
// in an allowed directory, or its text in local_csv), its Columns, the
// keyword Interface of the hidden database and the query Budget; the
// enriched table is at /api/enrich/{id}/output.
type EnrichSpec struct {
	Local         string   `json:"local,omitempty"`
	LocalCSV      string   `json:"local_csv,omitempty"`
	Columns       []string `json:"columns"`
	HiddenColumns []string `json:"hidden_columns,omitempty"`
	Interface     string   `json:"interface"`
	Budget        int      `json:"budget"`
	Method        string   `json:"method,omitempty"`
	K             int      `json:"k,omitempty"`
	Sample        string   `json:"sample,omitempty"`
	Theta         float64  `json:"theta,omitempty"`
	SampleQueries int      `json:"sample_queries,omitempty"`
	Seed          int64    `json:"seed,omitempty"`
	// LocalFile and SampleFile are the files the server reads (checked, or
	// written to the job's directory).
	LocalFile  string `json:"local_file,omitempty"`
	SampleFile string `json:"sample_file,omitempty"`
}

// EnrichStatus is an enrichment job as GET /api/enrich/{id} shows it.
type EnrichStatus struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Method string `json:"method"`
	enrichLast
	Output     string     `json:"output"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Error      string     `json:"error,omitempty"`
}

type enrichLast struct {
	Queries     int    `json:"queries"`
	Budget      int    `json:"budget"`
	Covered     int    `json:"covered"`
	Uncoverable int    `json:"uncoverable"`
	Local       int    `json:"local"`
	LastQuery   string `json:"last_query,omitempty"`
}

type enrichWork struct {
	j    *job
	spec EnrichSpec
	prog latest[enrichLast]
}

// enrichOutput is the enriched table in the job's directory.
const enrichOutput = "enriched.csv"

func (w *enrichWork) run(ctx context.Context, db *store.DB) error {
	sp := w.spec
	_, err := w.j.srv.opt.Runner.Enrich(ctx, EnrichRequest{Local: sp.LocalFile, Columns: sp.Columns, HiddenColumns: sp.HiddenColumns,
		Interface: sp.Interface, Budget: sp.Budget, Method: sp.Method, K: sp.K, Sample: sp.SampleFile, Theta: sp.Theta,
		SampleQueries: sp.SampleQueries, Seed: sp.Seed, Out: filepath.Join(w.j.dir, enrichOutput), Dir: w.j.dir, DB: db, OnProgress: w.progress})
	return err
}

func (w *enrichWork) progress(p enrich.Progress) {
	w.prog.set(enrichLast{Queries: p.Queries, Budget: p.Budget, Covered: p.Covered, Uncoverable: p.Uncoverable, Local: p.Local, LastQuery: p.Query})
}

func (w *enrichWork) last() any { return w.prog.get() }

func (w *enrichWork) status() EnrichStatus {
	rec := w.j.record()
	l := w.prog.get()
	method := w.spec.Method
	if method == "" {
		method = string(enrich.SmartBiased)
	}
	if l.Budget == 0 {
		l.Budget = w.spec.Budget
	}
	return EnrichStatus{ID: rec.ID, State: rec.State, Method: method, enrichLast: l, Output: "/api/enrich/" + rec.ID + "/output",
		StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt, Error: rec.Error}
}

func (s *Server) restoreEnrich(j *job, rec record) error {
	w := &enrichWork{j: j}
	if err := json.Unmarshal(rec.Spec, &w.spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	if err := w.prog.restore(rec.Last); err != nil {
		return err
	}
	j.work = w
	return nil
}

func (s *Server) createEnrich(w http.ResponseWriter, r *http.Request) error {
	var spec EnrichSpec
	if err := decode(r, &spec, false); err != nil {
		return err
	}
	if (spec.Local == "") == (spec.LocalCSV == "") {
		return badRequest("give exactly one of local (a CSV file) and local_csv (the table's text)")
	}
	if spec.LocalFile != "" || spec.SampleFile != "" {
		return badRequest("local_file and sample_file are set by the server")
	}
	if len(spec.Columns) == 0 {
		return badRequest("columns: name the columns that form each record's document")
	}
	if spec.Interface == "" {
		return badRequest("interface: give the hidden database's keyword interface")
	}
	if spec.Budget <= 0 {
		return badRequest("budget: want a positive number of queries, got %d", spec.Budget)
	}
	if spec.Method != "" {
		if m, err := enrich.ParseMethods(spec.Method); err != nil || len(m) != 1 || m[0] == enrich.Ideal {
			return badRequest("method: want one of smart-b, smart-u, smart-s, smart-bound, naive, full, got %q", spec.Method)
		}
	}
	var err error
	if spec.Interface, err = s.checkInterface(spec.Interface); err != nil {
		return err
	}
	if spec.Local != "" {
		if spec.LocalFile, err = s.allowedFile("local", spec.Local); err != nil {
			return err
		}
	}
	if spec.Sample != "" {
		if spec.SampleFile, err = s.allowedFile("sample", spec.Sample); err != nil {
			return err
		}
	}
	id, dir, err := s.newID(KindEnrich)
	if err != nil {
		return err
	}
	if spec.LocalCSV != "" {
		spec.LocalFile = filepath.Join(dir, "local.csv")
		if err := os.WriteFile(spec.LocalFile, []byte(spec.LocalCSV), 0o644); err != nil {
			s.unreserve(id, dir)
			return err
		}
		spec.LocalCSV = ""
	}
	j, err := s.newJob(KindEnrich, id, dir, spec)
	if err != nil {
		s.unreserve(id, dir)
		return err
	}
	if err := j.start(); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
	return nil
}

// --- shared handlers of surface and enrich jobs

func (s *Server) taskJob(kind string, r *http.Request) (*job, error) {
	id := r.PathValue("id")
	j, ok := s.get(kind, id)
	if !ok {
		return nil, notFound(kind, id)
	}
	return j, nil
}

func taskStatus(j *job) any {
	switch w := j.work.(type) {
	case *surfaceWork:
		return w.status()
	case *enrichWork:
		return w.status()
	}
	return nil
}

func (s *Server) listTasks(kind string) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		out := []any{}
		for _, j := range s.list(kind) {
			out = append(out, taskStatus(j))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}

func (s *Server) getTask(kind string) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.taskJob(kind, r)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, taskStatus(j))
		return nil
	})
}

func (s *Server) stopTask(kind string) http.HandlerFunc {
	return s.mutating(func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.taskJob(kind, r)
		if err != nil {
			return err
		}
		if err := j.stop(r.Context()); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, taskStatus(j))
		return nil
	})
}

func (s *Server) resumeTask(kind string) http.HandlerFunc {
	return s.mutating(func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.taskJob(kind, r)
		if err != nil {
			return err
		}
		if err := decode(r, &struct{}{}, true); err != nil {
			return err
		}
		if err := j.start(); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, taskStatus(j))
		return nil
	})
}

// TaskCurve is the curve of a surfacing (documents against queries) or an
// enrichment (local records covered against queries), as [x, y] points.
type TaskCurve struct {
	Points [][2]float64 `json:"points"`
}

func (s *Server) taskCurve(kind string) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		j, err := s.taskJob(kind, r)
		if err != nil {
			return err
		}
		out := TaskCurve{Points: [][2]float64{}}
		if _, err := j.read(func(db *store.DB) error {
			d, err := report.ReadCrawl(r.Context(), db)
			if err != nil {
				return err
			}
			switch wk := j.work.(type) {
			case *surfaceWork:
				out.Points = append([][2]float64{{0, 0}}, points(d.Surfacing[wk.source()].Docs)...)
			case *enrichWork:
				if d.Enrichment != nil {
					out.Points = points(d.Enrichment.Covered)
				}
			}
			return nil
		}); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}

func (s *Server) enrichOutput(w http.ResponseWriter, r *http.Request) error {
	j, err := s.taskJob(KindEnrich, r)
	if err != nil {
		return err
	}
	path := filepath.Join(j.dir, enrichOutput)
	if _, err := os.Stat(path); err != nil {
		return &apiError{http.StatusNotFound, fmt.Sprintf("enrich %s has written no output yet", j.id)}
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", j.id+"-"+enrichOutput))
	http.ServeFile(w, r, path)
	return nil
}
