package text

import (
	"hash/maphash"
	"strings"
	"sync"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// stemCache memoises stems: crawls see the same few thousand words millions
// of times and the Snowball stemmer allocates. It is sharded (two workers
// rarely wait on one lock) and bounded: a shard that outgrows its share is
// emptied, so the rare words of a long crawl cannot grow it without limit.
var stemCache = newStemShards()

const (
	stemShards   = 64
	stemShardMax = 4096 // entries per shard: 256k words in all
)

type stemShard struct {
	mu sync.RWMutex
	m  map[string]string
}

type stemShardSet struct {
	seed   maphash.Seed
	shards [stemShards]stemShard
}

func newStemShards() *stemShardSet {
	s := &stemShardSet{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].m = make(map[string]string)
	}
	return s
}

// Stem returns the English Snowball stem of a lower-case word. Words that
// contain digits are returned as they are.
func Stem(w string) string {
	if hasDigit(w) {
		return w
	}
	sh := &stemCache.shards[maphash.String(stemCache.seed, w)%stemShards]
	sh.mu.RLock()
	s, ok := sh.m[w]
	sh.mu.RUnlock()
	if ok {
		return s
	}
	s = stem(w)
	sh.mu.Lock()
	if len(sh.m) >= stemShardMax {
		clear(sh.m)
	}
	sh.m[w] = s
	sh.mu.Unlock()
	return s
}

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}

// stem runs the Snowball English (Porter2) stemmer on the lower-cased word.
// Words of two bytes or less and the English stop words are returned whole.
func stem(w string) string {
	w = strings.ToLower(strings.TrimSpace(w))
	if len(w) <= 2 || stemStopWords[w] {
		return w
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}

// stemStopWords are the English stop words of NLTK's list, which Stem leaves
// unstemmed ("does" stays "does", not "doe"), as the stemmer package used
// before (kljensen/snowball) did: the stems of stored feature spaces and
// trained models stay the same.
var stemStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
		been before being below between both but by can did do does doing don down during each few for from
		further had has have having he her here hers herself him himself his how i if in into is it its itself
		just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
		s same she should so some such t than that the their theirs them themselves then there these they this
		those through to too under until up very was we were what when where which while who whom why will with
		you your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()
