package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrBadValue is returned (wrapped) when a stored value cannot be decoded.
var ErrBadValue = errors.New("store: malformed value")

// The hot records (URL states and frontier entries, one or more per URL
// discovered) use a small hand-written binary encoding: a format byte, then
// varints and length-prefixed strings. It is about a third of the size of the
// JSON form and several times faster to decode; see BenchmarkEncode.

// codecV1 is the first byte of every binary value; a later format gets a new
// byte and a decoder branch.
const codecV1 byte = 1

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
func appendVarint(b []byte, v int64) []byte   { return binary.AppendVarint(b, v) }

func appendBytes(b []byte, s []byte) []byte {
	b = appendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStr(b []byte, s string) []byte {
	b = appendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendSiteOf writes site compactly when it is a prefix of url (the usual
// case: a URL's site is its scheme and host): odd n means site = url[:n/2],
// even n means n/2 bytes of site follow.
func appendSiteOf(b []byte, url, site string) []byte {
	if site != "" && strings.HasPrefix(url, site) {
		return appendUvarint(b, uint64(len(site))<<1|1)
	}
	b = appendUvarint(b, uint64(len(site))<<1)
	return append(b, site...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return appendVarint(b, 0)
	}
	return appendVarint(b, t.UnixNano())
}

// reader decodes a binary value; the first error sticks and later reads
// return zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("decode %s: %w", what, ErrBadValue)
	}
}

func (r *reader) byte1(what string) byte {
	if r.err != nil || len(r.b) < 1 {
		r.fail(what)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) take(n uint64, what string) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail(what)
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) str(what string) string {
	return string(r.take(r.uvarint(what), what))
}

// bytesCopy reads a length-prefixed byte slice into fresh memory (nil when
// empty), since the source buffer belongs to Pebble.
func (r *reader) bytesCopy(what string) []byte {
	s := r.take(r.uvarint(what), what)
	if len(s) == 0 {
		return nil
	}
	return append([]byte(nil), s...)
}

func (r *reader) siteOf(url, what string) string {
	n := r.uvarint(what)
	if n&1 == 1 {
		if n>>1 > uint64(len(url)) {
			r.fail(what)
			return ""
		}
		return url[:n>>1]
	}
	return string(r.take(n>>1, what))
}

func (r *reader) time(what string) time.Time {
	ns := r.varint(what)
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

func (r *reader) version(what string) {
	if v := r.byte1(what); r.err == nil && v != codecV1 {
		r.err = fmt.Errorf("decode %s: unknown format %d: %w", what, v, ErrBadValue)
	}
}
