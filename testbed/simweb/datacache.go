package simweb

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
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

// dataCacheVersion changes whenever loadData's output changes for the same
// files (bump it with any change to the data loading code).
const dataCacheVersion = 1

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
	T     Topic // without Vocab and Pool
	Vocab cachedVocab
	Pool  []hiddendb.Record
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

func toCached(d *Data) *cachedData {
	c := &cachedData{Version: dataCacheVersion, TopicNames: d.TopicNames, Forms: map[string][]cachedForm{},
		Generic: toCachedVocab(d.Generic), Cities: d.Cities, Warnings: d.Warnings}
	for _, n := range d.TopicNames {
		t := *d.Topics[n]
		ct := cachedTopic{Vocab: toCachedVocab(t.Vocab), Pool: t.Pool}
		t.Vocab, t.Pool = nil, nil
		ct.T = t
		c.Topics = append(c.Topics, ct)
	}
	for k, fs := range d.Forms {
		for _, f := range fs {
			c.Forms[k] = append(c.Forms[k], cachedForm{F: *f, HTML: f.html, English: f.english})
		}
	}
	return c
}

func (c *cachedData) data(dir string) *Data {
	d := &Data{Dir: dir, Topics: map[string]*Topic{}, TopicNames: c.TopicNames, Forms: map[string][]*FormSource{},
		Generic: c.Generic.vocab(), Cities: c.Cities, Warnings: c.Warnings}
	for _, ct := range c.Topics {
		t := ct.T
		t.Vocab, t.Pool = ct.Vocab.vocab(), ct.Pool
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
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
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
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
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
	if b, err := os.ReadFile(file); err == nil {
		var c cachedData
		if gob.NewDecoder(bytes.NewReader(b)).Decode(&c) == nil && c.Version == dataCacheVersion {
			d := c.data(dir)
			d.key = key
			return d, nil
		}
	}
	d, err := loadData(dir)
	if err != nil {
		return nil, err
	}
	d.key = key
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(toCached(d)) == nil && os.MkdirAll(cdir, 0o755) == nil {
		tmp, err := os.CreateTemp(cdir, "simweb-data-*.tmp")
		if err == nil {
			_, werr := tmp.Write(buf.Bytes())
			cerr := tmp.Close()
			if werr == nil && cerr == nil {
				os.Rename(tmp.Name(), file)
			} else {
				os.Remove(tmp.Name())
			}
		}
	}
	return d, nil
}
