package store

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

// checkURLCache fails unless every state the URL cache would answer is
// exactly the state stored in Pebble, and the cache is within its bound.
func checkURLCache(t *testing.T, db *DB) {
	t.Helper()
	db.fmu.Lock()
	defer db.fmu.Unlock()
	c := db.urls
	if c == nil {
		t.Fatal("writable DB without a URL cache")
	}
	if len(c.cur) > c.half || len(c.old) > c.half {
		t.Fatalf("URL cache over its bound: %d+%d entries, %d per generation", len(c.cur), len(c.old), c.half)
	}
	check := func(gen string, m map[string]URLState, shadow map[string]URLState) {
		for u, st := range m {
			if _, ok := shadow[u]; ok {
				continue // never answered: the newer generation has u
			}
			stored, ok, err := db.getURL(u)
			if err != nil {
				t.Fatalf("read %s: %v", u, err)
			}
			if !ok {
				t.Errorf("cache (%s) holds %s, which is not stored", gen, u)
				continue
			}
			if st.URL != u || !reflect.DeepEqual(st, stored) {
				t.Errorf("cache (%s) is stale for %s:\n cached %+v\n stored %+v", gen, u, st, stored)
			}
		}
	}
	check("cur", c.cur, nil)
	check("old", c.old, c.cur)
	if c.filter == nil {
		return
	}
	// the filter must know every stored URL (its "no" is trusted)
	must(t, db.scan([]byte{TagURLs}, []byte{TagURLs + 1}, func(k, _ []byte) error {
		if !c.filter.mayHave(string(k[1:])) {
			t.Errorf("filter says %s is not stored", k[1:])
		}
		return nil
	}))
}

// TestURLFilter: every URL added is reported, and few others are.
func TestURLFilter(t *testing.T) {
	r := testRand(t)
	f := newURLFilter(64) // 4 KiB
	const n, others = 2000, 20000
	seen := map[string]bool{}
	for len(seen) < n {
		u := fmt.Sprintf("https://h%d.example/p/%d", r.Intn(50), r.Int63())
		seen[u] = true
		f.add(u)
	}
	for u := range seen {
		if !f.mayHave(u) {
			t.Fatalf("added %s, filter says absent", u)
		}
	}
	fp := 0
	for i := 0; i < others; i++ {
		u := fmt.Sprintf("https://h%d.example/q/%d", r.Intn(50), r.Int63())
		if f.mayHave(u) {
			fp++
		}
	}
	// 16 bits per URL, 7 probes in a 512-bit block: about 0.1 %
	if rate := float64(fp) / others; rate > 0.01 {
		t.Fatalf("false positive rate %.4f with 16 bits per URL", rate)
	} else {
		t.Logf("false positive rate %.4f", rate)
	}
}

// cacheStep is one change to URL states; steps run in order on one DB.
type cacheStep struct {
	name string
	do   func(t *testing.T, db *DB)
}

func push(q, u string, score float64) cacheStep {
	return cacheStep{"push " + u, func(t *testing.T, db *DB) {
		must(t, db.PushFrontier(FrontierEntry{Queue: q, Score: score, URL: u, Site: "https://a.example", Depth: 1}))
	}}
}

func mark(u string, s State) cacheStep {
	return cacheStep{fmt.Sprintf("mark %s %v", u, s), func(t *testing.T, db *DB) {
		must(t, db.MarkURL(URLState{URL: u, Site: "https://a.example", State: s, Status: 200, Err: "e"}))
	}}
}

func pop(q string) cacheStep {
	return cacheStep{"pop " + q, func(t *testing.T, db *DB) {
		_, _, err := db.PopFrontier(q)
		must(t, err)
	}}
}

func delFrontier(u string) cacheStep {
	return cacheStep{"delete frontier " + u, func(t *testing.T, db *DB) { must(t, db.DeleteFrontier(u)) }}
}

// TestURLCacheConsistent runs sequences of every kind of change to URL
// states and checks after each step that the cache answers exactly what is
// stored, and that the states stay right (a stale frontier key in the cache
// would unlink the wrong entry and break the queue lengths).
func TestURLCacheConsistent(t *testing.T) {
	const a, b, c = "https://a.example/a", "https://a.example/b", "https://a.example/c"
	aborted := cacheStep{"batch closed before commit", func(t *testing.T, db *DB) {
		bt := db.NewBatch()
		must(t, bt.SetURL(URLState{URL: a, State: StateFailed}))
		must(t, bt.PushFrontier(FrontierEntry{Queue: "q", Score: 9, URL: b}))
		must(t, bt.DeleteFrontier(c))
		must(t, bt.Close())
	}}
	batch := cacheStep{"batch of several ops on one URL", func(t *testing.T, db *DB) {
		bt := db.NewBatch()
		defer bt.Close()
		must(t, bt.PushFrontier(FrontierEntry{Queue: "q", Score: 3, URL: a}))
		must(t, bt.SetURL(URLState{URL: a, State: StateQueued, Depth: 4}))
		must(t, bt.PushFrontier(FrontierEntry{Queue: "r", Score: 1, URL: a}))
		must(t, bt.SetURL(URLState{URL: b, State: StateSkipped}))
		must(t, bt.DeleteFrontier(c))
		must(t, bt.Commit(true))
	}}
	reopen := cacheStep{"reopen", func(t *testing.T, db *DB) {}} // handled by the runner
	tests := []struct {
		name  string
		steps []cacheStep
	}{
		{"push, move, pop", []cacheStep{push("q", a, 1), push("q", b, 2), push("r", a, 5), pop("r"), pop("q"), pop("q")}},
		{"pop then mark", []cacheStep{push("q", a, 1), pop("q"), mark(a, StateFetched), push("q", a, 1), pop("q")}},
		{"mark queued keeps entry", []cacheStep{push("q", a, 1), mark(a, StateQueued), pop("q"), mark(a, StateFailed)}},
		{"mark unlinks", []cacheStep{push("q", a, 1), mark(a, StateFetched), push("q", a, 2), mark(a, StateSkipped), pop("q")}},
		{"delete frontier", []cacheStep{push("q", a, 1), delFrontier(a), delFrontier(b), push("q", a, 1), pop("q")}},
		{"aborted batch", []cacheStep{push("q", a, 1), mark(b, StateSeen), push("q", c, 1), aborted, pop("q"), pop("q")}},
		{"batch", []cacheStep{push("q", c, 1), mark(b, StateFetched), batch, pop("r"), pop("q"), batch}},
		{"reopen", []cacheStep{push("q", a, 1), push("q", b, 2), pop("q"), reopen, pop("q"), mark(b, StateQueued), push("q", b, 1), reopen, batch, pop("q")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, Options{Logger: quietLog})
			must(t, err)
			defer func() { db.Close() }()
			var hits uint64
			for i, s := range tc.steps {
				if s.name == "reopen" {
					hits += db.urls.hits
					must(t, db.Close())
					db, err = Open(dir, Options{Logger: quietLog})
					must(t, err)
					continue
				}
				s.do(t, db)
				checkURLCache(t, db)
				if t.Failed() {
					t.Fatalf("after step %d (%s)", i, s.name)
				}
			}
			checkFrontierInvariants(t, db)
			if hits+db.urls.hits == 0 {
				t.Error("the URL cache answered nothing")
			}
			if db.urls.filter == nil {
				t.Error("the filter of stored URLs was never built")
			}
		})
	}
}

// TestURLCacheFailedCommit: a commit that fails after resolve cached the
// states it wrote must drop them again.
func TestURLCacheFailedCommit(t *testing.T) {
	db, _ := openTemp(t)
	const a, bad = "https://a.example/a", "https://a.example/bad"
	must(t, db.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: a}))
	// a stored state whose frontier key does not decode makes resolve fail
	// on the batch's second op, after it staged (and cached) the first
	broken := URLState{URL: bad, State: StateQueued, FrontierKey: []byte{TagFrontier, 0x00}}
	must(t, db.pdb.Set(urlKey(bad), encodeURLState(nil, &broken), nil))
	db.urls.added(bad) // what resolve does for the states it writes
	b := db.NewBatch()
	must(t, b.SetURL(URLState{URL: a, State: StateFetched}))
	must(t, b.DeleteFrontier(bad))
	if err := b.Commit(false); err == nil {
		t.Fatal("commit of a batch touching a damaged state succeeded")
	}
	b.Close()
	checkURLCache(t, db)
	st, _, err := db.urlLocked(a)
	must(t, err)
	if st.State != StateQueued || st.FrontierKey == nil {
		t.Fatalf("state after a failed commit: %+v", st)
	}
	if _, ok, _ := db.PopFrontier("q"); !ok {
		t.Fatal("entry of a failed commit's URL gone")
	}
	checkURLCache(t, db)
}

// TestURLCacheEviction runs random changes on more URLs than a small cache
// holds, checking the cache after every step.
func TestURLCacheEviction(t *testing.T) {
	db, _ := openTemp(t)
	db.urls = newURLCache(8)
	r := testRand(t)
	queues := []string{"q", "r"}
	for i := 0; i < 600; i++ {
		u := fmt.Sprintf("https://h%d.example/p%d", r.Intn(3), r.Intn(30))
		q := queues[r.Intn(2)]
		switch k := r.Intn(10); {
		case k < 4:
			must(t, db.PushFrontier(FrontierEntry{Queue: q, Score: float64(r.Intn(3)), URL: u}))
		case k < 5:
			must(t, db.DeleteFrontier(u))
		case k < 7:
			must(t, db.MarkURL(URLState{URL: u, State: State(r.Intn(5)), Depth: r.Intn(3)}))
		default:
			_, _, err := db.PopFrontier(q)
			must(t, err)
		}
		checkURLCache(t, db)
		if t.Failed() {
			t.Fatalf("step %d", i)
		}
	}
	checkFrontierInvariants(t, db)
	if db.urls.hits == 0 || db.urls.misses == 0 || db.urls.absent == 0 {
		t.Errorf("hits %d misses %d absent %d: the small cache was not exercised", db.urls.hits, db.urls.misses, db.urls.absent)
	}
}

// TestURLCacheConcurrent: concurrent batches, pops and readers (run with
// -race) leave the cache exact.
func TestURLCacheConcurrent(t *testing.T) {
	db, _ := openTemp(t)
	db.urls = newURLCache(64)
	r := testRand(t)
	const workers, steps = 4, 300
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(rr interface{ Intn(int) int }) {
			defer wg.Done()
			for i := 0; i < steps; i++ {
				u := fmt.Sprintf("https://h%d.example/p%d", rr.Intn(3), rr.Intn(60))
				var err error
				switch k := rr.Intn(8); {
				case k < 3:
					b := db.NewBatch()
					_ = b.PushFrontier(FrontierEntry{Queue: "q", Score: float64(rr.Intn(5)), URL: u})
					_ = b.PushFrontier(FrontierEntry{Queue: "r", Score: 1, URL: u + "n"})
					_ = b.SetURL(URLState{URL: u + "m", State: StateFetched})
					err = b.Commit(false)
					b.Close()
				case k < 4:
					b := db.NewBatch()
					_ = b.SetURL(URLState{URL: u, State: StateFailed})
					b.Close() // aborted
				case k < 5:
					err = db.MarkURL(URLState{URL: u, State: State(rr.Intn(5))})
				case k < 6:
					_, _, err = db.GetURL(u)
				default:
					_, _, err = db.PopFrontier([]string{"q", "r"}[rr.Intn(2)])
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(newRand(r.Int63()))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkURLCache(t, db)
	checkFrontierInvariants(t, db)
}

// TestURLCacheReadOnly: a read-only DB caches nothing and reads what was
// stored.
func TestURLCacheReadOnly(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	must(t, db.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: "https://a.example/"}))
	must(t, db.Close())
	ro, err := OpenReadOnly(dir, Options{Logger: quietLog})
	must(t, err)
	defer ro.Close()
	if ro.urls != nil {
		t.Fatal("read-only DB has a URL cache")
	}
	if st, ok, err := ro.GetURL("https://a.example/"); err != nil || !ok || st.State != StateQueued {
		t.Fatalf("read-only GetURL: %+v %v %v", st, ok, err)
	}
}

// BenchmarkResolveLinks commits pages that push 40 links each, 30 of them
// the site's navigation links seen on every page (the crawl's pattern),
// with and without the URL cache.
func BenchmarkResolveLinks(b *testing.B) {
	for _, cached := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", cached), func(b *testing.B) {
			db := openBench(b)
			if !cached {
				db.urls = nil
			}
			nav := make([]string, 30)
			for i := range nav {
				nav[i] = fmt.Sprintf("https://site.example/nav/%d", i)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bt := db.NewBatch()
				for _, u := range nav {
					_ = bt.PushFrontier(FrontierEntry{Queue: "links", Score: 1, URL: u, Site: "https://site.example"})
				}
				for j := 0; j < 10; j++ {
					_ = bt.PushFrontier(FrontierEntry{Queue: "links", Score: 1, URL: fmt.Sprintf("https://site.example/p/%d/%d", i, j), Site: "https://site.example"})
				}
				_ = bt.SetURL(URLState{URL: fmt.Sprintf("https://site.example/p/%d/0", i), State: StateFetched, Status: 200})
				if err := bt.Commit(false); err != nil {
					b.Fatal(err)
				}
				bt.Close()
			}
			if c := db.urls; c != nil {
				n := float64(c.hits + c.absent + c.misses)
				b.ReportMetric(float64(c.hits)/n, "cached-frac")
				b.ReportMetric(float64(c.absent)/n, "filtered-frac")
			}
		})
	}
}

// TestCachedURLKeepsFetched: CachedURL answers the committed state, and a
// URL once fetched keeps its fetch time when it is queued again or skipped
// (the crawl reads page records only for URLs with one).
func TestCachedURLKeepsFetched(t *testing.T) {
	db, _ := openTemp(t)
	const u = "https://a.example/page"
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		name    string
		apply   func(b *Batch) error
		state   State
		fetched bool
	}{
		{"queued", func(b *Batch) error { return b.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: u}) }, StateQueued, false},
		{"failed", func(b *Batch) error {
			return b.SetURL(URLState{URL: u, State: StateFailed, Fetched: at, Err: "http-503"})
		}, StateFailed, true},
		{"queued again", func(b *Batch) error { return b.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: u}) }, StateQueued, true},
		{"skipped", func(b *Batch) error { return b.SetURL(URLState{URL: u, State: StateSkipped}) }, StateSkipped, true},
	}
	if _, ok, err := db.CachedURL(u); err != nil || ok {
		t.Fatalf("never seen: ok %v, err %v", ok, err)
	}
	for _, s := range steps {
		b := db.NewBatch()
		must(t, s.apply(b))
		must(t, b.Commit(false))
		b.Close()
		st, ok, err := db.CachedURL(u)
		if err != nil || !ok || st.State != s.state || st.Fetched.Equal(at) != s.fetched {
			t.Errorf("%s: %+v ok %v err %v; want state %v, fetched %v", s.name, st, ok, err, s.state, s.fetched)
		}
		stored, _, err := db.GetURL(u)
		must(t, err)
		if !reflect.DeepEqual(st, stored) {
			t.Errorf("%s: cached %+v, stored %+v", s.name, st, stored)
		}
	}
	checkURLCache(t, db)
}
