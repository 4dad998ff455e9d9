package pqueue

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

const testSeed = 7

func intsBefore(a, b int) bool { return a < b }

func drain[T any](q *Queue[T]) []T {
	var out []T
	for q.Len() > 0 {
		out = append(out, q.Pop())
	}
	return out
}

func TestPushPopOrder(t *testing.T) {
	tests := []struct {
		name string
		in   []int
	}{
		{"empty", nil},
		{"one", []int{4}},
		{"sorted", []int{1, 2, 3, 4, 5}},
		{"reversed", []int{5, 4, 3, 2, 1}},
		{"duplicates", []int{3, 1, 3, 2, 1, 3}},
		{"mixed", []int{9, -2, 7, 0, 7, 11, -5, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := New(intsBefore)
			for _, x := range tc.in {
				q.Push(x)
			}
			if q.Len() != len(tc.in) {
				t.Fatalf("Len %d, want %d", q.Len(), len(tc.in))
			}
			want := slices.Sorted(slices.Values(tc.in))
			if len(want) > 0 && q.Top() != want[0] {
				t.Errorf("Top %d, want %d", q.Top(), want[0])
			}
			if got := drain(&q); !slices.Equal(got, want) {
				t.Errorf("popped %v, want %v", got, want)
			}
		})
	}
}

func TestInit(t *testing.T) {
	in := []int{8, 3, 5, 1, 9, 2, 7}
	q := New(intsBefore)
	q.Init(slices.Clone(in))
	if got, want := drain(&q), slices.Sorted(slices.Values(in)); !slices.Equal(got, want) {
		t.Errorf("popped %v, want %v", got, want)
	}
}

// elem tracks its own index, as the frontiers' items do.
type elem struct {
	prio int
	id   int
	pos  int
}

func elemBefore(a, b *elem) bool {
	if a.prio != b.prio {
		return a.prio > b.prio // highest first
	}
	return a.id < b.id
}

func newElems() Queue[*elem] {
	return NewIndexed(elemBefore, func(e *elem, i int) { e.pos = i })
}

// checkIndex verifies that every element knows its index.
func checkIndex(t *testing.T, q *Queue[*elem]) {
	t.Helper()
	for i, e := range q.Items() {
		if e.pos != i {
			t.Fatalf("element %d at index %d believes it is at %d", e.id, i, e.pos)
		}
	}
}

// TestIndexedModel drives an indexed queue with random pushes, pops, removals
// and priority changes, and checks it against a sorted model after every
// step.
func TestIndexedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed, 0))
	t.Logf("seed %d", testSeed)
	q := newElems()
	live := map[int]*elem{}
	next := 0
	for step := 0; step < 3000; step++ {
		switch op := rng.IntN(10); {
		case op < 4 || len(live) == 0:
			e := &elem{prio: rng.IntN(20), id: next}
			next++
			live[e.id] = e
			q.Push(e)
		case op < 6:
			e := q.Pop()
			var best *elem
			for _, x := range live {
				if best == nil || elemBefore(x, best) {
					best = x
				}
			}
			if e != best {
				t.Fatalf("step %d: popped %d (prio %d), want %d (prio %d)", step, e.id, e.prio, best.id, best.prio)
			}
			delete(live, e.id)
		case op < 8:
			e := anyOf(rng, live)
			if got := q.Remove(e.pos); got != e {
				t.Fatalf("step %d: Remove(%d) returned %d, want %d", step, e.pos, got.id, e.id)
			}
			delete(live, e.id)
		default:
			e := anyOf(rng, live)
			e.prio = rng.IntN(20)
			q.Fix(e.pos)
		}
		if q.Len() != len(live) {
			t.Fatalf("step %d: Len %d, want %d", step, q.Len(), len(live))
		}
		checkIndex(t, &q)
	}
	var want []*elem
	for _, e := range live {
		want = append(want, e)
	}
	slices.SortFunc(want, func(a, b *elem) int {
		return cmp.Or(cmp.Compare(b.prio, a.prio), cmp.Compare(a.id, b.id))
	})
	got := drain(&q)
	if len(got) != len(want) {
		t.Fatalf("drained %d, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("drain position %d: %d, want %d", i, got[i].id, want[i].id)
		}
	}
}

func anyOf(rng *rand.Rand, m map[int]*elem) *elem {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return m[keys[rng.IntN(len(keys))]]
}

func TestReorderAfterManyChanges(t *testing.T) {
	q := newElems()
	es := make([]*elem, 50)
	for i := range es {
		es[i] = &elem{prio: i, id: i}
		q.Push(es[i])
	}
	for _, e := range q.Items() {
		e.prio = -e.prio // reverse every priority, then re-order at once
	}
	q.Init(q.Items())
	checkIndex(t, &q)
	for i, e := range drain(&q) {
		if e.id != i {
			t.Fatalf("pop %d: element %d, want %d", i, e.id, i)
		}
	}
}

func TestClear(t *testing.T) {
	q := New(intsBefore)
	for i := range 10 {
		q.Push(i)
	}
	q.Clear()
	if q.Len() != 0 {
		t.Fatalf("Len after Clear %d", q.Len())
	}
	q.Push(3)
	if q.Pop() != 3 || q.Len() != 0 {
		t.Error("queue unusable after Clear")
	}
}
