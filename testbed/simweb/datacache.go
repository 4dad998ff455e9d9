package simweb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// Reading a shared data directory (WordNet glosses, hundreds of Formasaurus
// pages, record corpora) takes seconds, and every testbed command starts
// with it. What it yields is kept in the user's cache directory
// ($XDG_CACHE_HOME/dwcrawl, or $DWCRAWL_CACHE_DIR), keyed by the data files'
// names, sizes and modification times and by dataCacheVersion: a change of
// the data or of this code makes a new entry. The cache is an
// optimisation: when it cannot be read or written, the data is read from
// the directory as before.
//
// The file is a header (everything but the topics' record pools, a few
// hundred KB) and then one gob stream per topic's pool, each with its
// offset, length and CRC in the header. The pools are 90 % of the file and
// most of its decoding time, and a run generates the pages of a few topics:
// each pool is read from the open file at its first use (Topic.RecordPool).

// dataCacheVersion changes whenever loadData's output changes for the same
// files (bump it with any change to the data loading code).
const dataCacheVersion = 2

// cachedData is the cache file's content: Data with its vocabularies'
// weights and form sources' markup spelled out.
type cachedData struct {
	Version    int
	Topics     []cachedTopic
	TopicNames []string
	Forms      map[string][]cachedForm
	Generic    cachedVocab
	Cities     []City
	Warnings   []string
}

type cachedTopic struct {
	T     Topic // without Vocab and pool
	Vocab cachedVocab
	// Pool is where the topic's record pool is in the file.
	Pool poolSpan
}

// poolSpan locates a gob-encoded []hiddendb.Record in the cache file.
type poolSpan struct {
	Off, Len int64
	CRC      uint32
}

type cachedVocab struct {
	Words   []string
	Cum     []float64
	Builtin int
	Nil     bool
}

type cachedForm struct {
	F       FormSource // exported fields
	HTML    string
	English bool
}

func toCachedVocab(v *Vocab) cachedVocab {
	if v == nil {
		return cachedVocab{Nil: true}
	}
	return cachedVocab{Words: v.Words, Cum: v.dist.cum, Builtin: v.builtin}
}

func (c cachedVocab) vocab() *Vocab {
	if c.Nil {
		return nil
	}
	return &Vocab{Words: c.Words, dist: weighted{cum: c.Cum}, builtin: c.Builtin}
}

// encodeDataCache writes d in the cache file's layout: the header's
// length (8 bytes, big-endian), the header, the pools.
func encodeDataCache(d *Data) ([]byte, error) {
	c := &cachedData{Version: dataCacheVersion, TopicNames: d.TopicNames, Forms: map[string][]cachedForm{},
		Generic: toCachedVocab(d.Generic), Cities: d.Cities, Warnings: d.Warnings}
	var pools bytes.Buffer
	for _, n := range d.TopicNames {
		t := *d.Topics[n]
		start := pools.Len()
		if err := gob.NewEncoder(&pools).Encode(t.RecordPool()); err != nil {
			return nil, err
		}
		b := pools.Bytes()[start:]
		ct := cachedTopic{Vocab: toCachedVocab(t.Vocab), Pool: poolSpan{Off: int64(start), Len: int64(len(b)), CRC: crc32.ChecksumIEEE(b)}}
		t.Vocab, t.pool, t.lazy = nil, nil, nil
		ct.T = t
		c.Topics = append(c.Topics, ct)
	}
	for k, fs := range d.Forms {
		for _, f := range fs {
			c.Forms[k] = append(c.Forms[k], cachedForm{F: *f, HTML: f.html, English: f.english})
		}
	}
	var head bytes.Buffer
	head.Write(make([]byte, 8))
	if err := gob.NewEncoder(&head).Encode(c); err != nil {
		return nil, err
	}
	b := head.Bytes()
	binary.BigEndian.PutUint64(b, uint64(len(b)-8))
	return append(b, pools.Bytes()...), nil
}

// readDataCache reads the header of a cache file; the pools are read from
// f at their first use (f stays open while one is unread). reload
// rebuilds the data when a pool cannot be read.
func readDataCache(f *os.File, dir string, reload func() (*Data, error)) (*Data, error) {
	var n [8]byte
	if _, err := f.ReadAt(n[:], 0); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint64(n[:])
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if size > uint64(st.Size()-8) {
		return nil, fmt.Errorf("simweb: data cache %s: header of %d bytes in a file of %d", f.Name(), size, st.Size())
	}
	head := make([]byte, size)
	if _, err := f.ReadAt(head, 8); err != nil {
		return nil, err
	}
	var c cachedData
	if err := gob.NewDecoder(bytes.NewReader(head)).Decode(&c); err != nil {
		return nil, fmt.Errorf("simweb: data cache %s: %w", f.Name(), err)
	}
	if c.Version != dataCacheVersion {
		return nil, fmt.Errorf("simweb: data cache %s: version %d, want %d", f.Name(), c.Version, dataCacheVersion)
	}
	base := 8 + int64(size)
	for _, ct := range c.Topics {
		if ct.Pool.Off < 0 || ct.Pool.Len < 0 || base+ct.Pool.Off+ct.Pool.Len > st.Size() {
			return nil, fmt.Errorf("simweb: data cache %s: pool of %s out of the file", f.Name(), ct.T.Name)
		}
	}
	return c.data(dir, func(name string, sp poolSpan) []hiddendb.Record {
		recs, err := readPool(f, base, sp)
		if err != nil {
			// the file changed under us: read the data afresh
			d, err := reload()
			if err != nil || d.Topics[name] == nil {
				return nil
			}
			return d.Topics[name].RecordPool()
		}
		return recs
	}), nil
}

// readPool reads and checks one pool.
func readPool(f *os.File, base int64, sp poolSpan) ([]hiddendb.Record, error) {
	b := make([]byte, sp.Len)
	if _, err := f.ReadAt(b, base+sp.Off); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(b) != sp.CRC {
		return nil, fmt.Errorf("simweb: data cache %s: pool checksum mismatch", f.Name())
	}
	var recs []hiddendb.Record
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&recs); err != nil {
		return nil, fmt.Errorf("simweb: data cache %s: %w", f.Name(), err)
	}
	return recs, nil
}

func (c *cachedData) data(dir string, pool func(topic string, sp poolSpan) []hiddendb.Record) *Data {
	d := &Data{Dir: dir, Topics: map[string]*Topic{}, TopicNames: c.TopicNames, Forms: map[string][]*FormSource{},
		Generic: c.Generic.vocab(), Cities: c.Cities, Warnings: c.Warnings}
	for _, ct := range c.Topics {
		t := ct.T
		t.Vocab = ct.Vocab.vocab()
		name, sp := t.Name, ct.Pool
		t.lazy = &lazyPool{load: func() []hiddendb.Record { return pool(name, sp) }, size: sp.Len}
		d.Topics[t.Name] = &t
	}
	for k, fs := range c.Forms {
		for _, cf := range fs {
			f := cf.F
			f.html, f.english = cf.HTML, cf.English
			d.Forms[k] = append(d.Forms[k], &f)
		}
	}
	return d
}

// dataCacheDir is where cache files go ("" when there is none).
func dataCacheDir() string {
	if d := os.Getenv("DWCRAWL_CACHE_DIR"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "dwcrawl")
}

// dataCacheKey identifies the content of a data directory by the names,
// sizes and modification times of its files.
func dataCacheKey(dir string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "v%d\x00%s\x00", dataCacheVersion, dir)
	err := walkDataFiles(dir, func(p string, info fs.FileInfo) {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", p, info.Size(), info.ModTime().UnixNano())
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// walkDataFiles calls fn for every file of the data directory dir, in
// lexical order, hidden directories left out.
func walkDataFiles(dir string, fn func(path string, info fs.FileInfo)) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if e.Name() != "." && e.Name()[0] == '.' && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		fn(p, info)
		return nil
	})
}

// DataID names the data the web was generated from, wherever it is seen
// from: "built-in data", or "data " and a hash of the data directory's
// file names (relative to it) and sizes. Two crawls of webs with the same
// seed and configuration but another DataID ran against different webs.
func (w *Web) DataID() string {
	dir := w.data.Dir
	if dir == "" {
		return "built-in data"
	}
	h := sha256.New()
	err := walkDataFiles(dir, func(p string, info fs.FileInfo) {
		rel, rerr := filepath.Rel(dir, p)
		if rerr != nil {
			rel = p
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), info.Size())
	})
	if err != nil {
		return "data " + dir // unreadable now: its location is all there is
	}
	return "data " + hex.EncodeToString(h.Sum(nil))[:12]
}

// loadDataCached is loadData through the cache.
func loadDataCached(dir string) (*Data, error) {
	cdir := dataCacheDir()
	if dir == "" || cdir == "" {
		d, err := loadData(dir)
		if d != nil && dir == "" {
			d.key = "builtin"
		}
		return d, err
	}
	key, err := dataCacheKey(dir)
	if err != nil {
		return loadData(dir)
	}
	file := filepath.Join(cdir, "simweb-data-"+key+".gob")
	if f, err := os.Open(file); err == nil {
		d, err := readDataCache(f, dir, func() (*Data, error) { return loadData(dir) })
		if err == nil {
			d.key = key
			return d, nil
		}
		f.Close()
	}
	d, err := loadData(dir)
	if err != nil {
		return nil, err
	}
	d.key = key
	// the newest entries are kept: the shared data folder's files get new
	// times when it is set up again, each time a new entry
	if b, err := encodeDataCache(d); err == nil {
		writeCacheFile(file, b, "simweb-data-*.gob")
	}
	return d, nil
}
