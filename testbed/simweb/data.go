package simweb

import (
	"bufio"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/text"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

//go:embed builtin
var builtinFS embed.FS

// Data is everything the generator draws content from: topics with their
// vocabularies and record pools, real form markup, generic words and
// cities. It is read once per directory and shared (immutable).
type Data struct {
	// Dir is the data directory, "" for the built-in data.
	Dir string
	// Topics by name; TopicNames lists them sorted, target domains first in
	// domain.BuiltIn order.
	Topics     map[string]*Topic
	TopicNames []string
	// Forms are the real forms by kind (Kind constants).
	Forms map[string][]*FormSource
	// Generic are generic English words for filler text.
	Generic *Vocab
	// Cities are (city, state, airport code) triples used by synthesized records.
	Cities []City
	// Warnings lists data problems that were skipped.
	Warnings []string
	// key identifies the data's content for caches derived from it ("" when
	// unknown: nothing derived is cached).
	key string
}

// Topic is a target domain or an off-topic category.
type Topic struct {
	Name      string
	Target    bool     `json:"target"`
	Directory bool     `json:"directory"`
	Noun      string   `json:"noun"`
	Plural    string   `json:"plural"`
	Label     string   `json:"label"`
	Words     []string `json:"words"`
	Sections  []string `json:"sections"`
	Names     []string `json:"names"`
	Facets    []string `json:"facets"`
	Records   string   `json:"records"`
	WordNet   struct {
		Topics   []string `json:"topics"`
		Lexfiles []string `json:"lexfiles"`
		Gloss    []string `json:"gloss"`
	} `json:"wordnet"`

	// Vocab is the weighted topic vocabulary: core words, frequent record
	// terms and WordNet gloss terms.
	Vocab *Vocab `json:"-"`
	// pool is the record pool that hidden databases of this topic sample
	// (see RecordPool); lazy, when set, reads it at its first use.
	pool []hiddendb.Record
	lazy *lazyPool
}

// lazyPool reads a topic's record pool once, when first needed: a web
// generates the pages of few topics in a run, and decoding every pool at
// start-up was most of it.
type lazyPool struct {
	once sync.Once
	load func() []hiddendb.Record
	recs []hiddendb.Record
	size int64 // bytes to read
}

// poolCost is the cost of reading the topic's record pool: its size in
// the cache file, 0 when it is in memory.
func (t *Topic) poolCost() int64 {
	if t.lazy == nil {
		return 0
	}
	return t.lazy.size
}

// RecordPool returns the record pool that hidden databases of this topic
// sample (shared: do not modify).
func (t *Topic) RecordPool() []hiddendb.Record {
	if t.lazy == nil {
		return t.pool
	}
	t.lazy.once.Do(func() { t.lazy.recs, t.lazy.load = t.lazy.load(), nil })
	return t.lazy.recs
}

// City is a US city with its state and an airport code.
type City struct{ Name, State, Code, Airport string }

// Vocab is a weighted word list.
type Vocab struct {
	Words   []string
	dist    weighted
	builtin int // the first builtin words come from the built-in list
}

func newVocab(words []string, w []float64) *Vocab {
	return &Vocab{Words: words, dist: newWeighted(w)}
}

var dataCache = struct {
	sync.Mutex
	m map[string]*dataEntry
}{m: map[string]*dataEntry{}}

type dataEntry struct {
	once sync.Once
	d    *Data
	err  error
}

// LoadData reads a data directory ("" for the built-in data only). Results
// are cached per directory for the life of the process.
func LoadData(dir string) (*Data, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err == nil {
			dir = abs
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("simweb: data directory %s: not a directory", dir)
		}
	}
	dataCache.Lock()
	e := dataCache.m[dir]
	if e == nil {
		e = &dataEntry{}
		dataCache.m[dir] = e
	}
	dataCache.Unlock()
	e.once.Do(func() { e.d, e.err = loadDataCached(dir) })
	return e.d, e.err
}

// FindDataDir returns the project's shared data folder (see package
// shareddata: $DWCRAWL_SHARED_DATA, else shared/data found walking up from
// the working directory), or "" when there is none.
func FindDataDir() string {
	d, err := shareddata.Dir()
	if err != nil {
		return ""
	}
	return d
}

func loadData(dir string) (*Data, error) {
	d := &Data{Dir: dir, Topics: map[string]*Topic{}, Forms: map[string][]*FormSource{}}
	files := map[string][]string{}
	if dir != "" {
		files = scanFiles(dir)
	}
	if err := d.loadTopics(files); err != nil {
		return nil, err
	}
	english := d.loadGeneric(files)
	d.loadCities(files)
	// the forms (HTML parsing) and the records (JSON) load in parallel
	formsErr := make(chan error, 1)
	fd := &Data{Dir: dir, Forms: map[string][]*FormSource{}}
	go func() { formsErr <- fd.loadForms(dir, english) }()
	wn := d.loadWordNet(files)
	if wn != nil && len(wn.lemmas) > 0 {
		d.Generic = d.Generic.filter(func(w string, builtin bool) bool { return builtin || wn.lemmas[w] })
	}
	d.buildRecords(files, wn)
	d.buildVocab(wn)
	if err := <-formsErr; err != nil {
		return nil, err
	}
	d.Forms = fd.Forms
	d.Warnings = append(d.Warnings, fd.Warnings...)
	return d, nil
}

// scanFiles indexes the data directory by lower-cased base name, skipping
// the Formasaurus html folder.
func scanFiles(dir string) map[string][]string {
	out := map[string][]string{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			if e.Name() == "html" || strings.HasPrefix(e.Name(), ".") && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		b := strings.ToLower(e.Name())
		out[b] = append(out[b], p)
		return nil
	})
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// filesMatching returns data files whose base name matches the glob.
func filesMatching(files map[string][]string, glob string) []string {
	var out []string
	for b, ps := range files {
		if ok, _ := filepath.Match(glob, b); ok {
			out = append(out, ps...)
		}
	}
	sort.Strings(out)
	return out
}

func (d *Data) loadTopics(files map[string][]string) error {
	raw := map[string]json.RawMessage{}
	b, err := builtinFS.ReadFile("builtin/topics.json")
	if err != nil {
		return fmt.Errorf("simweb: built-in topics: %w", err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("simweb: built-in topics: %w", err)
	}
	// a topics.json at the root of the data directory overrides by key
	if d.Dir != "" {
		if b, err := os.ReadFile(filepath.Join(d.Dir, "topics.json")); err == nil {
			over := map[string]json.RawMessage{}
			if err := json.Unmarshal(b, &over); err != nil {
				return fmt.Errorf("simweb: %s: %w", filepath.Join(d.Dir, "topics.json"), err)
			}
			for k, v := range over {
				raw[k] = v
			}
		}
	}
	for name, r := range raw {
		if strings.HasPrefix(name, "_") {
			continue
		}
		t := &Topic{Name: name}
		if err := json.Unmarshal(r, t); err != nil {
			return fmt.Errorf("simweb: topic %s: %w", name, err)
		}
		if t.Noun == "" {
			t.Noun, t.Plural = name, name
		}
		if t.Label == "" {
			t.Label = name
		}
		if t.Records == "" {
			t.Records = name
		}
		if len(t.Names) == 0 {
			t.Names = []string{name}
		}
		if len(t.Sections) == 0 {
			t.Sections = []string{name}
		}
		d.Topics[name] = t
	}
	var extra, rest []string
	for _, dn := range domain.BuiltIn {
		if _, ok := d.Topics[dn]; ok {
			d.TopicNames = append(d.TopicNames, dn)
		}
	}
	for n, t := range d.Topics {
		switch {
		case contains(domain.BuiltIn, n):
		case t.Target:
			extra = append(extra, n) // a further target domain from a data directory
		default:
			rest = append(rest, n)
		}
	}
	sort.Strings(extra)
	sort.Strings(rest)
	d.TopicNames = append(append(d.TopicNames, extra...), rest...)
	return nil
}

// loadGeneric builds the generic filler vocabulary: the built-in web words
// plus, when present, a word-frequency list (skipping its most frequent,
// conversational head; later restricted to dictionary words when WordNet is
// there). It returns a set of English words for language detection.
func (d *Data) loadGeneric(files map[string][]string) map[string]bool {
	var words []string
	var w []float64
	english := map[string]bool{}
	for _, x := range text.StopWords() {
		english[x] = true
	}
	seen := map[string]bool{}
	b, _ := builtinFS.ReadFile("builtin/generic.txt")
	for i, x := range strings.Fields(string(b)) {
		english[x] = true
		if !seen[x] {
			seen[x] = true
			words = append(words, x)
			w = append(w, 3/math.Sqrt(float64(i+10)))
		}
	}
	nBuiltin := len(words)
	for _, p := range filesMatching(files, "subtlex*.json") {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var rows []struct {
			Word  string  `json:"word"`
			Count float64 `json:"count"`
		}
		if json.Unmarshal(b, &rows) != nil {
			d.Warnings = append(d.Warnings, p+": not a word-frequency list")
			continue
		}
		n := 0
		for i, r := range rows {
			x := strings.ToLower(r.Word)
			english[x] = true
			if n >= 5000 || i < 300 || len(x) < 3 || text.IsStop(x) || !isAlpha(x) || seen[x] {
				continue
			}
			seen[x] = true
			words = append(words, x)
			w = append(w, 1/math.Sqrt(float64(i)))
			n++
		}
		break
	}
	d.Generic = newVocab(words, w)
	d.Generic.builtin = nBuiltin
	return english
}

// filter keeps the words for which keep is true (builtin: the word is one
// of the built-in generic words).
func (v *Vocab) filter(keep func(w string, builtin bool) bool) *Vocab {
	var words []string
	var ws []float64
	nb := 0
	for i, x := range v.Words {
		if keep(x, i < v.builtin) {
			words = append(words, x)
			ws = append(ws, v.weight(i))
			if i < v.builtin {
				nb++
			}
		}
	}
	out := newVocab(words, ws)
	out.builtin = nb
	return out
}

// weight recovers word i's weight from the cumulative distribution.
func (v *Vocab) weight(i int) float64 {
	if i == 0 {
		return v.dist.cum[0]
	}
	return v.dist.cum[i] - v.dist.cum[i-1]
}

func isAlpha(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) || r > unicode.MaxASCII {
			return false
		}
	}
	return s != ""
}

// minEnglishForms is the pool size below which a form kind keeps its
// non-English forms too.
const minEnglishForms = 8

func (d *Data) loadForms(dir string, english map[string]bool) error {
	b := func(p string) ([]byte, error) { return builtinFS.ReadFile(filepath.ToSlash(p)) }
	bi, _, err := loadFormasaurus("builtin/formasaurus", b, english)
	if err != nil {
		return fmt.Errorf("simweb: built-in forms: %w", err)
	}
	if dir != "" {
		fdir := ""
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && e.Name() == "index.json" && fdir == "" {
				if st, err := os.Stat(filepath.Join(filepath.Dir(p), "html")); err == nil && st.IsDir() {
					fdir = filepath.Dir(p)
				}
			}
			if err == nil && e.IsDir() && e.Name() == "html" {
				return filepath.SkipDir
			}
			return nil
		})
		if fdir != "" {
			real, warn, err := loadFormasaurus(fdir, osReadFile, english)
			if err != nil {
				d.Warnings = append(d.Warnings, err.Error())
			}
			d.Warnings = append(d.Warnings, warn...)
			// the simulated web is English: prefer English forms
			for k, fs := range real {
				var en []*FormSource
				for _, f := range fs {
					if f.english {
						en = append(en, f)
					}
				}
				if len(en) >= minEnglishForms {
					real[k] = en
				}
			}
			d.Forms = real
		}
	}
	for k, v := range bi {
		if len(d.Forms[k]) == 0 {
			d.Forms[k] = v
		}
	}
	return nil
}

func (d *Data) loadCities(files map[string][]string) {
	for _, p := range filesMatching(files, "airports*.csv") {
		rows, err := readCSVMaps(p)
		if err != nil {
			d.Warnings = append(d.Warnings, err.Error())
			continue
		}
		seen := map[string]bool{}
		for _, r := range rows {
			c := City{Name: strings.TrimSpace(r["city"]), State: strings.TrimSpace(r["state"]), Code: strings.TrimSpace(r["iata"]), Airport: strings.TrimSpace(r["name"])}
			if c.Name == "" || c.State == "" || c.Code == "" || seen[c.Name+"/"+c.State] {
				continue
			}
			seen[c.Name+"/"+c.State] = true
			d.Cities = append(d.Cities, c)
		}
	}
	if len(d.Cities) == 0 {
		for _, s := range strings.Split(builtinCities, ";") {
			f := strings.Split(s, ",")
			d.Cities = append(d.Cities, City{Name: f[0], State: f[1], Code: f[2], Airport: f[0] + " International"})
		}
	}
}

const builtinCities = "Boston,MA,BOS;Denver,CO,DEN;Seattle,WA,SEA;Austin,TX,AUS;Chicago,IL,ORD;Miami,FL,MIA;Phoenix,AZ,PHX;Portland,OR,PDX;Atlanta,GA,ATL;Nashville,TN,BNA;Detroit,MI,DTW;Orlando,FL,MCO;San Diego,CA,SAN;Houston,TX,IAH;Tampa,FL,TPA;Reno,NV,RNO"

// buildVocab builds every topic's weighted vocabulary from its core words,
// the frequent terms of its record pool and its WordNet glosses.
func (d *Data) buildVocab(wn *wordnetStats) {
	common := map[string]bool{}
	for i, w := range d.Generic.Words {
		if i >= 150 {
			break
		}
		common[w] = true
	}
	for _, name := range d.TopicNames {
		t := d.Topics[name]
		weight := map[string]float64{}
		for _, w := range t.Words {
			weight[strings.ToLower(w)] += 12
		}
		add := func(counts map[string]int, scale float64, limit int) {
			type kv struct {
				w string
				n int
			}
			var xs []kv
			for w, n := range counts {
				if len(w) >= 3 && isAlpha(w) && !text.IsStop(w) && !common[w] && !contractions[w] {
					xs = append(xs, kv{w, n})
				}
			}
			sort.Slice(xs, func(i, j int) bool {
				if xs[i].n != xs[j].n {
					return xs[i].n > xs[j].n
				}
				return xs[i].w < xs[j].w
			})
			if len(xs) > limit {
				xs = xs[:limit]
			}
			if len(xs) == 0 {
				return
			}
			top := float64(xs[0].n)
			for _, x := range xs {
				weight[x.w] += scale * math.Sqrt(float64(x.n)/top)
			}
		}
		rc := map[string]int{}
		step := 1 + len(t.pool)/3000 // a sample of the pool is enough for term frequencies
		for i := 0; i < len(t.pool); i += step {
			r := t.pool[i]
			seen := map[string]bool{}
			for _, v := range r.Fields {
				for _, tok := range text.Tokenize(v) {
					if !seen[tok] {
						seen[tok] = true
						rc[tok]++
					}
				}
			}
		}
		add(rc, 6, 300)
		if wn != nil {
			add(wn.terms[name], 4, 300)
		}
		words := make([]string, 0, len(weight))
		for w := range weight {
			words = append(words, w)
		}
		sort.Strings(words)
		ws := make([]float64, len(words))
		for i, w := range words {
			ws[i] = weight[w]
		}
		t.Vocab = newVocab(words, ws)
	}
}

// contractions are the stems Tokenize leaves of "doesn't" and the like.
var contractions = map[string]bool{"doesn": true, "isn": true, "wasn": true, "didn": true, "don": true, "couldn": true,
	"wouldn": true, "aren": true, "hasn": true, "haven": true, "won": true, "shouldn": true, "weren": true, "hadn": true, "ain": true}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// readLines calls fn for each non-empty line of a file.
func readLines(p string, fn func([]byte) error) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}
