package frontier

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/dwcrawl/dwcrawl/store"
)

// Store persists frontier entries. *store.DB implements it, as does
// MemStore. The semantics are store.DB's: an entry is keyed by its URL, which
// is in at most one queue (pushing it again moves it); deleting an entry
// keeps the URL's crawl state; a scan visits a queue best first.
type Store interface {
	PushFrontier(e store.FrontierEntry) error
	DeleteFrontier(url string) error
	ScanFrontier(queue string, fn func(store.FrontierEntry) error) error
}

// MemStore is an in-memory Store with store.DB's semantics, for tests,
// benchmarks and crawls without a directory. It is safe for concurrent use.
type MemStore struct {
	mu      sync.Mutex
	seq     uint64
	entries map[string]*store.FrontierEntry // by URL
	queues  map[string]map[string]*store.FrontierEntry
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{entries: map[string]*store.FrontierEntry{}, queues: map[string]map[string]*store.FrontierEntry{}}
}

// PushFrontier adds e, or moves it if its URL is already queued.
func (m *MemStore) PushFrontier(e store.FrontierEntry) error {
	if e.URL == "" {
		return fmt.Errorf("frontier: push %q: empty URL", e.Queue)
	}
	if math.IsNaN(e.Score) {
		return fmt.Errorf("frontier: push %s: score is NaN", e.URL)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleteLocked(e.URL)
	if e.Seq == 0 {
		m.seq++
		e.Seq = m.seq
	} else if e.Seq > m.seq {
		m.seq = e.Seq
	}
	e.Payload = append([]byte(nil), e.Payload...)
	q := m.queues[e.Queue]
	if q == nil {
		q = map[string]*store.FrontierEntry{}
		m.queues[e.Queue] = q
	}
	q[e.URL] = &e
	m.entries[e.URL] = &e
	return nil
}

// DeleteFrontier removes url's entry, if any.
func (m *MemStore) DeleteFrontier(url string) error {
	m.mu.Lock()
	m.deleteLocked(url)
	m.mu.Unlock()
	return nil
}

func (m *MemStore) deleteLocked(url string) {
	if old := m.entries[url]; old != nil {
		delete(m.queues[old.Queue], url)
		delete(m.entries, url)
	}
}

// ScanFrontier calls fn for every entry of queue, best first, over a
// snapshot; an error from fn stops the scan and is returned.
func (m *MemStore) ScanFrontier(queue string, fn func(store.FrontierEntry) error) error {
	m.mu.Lock()
	snap := make([]store.FrontierEntry, 0, len(m.queues[queue]))
	for _, e := range m.queues[queue] {
		snap = append(snap, *e)
	}
	m.mu.Unlock()
	sort.Slice(snap, func(i, j int) bool {
		if snap[i].Score != snap[j].Score {
			return snap[i].Score > snap[j].Score
		}
		return snap[i].Seq < snap[j].Seq
	})
	for _, e := range snap {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// FrontierLen returns the number of entries in queue.
func (m *MemStore) FrontierLen(queue string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queues[queue]), nil
}

// Len returns the number of entries in all queues.
func (m *MemStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// Writer takes frontier writes: a Store writes them at once, a
// *store.Batch stages them for its owner to commit with the rest of a
// batch (a page's record, a site's), so that they land together.
type Writer interface {
	PushFrontier(e store.FrontierEntry) error
	DeleteFrontier(url string) error
}

// batcher is a Store that can stage several writes in one batch
// (*store.DB).
type batcher interface {
	NewBatch() *store.Batch
}

// inOneWrite runs fn with a Writer whose writes reach st in one write when
// st can batch them (one Pebble commit, not one per entry), else one at a
// time; without a store, fn gets a nil Writer. Nothing is written when fn
// fails.
func inOneWrite(st Store, fn func(w Writer) error) error {
	if st == nil {
		return fn(nil)
	}
	bs, ok := st.(batcher)
	if !ok {
		return fn(st)
	}
	b := bs.NewBatch()
	defer b.Close()
	if err := fn(b); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	return b.Commit(false)
}

// persist writes it to w under queue (a no-op without a writer).
func persist(w Writer, queue string, it *Item) error {
	if w == nil {
		return nil
	}
	e, err := it.entry(queue)
	if err != nil {
		return err
	}
	if err := w.PushFrontier(e); err != nil {
		return fmt.Errorf("frontier %s: %w", queue, err)
	}
	return nil
}

// persistAll writes its to st under queue, in one write when st can.
func persistAll(st Store, queue string, its []Item) error {
	if len(its) == 0 {
		return nil
	}
	return inOneWrite(st, func(w Writer) error {
		for i := range its {
			if err := persist(w, queue, &its[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// unpersist deletes url from w (a no-op without a writer).
func unpersist(w Writer, queue, url string) error {
	if w == nil {
		return nil
	}
	if err := w.DeleteFrontier(url); err != nil {
		return fmt.Errorf("frontier %s: %w", queue, err)
	}
	return nil
}
