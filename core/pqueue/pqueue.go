// Package pqueue provides the binary-heap priority queue that the frontiers,
// the link-tree planner, the enrichment engine's lazy-update queue and the
// surfacing oracle share.
//
// A Queue orders its elements with a "before" function: Top and Pop return
// the element that comes before every other. Elements that must be removed
// or re-prioritised in place (a URL re-scored in a frontier) are tracked
// with an index callback, called whenever an element lands at a new
// position, so the caller can keep the position in the element itself and
// pass it to Fix or Remove; this is what container/heap offers too, but
// without the interface boxing of Push and Pop, which the frontiers' hot
// paths cannot afford.
package pqueue

// Queue is a binary heap of T. The zero value is not usable: make one with
// New or NewIndexed. A Queue is not safe for concurrent use.
type Queue[T any] struct {
	items  []T
	before func(a, b T) bool
	moved  func(x T, i int)
}

// New returns an empty queue ordered by before: Pop returns an element x
// with before(y, x) false for every other element y.
func New[T any](before func(a, b T) bool) Queue[T] {
	return Queue[T]{before: before}
}

// NewIndexed is New with moved called as moved(x, i) whenever x is placed
// at index i, so that Fix and Remove can be given x's index. An element
// that leaves the queue (Pop, Remove, Clear) is not reported; callers mark
// it themselves.
func NewIndexed[T any](before func(a, b T) bool, moved func(x T, i int)) Queue[T] {
	return Queue[T]{before: before, moved: moved}
}

// Len returns the number of elements.
func (q *Queue[T]) Len() int { return len(q.items) }

// Items returns the elements in heap order (not sorted). The slice is the
// queue's own: an element's priority may be changed through it, followed
// by Fix (one element) or Init (many).
func (q *Queue[T]) Items() []T { return q.items }

// Top returns the first element without removing it; the queue must not be
// empty.
func (q *Queue[T]) Top() T { return q.items[0] }

// Push adds x in O(log n).
func (q *Queue[T]) Push(x T) {
	q.items = append(q.items, x)
	q.up(len(q.items) - 1)
}

// Pop removes and returns the first element in O(log n); the queue must
// not be empty.
func (q *Queue[T]) Pop() T {
	return q.Remove(0)
}

// Remove removes and returns the element at index i in O(log n).
func (q *Queue[T]) Remove(i int) T {
	h := q.items
	n := len(h) - 1
	x := h[i]
	if i != n {
		h[i] = h[n]
	}
	var zero T
	h[n] = zero // let the garbage collector have what it pointed to
	q.items = h[:n]
	if i != n && !q.down(i) {
		q.up(i)
	}
	return x
}

// Fix restores the order after the priority of the element at index i
// changed, in O(log n).
func (q *Queue[T]) Fix(i int) {
	if !q.down(i) {
		q.up(i)
	}
}

// Init makes items the queue's elements (the queue takes the slice) and
// orders them in O(n). Init(q.Items()) re-orders the queue after many
// priorities changed.
func (q *Queue[T]) Init(items []T) {
	q.items = items
	if q.moved != nil {
		for i, x := range items {
			q.moved(x, i)
		}
	}
	for i := len(items)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// Clear removes every element, keeping the allocated capacity.
func (q *Queue[T]) Clear() {
	clear(q.items)
	q.items = q.items[:0]
}

func (q *Queue[T]) place(i int) {
	if q.moved != nil {
		q.moved(q.items[i], i)
	}
}

// up moves the element at j towards the root while it comes before its
// parent.
func (q *Queue[T]) up(j int) {
	h := q.items
	x := h[j]
	for j > 0 {
		i := (j - 1) / 2
		if !q.before(x, h[i]) {
			break
		}
		h[j] = h[i]
		q.place(j)
		j = i
	}
	h[j] = x
	q.place(j)
}

// down moves the element at i towards the leaves while a child comes
// before it; it reports whether the element moved.
func (q *Queue[T]) down(i int) bool {
	h := q.items
	n := len(h)
	i0 := i
	x := h[i]
	for {
		l := 2*i + 1
		if l >= n || l < 0 { // l < 0: int overflow
			break
		}
		j := l
		if r := l + 1; r < n && q.before(h[r], h[l]) {
			j = r
		}
		if !q.before(h[j], x) {
			break
		}
		h[i] = h[j]
		q.place(i)
		i = j
	}
	if i != i0 {
		h[i] = x
		q.place(i)
	}
	return i > i0
}
