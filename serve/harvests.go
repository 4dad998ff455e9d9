package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

// HarvestSpec is the body of POST /api/harvests, kept in job.json: the
// crawl's options as POST /api/crawls takes them, and the budgets of
// dwcrawl harvest.
type HarvestSpec struct {
	// Profile is a profile file in an allowed directory; ProfileLua is
	// instead the profile's Lua text (exactly one is given).
	Profile    string `json:"profile,omitempty"`
	ProfileLua string `json:"profile_lua,omitempty"`
	Testbed    bool   `json:"testbed"`
	// Pages is the discovery's page budget (default: the profile's; 3000
	// on the testbed when the profile has none).
	Pages    int    `json:"pages,omitempty"`
	Strategy string `json:"strategy,omitempty"`
	Workers  int    `json:"workers,omitempty"`
	Seed     int64  `json:"seed,omitempty"`
	// QueriesPerDB bounds each database's queries (default: the profile's
	// harvest.queries_per_db, else 200); Queries those of all databases
	// together (absent: the profile's harvest.queries; 0: unbounded);
	// Parallel the databases surfaced at once (default: the profile's, 4);
	// StopAfter ends a database after that many queries in a row found no
	// new record (default: the profile's; -1: never).
	QueriesPerDB int  `json:"queries_per_db,omitempty"`
	Queries      *int `json:"queries,omitempty"`
	Parallel     int  `json:"parallel,omitempty"`
	StopAfter    int  `json:"stop_after,omitempty"`
	// ProfileFile is the file the server loads (the checked path, or the
	// inline profile written to the job's directory).
	ProfileFile string `json:"profile_file,omitempty"`
}

// HarvestStatus is a harvest as GET /api/harvests/{id} shows it: the
// job, the discovery's counts, the databases per stage and each database
// with its verdict, state, queries, records and coverage estimate.
type HarvestStatus struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Profile  string `json:"profile"`
	Domain   string `json:"domain,omitempty"`
	Strategy string `json:"strategy"`
	Testbed  bool   `json:"testbed"`
	// Budget is the page budget, QueriesPerDB and QueriesBudget the query
	// budgets asked (0: the profile's).
	Budget        int  `json:"budget,omitempty"`
	QueriesPerDB  int  `json:"queries_per_db,omitempty"`
	QueriesBudget *int `json:"queries_budget,omitempty"`
	// Pages are the pages fetched; DiscoveryDone says the discovery
	// ended (databases may still be surfaced).
	Pages         int64         `json:"pages"`
	DiscoveryDone bool          `json:"discovery_done"`
	Stages        HarvestStages `json:"stages"`
	// Records and Queries are the totals of the databases.
	Records   int               `json:"records"`
	Queries   int               `json:"queries"`
	Crawl     crawl.Snapshot    `json:"crawl"`
	Databases []HarvestDatabase `json:"databases"`
	// Events are the harvest's last lines (a database queued, started,
	// ended), oldest first.
	Events     []string   `json:"events"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Error      string     `json:"error,omitempty"`
	Dir        string     `json:"dir"`
}

// harvestLast is what job.json keeps of a harvest between runs.
type harvestLast struct {
	Profile  string          `json:"profile"`
	Domain   string          `json:"domain,omitempty"`
	Strategy string          `json:"strategy"`
	Progress HarvestProgress `json:"progress"`
	Events   []string        `json:"events,omitempty"`
}

// keptEvents is how many of a harvest's event lines its status keeps.
const keptEvents = 50

// dbsEvery bounds how often a running harvest's databases are read again
// from its store for the status requests.
const dbsEvery = time.Second

// harvestWork is a harvest job.
type harvestWork struct {
	j *job

	mu        sync.Mutex
	spec      HarvestSpec // as asked, and as changed by resume requests
	running   bool
	lastRec   harvestLast
	fetchHist *fetchObserver
	// dbs caches the databases read from the store, at dbsAt when the
	// count of runs begun and ended was dbsRuns (a run's end is read again)
	dbs     []HarvestDatabase
	dbsAt   time.Time
	dbsRuns int
	runs    int
}

func (h *harvestWork) currentSpec() HarvestSpec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.spec
}

// queries maps the spec's total budget to the Runner's: 0 the profile's,
// negative unbounded.
func (sp HarvestSpec) queries() int {
	switch {
	case sp.Queries == nil:
		return 0
	case *sp.Queries == 0:
		return -1
	}
	return *sp.Queries
}

func (h *harvestWork) run(ctx context.Context, db *store.DB) error {
	spec := h.currentSpec()
	p, err := profile.Load(ctx, spec.ProfileFile)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.running = true
	h.runs++
	h.lastRec.Profile, h.lastRec.Domain, h.lastRec.Strategy = p.Name, p.Domain, cmpOr(spec.Strategy, p.Strategy)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.running = false
		h.runs++
		h.mu.Unlock()
	}()
	_, err = h.j.srv.opt.Runner.Harvest(ctx, HarvestRequest{Profile: p, Dir: h.j.dir, DB: db, Testbed: spec.Testbed, Pages: spec.Pages,
		Strategy: spec.Strategy, Workers: spec.Workers, Seed: spec.Seed, QueriesPerDB: spec.QueriesPerDB, Queries: spec.queries(),
		Parallel: spec.Parallel, StopAfter: spec.StopAfter, OnStatus: h.progress, OnEvent: h.event, OnFetch: h.fetchHist.observe})
	return err
}

func (h *harvestWork) progress(p HarvestProgress) {
	h.mu.Lock()
	h.lastRec.Progress = p
	h.mu.Unlock()
}

func (h *harvestWork) event(line string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ev := append(h.lastRec.Events, time.Now().UTC().Format("15:04:05")+" "+line)
	if len(ev) > keptEvents {
		ev = append([]string(nil), ev[len(ev)-keptEvents:]...)
	}
	h.lastRec.Events = ev
}

func (h *harvestWork) last() any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastRec
}

// snapshot returns the harvest's last progress and what job.json keeps.
func (h *harvestWork) snapshot() (HarvestProgress, harvestLast, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.lastRec
	l.Events = append([]string{}, l.Events...)
	return l.Progress, l, h.running
}

// databases reads the harvest's databases from its store (at most every
// dbsEvery while it runs). A database recorded as being surfaced by a
// harvest that is not running waits to be resumed: it is listed queued.
func (h *harvestWork) databases() ([]HarvestDatabase, error) {
	h.mu.Lock()
	running, runs := h.running, h.runs
	if h.dbs != nil && h.dbsRuns == runs && (!running || time.Since(h.dbsAt) < dbsEvery) {
		dbs := h.dbs
		h.mu.Unlock()
		return dbs, nil
	}
	h.mu.Unlock()
	var dbs []HarvestDatabase
	if _, err := h.j.read(func(db *store.DB) (err error) {
		dbs, err = h.j.srv.opt.Runner.HarvestDatabases(db)
		return err
	}); err != nil {
		return nil, err
	}
	if dbs == nil {
		dbs = []HarvestDatabase{}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running {
		for i := range dbs {
			if dbs[i].State == "surfacing" {
				dbs[i].State = "queued"
			}
		}
	}
	if h.runs == runs { // no run began or ended while reading
		h.dbs, h.dbsAt, h.dbsRuns = dbs, time.Now(), runs
	}
	return dbs, nil
}

// stages counts the databases per stage.
func stages(dbs []HarvestDatabase) (st HarvestStages, records, queries int) {
	st.Found = len(dbs)
	for _, d := range dbs {
		if d.Verdict != "unprobed" {
			st.Probed++
		}
		if d.Verdict == store.ProbeTopicDatabase {
			st.Topic++
		}
		switch d.State {
		case "surfacing":
			st.Surfacing++
		case "done", "failed":
			st.Done++
		}
		records += d.Records
		queries += d.Queries
	}
	return st, records, queries
}

func (h *harvestWork) status() (HarvestStatus, error) {
	rec := h.j.record()
	pr, l, _ := h.snapshot()
	spec := h.currentSpec()
	name := l.Profile
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(spec.ProfileFile), ".lua")
	}
	st := HarvestStatus{ID: rec.ID, State: rec.State, Profile: name, Domain: l.Domain, Strategy: cmpOr(l.Strategy, spec.Strategy),
		Testbed: spec.Testbed, Budget: spec.Pages, QueriesPerDB: spec.QueriesPerDB, QueriesBudget: spec.Queries,
		Pages: pr.Crawl.Pages, DiscoveryDone: pr.CrawlDone, Crawl: pr.Crawl, Events: l.Events,
		StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt, Error: rec.Error, Dir: h.j.dir}
	// the store's databases, so that the table and the totals agree
	dbs, err := h.databases()
	if err != nil {
		return st, err
	}
	st.Databases = dbs
	st.Stages, st.Records, st.Queries = stages(dbs)
	return st, nil
}

// restoreHarvest rebuilds a harvest job from its record.
func (s *Server) restoreHarvest(j *job, rec record) error {
	h := &harvestWork{j: j, fetchHist: &fetchObserver{m: s.metrics, id: j.id}}
	if err := json.Unmarshal(rec.Spec, &h.spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	if len(rec.Last) > 0 {
		if err := json.Unmarshal(rec.Last, &h.lastRec); err != nil {
			return fmt.Errorf("last counts: %w", err)
		}
	}
	if rec.State == StateRunning {
		// the server died under it: the discovery's counts are the store's
		if _, err := j.read(func(db *store.DB) error {
			sn, err := storeSnapshot(db)
			h.lastRec.Progress.Crawl = sn
			return err
		}); err != nil {
			return err
		}
	}
	j.work = h
	return nil
}

// --- handlers

func (s *Server) harvestJob(r *http.Request) (*job, *harvestWork, error) {
	id := r.PathValue("id")
	j, ok := s.get(KindHarvest, id)
	if !ok {
		return nil, nil, notFound(KindHarvest, id)
	}
	return j, j.work.(*harvestWork), nil
}

// checkBudgets checks the budgets of a harvest's spec.
func (sp HarvestSpec) checkBudgets() error {
	switch {
	case sp.Pages < 0 || sp.Workers < 0:
		return badRequest("pages and workers must not be negative")
	case sp.QueriesPerDB < 0 || sp.Parallel < 0:
		return badRequest("queries_per_db and parallel must not be negative")
	case sp.Queries != nil && *sp.Queries < 0:
		return badRequest("queries must not be negative (0: unbounded)")
	case sp.StopAfter < -1:
		return badRequest("stop_after: want a number of queries, or -1 for never, got %d", sp.StopAfter)
	}
	return nil
}

func (s *Server) createHarvest(w http.ResponseWriter, r *http.Request) error {
	var spec HarvestSpec
	if err := decode(r, &spec, false); err != nil {
		return err
	}
	if (spec.Profile == "") == (spec.ProfileLua == "") {
		return badRequest("give exactly one of profile (a profile file) and profile_lua (the profile's Lua text)")
	}
	if spec.ProfileFile != "" {
		return badRequest("profile_file is set by the server; give profile or profile_lua")
	}
	if err := spec.checkBudgets(); err != nil {
		return err
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
	id, dir, err := s.newID(KindHarvest + "-" + p.Name)
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
	j, err := s.newJob(KindHarvest, id, dir, spec)
	if err != nil {
		s.unreserve(id, dir)
		return err
	}
	h := j.work.(*harvestWork)
	h.lastRec.Profile, h.lastRec.Domain, h.lastRec.Strategy = p.Name, p.Domain, cmpOr(spec.Strategy, p.Strategy)
	if err := j.start(); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
	return nil
}

func (s *Server) listHarvests(w http.ResponseWriter, r *http.Request) error {
	out := []HarvestStatus{}
	for _, j := range s.list(KindHarvest) {
		st, err := j.work.(*harvestWork).status()
		if err != nil {
			return err
		}
		out = append(out, st)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getHarvest(w http.ResponseWriter, r *http.Request) error {
	_, h, err := s.harvestJob(r)
	if err != nil {
		return err
	}
	st, err := h.status()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (s *Server) stopHarvest(w http.ResponseWriter, r *http.Request) error {
	j, h, err := s.harvestJob(r)
	if err != nil {
		return err
	}
	if err := j.stop(r.Context()); err != nil {
		return err
	}
	st, err := h.status()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// harvestResume is the optional body of a harvest's resume: larger (or
// other) budgets for the next runs. A database that ended on its budget is
// surfaced again under a larger queries_per_db.
type harvestResume struct {
	Pages        int  `json:"pages,omitempty"`
	QueriesPerDB int  `json:"queries_per_db,omitempty"`
	Queries      *int `json:"queries,omitempty"`
}

func (s *Server) resumeHarvest(w http.ResponseWriter, r *http.Request) error {
	j, h, err := s.harvestJob(r)
	if err != nil {
		return err
	}
	var body harvestResume
	if err := decode(r, &body, true); err != nil {
		return err
	}
	if err := (HarvestSpec{Pages: body.Pages, QueriesPerDB: body.QueriesPerDB, Queries: body.Queries}).checkBudgets(); err != nil {
		return err
	}
	if j.running() {
		return j.errRunning()
	}
	if body.Pages > 0 || body.QueriesPerDB > 0 || body.Queries != nil {
		if err := h.setBudgets(body); err != nil {
			return err
		}
	}
	if err := j.start(); err != nil {
		return err
	}
	st, err := h.status()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// setBudgets changes the budgets of the next runs and records them.
func (h *harvestWork) setBudgets(b harvestResume) error {
	h.mu.Lock()
	if b.Pages > 0 {
		h.spec.Pages = b.Pages
	}
	if b.QueriesPerDB > 0 {
		h.spec.QueriesPerDB = b.QueriesPerDB
	}
	if b.Queries != nil {
		h.spec.Queries = b.Queries
	}
	spec := h.spec
	h.mu.Unlock()
	raw, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	h.j.mu.Lock()
	defer h.j.mu.Unlock()
	h.j.rec.Spec = raw
	h.j.persistLocked()
	return nil
}

// HarvestCurve is the body of GET /api/harvests/{id}/curve: for each
// database that was sent queries, the records it held after each query,
// as [queries, records] points from [0, 0].
type HarvestCurve struct {
	Databases []DatabaseCurve `json:"databases"`
}

// DatabaseCurve is one database's coverage curve.
type DatabaseCurve struct {
	ID     string       `json:"id"`
	Site   string       `json:"site"`
	Points [][2]float64 `json:"points"`
}

// FormSource is the journal source of a harvested form: "form:" + its id.
const FormSource = "form:"

func (s *Server) harvestCurve(w http.ResponseWriter, r *http.Request) error {
	j, h, err := s.harvestJob(r)
	if err != nil {
		return err
	}
	out := HarvestCurve{Databases: []DatabaseCurve{}}
	dbs, err := h.databases()
	if err != nil {
		return err
	}
	if _, err := j.read(func(db *store.DB) (err error) {
		out.Databases, err = databaseCurves(db, dbs)
		return err
	}); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// databaseCurves reads the curve of every database with journaled
// queries, in the order of dbs (then any other form source, by name).
func databaseCurves(db *store.DB, dbs []HarvestDatabase) ([]DatabaseCurve, error) {
	pts := map[string][][2]float64{}
	var extra []string
	err := surface.ScanQueries(db, "", func(src string, l surface.QueryLog) error {
		id, ok := strings.CutPrefix(src, FormSource)
		if !ok {
			return nil
		}
		if pts[id] == nil {
			pts[id] = [][2]float64{{0, 0}}
			extra = append(extra, id)
		}
		pts[id] = append(pts[id], [2]float64{float64(l.N), float64(l.Docs)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := []DatabaseCurve{}
	listed := map[string]bool{}
	for _, d := range dbs {
		if p, ok := pts[d.ID]; ok {
			out = append(out, DatabaseCurve{ID: d.ID, Site: d.Site, Points: p})
			listed[d.ID] = true
		}
	}
	for _, id := range extra {
		if !listed[id] {
			out = append(out, DatabaseCurve{ID: id, Points: pts[id]})
		}
	}
	return out, nil
}
