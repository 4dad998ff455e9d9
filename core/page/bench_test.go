package page

import (
	"io"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// BenchmarkParse parses the simweb pages under testdata (the pages a crawl
// of the testbed fetches), one page per op.
func BenchmarkParse(b *testing.B) {
	var docs []goldenDoc
	for _, d := range goldenDocs(&testing.T{}) {
		if strings.HasPrefix(d.name, "simweb/") {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		b.Fatal("no simweb pages under testdata")
	}
	benchParse(b, docs)
}

// BenchmarkParseSimweb parses the pages of the generated simweb corpus (see
// simwebGenCorpus), homepages and inner pages apart, one page per op.
func BenchmarkParseSimweb(b *testing.B) {
	var home, inner []goldenDoc
	for _, d := range simwebGenCorpus(b) {
		if !strings.HasPrefix(d.name, "page") {
			continue
		}
		if u, err := url.Parse(d.base); err == nil && (u.Path == "/" || u.Path == "") {
			home = append(home, d)
		} else {
			inner = append(inner, d)
		}
	}
	for _, set := range []struct {
		name string
		docs []goldenDoc
	}{{"home", home}, {"inner", inner}} {
		b.Run(set.name, func(b *testing.B) { benchParse(b, set.docs) })
	}
}

func benchParse(b *testing.B, docs []goldenDoc) {
	if len(docs) == 0 {
		b.Skip("no pages")
	}
	bases := make([]*url.URL, len(docs))
	var total int64
	for i, d := range docs {
		u, err := url.Parse(d.base)
		if err != nil {
			b.Fatal(err)
		}
		bases[i] = u
		total += int64(len(d.body))
	}
	b.SetBytes(total / int64(len(docs)))
	b.ReportAllocs()
	// CPU time (the collector's included) tells more than the wall clock
	// on a machine shared with other work.
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		d := docs[i]
		if _, err := Parse(d.body, d.contentType, bases[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(docs) {
			i = 0
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkParseOwn measures what Parse does besides building the tree, on
// the generated simweb pages: the form-marking pass (and the reading of the
// marked document) and the extraction from a tree built beforehand.
func BenchmarkParseOwn(b *testing.B) {
	var docs []goldenDoc
	for _, d := range simwebGenCorpus(b) {
		if strings.HasPrefix(d.name, "page") {
			docs = append(docs, d)
		}
	}
	srcs := make([][]byte, len(docs))
	roots := make([]*html.Node, len(docs))
	bases := make([]*url.URL, len(docs))
	for i, d := range docs {
		srcs[i] = decode(d.body, d.contentType)
		bases[i], _ = url.Parse(d.base)
		root, err := html.ParseWithOptions(markForms(srcs[i]), html.ParseOptionEnableScripting(false))
		if err != nil {
			b.Fatal(err)
		}
		roots[i] = root
	}
	run := func(b *testing.B, f func(i int)) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		i := 0
		for b.Loop() {
			f(i)
			if i++; i == len(docs) {
				i = 0
			}
		}
		if cpu := cpuTime() - cpu0; cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
	b.Run("markForms", func(b *testing.B) {
		buf := make([]byte, 4096) // read as the Tokenizer reads
		run(b, func(i int) {
			r := markForms(srcs[i])
			for {
				if _, err := r.Read(buf); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("extract", func(b *testing.B) {
		run(b, func(i int) { extractTree(roots[i], bases[i], len(srcs[i])) })
	})
}
