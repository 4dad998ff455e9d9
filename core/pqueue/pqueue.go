// Package pqueue provides the binary-heap priority queue that the frontiers,
// the link-tree planner, the enrichment engine's lazy-update queue and the
// surfacing oracle share.
//
// A Queue orders its elements with a "before" function: Top and Pop return
// the element that comes before every other. Elements that must be removed
// or re-prioritised in place (a URL re-scored in a frontier) are tracked
// with an index callback, called whenever an element lands at a new
// position, so the caller can keep the position in the element itself and
// pass it to Fix or Remove.
//
// container/heap offers the same operations, but boxes every pushed element
// in an interface (an allocation for a struct element) and reaches Less and
// Swap through an interface; here a comparison is one call through a
// function value, and Pop sifts bottom-up to make few of them.
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

// up moves the element at j towards the root while it comes before its
// parent. (The function values are read into locals once: the loops call
// them at every level.)
func (q *Queue[T]) up(j int) {
	h, before, moved := q.items, q.before, q.moved
	x := h[j]
	for j > 0 {
		i := (j - 1) / 2
		if !before(x, h[i]) {
			break
		}
		h[j] = h[i]
		if moved != nil {
			moved(h[j], j)
		}
		j = i
	}
	h[j] = x
	if moved != nil {
		moved(x, j)
	}
}

// down moves the element at i towards the leaves while a child comes
// before it; it reports whether the element moved. It sinks the hole at i
// to a leaf along the earlier children, then lifts the element back up from
// there (Floyd's bottom-up sift): one comparison per level on the way down
// instead of two, since an element moved down (the last one, by Pop) mostly
// belongs near the leaves. Comparisons are calls through a function value,
// so their number is what the time goes by.
func (q *Queue[T]) down(i int) bool {
	h, before, moved := q.items, q.before, q.moved
	n := len(h)
	x := h[i]
	j := i
	for {
		l := 2*j + 1
		if l >= n || l < 0 { // l < 0: int overflow
			break
		}
		if r := l + 1; r < n && before(h[r], h[l]) {
			l = r
		}
		h[j] = h[l]
		if moved != nil {
			moved(h[j], j)
		}
		j = l
	}
	for j > i {
		p := (j - 1) / 2
		if !before(x, h[p]) {
			break
		}
		h[j] = h[p]
		if moved != nil {
			moved(h[j], j)
		}
		j = p
	}
	h[j] = x
	if moved != nil {
		moved(x, j)
	}
	return j > i
}
