package store

import "strings"

// urlCacheEntries bounds the URL states a writable DB keeps in memory.
//
// Committing a page reads the state of every link it pushes and of every
// URL it records, and most of those were read or written moments ago (a
// site's navigation links repeat on every page): on a 10k-page crawl 61 %
// of the reads in Batch.resolve found a state. A cache of 8192 states
// answered 98 % of them; the other 1,471 (site entry pages looked up again
// when their site is begun, long after they were queued) went to Pebble at
// about 90 µs each (0.13 s of client CPU per 10k pages), and 16384 states
// answer all but 2. The other 39 % are URLs never seen, which no cache of
// earlier reads can answer (a "known absent" entry would never be hit: a
// URL looked up and not found is written by the same commit); the filter
// of stored URLs answers those (urlFilter).
//
// Memory: an entry is a map slot (16-byte key header and 120-byte
// URLState, with the maps' spare capacity about 220 bytes), the URL (about
// 70 bytes; the site is a prefix of it) and a frontier key while queued
// (about 40): 362 bytes measured for 68-byte URLs, so 16384 entries are
// about 5.8 MiB whatever the crawl's size.
const urlCacheEntries = 1 << 14

// urlCache is a write-through cache of stored URL states: every state in it
// is exactly what reading the URL's key from Pebble returns (it is filled
// from reads, and updated after every commit that writes a state). It is
// guarded by DB.fmu, under which every URL state is read for a write and
// every URL state is written, so no fill can race with a write. A nil
// urlCache (a read-only DB) caches nothing. GetURL, which runs without the
// lock and is rare (190 calls on a 10k-page crawl), reads Pebble.
//
// Eviction is by two generations: states go into cur; when cur holds half
// the bound, old is dropped and cur becomes old. A hit in old moves the
// state back into cur, so what is used stays. Each generation's map keeps
// its table when cleared, so rotating allocates nothing.
type urlCache struct {
	cur, old map[string]URLState
	half     int
	filter   *urlFilter // the URLs stored; nil until first needed
	hits     uint64     // lookups answered with a state (tests, measurements)
	absent   uint64     // lookups answered "not stored" by the filter
	misses   uint64     // lookups passed on to Pebble
}

func newURLCache(entries int) *urlCache {
	half := max(entries/2, 1)
	return &urlCache{cur: make(map[string]URLState, half), old: make(map[string]URLState, half), half: half}
}

// get returns the cached state of url. The state's FrontierKey is shared
// with the cache: callers replace it, never write into it.
func (c *urlCache) get(url string) (URLState, bool) {
	if c == nil {
		return URLState{}, false
	}
	if st, ok := c.cur[url]; ok {
		c.hits++
		return st, true
	}
	if st, ok := c.old[url]; ok {
		c.hits++
		c.put(st)
		return st, true
	}
	return URLState{}, false
}

// put caches st, a state as decodeURLState returns it.
func (c *urlCache) put(st URLState) {
	if _, ok := c.cur[st.URL]; !ok && len(c.cur) >= c.half {
		clear(c.old)
		c.old, c.cur = c.cur, c.old
	}
	c.cur[st.URL] = st
}

// loaded caches a state just read from Pebble (found: ok).
func (c *urlCache) loaded(st URLState, ok bool) {
	if c == nil || !ok {
		return
	}
	st.URL = c.key(st.URL)
	if st.Site != "" && strings.HasPrefix(st.URL, st.Site) {
		st.Site = st.URL[:len(st.Site)] // as decodeURLState shares it
	}
	c.put(st)
}

// stored caches the state of url after a commit wrote val, its encoding:
// decoded again, it is what a read would return.
func (c *urlCache) stored(url string, val []byte) {
	if c == nil {
		return
	}
	st, err := decodeURLState(c.key(url), val)
	if err != nil { // cannot happen for our own encoding; stay exact anyway
		c.drop(url)
		return
	}
	c.put(st)
}

// added notes that url's state is about to be stored (for the filter of
// stored URLs, if it was built already; if not, it will be built from
// what is stored).
func (c *urlCache) added(url string) {
	if c != nil && c.filter != nil {
		c.filter.add(url)
	}
}

// drop forgets url (its stored state is unknown: a commit failed).
func (c *urlCache) drop(url string) {
	if c == nil {
		return
	}
	delete(c.cur, url)
	delete(c.old, url)
}

// key returns url as the cache keeps it: the string already cached, or a
// copy, so that a cached URL never pins a larger buffer it was cut from.
func (c *urlCache) key(url string) string {
	if st, ok := c.cur[url]; ok {
		return st.URL
	}
	if st, ok := c.old[url]; ok {
		return st.URL
	}
	return strings.Clone(url)
}

// len is the number of cached entries (a URL in both generations counts
// twice, as it takes two slots).
func (c *urlCache) len() int {
	if c == nil {
		return 0
	}
	return len(c.cur) + len(c.old)
}
