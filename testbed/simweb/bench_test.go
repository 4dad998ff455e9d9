package simweb

import (
	"io"
	"net/http"
	"runtime"
	"testing"
)

// benchURLs lists the page URLs of the first sites.
func benchURLs(w *Web, n int) []string {
	var out []string
	for id := int32(0); int(id) < len(w.sites) && len(out) < n; id++ {
		s := w.site(id)
		for pid := range s.pages {
			out = append(out, w.pageURL(s, int32(pid)))
		}
	}
	return out
}

func benchPages(b *testing.B, c *http.Client, urls []string) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			resp, err := c.Get(urls[i%len(urls)])
			i += 7
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkServeLoopback measures pages served per second over a loopback
// TCP listener (default text length, no faults).
func BenchmarkServeLoopback(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Sites = 300
	cfg.Faults = NoFaults()
	w := MustNew(cfg)
	urls := benchURLs(w, 5000)
	srv, err := w.Listen("127.0.0.1:0", ServeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	benchPages(b, srv.Client(), urls)
}

// BenchmarkServeInProcess measures the same through Web.Transport.
func BenchmarkServeInProcess(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Sites = 300
	cfg.Faults = NoFaults()
	w := MustNew(cfg)
	benchPages(b, w.Client(), benchURLs(w, 5000))
}

// BenchmarkGenerate100k reports the heap used by a web of 3,000 sites (about
// 100,000 pages) once every site has been generated and the search engine
// has indexed every page. Data comes from the shared data directory when
// present.
func BenchmarkGenerate100k(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Sites = 3000
	cfg.Data = FindDataDir()
	if _, err := LoadData(cfg.Data); err != nil {
		b.Fatal(err)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < b.N; i++ {
		w := MustNew(cfg)
		pages := 0
		for id := range w.sites {
			pages += len(w.site(int32(id)).pages)
		}
		w.EngineSearch("cars", 1)
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(pages), "pages")
		b.ReportMetric(float64(after.HeapAlloc), "heap-bytes")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc), "web-heap-bytes")
		runtime.KeepAlive(w)
	}
}
