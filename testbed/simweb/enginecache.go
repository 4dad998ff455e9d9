package simweb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// The search engine indexes every page of the web at its first query: about
// 4 s of CPU for the default web of 350k pages, which was most of the
// start-up of `dwcrawl run --testbed`. A built index is kept next to the
// data cache ($XDG_CACHE_HOME/dwcrawl, or $DWCRAWL_CACHE_DIR), keyed by the
// data's content, the web's configuration and engineCacheVersion, and
// checked against pages generated afresh (a sample of sites): a change of
// the page generator that was not followed by a version bump is caught
// there. Reading it takes a small fraction of building it. Small webs,
// quick to index, are not cached. The postings stay encoded in the file's
// bytes, found by binary search over a table of key offsets and decoded
// per query (postingTable): decoding them all into maps took most of a
// start-up.

// engineCacheVersion changes whenever the index format or what is indexed
// changes.
const engineCacheVersion = 2

// engineCacheMinBuild is the build time above which an index is cached
// (a variable for tests).
var engineCacheMinBuild = 300 * time.Millisecond

// engineBuilds counts the indexes built (tests).
var engineBuilds atomic.Int64

// engineCacheKeep bounds the cache files of each kind kept (the oldest are
// removed): indexes, and data read from a data folder (19 MB each for the
// shared one).
const engineCacheKeep = 6

var engineMagic = []byte("dwcrawl-simweb-engine\n")

// engineCacheFile names the cache file of w's index, "" when w's data has
// no known identity or there is no cache directory.
func (w *Web) engineCacheFile() string {
	cdir := dataCacheDir()
	if cdir == "" || w.data.key == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "v%d\x00%s\x00", engineCacheVersion, w.data.key)
	cfg := w.cfg
	cfg.Data = "" // the data's identity is its key
	h.Write(cfg.JSON())
	return filepath.Join(cdir, "simweb-engine-"+hex.EncodeToString(h.Sum(nil))[:32]+".idx")
}

// loadEngine reads the index from the cache, or builds it (and caches it
// when building took long).
func (w *Web) loadEngine() *engineIndex {
	file := w.engineCacheFile()
	if file != "" {
		if b, err := os.ReadFile(file); err == nil {
			if e, err := decodeEngine(b, len(w.sites)); err == nil && w.engineSampleOK(e) {
				return e
			}
		}
	}
	start := time.Now()
	e := w.buildEngine()
	engineBuilds.Add(1)
	if file != "" && time.Since(start) >= engineCacheMinBuild {
		writeCacheFile(file, encodeEngine(e), "simweb-engine-*.idx")
	}
	return e
}

// engineSampleOK indexes a few sites afresh and checks that the cached
// index holds their pages, and the terms and links of two pages of each.
// The sites are of the topic whose record pool is the cheapest to read
// (generating a site reads its topic's pool) and the pages are few because
// the check runs at every start-up that reads the cache.
func (w *Web) engineSampleOK(e *engineIndex) bool {
	var pi pageIndex
	for _, id := range w.sampleSites() {
		s := w.buildSite(id)
		first := e.siteOff[id]
		if int(e.siteOff[id+1]-first) != len(s.pages) {
			return false
		}
		hostTerms := text.Tokenize(s.h.host)
		for pid := range s.pages {
			num := first + int32(pid)
			if e.pages[num] != w.engPage(s, int32(pid)) {
				return false
			}
			if pid != 0 && pid != len(s.pages)/2 {
				continue
			}
			w.indexPage(&pi, s, int32(pid), hostTerms)
			for _, t := range pi.terms {
				if !hasPosting(e.terms, t, num) {
					return false
				}
			}
			for _, u := range pi.inlinks {
				if !hasPosting(e.inlinks, u, num) {
					return false
				}
			}
		}
	}
	return true
}

// sampleSites picks four sites spread over those of the topic whose record
// pool is the cheapest to read.
func (w *Web) sampleSites() []int32 {
	best := -1
	for t, ids := range w.byTopic {
		if len(ids) > 0 && (best < 0 || w.topics[t].poolCost() < w.topics[best].poolCost()) {
			best = t
		}
	}
	if best < 0 {
		return nil
	}
	ids := w.byTopic[best]
	n := len(ids)
	out := []int32{ids[0]}
	for _, i := range []int{n / 3, 2 * n / 3, n - 1} {
		if ids[i] != out[len(out)-1] {
			out = append(out, ids[i])
		}
	}
	return out
}

// hasPosting reports whether key's postings in s hold n.
func hasPosting(s postingSet, key string, n int32) bool {
	if t, ok := s.(*postingTable); ok {
		return t.has(key, n)
	}
	p := s.get(key)
	i := sort.Search(len(p), func(i int) bool { return p[i] >= n })
	return i < len(p) && p[i] == n
}

// encodeEngine writes the index: magic, pages, site offsets, then terms
// and inlinks each as a key count, a table of the entries' offsets
// (uint32) and the entries' length, then the entries in key order (key,
// delta-coded postings), all varints but the offsets, and a CRC-32.
func encodeEngine(e *engineIndex) []byte {
	b := append([]byte(nil), engineMagic...)
	b = binary.AppendUvarint(b, uint64(len(e.pages)))
	for _, p := range e.pages {
		b = binary.AppendUvarint(b, uint64(p.site))
		b = binary.AppendUvarint(b, uint64(p.pid))
		b = append(b, p.depth)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(p.rank))
	}
	b = binary.AppendUvarint(b, uint64(len(e.siteOff)))
	for _, o := range e.siteOff {
		b = binary.AppendUvarint(b, uint64(o))
	}
	for _, m := range []postingSet{e.terms, e.inlinks} {
		keys := make([]string, 0, m.len())
		m.each(func(k string, _ []int32) { keys = append(keys, k) })
		sort.Strings(keys)
		var ents []byte
		offs := make([]uint32, len(keys))
		for i, k := range keys {
			offs[i] = uint32(len(ents))
			ents = binary.AppendUvarint(ents, uint64(len(k)))
			ents = append(ents, k...)
			ps := m.get(k)
			ents = binary.AppendUvarint(ents, uint64(len(ps)))
			prev := int32(0)
			for _, p := range ps {
				ents = binary.AppendUvarint(ents, uint64(p-prev))
				prev = p
			}
		}
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, o := range offs {
			b = binary.LittleEndian.AppendUint32(b, o)
		}
		b = binary.AppendUvarint(b, uint64(len(ents)))
		b = append(b, ents...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

var errEngineCache = errors.New("simweb: unreadable engine cache")

// decodeEngine reads what encodeEngine wrote, for a web of sites sites.
func decodeEngine(b []byte, sites int) (*engineIndex, error) {
	if len(b) < len(engineMagic)+4 || !bytes.HasPrefix(b, engineMagic) {
		return nil, errEngineCache
	}
	body := b[:len(b)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, errEngineCache
	}
	d := &engineDecoder{b: body[len(engineMagic):]}
	e := &engineIndex{}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errEngineCache
	}
	e.pages = make([]engPage, n)
	for i := range e.pages {
		p := &e.pages[i]
		p.site, p.pid = int32(d.uvarint()), int32(d.uvarint())
		p.depth = d.byte1()
		p.rank = math.Float32frombits(d.uint32())
	}
	if n = d.uvarint(); n != uint64(sites+1) {
		return nil, errEngineCache
	}
	e.siteOff = make([]int32, n)
	for i := range e.siteOff {
		e.siteOff[i] = int32(d.uvarint())
	}
	terms, inlinks := d.postingTable(), d.postingTable()
	if d.err || len(d.b) != 0 {
		return nil, errEngineCache
	}
	e.terms, e.inlinks = terms, inlinks
	return e, nil
}

type engineDecoder struct {
	b   []byte
	err bool
}

func (d *engineDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *engineDecoder) byte1() byte {
	if len(d.b) < 1 {
		d.err = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *engineDecoder) uint32() uint32 {
	if len(d.b) < 4 {
		d.err, d.b = true, nil
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

// postingTable reads the offsets table and the entries of a posting set
// (what the CRC covers: entries are checked for bounds as they are read).
func (d *engineDecoder) postingTable() *postingTable {
	n := d.uvarint()
	if d.err || n > uint64(len(d.b))/4 {
		d.err = true
		return nil
	}
	t := &postingTable{offs: make([]uint32, n)}
	for i := range t.offs {
		t.offs[i] = binary.LittleEndian.Uint32(d.b[4*i:])
	}
	d.b = d.b[4*n:]
	l := d.uvarint()
	if d.err || l > uint64(len(d.b)) {
		d.err = true
		return nil
	}
	t.b, d.b = d.b[:l:l], d.b[l:]
	for i, o := range t.offs {
		if uint64(o) >= l || i > 0 && o <= t.offs[i-1] {
			d.err = true
			return nil
		}
	}
	return t
}

// postingTable is a posting set kept encoded: entries (key, count,
// delta-coded postings) in key order at offsets offs of b.
type postingTable struct {
	offs []uint32
	b    []byte
}

// key returns entry i's key and the rest of the entry (nil when damaged).
func (t *postingTable) key(i int) (k, rest []byte) {
	b := t.b[t.offs[i]:]
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil
	}
	return b[w : w+int(n)], b[w+int(n):]
}

func (t *postingTable) len() int { return len(t.offs) }

// find returns the encoded postings of key (nil when it has none).
func (t *postingTable) find(key string) []byte {
	kb := []byte(key)
	i := sort.Search(len(t.offs), func(i int) bool {
		k, _ := t.key(i)
		return bytes.Compare(k, kb) >= 0
	})
	if i == len(t.offs) {
		return nil
	}
	k, rest := t.key(i)
	if !bytes.Equal(k, kb) {
		return nil
	}
	return rest
}

func (t *postingTable) get(key string) []int32 {
	if b := t.find(key); b != nil {
		return decodePostings(b)
	}
	return nil
}

// has reports whether key's postings hold n, decoding them only up to n.
func (t *postingTable) has(key string, n int32) bool {
	d := engineDecoder{b: t.find(key)}
	if d.b == nil {
		return false
	}
	c := d.uvarint()
	prev := int32(0)
	for j := uint64(0); j < c && !d.err; j++ {
		if prev += int32(d.uvarint()); prev >= n {
			return prev == n && !d.err
		}
	}
	return false
}

func (t *postingTable) each(fn func(string, []int32)) {
	for i := range t.offs {
		k, rest := t.key(i)
		fn(string(k), decodePostings(rest))
	}
}

// decodePostings reads a count and that many delta-coded page numbers.
func decodePostings(b []byte) []int32 {
	d := engineDecoder{b: b}
	c := d.uvarint()
	if d.err || c > uint64(len(d.b)) {
		return nil
	}
	ps := make([]int32, 0, c)
	prev := int32(0)
	for j := uint64(0); j < c && !d.err; j++ {
		prev += int32(d.uvarint())
		ps = append(ps, prev)
	}
	return ps
}

// writeCacheFile writes b to file through a temporary file and a rename,
// and keeps at most engineCacheKeep files matching pattern in its
// directory. Failures leave the cache as it was.
func writeCacheFile(file string, b []byte, pattern string) {
	dir := filepath.Dir(file)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(file)+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), file) != nil {
		os.Remove(tmp.Name())
		return
	}
	old, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(old) <= engineCacheKeep {
		return
	}
	type aged struct {
		name string
		t    time.Time
	}
	var fs []aged
	for _, o := range old {
		if fi, err := os.Stat(o); err == nil && !strings.HasSuffix(o, ".tmp") {
			fs = append(fs, aged{o, fi.ModTime()})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].t.After(fs[j].t) })
	for _, f := range fs[min(len(fs), engineCacheKeep):] {
		os.Remove(f.name)
	}
}
