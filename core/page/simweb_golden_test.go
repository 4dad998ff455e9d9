package page

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// The generated simweb corpus: pages of a simweb built from the built-in
// data (no shared data, so every machine generates the same pages), fetched
// in process breadth-first from the seeds of every domain, and hostile
// variants of them (cut, spliced and salted with form markup).
const (
	simwebGenSeed  = 19
	simwebGenPages = 400
	simwebGenMuts  = 400
)

var (
	simwebGenOnce sync.Once
	simwebGenDocs []goldenDoc
	simwebGenErr  error
)

// simwebGenCorpus generates the corpus once per process.
func simwebGenCorpus(tb testing.TB) []goldenDoc {
	tb.Helper()
	simwebGenOnce.Do(func() { simwebGenDocs, simwebGenErr = genSimwebCorpus() })
	if simwebGenErr != nil {
		tb.Fatal(simwebGenErr)
	}
	return simwebGenDocs
}

func genSimwebCorpus() ([]goldenDoc, error) {
	cfg := simweb.SmallConfig()
	cfg.Seed = simwebGenSeed
	cfg.Sites = 150
	cfg.Text.Words = 180 // as DefaultConfig
	cfg.Data = ""
	cfg.Faults.Malformed = 0.25
	w, err := simweb.New(cfg)
	if err != nil {
		return nil, err
	}
	client := w.Client()
	var queue []string
	seen := map[string]bool{}
	for _, d := range w.Domains() {
		for _, s := range w.Seeds(d, 2) {
			if !seen[s] {
				seen[s] = true
				queue = append(queue, s)
			}
		}
	}
	var docs []goldenDoc
	for len(queue) > 0 && len(docs) < simwebGenPages {
		u := queue[0]
		queue = queue[1:]
		resp, err := client.Get(u)
		if err != nil {
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		ct := resp.Header.Get("Content-Type")
		if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/html") {
			continue
		}
		base, _ := url.Parse(u)
		p, err := Parse(body, ct, base)
		if err != nil {
			continue
		}
		docs = append(docs, goldenDoc{name: fmt.Sprintf("page%03d", len(docs)), contentType: ct, base: u, body: body})
		for _, l := range p.Links {
			if !seen[l.URL] {
				seen[l.URL] = true
				queue = append(queue, l.URL)
			}
		}
	}
	if len(docs) < simwebGenPages {
		return nil, fmt.Errorf("simweb seed %d: only %d pages reachable", simwebGenSeed, len(docs))
	}
	rng := rand.New(rand.NewPCG(simwebGenSeed, 2))
	pages := docs
	for i := range simwebGenMuts {
		a, b := pages[rng.IntN(len(pages))], pages[rng.IntN(len(pages))]
		docs = append(docs, goldenDoc{
			name: fmt.Sprintf("mut%03d", i), contentType: a.contentType, base: a.base,
			body: mutate(rng, a.body, b.body),
		})
	}
	return docs, nil
}

// mutate returns a hostile variant of a: a prefix of it joined to a part
// of b, with random markup (forms, controls, tables, unclosed elements)
// inserted at random points.
func mutate(rng *rand.Rand, a, b []byte) []byte {
	var out []byte
	switch rng.IntN(3) {
	case 0: // cut anywhere, even inside a tag or a multi-byte character
		out = append(out, a[:rng.IntN(len(a)+1)]...)
	case 1:
		out = append(out, a[:rng.IntN(len(a)+1)]...)
		out = append(out, b[rng.IntN(len(b)+1):]...)
	default:
		out = append(out, a...)
	}
	salt := randomDoc(rng)
	for n := rng.IntN(6); n > 0; n-- {
		at := rng.IntN(len(out) + 1)
		i := rng.IntN(len(salt) + 1)
		j := i + rng.IntN(len(salt)-i+1)
		out = append(out[:at:at], append(append([]byte(nil), salt[i:j]...), out[at:]...)...)
	}
	return out
}

// TestParseGoldenSimweb compares the pages parsed from the generated simweb
// corpus with their recorded hashes. Each line also records the hash of the
// document: a document that simweb now generates differently (a change of
// simweb, not of this package) is not compared, and the test is skipped
// when most are.
func TestParseGoldenSimweb(t *testing.T) {
	if testing.Short() {
		t.Skip("long: generates a simweb")
	}
	docs := simwebGenCorpus(t)
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "%s %s %s\n", d.name, shortHash(d.body), shortHash(parseJSON(t, d)))
	}
	t.Logf("simweb seed %d: %d pages, %d variants", simwebGenSeed, simwebGenPages, simwebGenMuts)
	if *updateGolden {
		checkGolden(t, "simweb-gen.txt", []byte(b.String()))
		return
	}
	want := readGoldenLines(t, "simweb-gen.txt")
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	changedDocs, compared := 0, 0
	for _, g := range got {
		f := strings.Fields(g)
		w, ok := want[f[0]]
		if !ok || w[0] != f[1] {
			changedDocs++
			continue
		}
		compared++
		if w[1] != f[2] {
			t.Errorf("%s: Parse output differs from the golden hash (%s, now %s)", f[0], w[1], f[2])
		}
	}
	if changedDocs > len(got)/2 {
		t.Skipf("simweb generates other documents than recorded (%d of %d); rewrite with -update from a commit whose Parse output is trusted", changedDocs, len(got))
	}
	if changedDocs > 0 {
		t.Logf("%d documents generated differently, not compared", changedDocs)
	}
	if compared == 0 {
		t.Fatal("no document compared")
	}
}

// readGoldenLines reads a golden file of "name docHash outHash" lines.
func readGoldenLines(t *testing.T, name string) map[string][2]string {
	t.Helper()
	raw := checkGoldenRead(t, name)
	m := map[string][2]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("%s: bad line %q", name, line)
		}
		m[f[0]] = [2]string{f[1], f[2]}
	}
	return m
}

func checkGoldenRead(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	return bytes.TrimSpace(raw)
}

// TestParseConcurrent parses the generated corpus from several goroutines
// at once, each in its own order, and compares every Page with the one
// parsed alone: walkers and splicers are reused between pages and
// goroutines, and nothing of one page may reach another.
func TestParseConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("long: generates a simweb")
	}
	docs := simwebGenCorpus(t)
	want := make([]string, len(docs))
	for i, d := range docs {
		want[i] = string(parseJSON(t, d))
	}
	const workers = 4
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(simwebGenSeed, uint64(g)))
			for _, i := range rng.Perm(len(docs)) {
				if got := string(parseJSON(t, docs[i])); got != want[i] {
					errs <- fmt.Sprintf("goroutine %d, %s: Page differs from the one parsed alone", g, docs[i].name)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestPageTextSeparators checks what trimSep relies on: the text a page's
// words are cut from has no white space but single spaces between words,
// on the generated corpus and the random documents of the golden set.
func TestPageTextSeparators(t *testing.T) {
	if testing.Short() {
		t.Skip("long: generates a simweb")
	}
	docs := simwebGenCorpus(t)
	rng := rand.New(rand.NewPCG(goldenSeed, goldenSeed))
	for i := range goldenRandom {
		docs = append(docs, goldenDoc{name: fmt.Sprint("random ", i), base: fixtureURL, body: randomDoc(rng)})
	}
	check := func(doc, what, s string) {
		if strings.Contains(s, "  ") || strings.TrimSpace(s) != s ||
			strings.ContainsFunc(s, func(r rune) bool { return r != ' ' && unicode.IsSpace(r) }) {
			t.Errorf("%s: %s %q: white space other than single spaces between words", doc, what, s)
		}
	}
	for _, d := range docs {
		base, _ := url.Parse(d.base)
		p, err := Parse(d.body, d.contentType, base)
		if err != nil {
			continue
		}
		check(d.name, "text", p.Text)
		for _, l := range p.Links {
			check(d.name, "anchor", l.Anchor)
			check(d.name, "before", l.Before)
			check(d.name, "after", l.After)
		}
		for _, f := range p.Forms {
			check(d.name, "form text", f.Text)
			check(d.name, "form context", f.Context)
		}
	}
}

// TestWalkerRecycleBounds checks that a walker kept after a huge page
// holds no more than the bounds, and nothing of the page.
func TestWalkerRecycleBounds(t *testing.T) {
	for _, size := range []int{10, 5000} {
		w := &walker{curLink: -1}
		w.buf.add(strings.Repeat("word ", size*60))
		for i := range size {
			w.links = append(w.links, linkState{href: fmt.Sprint("/", i)})
			w.labels = append(w.labels, labelState{inner: []span{{1, 2}}})
			fs := w.fieldArena.new()
			fs.f.Name = "x"
			w.fields = append(w.fields, fs)
			w.forms = append(w.forms, w.formArena.new())
		}
		w.recycle()
		big := size > maxKeptItems
		if got := cap(w.buf.b); big && got > maxKeptText || len(w.buf.b) != 0 {
			t.Errorf("size %d: text buffer len %d cap %d kept", size, len(w.buf.b), got)
		}
		if big && (cap(w.links) > maxKeptItems || cap(w.labels) > maxKeptItems || cap(w.fields) > maxKeptItems) {
			t.Errorf("size %d: slices kept: links %d, labels %d, fields %d", size, cap(w.links), cap(w.labels), cap(w.fields))
		}
		if n := len(w.fieldArena.blocks) * arenaBlock; n > maxKeptStates {
			t.Errorf("size %d: %d control states kept", size, n)
		}
		for _, b := range w.fieldArena.blocks {
			for _, fs := range b {
				if fs.f.Name != "" {
					t.Fatalf("size %d: a kept control state still holds %q", size, fs.f.Name)
				}
			}
		}
		if !big {
			if l := w.links[:cap(w.links)]; len(l) == 0 || l[0].href != "" {
				t.Errorf("size %d: kept links %d, first %+v", size, len(l), l)
			}
		}
		if w.curLink != -1 || len(w.links) != 0 || w.fieldArena.n != 0 {
			t.Errorf("size %d: walker not emptied", size)
		}
	}
}
