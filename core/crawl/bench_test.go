package crawl

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// benchWebConfig is a fault-free simulated web with no crawl-delay: the
// throughput target is at politeness delay 0.
func benchWebConfig(sites int) simweb.Config {
	cfg := simweb.DefaultConfig()
	cfg.Seed = testSeed
	cfg.Faults = simweb.NoFaults()
	cfg.Robots = simweb.RobotsConfig{}
	if sites > 0 {
		cfg.Sites = sites
	}
	return cfg
}

// benchCrawl runs one crawl of at most pages pages over loopback and
// reports pages/s and the peak heap in use (sampled every 100 ms).
func benchCrawl(b *testing.B, w *simweb.Web, addr string, pages int, strategy string) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		p := testProfile(b, "auto")
		p.Stop.MaxPagesPerSite = 0
		c, err := Assemble(context.Background(), Setup{Profile: p, Dir: dir, Strategy: strategy, Workers: 8, Pages: pages, Web: w, WebAddr: addr, Logger: quiet(), Seed: testSeed, TestbedSeeds: 50})
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

// BenchmarkCrawlThroughput crawls a fault-free simulated web over loopback
// with no politeness delay, classification and storage included, and
// reports pages/s and the peak heap (the web is served by the same process,
// as in `dwcrawl run --testbed`).
func BenchmarkCrawlThroughput(b *testing.B) {
	benchCrawl(b, simweb.MustNew(benchWebConfig(0)), "", 20000, SCDI)
}

// BenchmarkStrategyThroughput is the same crawl with every strategy: the
// link-level strategies score each out-link of every page.
func BenchmarkStrategyThroughput(b *testing.B) {
	w := simweb.MustNew(benchWebConfig(0))
	for _, s := range []string{SmartCrawler, SCDI, ACHE, BestFirst} {
		b.Run(s, func(b *testing.B) { benchCrawl(b, w, "", 10000, s) })
	}
}

// childWebEnv names the site count of the web a child test process serves;
// with childWebOneTopicEnv set, the web is oneTopicWebConfig's.
const (
	childWebEnv         = "DWCRAWL_BENCH_WEB_SITES"
	childWebOneTopicEnv = "DWCRAWL_BENCH_WEB_ONE_TOPIC"
)

// oneTopicWebConfig is a fault-free web whose sites are all of the auto
// domain: a focused crawl finds relevant sites until it has seen them all,
// so a crawl of a million pages needs only ~40,000 sites.
func oneTopicWebConfig(sites int) simweb.Config {
	cfg := benchWebConfig(sites)
	cfg.TopicShare = 1
	cfg.Domains = map[string]float64{"auto": 1}
	cfg.DirectoryShare = 0
	return cfg
}

// BenchmarkCrawl100k crawls 100,000 pages of a large simulated web served by
// a child process, so that the peak heap reported is the crawler's own
// (target: ≤ 500 MiB).
func BenchmarkCrawl100k(b *testing.B) {
	const sites = 80000
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeBenchWeb$")
	cmd.Env = append(os.Environ(), childWebEnv+"="+strconv.Itoa(sites))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close() // the child exits when its stdin closes
		cmd.Wait()
	}()
	addr, err := readAddr(stdout)
	if err != nil {
		b.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	benchCrawl(b, simweb.MustNew(benchWebConfig(sites)), addr, 100_000, SCDI)
}

// readAddr reads the "addr HOST:PORT" line the child prints once serving.
func readAddr(r io.Reader) (string, error) {
	w, err := readChild(r)
	return w.Addr, err
}

// readChild reads what the child prints: the web's configuration, its
// seeds by domain, then its address once serving.
func readChild(r io.Reader) (RemoteWeb, error) {
	w := RemoteWeb{Seeds: map[string][]string{}, Hosts: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if a, ok := strings.CutPrefix(l, "addr "); ok {
			w.Addr = a
			return w, nil
		}
		if h, ok := strings.CutPrefix(l, "host "); ok {
			w.Hosts[h] = true
		}
		if c, ok := strings.CutPrefix(l, "config "); ok {
			w.Config = []byte(c)
		}
		if s, ok := strings.CutPrefix(l, "seed "); ok {
			if d, u, ok := strings.Cut(s, " "); ok {
				w.Seeds[d] = append(w.Seeds[d], u)
			}
		}
	}
	return w, fmt.Errorf("child web server: no address (%v)", sc.Err())
}

// TestServeBenchWeb is the child process of BenchmarkCrawl100k: it serves
// the benchmark web on loopback until its stdin closes. Run directly it
// does nothing.
func TestServeBenchWeb(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(childWebEnv))
	if n <= 0 {
		t.Skip("child process of BenchmarkCrawl100k")
	}
	cfg := benchWebConfig(n)
	if os.Getenv(childWebOneTopicEnv) != "" {
		cfg = oneTopicWebConfig(n)
	}
	w := simweb.MustNew(cfg)
	srv, err := w.Listen("127.0.0.1:0", simweb.ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fmt.Println("config " + string(w.Config().JSON()))
	for _, si := range w.Sites() {
		fmt.Println("host " + si.Host)
	}
	for _, d := range w.Domains() {
		for _, u := range w.Seeds(d, 100) {
			fmt.Println("seed " + d + " " + u)
		}
	}
	fmt.Println("addr " + srv.Addr)
	io.Copy(io.Discard, os.Stdin)
}
