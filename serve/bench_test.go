package serve_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/serve"
)

// BenchmarkServeOverhead measures what watching a crawl costs it. The
// same 3000-page testbed crawl of the default simulated web (seed 1) runs
// alone and with a client that polls like an open dashboard page (every
// 2 s the crawl, its harvest curve and its forms when they changed; every
// 10 s its failures and learning rounds) and scrapes /metrics every
// second, alternately, three times each after a warm-up crawl. It reports
// the process's CPU time (getrusage: crawler, simulated web and client
// together) per page fetched in both cases (medians) and their difference.
// That difference is within the noise of one crawl, so it also measures
// the requests themselves: the CPU time of one dashboard poll and of one
// scrape, each repeated on the finished crawl, priced at their rates over
// the crawl's duration (overhead-est-%). And the /metrics latency seen
// during the watched crawls.
//
//	go test -run '^$' -bench ServeOverhead -benchtime 1x ./serve/
func BenchmarkServeOverhead(b *testing.B) {
	const pages, rounds = 3000, 3
	h := newHarness(b, "", app.WebOptions{Seed: 1, SeedSet: true}, nil)
	watchCrawl(b, h, pages, false) // warm-up: the simulated web, the heap
	b.ResetTimer()
	var bare, served, walls []float64
	var scrapes []time.Duration
	var lastID string
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			for _, watched := range []bool{false, true} {
				m := watchCrawl(b, h, pages, watched)
				perPage := m.cpu.Seconds() * 1000 / float64(m.pages)
				if watched {
					served = append(served, perPage)
					scrapes = append(scrapes, m.scrapes...)
				} else {
					bare = append(bare, perPage)
				}
				walls = append(walls, m.wall.Seconds()/float64(m.pages))
				lastID = m.id
				b.Logf("round %d watched=%v: %d pages in %s, %.3f ms CPU per page", r+1, watched, m.pages, m.wall.Round(time.Millisecond), perPage)
			}
		}
	}
	mb, ms := median(bare), median(served)
	b.ReportMetric(mb, "cpu-ms/page-alone")
	b.ReportMetric(ms, "cpu-ms/page-watched")
	b.ReportMetric(100*(ms-mb)/mb, "overhead-%")

	// the requests' own cost, repeated on the last (finished) crawl
	const reps = 200
	t0 := cpuTime(b)
	for i := 0; i < reps; i++ {
		pollOnce(h, lastID, i%5 == 0) // failures and features every 5th poll (10 s)
	}
	poll := (cpuTime(b) - t0) / reps
	t0 = cpuTime(b)
	for i := 0; i < reps; i++ {
		h.do("GET", "/metrics", "")
	}
	scrape := (cpuTime(b) - t0) / reps
	// per page: polls every 2 s, scrapes every 1 s, over the seconds a page takes
	secPerPage := median(walls)
	extra := (poll.Seconds()/2 + scrape.Seconds()) * secPerPage * 1000
	b.ReportMetric(float64(poll.Microseconds())/1000, "cpu-ms/poll")
	b.ReportMetric(float64(scrape.Microseconds())/1000, "cpu-ms/scrape")
	b.ReportMetric(100*extra/mb, "overhead-est-%")
	slices.Sort(scrapes)
	if n := len(scrapes); n > 0 {
		b.ReportMetric(float64(scrapes[n/2].Microseconds())/1000, "metrics-p50-ms")
		b.ReportMetric(float64(scrapes[n*9/10].Microseconds())/1000, "metrics-p90-ms")
		b.ReportMetric(float64(scrapes[n-1].Microseconds())/1000, "metrics-max-ms")
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// pollOnce is one refresh of the dashboard's crawl page (forms included,
// as when they changed).
func pollOnce(h *harness, id string, aux bool) serve.CrawlStatus {
	var st serve.CrawlStatus
	if code, body := h.do("GET", "/api/crawls/"+id, ""); code == 200 {
		json.Unmarshal(body, &st)
	}
	h.do("GET", "/api/crawls/"+id+"/curve", "")
	h.do("GET", "/api/crawls/"+id+"/forms?format=json", "")
	if aux {
		h.do("GET", "/api/crawls/"+id+"/failures?examples=3", "")
		h.do("GET", "/api/crawls/"+id+"/features", "")
	}
	return st
}

// cpuTime is the process's user and system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measured is one crawl of the benchmark.
type measured struct {
	id      string
	cpu     time.Duration
	wall    time.Duration
	pages   int64
	scrapes []time.Duration // /metrics latencies
}

// watchCrawl runs one crawl, watched or not.
func watchCrawl(b *testing.B, h *harness, pages int, watched bool) measured {
	start, wall := cpuTime(b), time.Now()
	id := h.startCrawl(mustJSON(b, map[string]any{"profile": filepath.Join(domainsDir(b), "auto.lua"), "testbed": true, "pages": pages}))
	done := make(chan struct{})
	var wg sync.WaitGroup
	m := measured{id: id}
	if watched {
		wg.Add(2)
		go func() { // the dashboard's crawl page
			defer wg.Done()
			lastForms, lastAux := int64(-1), time.Time{}
			tick := time.NewTicker(2 * time.Second)
			defer tick.Stop()
			for {
				var st serve.CrawlStatus
				if code, body := h.do("GET", "/api/crawls/"+id, ""); code == 200 {
					json.Unmarshal(body, &st)
				}
				h.do("GET", "/api/crawls/"+id+"/curve", "")
				if st.SearchableForms != lastForms {
					h.do("GET", "/api/crawls/"+id+"/forms?format=json", "")
					lastForms = st.SearchableForms
				}
				if time.Since(lastAux) >= 10*time.Second {
					h.do("GET", "/api/crawls/"+id+"/failures?examples=3", "")
					h.do("GET", "/api/crawls/"+id+"/features", "")
					lastAux = time.Now()
				}
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
		}()
		go func() { // a Prometheus scraper
			defer wg.Done()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				t0 := time.Now()
				h.do("GET", "/metrics", "")
				m.scrapes = append(m.scrapes, time.Since(t0))
			}
		}()
	}
	st := h.waitDoneEvery(id, 10*time.Minute, time.Second)
	close(done)
	wg.Wait()
	if st.State != serve.StateDone {
		b.Fatalf("crawl %s: %+v", id, st)
	}
	m.cpu, m.wall, m.pages = cpuTime(b)-start, time.Since(wall), st.Pages
	return m
}
