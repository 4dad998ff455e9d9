package store

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"
)

const propN = 5000

func sign(c int) int { return cmp.Compare(c, 0) }

func TestUint64Order(t *testing.T) {
	r := testRand(t)
	for i := 0; i < propN; i++ {
		a, b := r.Uint64()>>uint(r.Intn(64)), r.Uint64()>>uint(r.Intn(64))
		ea, eb := AppendUint64(nil, a), AppendUint64(nil, b)
		if sign(bytes.Compare(ea, eb)) != cmp.Compare(a, b) {
			t.Fatalf("order of %d and %d not preserved", a, b)
		}
		got, rest, err := DecodeUint64(append(ea, 7))
		if err != nil || got != a || !bytes.Equal(rest, []byte{7}) {
			t.Fatalf("decode %d: got %d rest %x err %v", a, got, rest, err)
		}
	}
	if _, _, err := DecodeUint64([]byte{1, 2}); !errors.Is(err, ErrBadKey) {
		t.Fatalf("short uint64: err %v", err)
	}
}

func TestInt64Order(t *testing.T) {
	r := testRand(t)
	special := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
	for i := 0; i < propN; i++ {
		a, b := int64(r.Uint64())>>uint(r.Intn(64)), int64(r.Uint64())>>uint(r.Intn(64))
		if i < len(special)*len(special) {
			a, b = special[i/len(special)], special[i%len(special)]
		}
		ea, eb := AppendInt64(nil, a), AppendInt64(nil, b)
		if sign(bytes.Compare(ea, eb)) != cmp.Compare(a, b) {
			t.Fatalf("order of %d and %d not preserved", a, b)
		}
		if got, _, err := DecodeInt64(ea); err != nil || got != a {
			t.Fatalf("decode %d: got %d err %v", a, got, err)
		}
	}
}

func randFloat(r *rand.Rand) float64 {
	switch r.Intn(8) {
	case 0:
		specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1),
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1, -1}
		return specials[r.Intn(len(specials))]
	case 1:
		return math.Float64frombits(r.Uint64()) // any bit pattern (skip NaN below)
	case 2:
		return float64(r.Intn(5)) / 4 // many ties
	default:
		return r.NormFloat64() * math.Pow(10, float64(r.Intn(20)-10))
	}
}

func TestFloatOrder(t *testing.T) {
	r := testRand(t)
	for i := 0; i < propN; i++ {
		a, b := randFloat(r), randFloat(r)
		if math.IsNaN(a) || math.IsNaN(b) {
			continue
		}
		want := cmp.Compare(a, b) // -0 == +0
		if a == b {
			want = 0
		}
		if got := sign(bytes.Compare(AppendAscFloat(nil, a), AppendAscFloat(nil, b))); got != want {
			t.Fatalf("asc order of %g and %g: got %d want %d", a, b, got, want)
		}
		if got := sign(bytes.Compare(AppendDescFloat(nil, a), AppendDescFloat(nil, b))); got != -want {
			t.Fatalf("desc order of %g and %g: got %d want %d", a, b, got, -want)
		}
		if got, _, err := DecodeAscFloat(AppendAscFloat(nil, a)); err != nil || got != a {
			t.Fatalf("asc decode %g: got %g err %v", a, got, err)
		}
		if got, _, err := DecodeDescFloat(AppendDescFloat(nil, a)); err != nil || got != a {
			t.Fatalf("desc decode %g: got %g err %v", a, got, err)
		}
	}
}

// randString draws from a tiny alphabet that stresses the escaping: 0x00,
// 0x01, 0xFF and ordinary letters, including prefixes of each other.
func randString(r *rand.Rand) string {
	alphabet := []byte{0x00, 0x01, 0xFF, 'a', 'b'}
	n := r.Intn(6)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteByte(alphabet[r.Intn(len(alphabet))])
	}
	return sb.String()
}

func TestStringOrder(t *testing.T) {
	r := testRand(t)
	for i := 0; i < propN; i++ {
		a, b := randString(r), randString(r)
		ua, ub := r.Uint64()%3, r.Uint64()%3
		// A string followed by another key part: tuple order must hold.
		ea := AppendUint64(AppendString(nil, a), ua)
		eb := AppendUint64(AppendString(nil, b), ub)
		want := cmp.Compare(a, b)
		if want == 0 {
			want = cmp.Compare(ua, ub)
		}
		if got := sign(bytes.Compare(ea, eb)); got != want {
			t.Fatalf("order of (%q,%d) and (%q,%d): got %d want %d", a, ua, b, ub, got, want)
		}
		s, rest, err := DecodeString(ea)
		if err != nil || s != a {
			t.Fatalf("decode %q: got %q err %v", a, s, err)
		}
		if u, _, err := DecodeUint64(rest); err != nil || u != ua {
			t.Fatalf("decode rest after %q: got %d err %v", a, u, err)
		}
	}
}

func TestDecodeStringErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"no terminator", []byte("abc")},
		{"dangling escape", []byte("ab\x00")},
		{"bad escape", []byte("ab\x00\x02")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := DecodeString(tc.in); !errors.Is(err, ErrBadKey) {
				t.Fatalf("err %v, want ErrBadKey", err)
			}
		})
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct {
		in, want []byte
	}{
		{nil, nil},
		{[]byte{0xFF, 0xFF}, nil},
		{[]byte{1}, []byte{2}},
		{[]byte{1, 0xFF}, []byte{2}},
		{[]byte{1, 2, 0xFF, 0xFF}, []byte{1, 3}},
		{[]byte("abc"), []byte("abd")},
	} {
		if got := PrefixEnd(tc.in); !bytes.Equal(got, tc.want) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
	// The input is not modified.
	in := []byte{1, 2}
	PrefixEnd(in)
	if !bytes.Equal(in, []byte{1, 2}) {
		t.Fatalf("PrefixEnd modified its input: %x", in)
	}
}

func FuzzDecodeString(f *testing.F) {
	f.Add([]byte("a\x00\x01"))
	f.Add([]byte("a\x00\xffb\x00\x01rest"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, rest, err := DecodeString(b)
		if err != nil {
			return
		}
		enc := AppendString(nil, s)
		if !bytes.Equal(append(enc, rest...), b) {
			t.Fatalf("re-encoding %q gives %x, input %x", s, append(enc, rest...), b)
		}
	})
}
