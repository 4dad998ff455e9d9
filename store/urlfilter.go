package store

import (
	"fmt"
	"hash/maphash"
	"math/bits"
)

// urlFilterBlocks is the size of the filter of stored URLs, in 64-byte
// blocks: 1<<15 blocks are 2 MiB whatever the crawl's size. A 10k-page
// crawl stores 24,400 URL states (700 bits each, no false answer); a
// 1M-page one some 2.5 million (6.7 bits each), for which this blocked
// Bloom filter with 7 probes wrongly answers "may be stored" for 5 % of the
// new URLs (measured; 40 % at 5 million), which are then looked up in
// Pebble as without it: a larger crawl only sends more reads on to Pebble.
const urlFilterBlocks = 1 << 15

// urlFilter is a blocked Bloom filter of the URLs that have a stored state:
// when it says a URL is not there, it is not, and Batch.resolve does not
// ask Pebble. That is where the URL reads went: a URL read that finds a
// state finds it in the memtable, it was written moments ago (1.5 µs each
// on a 10k-page crawl); a URL never seen, 39 % of the reads, is searched
// for in every memtable and every level (12 µs each).
//
// It holds every URL key in the database: filled by a scan of the URL
// table before its first use, and told of every state resolve writes
// before it is committed. URL states are never deleted, so it never has to
// forget one. Each URL sets 7 bits within one 512-bit block (one cache
// line read per lookup). Guarded by DB.fmu, like the urlCache it is part
// of.
type urlFilter struct {
	blocks [][8]uint64
	seed1  maphash.Seed // picks the block
	seed2  maphash.Seed // picks the bits
}

func newURLFilter(blocks int) *urlFilter {
	return &urlFilter{blocks: make([][8]uint64, blocks), seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed()}
}

// hash returns url's two hashes (maphash.Bytes of the same bytes gives the
// same ones).
func (f *urlFilter) hash(url string) (h1, h2 uint64) {
	return maphash.String(f.seed1, url), maphash.String(f.seed2, url)
}

// probe calls fn with the word and bit of each of the 7 bits of the URL
// hashed to h1, h2; fn returns false to stop.
func (f *urlFilter) probe(h1, h2 uint64, fn func(w *uint64, bit uint64) bool) {
	blk := &f.blocks[h1%uint64(len(f.blocks))]
	h := h2
	for range 7 {
		i := h & 511 // 9 bits: the bit within the block
		if !fn(&blk[i>>6], 1<<(i&63)) {
			return
		}
		h = bits.RotateLeft64(h, -9)
	}
}

func (f *urlFilter) add(url string) {
	h1, h2 := f.hash(url)
	f.addHash(h1, h2)
}

func (f *urlFilter) addHash(h1, h2 uint64) {
	f.probe(h1, h2, func(w *uint64, bit uint64) bool { *w |= bit; return true })
}

// mayHave reports whether url may have a stored state; false is certain.
func (f *urlFilter) mayHave(url string) bool {
	h1, h2 := f.hash(url)
	all := true
	f.probe(h1, h2, func(w *uint64, bit uint64) bool { all = *w&bit != 0; return all })
	return all
}

// fillURLFilter builds the filter of stored URLs from the URL table, once,
// before it is first asked. Caller holds db.fmu.
func (db *DB) fillURLFilter() error {
	c := db.urls
	if c == nil || c.filter != nil {
		return nil
	}
	f := newURLFilter(urlFilterBlocks)
	lower := []byte{TagURLs}
	err := db.scan(lower, PrefixEnd(lower), func(k, _ []byte) error {
		f.addHash(maphash.Bytes(f.seed1, k[1:]), maphash.Bytes(f.seed2, k[1:]))
		return nil
	})
	if err != nil {
		return fmt.Errorf("list stored URLs: %w", err)
	}
	c.filter = f
	return nil
}
