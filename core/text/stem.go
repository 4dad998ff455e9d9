package text

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
)

// stemCache memoises stems: crawls see the same few thousand words millions
// of times and the Snowball stemmer allocates. Each entry also says whether
// the word is a stop word, so that Terms looks a token up once. Look-ups read
// an immutable snapshot without locking (workers on several cores would
// otherwise keep taking a shared lock's cache line from one another); new
// stems wait in a small locked map until enough of them are merged into a
// new snapshot. It is bounded: past stemCacheMax words it starts over, so the
// rare words of a long crawl cannot grow it without limit.
var stemCache = &stemMemo{pending: make(map[string]termEntry)}

// stemCacheMax bounds the words the cache holds (as the 64 shards of 4,096
// it replaced).
const stemCacheMax = 256 << 10

// termEntry is what the cache knows of a lower-case word.
type termEntry struct {
	stem string
	stop bool
}

type stemMemo struct {
	snap    atomic.Pointer[map[string]termEntry] // read-only once stored
	mu      sync.Mutex
	pending map[string]termEntry // stems not yet in snap
}

// Stem returns the English Snowball stem of a lower-case word. Words that
// contain digits are returned as they are.
func Stem(w string) string {
	if hasDigit(w) {
		return w
	}
	return entryOf(stemCache, w).stem
}

// entryOf returns the cache's entry for w, a word without digits, given as
// a string or as bytes (Terms' scratch: the look-ups do not allocate).
func entryOf[S ~string | ~[]byte](c *stemMemo, w S) termEntry {
	if m := c.snap.Load(); m != nil {
		if e, ok := (*m)[string(w)]; ok {
			return e
		}
	}
	c.mu.Lock()
	e, ok := c.pending[string(w)]
	c.mu.Unlock()
	if ok {
		return e
	}
	// w may be a slice of a whole page's text (Tokenize) or of scratch
	// space: the cache keeps a copy of its own
	return c.add(strings.Clone(string(w)))
}

// add stems w and adds it to the cache; w must not share memory with a
// larger string.
func (c *stemMemo) add(w string) termEntry {
	e := termEntry{stem: english.Stem(w, false), stop: IsStop(w)}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[w] = e
	var old map[string]termEntry
	if m := c.snap.Load(); m != nil {
		old = *m
	}
	// Merging copies the snapshot: wait for a quarter of its size in new
	// words, so that each word is copied a few times at most.
	if len(c.pending) < max(64, len(old)/4) {
		return e
	}
	next := c.pending
	if len(old)+len(c.pending) <= stemCacheMax {
		next = make(map[string]termEntry, len(old)+len(c.pending))
		for k, v := range old {
			next[k] = v
		}
		for k, v := range c.pending {
			next[k] = v
		}
	}
	c.snap.Store(&next)
	c.pending = make(map[string]termEntry)
	return e
}

// size returns the words held (for tests).
func (c *stemMemo) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.pending)
	if m := c.snap.Load(); m != nil {
		n += len(*m)
	}
	return n
}

func hasDigit[S ~string | ~[]byte](w S) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}
