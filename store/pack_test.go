package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchPage is a page record shaped like the crawl's (core/crawl
// pageRecord): text, and links with the text around their anchors.
type benchPage struct {
	URL   string `json:"url"`
	Site  string `json:"site"`
	Title string `json:"title"`
	Text  string `json:"text"`
	Links []struct {
		U string `json:"u"`
		A string `json:"a,omitempty"`
		B string `json:"b,omitempty"`
		F string `json:"f,omitempty"`
	} `json:"links"`
	Seq int64 `json:"seq"`
}

var benchWords = strings.Fields("car rental insurance daily compact fullsize agency city state location " +
	"garden plant leaf spot tree seed lawn herb book author title edition price search archive home about " +
	"privacy policy sign register password forgot quality company premium weekly airport student history")

// makePage returns a page record of about the crawl's average size (4.7 KB
// of JSON): 300 words of text and 16 links with 10 words either side.
func makePage(r *rand.Rand, i int) benchPage {
	words := make([]string, 300)
	for j := range words {
		words[j] = benchWords[r.Intn(len(benchWords))]
	}
	site := fmt.Sprintf("http://site%04d.example", i%500)
	p := benchPage{URL: fmt.Sprintf("%s/page/%08d.html", site, i), Site: site, Title: strings.Join(words[:4], " "),
		Text: strings.Join(words, " "), Seq: int64(i)}
	p.Links = make([]struct {
		U string `json:"u"`
		A string `json:"a,omitempty"`
		B string `json:"b,omitempty"`
		F string `json:"f,omitempty"`
	}, 16)
	for k := range p.Links {
		at := 10 + r.Intn(len(words)-22)
		l := &p.Links[k]
		l.U = fmt.Sprintf("%s/page/%08d.html", site, r.Intn(1<<20))
		l.A = strings.Join(words[at:at+2], " ")
		l.B = strings.Join(words[at-10:at], " ")
		l.F = strings.Join(words[at+2:at+12], " ")
	}
	return p
}

func TestPackJSON(t *testing.T) {
	r := testRand(t)
	page, err := json.Marshal(makePage(r, 1))
	must(t, err)
	small := []byte(`{"url":"http://a.example/"}`)
	for _, c := range []struct {
		name   string
		tag    byte
		v      []byte
		packed bool
	}{
		{"page", TagPages, page, true},
		{"small record", TagPages, small, false},
		{"large generic record", TagFeatures, page, true},
		{"typed table", TagModels, page, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			stored := packJSON([]byte("prefix"), c.tag, c.v)
			if !bytes.HasPrefix(stored, []byte("prefix")) {
				t.Fatalf("packJSON dropped what dst held")
			}
			stored = stored[len("prefix"):]
			if got := stored[0] == valuePacked; got != c.packed {
				t.Fatalf("packed %v, want %v", got, c.packed)
			}
			if c.packed && len(stored) >= len(c.v) {
				t.Errorf("packed %d bytes into %d", len(c.v), len(stored))
			}
			var buf []byte
			back, err := unpackJSON(c.tag, stored, &buf)
			must(t, err)
			if !bytes.Equal(back, c.v) {
				t.Errorf("unpacked value differs from the record")
			}
		})
	}
	var buf []byte
	if _, err := unpackJSON(TagPages, []byte{valuePacked, 0xff, 0xff, 0xff}, &buf); err == nil {
		t.Errorf("a damaged packed value was read without error")
	}
}

// TestOpenVersion1Directory opens a directory written as before packing
// (SchemaVersion 1, plain JSON, values in the tables): its records read as
// they were, new ones are packed, and the directory is marked version 2 so
// that an older dwcrawl refuses it rather than misreading it.
func TestOpenVersion1Directory(t *testing.T) {
	r := testRand(t)
	dir := t.TempDir()
	old, err := Open(dir, Options{Logger: quietLog, plain: true})
	must(t, err)
	var want []benchPage
	for i := 0; i < 50; i++ {
		p := makePage(r, i)
		want = append(want, p)
		must(t, old.PutJSON(TagPages, []byte(p.URL), p))
	}
	must(t, old.Flush())
	for i := 50; i < 60; i++ { // in the log only
		p := makePage(r, i)
		want = append(want, p)
		must(t, old.PutJSON(TagPages, []byte(p.URL), p))
	}
	raw, _, err := old.getRaw(tableKey(TagPages, []byte(want[0].URL)))
	must(t, err)
	if raw[0] != '{' {
		t.Fatalf("version 1 record not plain JSON: %q", raw[:10])
	}
	must(t, old.Close())

	db, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	defer db.Close()
	v, _, err := db.getRaw(metaVersionKey)
	must(t, err)
	if ver, _, _ := DecodeUint64(v); ver != SchemaVersion {
		t.Errorf("schema version %d after opening for writing, want %d", ver, SchemaVersion)
	}
	for i := 60; i < 80; i++ {
		p := makePage(r, i)
		want = append(want, p)
		must(t, db.PutJSON(TagPages, []byte(p.URL), p))
	}
	raw, _, err = db.getRaw(tableKey(TagPages, []byte(want[70].URL)))
	must(t, err)
	if raw[0] != valuePacked {
		t.Errorf("new record not packed: %q", raw[:10])
	}
	for _, p := range want {
		var got benchPage
		ok, err := db.GetJSON(TagPages, []byte(p.URL), &got)
		must(t, err)
		if !ok || got.Text != p.Text || len(got.Links) != len(p.Links) || got.Links[3] != p.Links[3] {
			t.Fatalf("page %s read back differently (found %v)", p.URL, ok)
		}
	}
	n := 0
	must(t, db.ScanJSON(TagPages, nil, func(key, val []byte) error {
		var got benchPage
		if err := json.Unmarshal(val, &got); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if got.URL != string(key) {
			return fmt.Errorf("record of %s under %s", got.URL, key)
		}
		n++
		return nil
	}))
	if n != len(want) {
		t.Errorf("scanned %d pages, want %d", n, len(want))
	}
	must(t, db.Flush())
	must(t, db.Close())
	rep, err := Check(context.Background(), dir, Options{Logger: quietLog})
	must(t, err)
	if !rep.OK() {
		t.Errorf("check of a directory with plain and packed records: %v", rep.Problems)
	}
	if rep.Records["pages"] != int64(len(want)) {
		t.Errorf("check counted %d pages, want %d", rep.Records["pages"], len(want))
	}
}

func BenchmarkPackJSON(b *testing.B) {
	page, err := json.Marshal(makePage(newRand(1), 1))
	if err != nil {
		b.Fatal(err)
	}
	var dst []byte
	b.Run("pack", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for i := 0; i < b.N; i++ {
			dst = packJSON(dst[:0], TagPages, page)
		}
		b.ReportMetric(float64(len(dst)), "bytes/rec")
		b.ReportMetric(float64(len(page)), "json-bytes/rec")
	})
	b.Run("unpack", func(b *testing.B) {
		stored := packJSON(nil, TagPages, page)
		var buf []byte
		b.SetBytes(int64(len(page)))
		for i := 0; i < b.N; i++ {
			if _, err := unpackJSON(TagPages, stored, &buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// filesSize is the size of the files in dir with one of the suffixes.
func filesSize(b *testing.B, dir string, suffixes ...string) int64 {
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		for _, s := range suffixes {
			if strings.HasSuffix(e.Name(), s) {
				if info, err := e.Info(); err == nil {
					n += info.Size()
				}
			}
		}
	}
	return n
}

// cpuTime is the process's user plus system CPU time: it counts Pebble's
// background flushes and compactions, which the benchmark's own time does
// not see.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCrawlWrites writes what the crawl writes per fetched page, one
// batch a page: the page record (4.7 KB of JSON), its URL state, 16 links
// pushed on the frontier (a third of them known already) and three
// counters; then the page's URL is looked up as the next worker would. It
// reports the process's CPU per page, flushes and compactions included,
// for the plain encoding and tables of SchemaVersion 1 and for the packed
// records and blob files of today.
func BenchmarkCrawlWrites(b *testing.B) {
	for _, plain := range []bool{true, false} {
		name := "packed"
		if plain {
			name = "plain"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			db, err := Open(dir, Options{Logger: quietLog, plain: plain})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			r := newRand(1)
			pages := make([]benchPage, 64)
			for i := range pages {
				pages[i] = makePage(r, i)
			}
			b.ResetTimer()
			cpu0 := cpuTime(b)
			for i := 0; i < b.N; i++ {
				p := pages[i%len(pages)]
				p.URL = fmt.Sprintf("%s/page/%08d.html", p.Site, i)
				batch := db.NewBatch()
				must(b, batch.SetURL(URLState{URL: p.URL, Site: p.Site, State: StateFetched, Depth: 2, Fetched: time.Unix(int64(i), 0), Status: 200}))
				must(b, batch.PutJSON(TagPages, []byte(p.URL), p))
				for k, l := range p.Links {
					u := l.U
					if k%3 == 0 {
						u = fmt.Sprintf("%s/page/%08d.html", p.Site, i/2)
					} else {
						u = fmt.Sprintf("%s/page/%08d.html", p.Site, i*16+k)
					}
					must(b, batch.PushFrontier(FrontierEntry{Queue: "links", Score: float64(k) / 16, URL: u, Site: p.Site, Depth: 3}))
				}
				for _, c := range []string{"crawl.pages", "crawl.forms", "crawl.links"} {
					must(b, batch.AddCounter(c, 1))
				}
				must(b, batch.Commit(false))
				batch.Close()
				var got benchPage
				if _, err := db.GetJSON(TagPages, []byte(fmt.Sprintf("%s/page/%08d.html", p.Site, i*16+1)), &got); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime(b)-cpu0)/1e3/float64(b.N), "cpu-µs/page")
			must(b, db.Flush())
			b.ReportMetric(float64(filesSize(b, dir, ".sst", ".blob"))/float64(b.N), "disk-B/page")
		})
	}
}
