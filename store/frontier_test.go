package store

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"sync"
	"testing"
)

func popAll(t *testing.T, db *DB, queue string) []FrontierEntry {
	t.Helper()
	var out []FrontierEntry
	for {
		e, ok, err := db.PopFrontier(queue)
		must(t, err)
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

func TestFrontierOrder(t *testing.T) {
	db, _ := openTemp(t)
	pushes := []struct {
		url   string
		score float64
	}{
		{"u/low", -1}, {"u/tie1", 0.5}, {"u/top", 2}, {"u/tie2", 0.5}, {"u/zero", 0},
		{"u/negzero", math.Copysign(0, -1)}, {"u/inf", math.Inf(1)}, {"u/tie3", 0.5},
	}
	for _, p := range pushes {
		must(t, db.PushFrontier(FrontierEntry{Queue: "links", Score: p.score, URL: p.url, Site: "u", Depth: 1}))
	}
	if n, err := db.FrontierLen("links"); err != nil || n != len(pushes) {
		t.Fatalf("len %d err %v", n, err)
	}
	peek, err := db.PeekFrontier("links", 2)
	must(t, err)
	if len(peek) != 2 || peek[0].URL != "u/inf" || peek[1].URL != "u/top" {
		t.Fatalf("peek %+v", peek)
	}
	var got []string
	for _, e := range popAll(t, db, "links") {
		got = append(got, e.URL)
	}
	want := []string{"u/inf", "u/top", "u/tie1", "u/tie2", "u/tie3", "u/zero", "u/negzero", "u/low"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pop order %q\nwant %q", got, want)
	}
	if n, _ := db.FrontierLen("links"); n != 0 {
		t.Fatalf("len after popping all: %d", n)
	}
	if err := db.PushFrontier(FrontierEntry{Queue: "links", Score: math.NaN(), URL: "u/nan"}); err == nil {
		t.Fatal("NaN score accepted")
	}
}

func TestFrontierQueuesAreSeparate(t *testing.T) {
	db, _ := openTemp(t)
	// "high" and "high\x00" style names must not overlap; nor a name and its prefix.
	for i, q := range []string{"high", "hi", "high2", "low"} {
		for j := 0; j < 3; j++ {
			must(t, db.PushFrontier(FrontierEntry{Queue: q, Score: float64(j), URL: fmt.Sprintf("%s/%d/%d", q, i, j)}))
		}
	}
	lens, err := db.FrontierLens()
	must(t, err)
	if fmt.Sprint(lens) != "map[hi:3 high:3 high2:3 low:3]" {
		t.Fatalf("lens %v", lens)
	}
	for _, e := range popAll(t, db, "high") {
		if e.Queue != "high" {
			t.Fatalf("popped %+v from queue high", e)
		}
	}
	if n, _ := db.FrontierLen("hi"); n != 3 {
		t.Fatalf("queue hi changed: %d", n)
	}
}

func TestFrontierURLState(t *testing.T) {
	db, _ := openTemp(t)
	u := "https://a.example/p"
	must(t, db.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: u, Site: "https://a.example", Depth: 2, Payload: []byte("x")}))
	st, ok, err := db.GetURL(u)
	if err != nil || !ok || st.State != StateQueued || st.Depth != 2 || st.Site != "https://a.example" || st.FrontierKey == nil {
		t.Fatalf("after push: %+v ok %v err %v", st, ok, err)
	}
	// Re-pushing moves the entry: one entry, new score and queue, length kept.
	must(t, db.PushFrontier(FrontierEntry{Queue: "q2", Score: 5, URL: u, Site: "https://a.example", Depth: 2}))
	if n, _ := db.FrontierLen("q"); n != 0 {
		t.Fatalf("old queue length %d after move", n)
	}
	if n, _ := db.FrontierLen("q2"); n != 1 {
		t.Fatalf("new queue length %d after move", n)
	}
	st2, _, _ := db.GetURL(u)
	if bytes.Equal(st.FrontierKey, st2.FrontierKey) {
		t.Fatal("frontier key not updated by re-push")
	}
	e, ok, err := db.PopFrontier("q2")
	if err != nil || !ok || e.URL != u || e.Score != 5 {
		t.Fatalf("pop: %+v ok %v err %v", e, ok, err)
	}
	st3, _, _ := db.GetURL(u)
	if st3.FrontierKey != nil || st3.State != StateQueued {
		t.Fatalf("after pop: %+v", st3)
	}
	if _, ok, _ := db.PopFrontier("q"); ok {
		t.Fatal("old entry still in old queue")
	}

	// Marking a queued URL fetched removes it from the frontier.
	v := "https://a.example/v"
	must(t, db.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: v}))
	must(t, db.MarkURL(URLState{URL: v, State: StateFetched, Status: 200}))
	if n, _ := db.FrontierLen("q"); n != 0 {
		t.Fatalf("fetched URL still queued: len %d", n)
	}
	// Marking it queued keeps its entry (the store owns FrontierKey).
	must(t, db.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: v}))
	must(t, db.MarkURL(URLState{URL: v, State: StateQueued, Depth: 9}))
	st4, _, _ := db.GetURL(v)
	if st4.FrontierKey == nil || st4.Depth != 9 {
		t.Fatalf("queued mark lost the frontier key: %+v", st4)
	}
	must(t, db.DeleteFrontier(v))
	st5, _, _ := db.GetURL(v)
	if n, _ := db.FrontierLen("q"); n != 0 || st5.FrontierKey != nil || st5.State != StateQueued {
		t.Fatalf("after delete: len %d state %+v", n, st5)
	}
	must(t, db.DeleteFrontier("https://never.example/")) // no-op
}

// TestFrontierHead checks that the remembered head of a queue moves back
// when a better entry arrives after pops.
func TestFrontierHead(t *testing.T) {
	db, _ := openTemp(t)
	for i := 0; i < 5; i++ {
		must(t, db.PushFrontier(FrontierEntry{Queue: "q", Score: float64(-i), URL: fmt.Sprint("a", i)}))
	}
	for i := 0; i < 3; i++ {
		if _, ok, err := db.PopFrontier("q"); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	must(t, db.PushFrontier(FrontierEntry{Queue: "q", Score: 10, URL: "best"}))
	b := db.NewBatch()
	must(t, b.PushFrontier(FrontierEntry{Queue: "q", Score: 20, URL: "better"}))
	must(t, b.Commit(false))
	must(t, b.Close())
	var got []string
	for _, e := range popAll(t, db, "q") {
		got = append(got, e.URL)
	}
	if fmt.Sprint(got) != "[better best a3 a4]" {
		t.Fatalf("pop order %v", got)
	}
}

// TestFrontierModel runs random pushes, moves, deletes, marks and pops,
// concurrently from several goroutines, then checks the invariants: queue
// lengths equal the entries, every queued URL points at its entry, and
// nothing is popped twice.
func TestFrontierModel(t *testing.T) {
	db, _ := openTemp(t)
	r := testRand(t)
	const workers, steps, urls = 4, 400, 150
	seeds := make([]int64, workers)
	for i := range seeds {
		seeds[i] = r.Int63()
	}
	var mu sync.Mutex
	popped := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rr := newRand(seed)
			queues := []string{"a", "b", "c"}
			for i := 0; i < steps; i++ {
				u := fmt.Sprintf("https://h%d.example/p%d", rr.Intn(5), rr.Intn(urls))
				q := queues[rr.Intn(len(queues))]
				var err error
				switch k := rr.Intn(10); {
				case k < 5:
					err = db.PushFrontier(FrontierEntry{Queue: q, Score: float64(rr.Intn(4)), URL: u})
				case k < 6:
					b := db.NewBatch()
					_ = b.PushFrontier(FrontierEntry{Queue: q, Score: rr.Float64(), URL: u})
					_ = b.SetURL(URLState{URL: u, State: StateQueued})
					_ = b.PushFrontier(FrontierEntry{Queue: queues[rr.Intn(3)], Score: 1, URL: u + "x"})
					_ = b.DeleteFrontier(u + "y")
					err = b.Commit(rr.Intn(2) == 0)
					b.Close()
				case k < 7:
					err = db.DeleteFrontier(u)
				case k < 8:
					err = db.MarkURL(URLState{URL: u, State: State(rr.Intn(5))})
				default:
					var e FrontierEntry
					var ok bool
					e, ok, err = db.PopFrontier(q)
					if ok {
						mu.Lock()
						popped[fmt.Sprint(e.Queue, e.Score, e.Seq)]++
						mu.Unlock()
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(seeds[w])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for k, n := range popped {
		if n > 1 {
			t.Fatalf("entry %s popped %d times", k, n)
		}
	}
	checkFrontierInvariants(t, db)
}

func checkFrontierInvariants(t *testing.T, db *DB) {
	t.Helper()
	lens, err := db.FrontierLens()
	must(t, err)
	entries := map[string]string{} // frontier key -> URL
	var queues []string
	for q := range lens {
		queues = append(queues, q)
	}
	sort.Strings(queues)
	for _, q := range queues {
		n := 0
		must(t, db.ScanFrontier(q, func(e FrontierEntry) error {
			n++
			entries[string(frontierKey(nil, e.Queue, e.Score, e.Seq))] = e.URL
			return nil
		}))
		if n != lens[q] {
			t.Errorf("queue %q: %d entries, length counter %d", q, n, lens[q])
		}
	}
	pointed := 0
	must(t, db.ScanURLs("", func(st URLState) error {
		if st.FrontierKey == nil {
			return nil
		}
		pointed++
		if entries[string(st.FrontierKey)] != st.URL {
			t.Errorf("url %s points at a frontier key that is not its entry", st.URL)
		}
		if st.State != StateQueued {
			t.Errorf("url %s in state %v has a frontier entry", st.URL, st.State)
		}
		return nil
	}))
	if pointed != len(entries) {
		t.Errorf("%d URLs point at %d frontier entries", pointed, len(entries))
	}
	t.Logf("%d queues, %d entries", len(queues), len(entries))
}
