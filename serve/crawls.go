package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/report"
	"github.com/dwcrawl/dwcrawl/store"
)

// CrawlSpec is the body of POST /api/crawls, kept in job.json.
type CrawlSpec struct {
	// Profile is a profile file in an allowed directory; ProfileLua is
	// instead the profile's Lua text (exactly one is given).
	Profile    string `json:"profile,omitempty"`
	ProfileLua string `json:"profile_lua,omitempty"`
	// Testbed crawls the simulated web instead of the real one.
	Testbed bool `json:"testbed"`
	// Pages is the page budget (default: the profile's; 3000 on the
	// testbed when the profile has none).
	Pages    int    `json:"pages,omitempty"`
	Strategy string `json:"strategy,omitempty"`
	Workers  int    `json:"workers,omitempty"`
	Seed     int64  `json:"seed,omitempty"`
	// ProfileFile is the file the server loads (the checked path, or the
	// inline profile written to the job's directory).
	ProfileFile string `json:"profile_file,omitempty"`
}

// inlineProfile is the file an inline profile is kept in.
const inlineProfile = "profile.lua"

// CrawlStatus is a crawl as GET /api/crawls/{id} shows it: the job, the
// crawl's counts (crawl.Snapshot: pages, sites, deep_sites, forms,
// searchable_forms, relevant_forms, harvest_rate, frontier_sites,
// frontier_links…) and what it was asked.
type CrawlStatus struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Profile string `json:"profile"`
	// Domain is the profile's domain.
	Domain   string `json:"domain,omitempty"`
	Strategy string `json:"strategy"`
	Testbed  bool   `json:"testbed"`
	Budget   int    `json:"budget,omitempty"`
	crawl.Snapshot
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Error      string     `json:"error,omitempty"`
	Dir        string     `json:"dir"`
}

// crawlLast is what job.json keeps of a crawl between runs.
type crawlLast struct {
	Profile   string         `json:"profile"`
	Domain    string         `json:"domain,omitempty"`
	Strategy  string         `json:"strategy"`
	Snapshot  crawl.Snapshot `json:"snapshot"`
	FormKinds map[string]int `json:"form_kinds,omitempty"`
}

// crawlWork is a crawl job.
type crawlWork struct {
	j *job

	mu      sync.Mutex
	spec    CrawlSpec // as asked, and as changed by resume requests
	running bool
	live    *crawl.Snapshot // the running crawl's last progress
	lastRec crawlLast
	// kinds caches the forms by kind for the metrics: recounted when the
	// number of searchable forms changed, at most every kindsEvery.
	kinds     map[string]int
	kindsN    int64
	kindsAt   time.Time
	fetchHist *fetchObserver
}

// fetchObserver counts fetches for the metrics.
type fetchObserver struct {
	m        *metrics
	id       string
	failures sync.Map // cause → *atomic.Int64
}

func (o *fetchObserver) observe(took time.Duration, err error) {
	if errors.Is(err, context.Canceled) {
		return // a stopped crawl's fetch: not recorded, fetched again on resume
	}
	o.m.fetchSeconds.WithLabelValues(o.id).Observe(took.Seconds())
	if err != nil {
		cause := fetch.Reason(err)
		c, _ := o.failures.LoadOrStore(cause, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
}

func (c *crawlWork) currentSpec() CrawlSpec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spec
}

func (c *crawlWork) run(ctx context.Context, db *store.DB) error {
	spec := c.currentSpec()
	p, err := profile.Load(ctx, spec.ProfileFile)
	if err != nil {
		return err
	}
	r, err := c.j.srv.opt.Runner.Crawl(ctx, CrawlRequest{Profile: p, Dir: c.j.dir, DB: db, Testbed: spec.Testbed, Pages: spec.Pages,
		Strategy: spec.Strategy, Workers: spec.Workers, Seed: spec.Seed, Progress: c.progress, OnFetch: c.fetchHist.observe})
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.running, c.live = true, nil
	c.lastRec.Profile, c.lastRec.Domain, c.lastRec.Strategy = p.Name, p.Domain, r.Strategy()
	c.mu.Unlock()
	sn, runErr := r.Run(ctx)
	kinds, kerr := formKinds(db)
	c.mu.Lock()
	c.running, c.live = false, nil
	c.lastRec.Snapshot = sn
	if kerr == nil {
		c.lastRec.FormKinds, c.kinds, c.kindsN, c.kindsAt = kinds, kinds, sn.SearchableForms, time.Now()
	}
	c.mu.Unlock()
	return errors.Join(runErr, r.Close())
}

// progress keeps the running crawl's counts.
func (c *crawlWork) progress(sn crawl.Snapshot) {
	c.mu.Lock()
	if c.running {
		c.live = &sn
	}
	c.mu.Unlock()
}

func (c *crawlWork) last() any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastRec
}

// snapshot returns the counts of a running crawl as of its last progress
// (at most a second old), else the last ones.
func (c *crawlWork) snapshot() (crawl.Snapshot, crawlLast) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.lastRec
	if c.live != nil {
		l.Snapshot = *c.live
	}
	return l.Snapshot, l
}

func (c *crawlWork) status() CrawlStatus {
	rec := c.j.record()
	sn, l := c.snapshot()
	spec := c.currentSpec()
	name := l.Profile
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(spec.ProfileFile), ".lua")
	}
	strategy := l.Strategy
	if strategy == "" {
		strategy = spec.Strategy
	}
	return CrawlStatus{ID: rec.ID, State: rec.State, Profile: name, Domain: l.Domain, Strategy: strategy, Testbed: spec.Testbed,
		Budget: spec.Pages, Snapshot: sn, StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt, Error: rec.Error, Dir: c.j.dir}
}

// formKinds counts the recorded (searchable) forms by kind.
func formKinds(db *store.DB) (map[string]int, error) {
	kinds := map[string]int{}
	err := db.ScanForms(func(f store.Form) error {
		kinds[f.Kind]++
		return nil
	})
	return kinds, err
}

// kindsEvery bounds how often the metrics recount the forms by kind.
const kindsEvery = 5 * time.Second

// formKindsForMetrics returns the forms by kind, recounting those of a
// running crawl when they changed.
func (c *crawlWork) formKindsForMetrics() map[string]int {
	sn, _ := c.snapshot()
	c.mu.Lock()
	stale := c.running && sn.SearchableForms != c.kindsN && time.Since(c.kindsAt) >= kindsEvery
	kinds := c.kinds
	if kinds == nil {
		kinds = c.lastRec.FormKinds
	}
	c.mu.Unlock()
	if !stale {
		return kinds
	}
	var fresh map[string]int
	if ok, err := c.j.read(func(db *store.DB) (err error) { fresh, err = formKinds(db); return err }); !ok || err != nil {
		return kinds
	}
	c.mu.Lock()
	c.kinds, c.kindsN, c.kindsAt = fresh, sn.SearchableForms, time.Now()
	c.mu.Unlock()
	return fresh
}

// restoreCrawl rebuilds a crawl job from its record.
func (s *Server) restoreCrawl(j *job, rec record) error {
	var spec CrawlSpec
	if err := json.Unmarshal(rec.Spec, &spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	c := s.newCrawlWork(j, spec)
	if len(rec.Last) > 0 {
		if err := json.Unmarshal(rec.Last, &c.lastRec); err != nil {
			return fmt.Errorf("last counts: %w", err)
		}
	}
	if rec.State == StateRunning {
		// the server died under it: its counts are the store's
		if _, err := j.read(func(db *store.DB) error {
			sn, err := storeSnapshot(db)
			c.lastRec.Snapshot = sn
			return err
		}); err != nil {
			return err
		}
	}
	j.work = c
	return nil
}

func (s *Server) newCrawlWork(j *job, spec CrawlSpec) *crawlWork {
	return &crawlWork{j: j, spec: spec, fetchHist: &fetchObserver{m: s.metrics, id: j.id}}
}

// storeSnapshot reads a crawl's counts from its store (the names of the
// engine's counters, crawl.*), for a crawl that is not running.
func storeSnapshot(db *store.DB) (crawl.Snapshot, error) {
	cs, err := db.Counters("crawl.")
	if err != nil {
		return crawl.Snapshot{}, err
	}
	sn := crawl.Snapshot{Pages: cs["crawl.pages"], Failed: cs["crawl.failed"], Sites: cs["crawl.sites"],
		RelevantSites: cs["crawl.sites.relevant"], DeepSites: cs["crawl.sites.deep"], Forms: cs["crawl.forms"],
		SearchableForms: cs["crawl.forms.searchable"], RelevantForms: cs["crawl.forms.relevant"],
		ReverseTriggers: cs["crawl.reverse.triggers"], ReverseQueries: cs["crawl.reverse.queries"], CentrePages: cs["crawl.reverse.centre"],
		LearnSites: cs["crawl.learn.fss"], LearnForms: cs["crawl.learn.fsl"]}
	if sn.Pages > 0 {
		sn.HarvestRate = float64(sn.RelevantForms) / float64(sn.Pages)
	}
	lens, err := db.FrontierLens()
	if err != nil {
		return sn, err
	}
	for q, n := range lens {
		if q == store.QueueHigh || q == store.QueueLow {
			sn.FrontierSites += int64(n)
		} else {
			sn.FrontierLinks += int64(n)
		}
	}
	return sn, nil
}

// --- handlers

func (s *Server) crawlJob(r *http.Request) (*job, *crawlWork, error) {
	id := r.PathValue("id")
	j, ok := s.get(KindCrawl, id)
	if !ok {
		return nil, nil, notFound(KindCrawl, id)
	}
	return j, j.work.(*crawlWork), nil
}

func (s *Server) createCrawl(w http.ResponseWriter, r *http.Request) error {
	var spec CrawlSpec
	if err := decode(r, &spec, false); err != nil {
		return err
	}
	if (spec.Profile == "") == (spec.ProfileLua == "") {
		return badRequest("give exactly one of profile (a profile file) and profile_lua (the profile's Lua text)")
	}
	if spec.ProfileFile != "" {
		return badRequest("profile_file is set by the server; give profile or profile_lua")
	}
	if spec.Pages < 0 || spec.Workers < 0 {
		return badRequest("pages and workers must not be negative")
	}
	if spec.Strategy != "" && !contains(crawl.Strategies, spec.Strategy) {
		return badRequest("strategy: want one of %s, got %q", strings.Join(crawl.Strategies, ", "), spec.Strategy)
	}
	var p *profile.Profile
	var err error
	if spec.Profile != "" {
		if spec.ProfileFile, err = s.allowedFile("profile", spec.Profile); err != nil {
			return err
		}
		if p, err = profile.Load(r.Context(), spec.ProfileFile); err != nil {
			return badRequest("profile: %v", err)
		}
	} else if p, err = checkInline(r.Context(), spec.ProfileLua); err != nil {
		return err
	}
	id, dir, err := s.newID(p.Name)
	if err != nil {
		return err
	}
	if spec.ProfileLua != "" {
		spec.ProfileFile = filepath.Join(dir, inlineProfile)
		if err := os.WriteFile(spec.ProfileFile, []byte(spec.ProfileLua), 0o644); err != nil {
			s.unreserve(id, dir)
			return err
		}
		spec.ProfileLua = "" // kept in the file
	}
	j, err := s.newJob(KindCrawl, id, dir, spec)
	if err != nil {
		s.unreserve(id, dir)
		return err
	}
	c := j.work.(*crawlWork)
	c.lastRec.Profile, c.lastRec.Domain, c.lastRec.Strategy = p.Name, p.Domain, cmpOr(spec.Strategy, p.Strategy)
	if err := j.start(); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
	return nil
}

// checkInline loads an inline profile the way a profile file is loaded.
// Its form examples must be inline HTML: a path would name a file of the
// server.
func checkInline(ctx context.Context, src string) (*profile.Profile, error) {
	p, err := profile.LoadSource(ctx, "profile_lua", []byte(src))
	if err != nil {
		return nil, badRequest("%v", err)
	}
	for i, ex := range p.Forms.Examples {
		if !strings.Contains(ex, "<") {
			return nil, badRequest("profile_lua: forms.examples[%d]: an inline profile may give inline HTML examples only, not files", i+1)
		}
	}
	return p, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (s *Server) listCrawls(w http.ResponseWriter, r *http.Request) error {
	out := []CrawlStatus{}
	for _, j := range s.list(KindCrawl) {
		out = append(out, j.work.(*crawlWork).status())
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getCrawl(w http.ResponseWriter, r *http.Request) error {
	_, c, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c.status())
	return nil
}

func (s *Server) stopCrawl(w http.ResponseWriter, r *http.Request) error {
	j, c, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	if err := j.stop(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c.status())
	return nil
}

// resumeBody is the optional body of a resume: a new page budget.
type resumeBody struct {
	Pages int `json:"pages,omitempty"`
}

func (s *Server) resumeCrawl(w http.ResponseWriter, r *http.Request) error {
	j, c, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	var body resumeBody
	if err := decode(r, &body, true); err != nil {
		return err
	}
	if body.Pages < 0 {
		return badRequest("pages must not be negative")
	}
	if j.running() {
		return j.errRunning()
	}
	if body.Pages > 0 {
		if err := c.setPages(body.Pages); err != nil {
			return err
		}
	}
	if err := j.start(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c.status())
	return nil
}

// setPages changes the page budget of the next runs.
func (c *crawlWork) setPages(n int) error {
	c.mu.Lock()
	c.spec.Pages = n
	spec := c.spec
	c.mu.Unlock()
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	c.j.mu.Lock()
	defer c.j.mu.Unlock()
	c.j.rec.Spec = b
	c.j.persistLocked()
	return nil
}

// seedsBody is the body of POST /api/crawls/{id}/seeds.
type seedsBody struct {
	Seeds []string `json:"seeds"`
}

// addSeeds queues seeds: a running crawl is stopped, given the seeds and
// resumed, since the engine reads its frontiers when a run starts.
func (s *Server) addSeeds(w http.ResponseWriter, r *http.Request) error {
	j, c, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	var body seedsBody
	if err := decode(r, &body, false); err != nil {
		return err
	}
	if len(body.Seeds) == 0 {
		return badRequest("seeds: give at least one URL")
	}
	for i, u := range body.Seeds {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return badRequest("seeds[%d]: want an http or https URL, got %q", i, u)
		}
	}
	wasRunning := j.running()
	if wasRunning {
		if err := j.stop(r.Context()); err != nil && !isConflict(err) {
			return err
		}
	}
	_, l := c.snapshot()
	strategy, domain := l.Strategy, l.Domain
	if strategy == "" {
		strategy = c.currentSpec().Strategy
	}
	var added int
	db, err := j.ref.acquire(true)
	if err != nil {
		return err
	}
	added, err = s.opt.Runner.AddSeeds(db, strategy, domain, body.Seeds)
	j.ref.release()
	if err != nil {
		return badRequest("%v", err)
	}
	if wasRunning {
		if err := j.start(); err != nil {
			return err
		}
	}
	st := c.status()
	writeJSON(w, http.StatusOK, map[string]any{"id": st.ID, "added": added, "state": st.State})
	return nil
}

func isConflict(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.status == http.StatusConflict
}

func (s *Server) crawlForms(w http.ResponseWriter, r *http.Request) error {
	j, _, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "jsonl" && format != "csv" {
		return badRequest("format: want json, jsonl or csv, got %q", format)
	}
	relevant := r.URL.Query().Get("relevant")
	forms := []report.FormRow{}
	if _, err := j.read(func(db *store.DB) (err error) {
		forms, err = report.Forms(db, relevant == "1" || relevant == "true")
		return err
	}); err != nil {
		return err
	}
	switch format {
	case "jsonl":
		w.Header().Set("Content-Type", "application/jsonl")
		return report.WriteFormsJSONL(w, forms)
	case "csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", j.id+"-forms.csv"))
		return report.WriteFormsCSV(w, forms)
	}
	writeJSON(w, http.StatusOK, forms)
	return nil
}

// FailureGroup is the failures of one cause.
type FailureGroup struct {
	Cause string `json:"cause"`
	Count int    `json:"count"`
	// Examples are the first failed URLs of the cause (at most ?examples=N,
	// default 10).
	Examples []FailedURL `json:"examples"`
}

// FailedURL is one URL whose fetch failed.
type FailedURL struct {
	URL    string    `json:"url"`
	Status int       `json:"status,omitempty"`
	At     time.Time `json:"at"`
	// Error is the error text; Attempts the requests made over all runs,
	// Runs the crawl runs it failed in.
	Error    string `json:"error,omitempty"`
	Attempts int    `json:"attempts,omitempty"`
	Runs     int    `json:"runs,omitempty"`
}

// Failures is the body of GET /api/crawls/{id}/failures.
type Failures struct {
	Total    int            `json:"total"`
	Failures []FailureGroup `json:"failures"` // by cause, most frequent first
}

// readFailures groups the crawl's failures by cause: the store's failure
// records (fetch.Cause labels: dns, refused, timeout, http-NNN, robots,
// scope, ...), and pages fetched but not parsed as "parse".
func readFailures(db *store.DB, examples int) (Failures, error) {
	groups := map[string]*FailureGroup{}
	out := Failures{Failures: []FailureGroup{}}
	add := func(cause string, u FailedURL) {
		g := groups[cause]
		if g == nil {
			g = &FailureGroup{Cause: cause, Examples: []FailedURL{}}
			groups[cause] = g
		}
		g.Count++
		out.Total++
		if len(g.Examples) < examples {
			g.Examples = append(g.Examples, u)
		}
	}
	err := db.ScanFailures("", func(f store.Failure) error {
		add(f.Cause, FailedURL{URL: f.URL, Status: f.Status, At: f.Time, Error: f.Error, Attempts: f.Attempts, Runs: f.Runs})
		return nil
	})
	if err == nil {
		err = db.ScanURLs("", func(st store.URLState) error {
			if st.State == store.StateFailed && strings.HasPrefix(st.Err, "parse:") {
				add("parse", FailedURL{URL: st.URL, Status: st.Status, At: st.Fetched, Error: st.Err})
			}
			return nil
		})
	}
	for _, g := range groups {
		out.Failures = append(out.Failures, *g)
	}
	sort.Slice(out.Failures, func(a, b int) bool {
		fa, fb := out.Failures[a], out.Failures[b]
		if fa.Count != fb.Count {
			return fa.Count > fb.Count
		}
		return fa.Cause < fb.Cause
	})
	return out, err
}

func (s *Server) crawlFailures(w http.ResponseWriter, r *http.Request) error {
	j, _, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	n, err := intParam(r, "examples", 10)
	if err != nil {
		return err
	}
	out := Failures{Failures: []FailureGroup{}}
	if _, err := j.read(func(db *store.DB) (err error) { out, err = readFailures(db, n); return err }); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || n < 0 {
		return 0, badRequest("%s: want a non-negative number, got %q", name, v)
	}
	return n, nil
}

func (s *Server) crawlFeatures(w http.ResponseWriter, r *http.Request) error {
	j, _, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	its := []rank.Iteration{}
	if _, err := j.read(func(db *store.DB) error {
		return db.ScanJSON(store.TagFeatures, nil, func(key, val []byte) error {
			var it rank.Iteration
			if err := json.Unmarshal(val, &it); err != nil {
				return fmt.Errorf("features: record %q: %w", key, err)
			}
			its = append(its, it)
			return nil
		})
	}); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, its)
	return nil
}

// Curve is the harvest curve of GET /api/crawls/{id}/curve: relevant
// searchable forms and deep sites against pages fetched, as [x, y] steps
// from [0, 0] to [pages, total].
type Curve struct {
	Pages     int64        `json:"pages"`
	Forms     [][2]float64 `json:"forms"`
	DeepSites [][2]float64 `json:"deep_sites"`
}

func (s *Server) crawlCurve(w http.ResponseWriter, r *http.Request) error {
	j, c, err := s.crawlJob(r)
	if err != nil {
		return err
	}
	out := Curve{Forms: [][2]float64{{0, 0}}, DeepSites: [][2]float64{{0, 0}}}
	if _, err := j.read(func(db *store.DB) error {
		d, err := report.ReadCrawl(r.Context(), db)
		if err != nil {
			return err
		}
		out = Curve{Pages: d.Pages, Forms: points(d.Forms), DeepSites: points(d.DeepSites)}
		return nil
	}); err != nil {
		return err
	}
	// a running crawl has fetched more than its last recorded form
	if sn, _ := c.snapshot(); sn.Pages > out.Pages {
		out.Pages = sn.Pages
		out.Forms = extend(out.Forms, sn.Pages)
		out.DeepSites = extend(out.DeepSites, sn.Pages)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func points(ps []report.Point) [][2]float64 {
	out := make([][2]float64, len(ps))
	for i, p := range ps {
		out[i] = [2]float64{p.X, p.Y}
	}
	return out
}

func extend(ps [][2]float64, x int64) [][2]float64 {
	if n := len(ps); n > 0 && ps[n-1][0] < float64(x) {
		ps = append(ps, [2]float64{float64(x), ps[n-1][1]})
	}
	return ps
}
