package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/store"
)

// Job states, as the API reports them.
const (
	StateRunning = "running"
	StateDone    = "done"    // ran to its end: budget spent or nothing left to do
	StateStopped = "stopped" // stopped by a request or by the server's shutdown
	StateFailed  = "failed"
)

// Job kinds; a kind is also the prefix of the API paths.
const (
	KindCrawl   = "crawl"
	KindSurface = "surface"
	KindEnrich  = "enrich"
	KindHarvest = "harvest"
)

// recordFile is the job's record in its directory.
const recordFile = "job.json"

// record is what job.json holds.
type record struct {
	ID         string     `json:"id"`
	Kind       string     `json:"kind"`
	State      string     `json:"state"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Error      string     `json:"error,omitempty"`
	// Interrupted: stopped by the server's shutdown (or a crash), not by a
	// request; a server started with --resume continues it.
	Interrupted bool            `json:"interrupted,omitempty"`
	Spec        json.RawMessage `json:"spec"`
	// Last holds the job's counts when it last stopped.
	Last json.RawMessage `json:"last,omitempty"`
}

func readRecord(dir string) (record, error) {
	var rec record
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", filepath.Join(dir, recordFile), err)
	}
	if rec.ID != filepath.Base(dir) {
		return rec, fmt.Errorf("%s: id %q does not match the directory", filepath.Join(dir, recordFile), rec.ID)
	}
	return rec, nil
}

// writeRecord replaces job.json atomically.
func writeRecord(dir string, rec record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, recordFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, recordFile))
}

// work is what a kind of job does; the job runs it and keeps its state.
type work interface {
	// run works until done or ctx is cancelled, in the job's store.
	run(ctx context.Context, db *store.DB) error
	// last returns the counts to keep in job.json.
	last() any
}

// job is one crawl, surfacing, enrichment or harvest job.
type job struct {
	srv  *Server
	id   string
	kind string
	dir  string // the job's directory (job.json)
	ref  *dbRef // the store it works in (a surfacing of a crawl's form: the crawl's)
	work work

	mu      sync.Mutex
	rec     record
	cancel  context.CancelFunc
	done    chan struct{} // open while a run is under way
	stopReq bool
}

func (j *job) created() time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec.CreatedAt
}

func (j *job) record() record {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec
}

func (j *job) running() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done != nil
}

func (j *job) wasInterrupted() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done == nil && j.rec.State == StateStopped && j.rec.Interrupted
}

// persistLocked writes job.json; called with j.mu held.
func (j *job) persistLocked() {
	if err := writeRecord(j.dir, j.rec); err != nil {
		j.srv.log.Error("serve: writing the job record", "job", j.id, "err", err)
	}
}

// errRunning and errNotRunning are the conflicts of start and stop.
func (j *job) errRunning() error { return conflict("%s %s is already running", j.kind, j.id) }

// start runs the job in the background.
func (j *job) start() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done != nil {
		return j.errRunning()
	}
	if j.srv.ctx.Err() != nil {
		return &apiError{503, "the server is shutting down"}
	}
	ctx, cancel := context.WithCancel(j.srv.ctx)
	j.cancel, j.done, j.stopReq = cancel, make(chan struct{}), false
	now := time.Now().UTC()
	if j.rec.StartedAt.IsZero() {
		j.rec.StartedAt = now
	}
	j.rec.State, j.rec.FinishedAt, j.rec.Error, j.rec.Interrupted = StateRunning, nil, "", false
	j.persistLocked()
	go j.loop(ctx, j.done)
	return nil
}

func (j *job) loop(ctx context.Context, done chan struct{}) {
	err := j.runOnce(ctx)
	j.mu.Lock()
	defer j.mu.Unlock()
	now := time.Now().UTC()
	j.rec.FinishedAt = &now
	switch {
	case err == nil:
		j.rec.State = StateDone
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		j.rec.State = StateStopped
		j.rec.Interrupted = !j.stopReq
	default:
		j.rec.State, j.rec.Error = StateFailed, err.Error()
		j.srv.log.Warn("serve: job failed", "job", j.id, "err", err)
	}
	if b, merr := json.Marshal(j.work.last()); merr == nil {
		j.rec.Last = b
	}
	j.persistLocked()
	j.cancel()
	j.done, j.cancel = nil, nil
	close(done)
}

func (j *job) runOnce(ctx context.Context) (err error) {
	defer func() {
		// a job's panic fails the job, never the server
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	db, err := j.ref.acquire(true)
	if err != nil {
		return err
	}
	defer j.ref.release()
	return j.work.run(ctx, db)
}

// stop cancels the run and waits until it has ended (or ctx is done).
func (j *job) stop(ctx context.Context) error {
	j.mu.Lock()
	if j.done == nil {
		state := j.rec.State
		j.mu.Unlock()
		return conflict("%s %s is not running (it is %s)", j.kind, j.id, state)
	}
	j.stopReq = true
	j.cancel()
	done := j.done
	j.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait waits for the current run, if any, to end.
func (j *job) wait(ctx context.Context) error {
	j.mu.Lock()
	done := j.done
	j.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// read runs fn on the job's store; ok is false (fn not called) when the
// job has no store yet.
func (j *job) read(fn func(db *store.DB) error) (ok bool, err error) {
	db, err := j.ref.acquire(false)
	if errors.Is(err, errNoStore) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer j.ref.release()
	return true, fn(db)
}

// errNoStore: the directory holds no store yet.
var errNoStore = errors.New("no store in the directory")

// dbRef is the one open store of a directory, shared by the job that
// writes it and the requests that read it, closed when idle.
type dbRef struct {
	dir  string
	idle time.Duration
	log  *slog.Logger

	mu    sync.Mutex
	db    *store.DB
	refs  int
	timer *time.Timer
	down  bool
}

// acquire returns the open store, opening it (creating it only with
// create); every acquire is paired with a release.
func (r *dbRef) acquire(create bool) (*store.DB, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		return nil, &apiError{503, "the server is shutting down"}
	}
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if r.db == nil {
		if !create && !hasStore(r.dir) {
			return nil, errNoStore
		}
		db, err := store.Open(r.dir, store.Options{Logger: r.log})
		if err != nil {
			return nil, err
		}
		r.db = db
	}
	r.refs++
	return r.db, nil
}

func (r *dbRef) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs--
	if r.refs == 0 && r.db != nil && !r.down {
		r.timer = time.AfterFunc(r.idle, r.closeIdle)
	}
}

func (r *dbRef) closeIdle() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refs == 0 && r.db != nil {
		if err := r.db.Close(); err != nil {
			r.log.Error("serve: closing an idle store", "dir", r.dir, "err", err)
		}
		r.db = nil
	}
}

// shutdown closes the store for good (after every job has stopped).
func (r *dbRef) shutdown() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = true
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.db == nil {
		return nil
	}
	err := r.db.Close()
	r.db = nil
	return err
}

// hasStore reports whether dir holds a Pebble store.
func hasStore(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
	return len(m) > 0
}

// newJob records a new job of kind in dir; spec is what was asked.
func (s *Server) newJob(kind, id, dir string, spec any) (*job, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	rec := record{ID: id, Kind: kind, State: StateStopped, CreatedAt: time.Now().UTC(), Spec: b}
	j, err := s.restoreJob(dir, rec)
	if err != nil {
		return nil, err
	}
	j.mu.Lock()
	j.persistLocked()
	j.mu.Unlock()
	s.add(j)
	return j, nil
}

// restoreJob builds the job a record describes.
func (s *Server) restoreJob(dir string, rec record) (*job, error) {
	j := &job{srv: s, id: rec.ID, kind: rec.Kind, dir: dir, rec: rec}
	if rec.State == StateRunning {
		// the server stopped without stopping it (a crash, a kill)
		j.rec.State, j.rec.Interrupted = StateStopped, true
	}
	var err error
	switch rec.Kind {
	case KindCrawl:
		j.ref = s.ref(dir)
		err = s.restoreCrawl(j, rec)
	case KindSurface:
		err = s.restoreSurface(j, rec)
	case KindEnrich:
		j.ref = s.ref(dir)
		err = s.restoreEnrich(j, rec)
	case KindHarvest:
		j.ref = s.ref(dir)
		err = s.restoreHarvest(j, rec)
	default:
		err = fmt.Errorf("unknown job kind %q", rec.Kind)
	}
	if err != nil {
		return nil, err
	}
	return j, nil
}
