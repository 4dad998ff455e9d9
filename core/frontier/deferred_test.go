package frontier

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/testseed"
	"github.com/dwcrawl/dwcrawl/store"
)

func openDB(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(dir, store.Options{NoSync: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// stored lists the entries of queue in st, in pop order.
func stored(t *testing.T, st Store, queue string) []string {
	t.Helper()
	return scanned(t, st, queue, false)
}

// storedSet lists the entries of queue in st sorted: Rescore visits a
// level's links in no fixed order, so equal scores have no fixed order.
func storedSet(t *testing.T, st Store, queue string) []string {
	t.Helper()
	return scanned(t, st, queue, true)
}

func scanned(t *testing.T, st Store, queue string, sorted bool) []string {
	t.Helper()
	var out []string
	if err := st.ScanFrontier(queue, func(e store.FrontierEntry) error {
		out = append(out, fmt.Sprintf("%s d%d %.3f", e.URL, e.Depth, e.Score))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if sorted {
		sort.Strings(out)
	}
	return out
}

// A Deferred link frontier behaves as one that writes at once, and its
// store, at every committed Stage, holds what the other's holds; a batch
// not committed (a crash) leaves the store as the last committed Stage
// left it, pushes and pops alike.
func TestLinkFrontierDeferred(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 7))
	for round := 0; round < 20; round++ {
		dir := t.TempDir()
		db := openDB(t, dir)
		ref := NewMemStore()
		opt := LinkOptions{MaxPages: 40 + r.IntN(40), MaxPerDepth: 5 + r.IntN(20), MaxDepth: 4}
		w := NewLinkFrontier(host, ref, opt)
		dopt := opt
		dopt.Deferred = true
		d := NewLinkFrontier(host, db, dopt)
		n := 0
		pushSome := func() {
			var items []Item
			depth := max(d.Depth(), 0) + r.IntN(2)
			for k := r.IntN(8); k >= 0; k-- {
				items = append(items, Item{URL: fmt.Sprintf("%s/p%d", host, r.IntN(n+5)), Depth: depth, Score: float64(r.IntN(4))})
			}
			n += len(items)
			a, errA := w.PushAll(items)
			b, errB := d.PushAll(items)
			if a != b || errA != nil || errB != nil {
				t.Fatalf("round %d: PushAll %d %v, deferred %d %v", round, a, errA, b, errB)
			}
		}
		pushSome()
		var committed []string // the queue at the last committed Stage
		crashed := false
		for step := 0; step < 60 && !crashed; step++ {
			switch k := r.IntN(10); {
			case k < 4:
				pushSome()
			case k < 8:
				a, okA, errA := w.Next()
				b, okB, errB := d.Next()
				if a.URL != b.URL || okA != okB || errA != nil || errB != nil {
					t.Fatalf("round %d step %d: Next %s %v %v, deferred %s %v %v", round, step, a.URL, okA, errA, b.URL, okB, errB)
				}
			case k == 8:
				a, errA := w.SkipDepth()
				b, errB := d.SkipDepth()
				if len(a) != len(b) || errA != nil || errB != nil {
					t.Fatalf("round %d: SkipDepth %d %v, deferred %d %v", round, len(a), errA, len(b), errB)
				}
			default:
				fn := func(it *Item) float64 { return float64(len(it.URL) % 5) }
				if err := w.Rescore(fn); err != nil {
					t.Fatal(err)
				}
				if err := d.Rescore(fn); err != nil {
					t.Fatal(err)
				}
			}
			if r.IntN(3) > 0 {
				continue
			}
			b := db.NewBatch()
			if err := d.Stage(b); err != nil {
				t.Fatal(err)
			}
			if d.Pending() != 0 {
				t.Fatalf("%d writes pending after Stage", d.Pending())
			}
			if r.IntN(5) == 0 {
				// crash: the batch is never committed
				b.Close()
				db.Close()
				db = openDB(t, dir)
				if got := storedSet(t, db, d.queue); !reflect.DeepEqual(got, committed) {
					t.Errorf("round %d: after a crash the store holds\n%v\nwant the last committed\n%v", round, got, committed)
				}
				again := NewLinkFrontier(host, db, dopt)
				if k, err := again.Load(); err != nil || k != len(committed) {
					t.Errorf("round %d: reloaded %d links (%v), want %d", round, k, err, len(committed))
				}
				crashed = true
				continue
			}
			if err := b.Commit(false); err != nil {
				t.Fatal(err)
			}
			b.Close()
			committed = storedSet(t, db, d.queue)
			if want := storedSet(t, ref, w.queue); !reflect.DeepEqual(committed, want) {
				t.Fatalf("round %d step %d: deferred store\n%v\nwrite-through store\n%v", round, step, committed, want)
			}
		}
		if !crashed {
			a, _ := w.Drain()
			b, err := d.Drain()
			if err == nil {
				err = d.Flush()
			}
			if len(a) != len(b) || err != nil {
				t.Fatalf("round %d: Drain %d, deferred %d %v", round, len(a), len(b), err)
			}
			if k, err := db.FrontierLen(d.queue); k != 0 || err != nil || ref.Len() != 0 {
				t.Errorf("round %d: after Drain and Flush %d stored (%v), reference %d", round, k, err, ref.Len())
			}
		}
		db.Close()
	}
}

// A link pushed and popped between two Stages is never written: no entry,
// no URL state.
func TestLinkFrontierDeferredNeverStored(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	f := NewLinkFrontier(host, db, LinkOptions{Deferred: true})
	if _, err := f.PushAll([]Item{{URL: host + "/a", Depth: 1, Score: 2}, {URL: host + "/b", Depth: 1, Score: 1}}); err != nil {
		t.Fatal(err)
	}
	if k, _ := db.FrontierLen(f.queue); k != 0 {
		t.Fatalf("%d entries stored before any Stage", k)
	}
	it, ok, err := f.Next()
	if err != nil || !ok || it.URL != host+"/a" {
		t.Fatalf("Next = %s %v %v", it.URL, ok, err)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, db, f.queue); len(got) != 1 || got[0] != host+"/b d1 1.000" {
		t.Errorf("stored %v, want /b only", got)
	}
	if _, ok, err := db.GetURL(host + "/a"); ok || err != nil {
		t.Errorf("the link pushed and popped before the flush has a URL state (%v)", err)
	}
	// popped after its push was stored: the deletion waits for the next
	// Stage, and the URL keeps its state
	if it, ok, _ = f.Next(); !ok || it.URL != host+"/b" {
		t.Fatalf("Next = %s %v", it.URL, ok)
	}
	if k, _ := db.FrontierLen(f.queue); k != 1 {
		t.Errorf("pop written before the Stage: %d stored", k)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	st, ok, err := db.GetURL(host + "/b")
	if k, _ := db.FrontierLen(f.queue); k != 0 || !ok || err != nil || st.State != store.StateQueued || st.FrontierKey != nil {
		t.Errorf("after the flush: %d stored, state %+v %v %v; want none, queued without a frontier key", k, st, ok, err)
	}
}

// The site frontier's deferred writes: PopKeep leaves the entry stored,
// PushAllIn and RescoreIn write nothing until their batch is committed.
func TestSiteFrontierInBatch(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	f := NewSiteFrontier(db)
	sites := []Item{{URL: "http://a.example", Score: 3}, {URL: "http://b.example", Score: 2}, {URL: "http://c.example", Score: 1}}
	b := db.NewBatch()
	if err := f.PushAllIn(b, sites, true); err != nil {
		t.Fatal(err)
	}
	if k, _ := db.FrontierLen(store.QueueHigh); k != 0 {
		t.Errorf("%d sites stored before the batch is committed", k)
	}
	b.Close() // a crash: nothing stored
	if k, _ := db.FrontierLen(store.QueueHigh); k != 0 {
		t.Errorf("%d sites stored from a batch never committed", k)
	}
	b = db.NewBatch()
	if err := f.PushAllIn(b, sites, true); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	b.Close()
	it, ok, err := f.PopKeep()
	if err != nil || !ok || it.URL != "http://a.example" {
		t.Fatalf("PopKeep = %s %v %v", it.URL, ok, err)
	}
	if got := stored(t, db, store.QueueHigh); len(got) != 3 {
		t.Errorf("after PopKeep the store holds %v, want the 3 sites", got)
	}
	b = db.NewBatch()
	if err := b.DeleteFrontier(it.URL); err != nil {
		t.Fatal(err)
	}
	if err := f.RescoreIn(b, func(it *Item) float64 { return 10 - it.Score }); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, db, store.QueueHigh); got[0] != "http://a.example d0 3.000" {
		t.Errorf("rescore written before its batch: %v", got)
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	b.Close()
	want := []string{"http://c.example d0 9.000", "http://b.example d0 8.000"}
	if got := stored(t, db, store.QueueHigh); !reflect.DeepEqual(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	again := NewSiteFrontier(db)
	if k, err := again.Load(); k != 2 || err != nil {
		t.Errorf("reloaded %d sites (%v), want 2", k, err)
	}
	if it, _, _ := again.Pop(); it.URL != "http://c.example" {
		t.Errorf("reloaded frontier pops %s first, want c", it.URL)
	}
}
