package frontier

import (
	"strings"

	"github.com/dwcrawl/dwcrawl/store"
)

// Item is one URL (or site) in a frontier.
type Item struct {
	// URL is the canonical URL; for site frontiers, the site key.
	URL string
	// Site is the site key of URL ("scheme://host[:port]"); SiteOf gives it
	// without allocating.
	Site string
	// Score orders the frontier: higher first, ties first-in first-out.
	Score float64
	// Depth is the link depth (from the site's homepage or the seed).
	Depth int
	// Data is an opaque payload kept and persisted with the item: the
	// engine stores the link's features here so that rankers and
	// classifiers can re-score it after learning.
	Data string

	seq uint64 // insertion order, for FIFO ties
	pos int    // index in its heap, -1 when in none
}

// SiteOf returns the site key of a canonical URL, "scheme://host[:port]", as
// a substring of u (no allocation).
func SiteOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexAny(u[i+3:], "/?#"); j >= 0 {
		return u[:i+3+j]
	}
	return u
}

func (it *Item) entry(queue string) store.FrontierEntry {
	e := store.FrontierEntry{Queue: queue, Score: it.Score, URL: it.URL, Site: it.Site, Depth: it.Depth}
	if it.Data != "" {
		e.Payload = []byte(it.Data)
	}
	return e
}

func itemFromEntry(e store.FrontierEntry) *Item {
	return &Item{URL: e.URL, Site: e.Site, Score: e.Score, Depth: e.Depth, Data: string(e.Payload), pos: -1}
}

// itemHeap is a binary max-heap of items by (Score desc, seq asc) that
// keeps each item's position, so items can be removed or re-scored in
// O(log n). The keys are copied into the heap so that comparisons do not
// chase pointers.
type itemHeap []hent

type hent struct {
	score float64
	seq   uint64
	it    *Item
}

func (h itemHeap) less(i, j int) bool {
	a, b := &h[i], &h[j]
	if a.score != b.score {
		return a.score > b.score
	}
	return a.seq < b.seq
}

func (h itemHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].it.pos = i
	h[j].it.pos = j
}

func (h itemHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

func (h itemHeap) down(i int) bool {
	i0, n := i, len(h)
	for {
		l := 2*i + 1
		if l >= n || l < 0 {
			break
		}
		j := l
		if r := l + 1; r < n && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}

func (h *itemHeap) push(it *Item) {
	it.pos = len(*h)
	*h = append(*h, hent{it.Score, it.seq, it})
	h.up(it.pos)
}

func (h itemHeap) top() *Item { return h[0].it }

func (h *itemHeap) pop() *Item {
	old := *h
	n := len(old) - 1
	old.swap(0, n)
	it := old[n].it
	old[n] = hent{}
	*h = old[:n]
	if n > 0 {
		h.down(0)
	}
	it.pos = -1
	return it
}

func (h *itemHeap) remove(it *Item) {
	i := it.pos
	old := *h
	n := len(old) - 1
	if i != n {
		old.swap(i, n)
	}
	old[n] = hent{}
	*h = old[:n]
	if i != n && !h.down(i) {
		h.up(i)
	}
	it.pos = -1
}

// fix restores the order after it.Score changed.
func (h itemHeap) fix(it *Item) {
	h[it.pos].score = it.Score
	if !h.down(it.pos) {
		h.up(it.pos)
	}
}

// init orders the heap after arbitrary changes to the items' scores, in
// O(n).
func (h itemHeap) init() {
	for i := range h {
		h[i].score, h[i].seq = h[i].it.Score, h[i].it.seq
		h[i].it.pos = i
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
