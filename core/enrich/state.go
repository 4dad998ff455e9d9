package enrich

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dwcrawl/dwcrawl/store"
)

// The enrichment tables, inside the range store/schema.go reserves
// (TagEnrichFirst .. TagEnrichLast).
const (
	// TagEnrichRun holds the run configuration under key "run": a state
	// directory serves one enrichment run, and resuming with different
	// inputs is refused (ErrOtherRun).
	TagEnrichRun = store.TagEnrichFirst + iota
	// TagEnrichLog is the query journal: key store.AppendUint64(n), value
	// the Entry of the n-th query (JSON), synced before the next query.
	TagEnrichLog
	// TagEnrichSample holds the hidden-database sample built for the run
	// (key "hs": {theta, docs}).
	TagEnrichSample
)

var runKey = []byte("run")
var sampleKey = []byte("hs")

// RunConfig identifies an enrichment run; a resumed run must match it.
type RunConfig struct {
	Local      string   `json:"local"`
	LocalHash  string   `json:"local_sha256"`
	Columns    []string `json:"columns"`
	Method     Method   `json:"method"`
	Match      string   `json:"match"`
	MinSupport int      `json:"min_support"`
	K          int      `json:"k"`
	Seed       int64    `json:"seed"`
}

func (c RunConfig) diff(o RunConfig) string {
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(o)
	if string(a) == string(b) {
		return ""
	}
	return fmt.Sprintf("stored %s, now %s", b, a)
}

// ErrOtherRun is returned (wrapped, with the difference) when a state
// directory holds a run with other inputs than the one resumed.
var ErrOtherRun = errors.New("the directory holds a different enrichment run")

// Journal persists an enrichment run in a store directory, so that an
// interrupted run resumes: its configuration, its sample and every query's
// Entry.
type Journal struct {
	db     *store.DB
	shared bool // the caller owns db
}

// OpenJournal opens (or creates) the run's store directory.
func OpenJournal(dir string) (*Journal, error) {
	db, err := store.Open(dir, store.Options{Kind: store.KindEnrich})
	if err != nil {
		return nil, err
	}
	return &Journal{db: db}, nil
}

// JournalOn keeps the journal in a store the caller has open (a server
// shares one handle between a run and its readers); Close leaves it open.
func JournalOn(db *store.DB) *Journal { return &Journal{db: db, shared: true} }

// Close closes the store, unless it came from JournalOn.
func (j *Journal) Close() error {
	if j.shared {
		return nil
	}
	return j.db.Close()
}

// Config stores cfg on first use and checks it on resume (ErrOtherRun).
func (j *Journal) Config(cfg RunConfig) error {
	var old RunConfig
	ok, err := j.db.GetJSON(TagEnrichRun, runKey, &old)
	if err != nil {
		return err
	}
	if ok {
		if d := cfg.diff(old); d != "" {
			return fmt.Errorf("%w (%s)", ErrOtherRun, d)
		}
		return nil
	}
	return j.db.PutJSON(TagEnrichRun, runKey, cfg)
}

type storedSample struct {
	Theta float64    `json:"theta"`
	Meta  SampleMeta `json:"meta"`
	Docs  []Doc      `json:"docs"`
}

// Sample returns the stored sample; ok is false when none is stored.
func (j *Journal) Sample() (s *Sample, ok bool, err error) {
	var st storedSample
	ok, err = j.db.GetJSON(TagEnrichSample, sampleKey, &st)
	if err != nil || !ok {
		return nil, false, err
	}
	return &Sample{Docs: st.Docs, Theta: st.Theta}, true, nil
}

// PutSample stores the sample built for the run.
func (j *Journal) PutSample(s *Sample, meta SampleMeta) error {
	return j.db.PutJSON(TagEnrichSample, sampleKey, storedSample{Theta: s.Theta, Meta: meta, Docs: s.Docs})
}

// Append records one query's entry.
func (j *Journal) Append(e Entry) error {
	return j.db.PutJSON(TagEnrichLog, store.AppendUint64(nil, uint64(e.N)), e)
}

// Replay calls fn with every recorded entry, in query order.
func (j *Journal) Replay(fn func(Entry) error) error {
	return j.db.ScanJSON(TagEnrichLog, nil, func(_, val []byte) error {
		var e Entry
		if err := json.Unmarshal(val, &e); err != nil {
			return fmt.Errorf("enrich journal: %w", err)
		}
		return fn(e)
	})
}
