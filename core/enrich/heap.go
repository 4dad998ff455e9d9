package enrich

// prio is a priority-queue entry: a pool query with the benefit it had when
// the entry was pushed.
type prio struct {
	key   float64 // estimated benefit
	nd    int32   // uncovered |q(D)| (tie-break, and staleness check)
	terms int32   // number of keywords (tie-break: more specific first)
	q     int32
}

func (a prio) before(b prio) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	if a.nd != b.nd {
		return a.nd > b.nd
	}
	if a.terms != b.terms {
		return a.terms > b.terms
	}
	return a.q < b.q
}

// lazyHeap is a binary max-heap of prio. Benefits only decrease as records
// get covered, so entries are not updated when a record changes: the
// engine records the change in the query's counters (the delta), and when a
// stale entry reaches the top it is re-pushed with its current benefit
// (Section 6.3's lazy update). An entry that is current when on top is the
// true maximum, because every other entry's current benefit is at most its
// stored one.
type lazyHeap struct{ a []prio }

func (h *lazyHeap) len() int { return len(h.a) }

func (h *lazyHeap) top() prio { return h.a[0] }

func (h *lazyHeap) push(p prio) {
	h.a = append(h.a, p)
	i := len(h.a) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.a[i].before(h.a[parent]) {
			break
		}
		h.a[i], h.a[parent] = h.a[parent], h.a[i]
		i = parent
	}
}

func (h *lazyHeap) pop() prio {
	top := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	h.down(0)
	return top
}

func (h *lazyHeap) down(i int) {
	n := len(h.a)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		best := l
		if r := l + 1; r < n && h.a[r].before(h.a[l]) {
			best = r
		}
		if !h.a[best].before(h.a[i]) {
			return
		}
		h.a[i], h.a[best] = h.a[best], h.a[i]
		i = best
	}
}

// init heapifies the entries in place.
func (h *lazyHeap) init(a []prio) {
	h.a = a
	for i := len(a)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
