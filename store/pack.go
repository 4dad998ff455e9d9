package store

import (
	"fmt"

	"github.com/klauspost/compress/s2"
)

// Large JSON records of the generic tables (a page record is about 4.7 KB,
// half of it link contexts repeating the page's text) are stored
// S2-compressed: about 42% of their size, so a crawl writes less than half
// the bytes to the write-ahead log, the memtables and the table files, for
// about 10 µs per record (BenchmarkPackJSON). Pebble compresses table
// blocks too, but only from the memtable on; the log and the memtables,
// and every flush, carried the whole record.
//
// A packed value starts with valuePacked, a byte no JSON text starts with;
// any other value is plain JSON, as every version before SchemaVersion 2
// wrote it, and is read as it is.
const valuePacked byte = 0x00

// packFrom is the smallest JSON value that is packed: smaller ones gain
// little and are read more often (site records, failures).
const packFrom = 1024

// packedTag reports whether values of tag may be packed: the generic JSON
// tables, not the typed ones whose binary values may start with any byte.
func packedTag(tag byte) bool { return !managedTag(tag) && tag != TagModels }

// packJSON returns the stored form of the JSON value v of table tag,
// appended to dst.
func packJSON(dst []byte, tag byte, v []byte) []byte {
	if len(v) < packFrom || !packedTag(tag) {
		return append(dst, v...)
	}
	n := 1 + s2.MaxEncodedLen(len(v))
	if cap(dst)-len(dst) < n {
		dst = append(make([]byte, 0, len(dst)+n), dst...)
	}
	dst = append(dst, valuePacked)
	out := s2.Encode(dst[len(dst):cap(dst)], v)
	return dst[:len(dst)+len(out)]
}

// unpackJSON returns the JSON text of the stored value v of table tag,
// decoding a packed value into *buf (reused across calls).
func unpackJSON(tag byte, v []byte, buf *[]byte) ([]byte, error) {
	if len(v) == 0 || v[0] != valuePacked || !packedTag(tag) {
		return v, nil
	}
	n, err := s2.DecodedLen(v[1:])
	if err != nil {
		return nil, fmt.Errorf("packed record: %w: %v", ErrBadValue, err)
	}
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	out, err := s2.Decode((*buf)[:n], v[1:])
	if err != nil {
		return nil, fmt.Errorf("packed record: %w: %v", ErrBadValue, err)
	}
	return out, nil
}
