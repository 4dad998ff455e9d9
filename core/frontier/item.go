package frontier

import (
	"strings"

	"github.com/dwcrawl/dwcrawl/core/pqueue"
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
	// Evidence is what the links to the URL say (nil: nothing), kept and
	// persisted with the item so that it can be re-scored after learning.
	Evidence *Evidence

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

// hent is an item in an itemHeap. The keys are copied into the heap so that
// comparisons do not chase pointers.
type hent struct {
	score float64
	seq   uint64
	it    *Item
}

// hentBefore orders by Score descending, then first in first out.
func hentBefore(a, b hent) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.seq < b.seq
}

func placeHent(e hent, i int) { e.it.pos = i }

// itemHeap is a max-heap of items by (Score desc, seq asc) that keeps each
// item's position (Item.pos), so items can be removed or re-scored in
// O(log n).
type itemHeap struct{ q pqueue.Queue[hent] }

func newItemHeap() itemHeap { return itemHeap{pqueue.NewIndexed(hentBefore, placeHent)} }

func (h *itemHeap) len() int { return h.q.Len() }

// entries returns the heap's entries, in heap order.
func (h *itemHeap) entries() []hent { return h.q.Items() }

func (h *itemHeap) push(it *Item) { h.q.Push(hent{it.Score, it.seq, it}) }

func (h *itemHeap) top() *Item { return h.q.Top().it }

func (h *itemHeap) pop() *Item {
	it := h.q.Pop().it
	it.pos = -1
	return it
}

// holds reports whether it is in this heap.
func (h *itemHeap) holds(it *Item) bool {
	es := h.q.Items()
	return it.pos >= 0 && it.pos < len(es) && es[it.pos].it == it
}

func (h *itemHeap) remove(it *Item) {
	h.q.Remove(it.pos)
	it.pos = -1
}

// fix restores the order after it.Score changed.
func (h *itemHeap) fix(it *Item) {
	h.q.Items()[it.pos].score = it.Score
	h.q.Fix(it.pos)
}

// reorder orders the heap after arbitrary changes to the items' scores, in
// O(n).
func (h *itemHeap) reorder() {
	es := h.q.Items()
	for i := range es {
		es[i].score, es[i].seq = es[i].it.Score, es[i].it.seq
	}
	h.q.Init(es)
}

// clear empties the heap, marking its items as in none.
func (h *itemHeap) clear() {
	for _, e := range h.q.Items() {
		e.it.pos = -1
	}
	h.q.Clear()
}
