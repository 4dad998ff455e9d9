package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Order-preserving key encodings. For every encoder below, bytes.Compare on
// the encodings orders values exactly as the values themselves are ordered,
// and an encoded part may be followed by further key parts.

// ErrBadKey is returned (wrapped) when a key part cannot be decoded.
var ErrBadKey = errors.New("store: malformed key")

const signBit = 1 << 63

// AppendUint64 appends v as 8 big-endian bytes.
func AppendUint64(b []byte, v uint64) []byte {
	return binary.BigEndian.AppendUint64(b, v)
}

// DecodeUint64 decodes a value written by AppendUint64 and returns the rest.
func DecodeUint64(b []byte) (uint64, []byte, error) {
	if len(b) < 8 {
		return 0, b, fmt.Errorf("decode uint64 from %d bytes: %w", len(b), ErrBadKey)
	}
	return binary.BigEndian.Uint64(b), b[8:], nil
}

// AppendInt64 appends v big-endian with the sign bit flipped, so negative
// values sort before positive ones.
func AppendInt64(b []byte, v int64) []byte {
	return AppendUint64(b, uint64(v)^signBit)
}

// DecodeInt64 decodes a value written by AppendInt64 and returns the rest.
func DecodeInt64(b []byte) (int64, []byte, error) {
	u, rest, err := DecodeUint64(b)
	return int64(u ^ signBit), rest, err
}

// ascFloatBits maps f to a uint64 whose unsigned order is f's numeric order:
// positive floats get the sign bit set, negative floats have all bits
// inverted. -0 is normalised to +0 so that the two compare equal.
func ascFloatBits(f float64) uint64 {
	if f == 0 {
		f = 0 // turns -0 into +0
	}
	u := math.Float64bits(f)
	if u&signBit != 0 {
		return ^u
	}
	return u | signBit
}

func floatFromAscBits(u uint64) float64 {
	if u&signBit != 0 {
		return math.Float64frombits(u &^ signBit)
	}
	return math.Float64frombits(^u)
}

// AppendAscFloat appends f so that smaller values sort first. NaN sorts after
// +Inf; callers that order by score should reject NaN (the frontier does).
func AppendAscFloat(b []byte, f float64) []byte {
	return AppendUint64(b, ascFloatBits(f))
}

// DecodeAscFloat decodes a value written by AppendAscFloat.
func DecodeAscFloat(b []byte) (float64, []byte, error) {
	u, rest, err := DecodeUint64(b)
	return floatFromAscBits(u), rest, err
}

// AppendDescFloat appends f with every bit inverted, so that higher values
// sort first: a frontier keyed by AppendDescFloat(score) yields the best
// entry as its first key.
func AppendDescFloat(b []byte, f float64) []byte {
	return AppendUint64(b, ^ascFloatBits(f))
}

// DecodeDescFloat decodes a value written by AppendDescFloat.
func DecodeDescFloat(b []byte) (float64, []byte, error) {
	u, rest, err := DecodeUint64(b)
	return floatFromAscBits(^u), rest, err
}

// String escaping: 0x00 is written as 0x00 0xFF and the string ends with
// 0x00 0x01. A terminator sorts below every escaped byte, so a string sorts
// before all its extensions, and the encoding is self-delimiting.
const (
	escByte    = 0x00
	escEscaped = 0xFF
	escTerm    = 0x01
)

// AppendString appends s escaped and terminated, preserving string order
// (bytewise, as Go compares strings) and allowing more key parts to follow.
func AppendString(b []byte, s string) []byte {
	for {
		i := indexZero(s)
		if i < 0 {
			break
		}
		b = append(b, s[:i]...)
		b = append(b, escByte, escEscaped)
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, escByte, escTerm)
}

func indexZero(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// DecodeString decodes a string written by AppendString and returns the rest
// of the key.
func DecodeString(b []byte) (string, []byte, error) {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != escByte {
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] {
		case escTerm:
			if out == nil {
				return string(b[:i]), b[i+2:], nil
			}
			out = append(out, b[:i]...)
			return string(out), b[i+2:], nil
		case escEscaped:
			out = append(out, b[:i]...)
			out = append(out, 0)
			b = b[i+2:]
			i = -1
		default:
			return "", b, fmt.Errorf("decode string: bad escape 0x00 0x%02x: %w", b[i+1], ErrBadKey)
		}
	}
	return "", b, fmt.Errorf("decode string: missing terminator: %w", ErrBadKey)
}

// PrefixEnd returns the smallest key greater than every key that starts with
// prefix, for use as an exclusive upper bound. It returns nil (no upper bound)
// when prefix is empty or all 0xFF.
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i]++
			return end
		}
	}
	return nil
}
