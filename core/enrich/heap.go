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

// The engine keeps its pool queries in a pqueue.Queue of prio ordered by
// before. Benefits only decrease as records get covered, so entries are not
// updated when a record changes: the engine records the change in the
// query's counters (the delta), and when a stale entry reaches the top it is
// re-pushed with its current benefit (Section 6.3's lazy update). An entry
// that is current when on top is the true maximum, because every other
// entry's current benefit is at most its stored one.
