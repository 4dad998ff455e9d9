package postings

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIntersect(t *testing.T) {
	tests := []struct {
		a, b, want []int32
	}{
		{nil, nil, nil},
		{[]int32{1, 2, 3}, nil, nil},
		{[]int32{1, 3, 5, 7}, []int32{2, 3, 4, 7, 9}, []int32{3, 7}},
		{[]int32{1, 2}, []int32{1, 2}, []int32{1, 2}},
		{[]int32{5}, []int32{1, 2, 3}, nil},
	}
	for _, tt := range tests {
		got := Intersect(nil, tt.a, tt.b)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Intersect(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if n := Count(tt.a, tt.b); n != len(tt.want) {
			t.Errorf("Count(%v, %v) = %d, want %d", tt.a, tt.b, n, len(tt.want))
		}
	}
}

// TestIntersectAliased checks the in-place use (dst aliasing a) against a
// map-based reference on random lists (seed reported).
func TestIntersectAliased(t *testing.T) {
	const seed = 11
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	list := func() []int32 {
		var out []int32
		for id := int32(0); id < 500; id++ {
			if rng.IntN(3) == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	for range 50 {
		a, b := list(), list()
		in := map[int32]bool{}
		for _, x := range b {
			in[x] = true
		}
		var want []int32
		for _, x := range a {
			if in[x] {
				want = append(want, x)
			}
		}
		if got := Intersect(a, a, b); !slices.Equal(got, want) {
			t.Fatalf("aliased intersection %v, want %v", got, want)
		}
	}
}
