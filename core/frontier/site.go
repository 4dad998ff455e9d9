package frontier

import (
	"fmt"
	"sync"

	"github.com/dwcrawl/dwcrawl/store"
)

// SiteFrontier is SmartCrawler's site frontier (Algorithm 2): sites linked
// from the deep sites of the crawl's domain (sites with a relevant
// searchable form) wait in the high-priority queue, all others in
// the low-priority queue, each ordered by site rank; Pop takes the best high
// site, and when the high queue is empty the whole low queue moves into it.
// Items are sites: URL is the site key (canon.Site form). Safe for
// concurrent use by the crawl workers.
type SiteFrontier struct {
	mu         sync.Mutex
	seq        uint64
	high, low  *pq
	promotions int
}

// NewSiteFrontier returns an empty site frontier persisting to st under the
// queues store.QueueHigh and store.QueueLow (st may be nil: memory only).
func NewSiteFrontier(st Store) *SiteFrontier {
	f := &SiteFrontier{}
	f.high = newPQ(store.QueueHigh, st, &f.seq)
	f.low = newPQ(store.QueueLow, st, &f.seq)
	return f
}

// Load adds the persisted sites of both queues (a resumed crawl) and
// returns how many were added.
func (f *SiteFrontier) Load() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.high.load()
	if err != nil {
		return n, err
	}
	m, err := f.low.load()
	return n + m, err
}

// Push queues a site, in the high queue when high is set. A site already
// queued gets the new score and data, and moves up from the low to the high
// queue when high is set; it never moves down.
func (f *SiteFrontier) Push(it Item, high bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pushLocked(nil, it, high)
}

// pushLocked is Push, writing to w (nil: the store). Caller holds f.mu.
func (f *SiteFrontier) pushLocked(w Writer, it Item, high bool) error {
	if it.Site == "" {
		it.Site = it.URL
	}
	if f.high.index[it.URL] != nil {
		_, err := f.high.push(w, it)
		return err
	}
	if p := f.low.index[it.URL]; p != nil {
		if !high {
			_, err := f.low.push(w, it)
			return err
		}
		moved := *p
		moved.Score, moved.Depth, moved.Evidence = it.Score, it.Depth, it.Evidence
		if err := persist(f.high.writer(w), f.high.name, &moved); err != nil {
			return err
		}
		f.low.take(p)
		*p = moved
		f.high.insert(p)
		return nil
	}
	q := f.low
	if high {
		q = f.high
	}
	_, err := q.push(w, it)
	return err
}

// PushAll pushes the sites as Push does one after the other, persisting
// them in one write. The URLs must be distinct (else they are pushed one at
// a time).
func (f *SiteFrontier) PushAll(items []Item, high bool) error {
	return f.pushAll(nil, items, high)
}

// PushAllIn is PushAll staging its writes in w (a batch the caller commits,
// with what else the sites' discovery records): the frontier changes in
// memory at once, so the caller must commit w before the frontier's next
// write, and give the frontier up if the commit fails.
func (f *SiteFrontier) PushAllIn(w Writer, items []Item, high bool) error {
	return f.pushAll(w, items, high)
}

func (f *SiteFrontier) pushAll(w Writer, items []Item, high bool) error {
	seen := make(map[string]struct{}, len(items))
	for _, it := range items {
		if _, dup := seen[it.URL]; dup {
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, it := range items {
				if err := f.pushLocked(w, it, high); err != nil {
					return err
				}
			}
			return nil
		}
		seen[it.URL] = struct{}{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// first what each push would store, then (once stored) the same changes
	// in memory as Push makes
	type step struct {
		q    *pq
		it   Item
		move *Item // a low site moving to the high queue
	}
	steps := make([]step, 0, len(items))
	es := make([]store.FrontierEntry, 0, len(items))
	for _, it := range items {
		if it.Site == "" {
			it.Site = it.URL
		}
		st := step{q: f.low, it: it}
		if high {
			st.q = f.high
		}
		if f.high.index[it.URL] != nil {
			st.q = f.high
		} else if p := f.low.index[it.URL]; p != nil && high {
			moved := *p
			moved.Score, moved.Depth, moved.Evidence = it.Score, it.Depth, it.Evidence
			st.it, st.move = moved, p
		} else if p != nil {
			st.q = f.low
		}
		if err := st.q.check(&st.it); err != nil {
			return err
		}
		e, err := st.q.persisted(&st.it).entry(st.q.name)
		if err != nil {
			return err
		}
		steps = append(steps, st)
		es = append(es, e)
	}
	write := func(w Writer) error {
		for _, e := range es {
			if err := w.PushFrontier(e); err != nil {
				return fmt.Errorf("frontier %s: %w", e.Queue, err)
			}
		}
		return nil
	}
	var err error
	if w != nil {
		err = write(w)
	} else if len(es) > 0 && f.high.st != nil {
		err = inOneWrite(f.high.st, write)
	}
	if err != nil {
		return err
	}
	for _, st := range steps {
		if st.move != nil {
			f.low.take(st.move)
			*st.move = st.it
			f.high.insert(st.move)
			continue
		}
		st.q.apply(st.it)
	}
	return nil
}

// Pop removes and returns the best site of the high queue, first moving the
// low queue into the high one if the high queue is empty (Algorithm 2).
func (f *SiteFrontier) Pop() (it Item, ok bool, err error) {
	return f.pop(true)
}

// PopKeep is Pop without its store write: the site's entry stays stored
// until the caller deletes it (DeleteFrontier) in the batch that records
// what became of the site, so that a crash before that batch leaves the
// site queued, as if it was never popped.
func (f *SiteFrontier) PopKeep() (it Item, ok bool, err error) {
	return f.pop(false)
}

func (f *SiteFrontier) pop(write bool) (it Item, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.high.h.len() == 0 && f.low.h.len() > 0 {
		if err := f.promoteLocked(); err != nil {
			return Item{}, false, err
		}
	}
	p, err := f.high.pop(write)
	if p == nil || err != nil {
		return Item{}, false, err
	}
	return *p, true, nil
}

// promoteLocked moves every low site into the empty high queue.
func (f *SiteFrontier) promoteLocked() error {
	es := f.low.h.entries()
	its := make([]Item, len(es))
	for i, e := range es {
		its[i] = *e.it
	}
	if err := persistAll(f.high.st, f.high.name, its); err != nil { // one write
		return err
	}
	f.high.h, f.low.h = f.low.h, f.high.h // the high heap was empty
	f.high.index, f.low.index = f.low.index, f.high.index
	f.promotions++
	return nil
}

// Remove deletes a site from whichever queue holds it.
func (f *SiteFrontier) Remove(site string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ok, err := f.high.remove(site); ok || err != nil {
		return ok, err
	}
	return f.low.remove(site)
}

// Contains reports whether site is queued.
func (f *SiteFrontier) Contains(site string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.high.index[site] != nil || f.low.index[site] != nil
}

// Get returns the queued site and whether it is in the high queue: to
// merge what is known about a site before pushing it again.
func (f *SiteFrontier) Get(site string) (it Item, high, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.high.index[site]; p != nil {
		return *p, true, true
	}
	if p := f.low.index[site]; p != nil {
		return *p, false, true
	}
	return Item{}, false, false
}

// Len returns the sizes of the high and low queues.
func (f *SiteFrontier) Len() (high, low int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.high.h.len(), f.low.h.len()
}

// Promotions returns how many times the low queue was moved into the high
// queue.
func (f *SiteFrontier) Promotions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.promotions
}

// Rescore re-ranks every queued site with fn (NaN keeps the old score):
// after the adaptive learner rebuilt the site feature space.
func (f *SiteFrontier) Rescore(fn func(*Item) float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return inOneWrite(f.high.st, func(w Writer) error { return f.rescoreLocked(w, fn) })
}

// RescoreIn is Rescore staging the new scores in w (a batch the caller
// commits; see PushAllIn).
func (f *SiteFrontier) RescoreIn(w Writer, fn func(*Item) float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rescoreLocked(w, fn)
}

func (f *SiteFrontier) rescoreLocked(w Writer, fn func(*Item) float64) error {
	err := f.high.rescore(w, fn)
	if err2 := f.low.rescore(w, fn); err == nil {
		err = err2
	}
	return err
}
