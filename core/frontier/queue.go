package frontier

import (
	"fmt"
	"math"
	"sync"

	"github.com/dwcrawl/dwcrawl/store"
)

// pq is a persisted priority queue without locking: the shared core of
// Queue, SiteFrontier and LevelFrontier.
type pq struct {
	name  string // the store queue it persists to
	st    Store
	h     itemHeap
	index map[string]*Item
	seq   *uint64 // insertion counter, shared by the queues of one frontier
}

func newPQ(name string, st Store, seq *uint64) *pq {
	return &pq{name: name, st: st, h: newItemHeap(), index: map[string]*Item{}, seq: seq}
}

// writer is where q writes: w, or its store when w is nil.
func (q *pq) writer(w Writer) Writer {
	if w != nil || q.st == nil {
		return w
	}
	return q.st
}

// push adds it, or updates the score and data of an item with its URL,
// writing to w (nil: the store).
func (q *pq) push(w Writer, it Item) (*Item, error) {
	if err := q.check(&it); err != nil {
		return nil, err
	}
	if err := persist(q.writer(w), q.name, q.persisted(&it)); err != nil {
		return nil, err
	}
	return q.apply(it), nil
}

// check refuses a NaN score and fills in the site.
func (q *pq) check(it *Item) error {
	if math.IsNaN(it.Score) {
		return fmt.Errorf("frontier %s: push %s: score is NaN", q.name, it.URL)
	}
	if it.Site == "" {
		it.Site = SiteOf(it.URL)
	}
	return nil
}

// persisted is the item push stores for it: the queued item of its URL
// with it's score and data, or it.
func (q *pq) persisted(it *Item) *Item {
	if old := q.index[it.URL]; old != nil {
		c := *old
		c.Score, c.Depth, c.Evidence = it.Score, it.Depth, it.Evidence
		return &c
	}
	return it
}

// apply makes push's change in memory, once persisted.
func (q *pq) apply(it Item) *Item {
	if old := q.index[it.URL]; old != nil {
		old.Score, old.Depth, old.Evidence = it.Score, it.Depth, it.Evidence
		q.h.fix(old)
		return old
	}
	p := &it
	q.insert(p)
	return p
}

// insert adds an item that is already persisted.
func (q *pq) insert(p *Item) {
	*q.seq++
	p.seq = *q.seq
	q.index[p.URL] = p
	q.h.push(p)
}

// pop removes the best item, deleting it from the store when write is set.
func (q *pq) pop(write bool) (*Item, error) {
	if q.h.len() == 0 {
		return nil, nil
	}
	p := q.h.top()
	if write {
		if err := unpersist(q.writer(nil), q.name, p.URL); err != nil {
			return nil, err
		}
	}
	q.h.pop()
	delete(q.index, p.URL)
	return p, nil
}

// take removes p from memory only (the caller persists the move).
func (q *pq) take(p *Item) {
	q.h.remove(p)
	delete(q.index, p.URL)
}

func (q *pq) remove(url string) (bool, error) {
	p := q.index[url]
	if p == nil {
		return false, nil
	}
	if err := unpersist(q.st, q.name, url); err != nil {
		return false, err
	}
	q.take(p)
	return true, nil
}

// rescore applies fn to every item, writes the changed scores to w and
// reorders the heap.
func (q *pq) rescore(w Writer, fn func(*Item) float64) error {
	var firstErr error
	for _, e := range q.h.entries() {
		p := e.it
		s := fn(p)
		if s == p.Score || math.IsNaN(s) {
			continue
		}
		p.Score = s
		if err := persist(q.writer(w), q.name, p); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	q.h.reorder()
	return firstErr
}

// load reads the queue's persisted entries into memory.
func (q *pq) load() (int, error) {
	if q.st == nil {
		return 0, nil
	}
	n := 0
	err := q.st.ScanFrontier(q.name, func(e store.FrontierEntry) error {
		if old := q.index[e.URL]; old != nil {
			return nil
		}
		p, err := itemFromEntry(e)
		if err != nil {
			return err
		}
		q.insert(p)
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("frontier %s: load: %w", q.name, err)
	}
	return n, nil
}

// Queue is a persisted best-first priority queue of URLs: the frontier of
// the bestfirst strategy. A URL is in it at most once; pushing it again
// updates its score. Safe for concurrent use.
type Queue struct {
	mu  sync.Mutex
	seq uint64
	q   *pq
}

// NewQueue returns an empty queue persisting to st under the store queue
// name (st may be nil: memory only).
func NewQueue(name string, st Store) *Queue {
	q := &Queue{}
	q.q = newPQ(name, st, &q.seq)
	return q
}

// Name returns the store queue name.
func (q *Queue) Name() string { return q.q.name }

// Load adds the queue's persisted entries (a resumed crawl) and returns how
// many were added.
func (q *Queue) Load() (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.q.load()
}

// Push adds it or updates the item with its URL. An empty Site is filled in
// from the URL.
func (q *Queue) Push(it Item) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, err := q.q.push(nil, it)
	return err
}

// Pop removes and returns the best item; ok is false when the queue is
// empty.
func (q *Queue) Pop() (it Item, ok bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p, err := q.q.pop(true)
	if p == nil || err != nil {
		return Item{}, false, err
	}
	return *p, true, nil
}

// Peek returns the best item without removing it.
func (q *Queue) Peek() (Item, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.q.h.len() == 0 {
		return Item{}, false
	}
	return *q.q.h.top(), true
}

// Remove deletes url from the queue, reporting whether it was there.
func (q *Queue) Remove(url string) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.q.remove(url)
}

// Get returns the queued item of url.
func (q *Queue) Get(url string) (Item, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if p := q.q.index[url]; p != nil {
		return *p, true
	}
	return Item{}, false
}

// Contains reports whether url is queued.
func (q *Queue) Contains(url string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.q.index[url] != nil
}

// Len returns the number of queued items.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.q.h.len()
}

// Rescore gives every item the score fn returns (NaN keeps the old one) and
// reorders the queue: after a ranker or classifier has learnt.
func (q *Queue) Rescore(fn func(*Item) float64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return inOneWrite(q.q.st, func(w Writer) error { return q.q.rescore(w, fn) })
}
