package store

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// dirSize is the size of the sstables in dir (the WAL is recycled, so it is
// left out).
func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sst") {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// benchEntry is a typical link-frontier entry.
func benchEntry(i int) FrontierEntry {
	return FrontierEntry{
		Queue:   "links",
		Score:   float64(i%1000) / 1000,
		URL:     fmt.Sprintf("https://www.site%04d.example/catalog/item/%08d?sort=price", i%5000, i),
		Site:    fmt.Sprintf("https://www.site%04d.example", i%5000),
		Depth:   i % 4,
		Payload: []byte(`{"level":2}`),
	}
}

func openBench(b *testing.B) *DB {
	b.Helper()
	db, err := Open(b.TempDir(), Options{Logger: quietLog, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return db
}

// BenchmarkBatchWrite commits batches of 100 new frontier entries (each also
// creating its URL state and updating the queue length).
func BenchmarkBatchWrite(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("sync=%v", sync), func(b *testing.B) {
			db := openBench(b)
			const per = 100
			n := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bt := db.NewBatch()
				for j := 0; j < per; j++ {
					if err := bt.PushFrontier(benchEntry(n)); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if err := bt.Commit(sync); err != nil {
					b.Fatal(err)
				}
				bt.Close()
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

func fillFrontier(b *testing.B, db *DB, n int) {
	b.Helper()
	for i := 0; i < n; {
		bt := db.NewBatch()
		for j := 0; j < 1000 && i < n; j, i = j+1, i+1 {
			if err := bt.PushFrontier(benchEntry(i)); err != nil {
				b.Fatal(err)
			}
		}
		if err := bt.Commit(false); err != nil {
			b.Fatal(err)
		}
		bt.Close()
	}
}

// BenchmarkFrontierScan scans a 100k-entry queue in pop order.
func BenchmarkFrontierScan(b *testing.B) {
	db := openBench(b)
	const n = 100_000
	fillFrontier(b, db, n)
	if err := db.pdb.Flush(); err != nil {
		b.Fatal(err)
	}
	disk := dirSize(b, db.Dir())
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		seen := 0
		if err := db.ScanFrontier("links", func(FrontierEntry) error { seen++; return nil }); err != nil {
			b.Fatal(err)
		}
		if seen != n {
			b.Fatalf("scanned %d of %d", seen, n)
		}
		total += seen
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "entries/s")
	b.ReportMetric(float64(disk)/n, "disk-B/url") // entry + URL state, compressed
}

// BenchmarkPopFrontier pops from a queue prefilled with b.N entries; the
// head-of-queue tombstones pops leave behind are part of the cost.
func BenchmarkPopFrontier(b *testing.B) {
	db := openBench(b)
	fillFrontier(b, db, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := db.PopFrontier("links"); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pops/s")
}

// BenchmarkEncode compares the binary encodings of the hot records with
// encoding/json and reports the bytes per record.
func BenchmarkEncode(b *testing.B) {
	e := benchEntry(12345)
	st := URLState{URL: e.URL, Site: e.Site, State: StateQueued, Depth: e.Depth,
		FrontierKey: frontierKey(nil, e.Queue, e.Score, 12345)}
	b.Run("urlstate/binary", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = encodeURLState(buf[:0], &st)
			if _, err := decodeURLState(st.URL, buf); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(buf)), "bytes/rec")
	})
	b.Run("urlstate/json", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf, _ = json.Marshal(&st)
			var out URLState
			if err := json.Unmarshal(buf, &out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(buf)), "bytes/rec")
	})
	key := frontierKey(nil, e.Queue, e.Score, 12345)
	b.Run("frontier/binary", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = encodeFrontierValue(buf[:0], &e)
			if _, err := decodeFrontier(key, buf); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(key)+len(buf)), "bytes/rec")
	})
	b.Run("frontier/json", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf, _ = json.Marshal(&e)
			var out FrontierEntry
			if err := json.Unmarshal(buf, &out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(key)+len(buf)), "bytes/rec")
	})
}
