package text

import (
	"hash/maphash"
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
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
	// w may be a slice of a whole page's text (Tokenize): the cache keeps
	// a copy, not the page
	w = strings.Clone(w)
	s = english.Stem(w, false)
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
