package fetch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var benchPage = "<html><head><title>Used cars</title></head><body>" + strings.Repeat("<p><a href=\"/x\">link</a> text text text</p>", 200) + "</body></html>"

// BenchmarkFetchLoopback measures end-to-end fetches over loopback TCP with
// politeness delay 0: 8 hosts (test servers), 8 workers, robots.txt on.
func BenchmarkFetchLoopback(b *testing.B) {
	const hosts = 8
	var urls []string
	for i := 0; i < hosts; i++ {
		s := newSite(b, "User-agent: *\nDisallow: /private\n")
		s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, benchPage)
		})
		urls = append(urls, s.URL)
	}
	f, err := New(Options{AllowPrivate: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	benchWorkers(b, f, urls)
}

// BenchmarkFetchTransport measures the fetcher's own overhead with an
// in-process transport (testbed mode), 8 hosts, 8 workers.
func BenchmarkFetchTransport(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, benchPage)
	})
	f, err := New(Options{Transport: handlerTransport{mux}, AllowHost: func(string) bool { return true }})
	if err != nil {
		b.Fatal(err)
	}
	var urls []string
	for i := 0; i < 8; i++ {
		urls = append(urls, fmt.Sprintf("http://host%d.test", i))
	}
	benchWorkers(b, f, urls)
}

func benchWorkers(b *testing.B, f *Fetcher, hosts []string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchPage)))
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := range hosts {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if _, err := f.Fetch(context.Background(), fmt.Sprintf("%s/page/%d", hosts[w], i)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}
