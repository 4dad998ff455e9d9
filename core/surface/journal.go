package surface

import (
	"context"
	"fmt"
	"sync"
)

// Entry is one journaled query: its log line, the keys of every returned
// document in result order, and the documents it downloaded first.
type Entry struct {
	Log     QueryLog `json:"log"`
	Results []string `json:"results"`
	Fresh   []string `json:"-"`
	Docs    []Doc    `json:"-"` // the fresh documents, in Fresh order
}

// Journal persists a harvest so that it can resume. Append must be durable
// when it returns; Replay yields the entries in query order with their fresh
// documents.
type Journal interface {
	Append(ctx context.Context, e Entry) error
	Replay(ctx context.Context, fn func(Entry) error) error
}

// MemJournal is an in-memory Journal (tests, benchmarks).
type MemJournal struct {
	mu      sync.Mutex
	entries []Entry
}

// Append stores a copy of e.
func (j *MemJournal) Append(_ context.Context, e Entry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, e)
	return nil
}

// Replay yields the stored entries.
func (j *MemJournal) Replay(ctx context.Context, fn func(Entry) error) error {
	j.mu.Lock()
	es := append([]Entry(nil), j.entries...)
	j.mu.Unlock()
	for _, e := range es {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Len is the number of stored entries.
func (j *MemJournal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.entries)
}

// Replay rebuilds st from the journal, applying every stored query in order
// exactly as it was applied live, and shows each to p when it observes.
func Replay(ctx context.Context, j Journal, st *State, p Policy) error {
	return j.Replay(ctx, func(e Entry) error {
		if e.Log.N != len(st.log)+1 {
			return fmt.Errorf("surface: journal: query %d found where %d was expected", e.Log.N, len(st.log)+1)
		}
		fresh := make(map[string]Doc, len(e.Docs))
		for i, d := range e.Docs {
			fresh[e.Fresh[i]] = d
		}
		docs := make([]Doc, 0, len(e.Results))
		for _, k := range e.Results {
			if d, ok := fresh[k]; ok {
				docs = append(docs, d)
			} else if i, ok := st.keys[k]; ok {
				docs = append(docs, st.docs[i])
			} else {
				return fmt.Errorf("surface: journal: query %d: result %q neither fresh nor downloaded before", e.Log.N, k)
			}
		}
		prop := Proposal{Query: e.Log.Query, Est: e.Log.Est, Gain: e.Log.Gain, FromDocs: e.Log.FromDocs, probe: e.Log.Probe}
		got := st.replayApply(prop, e.Log, docs)
		if ob, ok := p.(Observer); ok && p != nil {
			var fd []Doc
			for _, k := range got.Fresh {
				fd = append(fd, st.docs[st.keys[k]])
			}
			ob.Observe(st, got.Log, fd)
		}
		return nil
	})
}
