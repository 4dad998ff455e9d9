package frontier

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"github.com/dwcrawl/dwcrawl/store"
)

// LevelOptions configure a LevelFrontier.
type LevelOptions struct {
	// Levels is the number of levels the link classifier predicts (ACHE
	// uses 3: the link leads to a form page in 1, 2 or 3 steps). Links of
	// no level ("other") wait in a queue of their own, taken last. Default 3.
	Levels int
	// Capacity is the number of links each level keeps in memory; the rest
	// wait in the persistent frontier until the queues run dry. Default
	// 10000.
	Capacity int
	// Prefix names the store queues: Prefix+":1" … Prefix+":Levels", and
	// Prefix+":0" for "other". Default "ache".
	Prefix string
}

// Classifier assigns a link its level (1..Levels; anything else is "other")
// and its score within the level (the classifier's confidence).
type Classifier func(it *Item) (level int, score float64)

// LevelFrontier is ACHE's frontier (Barbosa & Freire 2007, §3): one queue per
// level predicted by the multi-level link classifier, level 1 (one step from
// a form) taken first, each queue ordered by the classifier's confidence.
// Every link is written to the persistent frontier (the Store); each queue
// keeps at most Capacity links in memory, and when all of them run dry the
// persistent frontier is re-classified with the current classifier and
// reloaded. Safe for concurrent use.
type LevelFrontier struct {
	mu       sync.Mutex
	opt      LevelOptions
	st       Store
	seq      uint64
	queues   []*pq // index = level; 0 = other
	spilled  int   // links only in the persistent frontier
	classify Classifier
	reloads  int
}

// NewLevelFrontier returns an empty frontier persisting to st (nil: an
// in-memory MemStore holds the overflow).
func NewLevelFrontier(st Store, opt LevelOptions) *LevelFrontier {
	if opt.Levels <= 0 {
		opt.Levels = 3
	}
	if opt.Capacity <= 0 {
		opt.Capacity = 10000
	}
	if opt.Prefix == "" {
		opt.Prefix = "ache"
	}
	if st == nil {
		st = NewMemStore()
	}
	f := &LevelFrontier{opt: opt, st: st}
	for l := 0; l <= opt.Levels; l++ {
		f.queues = append(f.queues, newPQ(f.queueName(l), st, &f.seq))
	}
	return f
}

func (f *LevelFrontier) queueName(level int) string {
	return f.opt.Prefix + ":" + strconv.Itoa(level)
}

// level maps a classifier's level to a queue index.
func (f *LevelFrontier) level(l int) int {
	if l < 1 || l > f.opt.Levels {
		return 0
	}
	return l
}

// SetClassifier sets the classifier used when the persistent frontier is
// reloaded (nil keeps each link's stored level and score).
func (f *LevelFrontier) SetClassifier(c Classifier) {
	f.mu.Lock()
	f.classify = c
	f.mu.Unlock()
}

// Push queues a link at the given level (1..Levels, else "other") with
// it.Score as its priority within the level. A URL already in memory is
// re-queued; a full level keeps the link in the persistent frontier only.
func (f *LevelFrontier) Push(it Item, level int) error {
	if math.IsNaN(it.Score) {
		return fmt.Errorf("frontier %s: push %s: score is NaN", f.opt.Prefix, it.URL)
	}
	if it.Site == "" {
		it.Site = SiteOf(it.URL)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.level(level)
	for i, q := range f.queues {
		if p := q.index[it.URL]; p != nil && i != l {
			q.take(p) // moves level: the store moves it with the push below
		}
	}
	q := f.queues[l]
	if q.index[it.URL] == nil && q.h.len() >= f.opt.Capacity {
		if err := persist(f.st, q.name, &it); err != nil {
			return err
		}
		f.spilled++
		return nil
	}
	_, err := q.push(nil, it)
	return err
}

// Pop removes and returns the best link of the lowest non-empty level,
// reloading the persistent frontier first when every queue is empty. ok is
// false when the frontier is empty.
func (f *LevelFrontier) Pop() (it Item, level int, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for attempt := 0; attempt < 2; attempt++ {
		for l := 1; l <= f.opt.Levels; l++ {
			if p, err := f.queues[l].pop(true); p != nil || err != nil {
				return deref(p), l, p != nil, err
			}
		}
		if p, err := f.queues[0].pop(true); p != nil || err != nil {
			return deref(p), 0, p != nil, err
		}
		if f.spilled == 0 {
			break
		}
		if err := f.reloadLocked(); err != nil {
			return Item{}, 0, false, err
		}
	}
	return Item{}, 0, false, nil
}

func deref(p *Item) Item {
	if p == nil {
		return Item{}
	}
	return *p
}

// Reload re-classifies every queued link with the current classifier and
// refills the in-memory queues from the persistent frontier: after the link
// classifier relearnt. It returns the number of links kept in memory.
func (f *LevelFrontier) Reload() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.queues {
		for _, e := range q.h.entries() {
			delete(q.index, e.it.URL)
			f.spilled++
		}
		q.h.clear()
	}
	if err := f.reloadLocked(); err != nil {
		return 0, err
	}
	return f.memLenLocked(), nil
}

// Load reads the persistent frontier of a resumed crawl into memory and
// returns the number of links it holds.
func (f *LevelFrontier) Load() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spilled = 1 // unknown: let the reload count
	if err := f.reloadLocked(); err != nil {
		return 0, err
	}
	return f.memLenLocked() + f.spilled, nil
}

// reloadLocked reads every link of the persistent frontier that is not in
// memory, re-classifies it, persists changed levels and scores, and fills
// each level's memory queue with its best links. Caller holds f.mu.
func (f *LevelFrontier) reloadLocked() error {
	type cand struct {
		it    *Item
		level int
	}
	var cands []cand
	for l, q := range f.queues {
		err := f.st.ScanFrontier(q.name, func(e store.FrontierEntry) error {
			for _, q2 := range f.queues {
				if q2.index[e.URL] != nil {
					return nil
				}
			}
			it, err := itemFromEntry(e)
			if err != nil {
				return err
			}
			cands = append(cands, cand{it, l})
			return nil
		})
		if err != nil {
			return fmt.Errorf("frontier %s: reload: %w", q.name, err)
		}
	}
	for i := range cands {
		c := &cands[i]
		if f.classify == nil {
			continue
		}
		l, s := f.classify(c.it)
		l = f.level(l)
		if math.IsNaN(s) {
			s = c.it.Score
		}
		if l != c.level || s != c.it.Score {
			c.level, c.it.Score = l, s
			if err := persist(f.st, f.queueName(l), c.it); err != nil {
				return err
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].it.Score > cands[j].it.Score })
	f.spilled = 0
	for _, c := range cands {
		q := f.queues[c.level]
		if q.h.len() >= f.opt.Capacity {
			f.spilled++
			continue
		}
		q.insert(c.it)
	}
	f.reloads++
	return nil
}

// Len returns the number of links in the frontier, in memory or not.
func (f *LevelFrontier) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.memLenLocked() + f.spilled
}

func (f *LevelFrontier) memLenLocked() int {
	n := 0
	for _, q := range f.queues {
		n += q.h.len()
	}
	return n
}

// Lens returns the number of links in memory per level (index 0: other) and
// the number waiting in the persistent frontier only.
func (f *LevelFrontier) Lens() (levels []int, spilled int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.queues {
		levels = append(levels, q.h.len())
	}
	return levels, f.spilled
}

// Reloads returns how many times the persistent frontier was reloaded.
func (f *LevelFrontier) Reloads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reloads
}
