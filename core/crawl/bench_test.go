package crawl

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/simweb"
)

// BenchmarkCrawlThroughput crawls a fault-free simulated web over loopback
// with no politeness delay, classification and storage included, and
// reports pages/s and the peak heap.
func BenchmarkCrawlThroughput(b *testing.B) {
	cfg := simweb.DefaultConfig()
	cfg.Seed = testSeed
	cfg.Faults = simweb.NoFaults()
	cfg.Robots = simweb.RobotsConfig{} // no crawl-delay: the target is at politeness delay 0
	w := simweb.MustNew(cfg)
	const pages = 20000
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		p := testProfile(b, "auto")
		p.Stop.MaxPagesPerSite = 0
		c, err := Assemble(context.Background(), Setup{Profile: p, Dir: dir, Strategy: SCDI, Workers: 8, Pages: pages, Web: w, Logger: quiet(), Seed: testSeed, TestbedSeeds: 50})
		if err != nil {
			b.Fatal(err)
		}
		var peak atomic.Uint64
		stop := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}
		}()
		start := time.Now()
		sn, err := c.Run(context.Background())
		el := time.Since(start)
		close(stop)
		c.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sn.Pages)/el.Seconds(), "pages/s")
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(sn.Pages), "pages")
	}
}
