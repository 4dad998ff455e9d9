package frontier

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
)

const benchSeed = 1

// benchURLs returns n realistic in-site URLs (about 60-70 bytes) spread
// over a few hundred sites and directories.
func benchURLs(n int) []Item {
	rng := rand.New(rand.NewPCG(benchSeed, 0))
	out := make([]Item, n)
	for i := range out {
		site := fmt.Sprintf("http://www.used-cars-%03d.example.com", rng.IntN(300))
		out[i] = Item{
			URL:   fmt.Sprintf("%s/listings/dir%d/item-%07d.html", site, rng.IntN(50), i),
			Site:  site,
			Score: rng.Float64(),
			Depth: rng.IntN(4),
		}
	}
	return out
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkFrontierPush pushes URLs into each frontier type and reports the
// time per push and the memory the frontier holds per queued URL (URL
// string included; the items' source slice is excluded).
func BenchmarkFrontierPush(b *testing.B) {
	kinds := []struct {
		name string
		push func(n int, items []Item) any
	}{
		{"queue", func(n int, items []Item) any {
			q := NewQueue("best", nil)
			for i := 0; i < n; i++ {
				q.Push(items[i])
			}
			return q
		}},
		{"level", func(n int, items []Item) any {
			f := NewLevelFrontier(nil, LevelOptions{Capacity: n})
			for i := 0; i < n; i++ {
				f.Push(items[i], 1+i%3)
			}
			return f
		}},
		{"linkfrontier", func(n int, items []Item) any {
			f := NewLinkFrontier("http://x", nil, LinkOptions{})
			for i := 0; i < n; i++ {
				f.Push(items[i])
			}
			return f
		}},
		{"site", func(n int, items []Item) any {
			f := NewSiteFrontier(nil)
			for i := 0; i < n; i++ {
				f.Push(items[i], i%2 == 0)
			}
			return f
		}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			const n = 100000
			items := benchURLs(n)
			var perURL float64
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				before := heapInUse()
				fresh := make([]Item, n)
				for i := range items {
					fresh[i] = items[i]
					fresh[i].URL = string([]byte(items[i].URL))
				}
				b.StartTimer()
				f := k.push(n, fresh)
				b.StopTimer()
				fresh = nil
				perURL = float64(heapInUse()-before) / n
				runtime.KeepAlive(f)
				b.StartTimer()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*n), "ns/push")
			b.ReportMetric(perURL, "B/URL")
		})
	}
}

// BenchmarkFrontierPushPop measures a steady state: push then pop, with
// 100k URLs queued.
func BenchmarkFrontierPushPop(b *testing.B) {
	items := benchURLs(200000)
	b.Run("queue", func(b *testing.B) {
		q := NewQueue("best", nil)
		for _, it := range items[:100000] {
			q.Push(it)
		}
		b.ReportAllocs()
		i := 100000
		for b.Loop() {
			q.Push(items[i%len(items)])
			q.Pop()
			i++
		}
	})
	b.Run("queue-memstore", func(b *testing.B) {
		q := NewQueue("best", NewMemStore())
		for _, it := range items[:100000] {
			q.Push(it)
		}
		b.ReportAllocs()
		i := 100000
		for b.Loop() {
			q.Push(items[i%len(items)])
			q.Pop()
			i++
		}
	})
	b.Run("linktree", func(b *testing.B) {
		// One site's depth of 5000 links planned with V = 500, drained.
		sub := items[:5000]
		b.ReportAllocs()
		for b.Loop() {
			t := NewLinkTree()
			for _, it := range sub {
				t.Add(it)
			}
			t.SetBudget(500)
			for {
				if _, ok := t.Next(); !ok {
					break
				}
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*len(sub)), "ns/link")
	})
}

// BenchmarkLinkFrontierPage is the store side of one in-site page: a link
// popped, the page recorded (URL state and a 2 KB record), its 8 new links
// pushed; a site is left (drained) after 25 pages. Write-through costs
// three commits a page; Deferred one, the frontier's writes staged in the
// page's batch. Real Pebble, not synced.
func BenchmarkLinkFrontierPage(b *testing.B) {
	record := make([]byte, 2048)
	for i := range record {
		record[i] = 'a' + byte(i%26)
	}
	for _, deferred := range []bool{false, true} {
		name := "write-through"
		if deferred {
			name = "deferred"
		}
		b.Run(name, func(b *testing.B) {
			db := openDB(b, b.TempDir())
			defer db.Close()
			var f *LinkFrontier
			site := 0
			newSite := func() {
				if f != nil {
					if _, err := f.Drain(); err != nil {
						b.Fatal(err)
					}
					if err := f.Flush(); err != nil {
						b.Fatal(err)
					}
				}
				site++
				s := fmt.Sprintf("http://www.site-%05d.example", site)
				f = NewLinkFrontier(s, db, LinkOptions{Deferred: deferred})
				if _, err := f.Push(Item{URL: s + "/", Score: 1}); err != nil {
					b.Fatal(err)
				}
				if err := f.Flush(); err != nil {
					b.Fatal(err)
				}
			}
			newSite()
			rng := rand.New(rand.NewPCG(benchSeed, 1))
			next := 0
			links := make([]Item, 8)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%25 == 24 {
					newSite()
				}
				it, ok, err := f.Next()
				if err != nil || !ok {
					b.Fatalf("Next: %v %v", ok, err)
				}
				bt := db.NewBatch()
				if deferred {
					if err := f.Stage(bt); err != nil {
						b.Fatal(err)
					}
				}
				if err := bt.SetURL(store.URLState{URL: it.URL, Site: f.Site(), State: store.StateFetched, Depth: it.Depth}); err != nil {
					b.Fatal(err)
				}
				if err := bt.PutJSONText(store.TagPages, []byte(it.URL), fmt.Appendf(nil, "%q", record)); err != nil {
					b.Fatal(err)
				}
				for k := range links {
					next++
					links[k] = Item{URL: fmt.Sprintf("%s/d%d/page-%07d.html", f.Site(), it.Depth+1, next), Depth: it.Depth + 1, Score: rng.Float64()}
				}
				if _, err := f.PushAll(links); err != nil {
					b.Fatal(err)
				}
				if deferred {
					if err := f.Stage(bt); err != nil {
						b.Fatal(err)
					}
				}
				if err := bt.Commit(false); err != nil {
					b.Fatal(err)
				}
				bt.Close()
			}
		})
	}
}
