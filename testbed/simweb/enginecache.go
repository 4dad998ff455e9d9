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
// quick to index, are not cached.

// engineCacheVersion changes whenever the index format or what is indexed
// changes.
const engineCacheVersion = 1

// engineCacheMinBuild is the build time above which an index is cached
// (a variable for tests).
var engineCacheMinBuild = 300 * time.Millisecond

// engineBuilds counts the indexes built (tests).
var engineBuilds atomic.Int64

// engineCacheKeep bounds the index files kept (the oldest are removed).
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
// index holds exactly their pages, terms and links.
func (w *Web) engineSampleOK(e *engineIndex) bool {
	n := len(w.sites)
	var pi pageIndex
	for _, id := range []int{0, n / 3, 2 * n / 3, n - 1} {
		s := w.buildSite(int32(id))
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
			w.indexPage(&pi, s, int32(pid), hostTerms)
			for _, t := range pi.terms {
				if !hasPosting(e.terms[t], num) {
					return false
				}
			}
			for _, u := range pi.inlinks {
				if !hasPosting(e.inlinks[u], num) {
					return false
				}
			}
		}
	}
	return true
}

func hasPosting(p []int32, n int32) bool {
	i := sort.Search(len(p), func(i int) bool { return p[i] >= n })
	return i < len(p) && p[i] == n
}

// encodeEngine writes the index: magic, pages, site offsets, then terms
// and inlinks as (key, delta-coded postings), all varints, and a CRC-32.
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
	for _, m := range []map[string][]int32{e.terms, e.inlinks} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			ps := m[k]
			b = binary.AppendUvarint(b, uint64(len(ps)))
			prev := int32(0)
			for _, p := range ps {
				b = binary.AppendUvarint(b, uint64(p-prev))
				prev = p
			}
		}
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
	e.terms, e.inlinks = d.postingMap(), d.postingMap()
	if d.err || len(d.b) != 0 {
		return nil, errEngineCache
	}
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

// postingMap reads keys with their postings into one shared array.
func (d *engineDecoder) postingMap() map[string][]int32 {
	n := d.uvarint()
	if d.err || n > uint64(len(d.b)) {
		d.err = true
		return nil
	}
	m := make(map[string][]int32, n)
	var all []int32
	for i := uint64(0); i < n && !d.err; i++ {
		l := d.uvarint()
		if l > uint64(len(d.b)) {
			d.err = true
			break
		}
		k := string(d.b[:l])
		d.b = d.b[l:]
		c := d.uvarint()
		if c > uint64(len(d.b)) {
			d.err = true
			break
		}
		if cap(all)-len(all) < int(c) {
			all = make([]int32, 0, max(int(c), 1<<16))
		}
		start := len(all)
		prev := int32(0)
		for j := uint64(0); j < c; j++ {
			prev += int32(d.uvarint())
			all = append(all, prev)
		}
		m[k] = all[start:len(all):len(all)] // full slice: appends never run into the next key's
	}
	return m
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
