package enrich

import (
	"encoding/json"
	"fmt"

	"github.com/dwcrawl/dwcrawl/store"
)

// The enrichment tables, inside the range store/schema.go reserves
// (TagEnrichFirst .. TagEnrichLast).
const (
	// TagEnrichRun holds the run configuration under key "run": a --dir
	// serves one enrichment run, and resuming with different inputs is
	// refused.
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

// journal persists a run in a store directory.
type journal struct{ db *store.DB }

func openJournal(dir string) (*journal, error) {
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return nil, err
	}
	return &journal{db: db}, nil
}

func (j *journal) close() error { return j.db.Close() }

// config stores cfg on first use and checks it on resume.
func (j *journal) config(cfg RunConfig) error {
	var old RunConfig
	ok, err := j.db.GetJSON(TagEnrichRun, runKey, &old)
	if err != nil {
		return err
	}
	if ok {
		if d := cfg.diff(old); d != "" {
			return fmt.Errorf("the directory holds a different enrichment run (%s): use another --dir", d)
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

func (j *journal) sample() (*Sample, bool, error) {
	var s storedSample
	ok, err := j.db.GetJSON(TagEnrichSample, sampleKey, &s)
	if err != nil || !ok {
		return nil, false, err
	}
	return &Sample{Docs: s.Docs, Theta: s.Theta}, true, nil
}

func (j *journal) putSample(s *Sample, meta SampleMeta) error {
	return j.db.PutJSON(TagEnrichSample, sampleKey, storedSample{Theta: s.Theta, Meta: meta, Docs: s.Docs})
}

func (j *journal) append(e Entry) error {
	return j.db.PutJSON(TagEnrichLog, store.AppendUint64(nil, uint64(e.N)), e)
}

func (j *journal) replay(fn func(Entry) error) error {
	return j.db.ScanJSON(TagEnrichLog, nil, func(_, val []byte) error {
		var e Entry
		if err := json.Unmarshal(val, &e); err != nil {
			return fmt.Errorf("enrich journal: %w", err)
		}
		return fn(e)
	})
}
