package text

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

const eps = 1e-9

func TestNewVector(t *testing.T) {
	tests := []struct {
		name  string
		terms []string
		want  Vector
	}{
		{"empty", nil, Vector{}},
		{"single", []string{"car"}, Vector{"car": 1}},
		{"tf 2 and 1", []string{"car", "used", "car"}, Vector{"car": 1 + math.Ln2, "used": 1}},
		{"tf 3", []string{"x", "x", "x"}, Vector{"x": 1 + math.Log(3)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NewVector(tc.terms)
			if len(got) != len(tc.want) {
				t.Fatalf("NewVector(%v) = %v, want %v", tc.terms, got, tc.want)
			}
			for k, w := range tc.want {
				if math.Abs(got[k]-w) > eps {
					t.Errorf("weight %q = %v, want %v", k, got[k], w)
				}
			}
		})
	}
}

func TestNorm(t *testing.T) {
	tests := []struct {
		v    Vector
		want float64
	}{
		{Vector{}, 0},
		{Vector{"a": 3, "b": 4}, 5},
		{Vector{"a": 1, "b": 1, "c": 1, "d": 1}, 2},
	}
	for _, tc := range tests {
		if got := tc.v.Norm(); math.Abs(got-tc.want) > eps {
			t.Errorf("%v.Norm() = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestCosine(t *testing.T) {
	w2 := 1 + math.Ln2 // weight of a term seen twice
	tests := []struct {
		name string
		a, b Vector
		want float64
	}{
		{"both empty", Vector{}, Vector{}, 0},
		{"one empty", Vector{"a": 1}, nil, 0},
		{"zero weights", Vector{"a": 0}, Vector{"a": 1}, 0},
		{"identical", NewVector([]string{"a", "b"}), NewVector([]string{"b", "a"}), 1},
		{"orthogonal", Vector{"a": 1}, Vector{"b": 1}, 0},
		// (a,b)·(a,c) = 1; |.| = √2 each → 1/2.
		{"half overlap", NewVector([]string{"a", "b"}), NewVector([]string{"a", "c"}), 0.5},
		// {a:1+ln2, b:1}·{a:1} = 1+ln2 over √((1+ln2)²+1)·1 = 0.861037…
		{"tf weighting", NewVector([]string{"a", "a", "b"}), NewVector([]string{"a"}), w2 / math.Sqrt(w2*w2+1)},
		// {3,4}·{4,3} = 24, norms 5·5 → 0.96.
		{"plain weights", Vector{"x": 3, "y": 4}, Vector{"x": 4, "y": 3}, 0.96},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Cosine(tc.a, tc.b); math.Abs(got-tc.want) > eps {
				t.Errorf("Cosine = %v, want %v", got, tc.want)
			}
			if got := Cosine(tc.b, tc.a); math.Abs(got-tc.want) > eps {
				t.Errorf("Cosine (swapped) = %v, want %v", got, tc.want)
			}
		})
	}
	if got := Cosine(Vector{"a": 1 + math.Ln2, "b": 1}, Vector{"a": 1}); math.Abs(got-0.8610369) > 1e-6 {
		t.Errorf("hand-computed cosine = %v, want 0.8610369", got)
	}
}

func TestTopK(t *testing.T) {
	docs := [][]string{{"a", "b", "a"}, {"b", "c"}, {"c", "b", "d"}}
	// document frequencies: a 1, b 3, c 2, d 1 (a counts once in doc 0).
	tests := []struct {
		k    int
		want []string
	}{
		{0, nil},
		{-1, nil},
		{1, []string{"b"}},
		{2, []string{"b", "c"}},
		{3, []string{"b", "c", "a"}},
		{10, []string{"b", "c", "a", "d"}},
	}
	for _, tc := range tests {
		if got := TopK(docs, tc.k); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("TopK(k=%d) = %v, want %v", tc.k, got, tc.want)
		}
	}
	if got := TopK(nil, 3); len(got) != 0 {
		t.Errorf("TopK(nil) = %v, want empty", got)
	}
}

// TestNormDotSameBits: Norm and Dot give the same bits on every call. They
// summed in map order, random in every range, so the last bits changed
// from call to call (weights 1 + ln(df) as a learnt feature space has), and
// a --seed-run crawl ranked two equal links in either order.
func TestNormDotSameBits(t *testing.T) {
	const seed = 19
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 8))
	v, u := Vector{}, Vector{}
	for i := range 40 {
		term := fmt.Sprintf("term%02d", i)
		v[term] = 1 + math.Log(float64(1+r.IntN(60)))
		u[term] = 1 + math.Log(float64(1+r.IntN(60)))
	}
	norm, dot := v.Norm(), v.Dot(u)
	for i := range 500 {
		if n := v.Norm(); n != norm {
			t.Fatalf("call %d: Norm = %b, first call %b", i, n, norm)
		}
		if d := v.Dot(u); d != dot {
			t.Fatalf("call %d: Dot = %b, first call %b", i, d, dot)
		}
		if d := u.Dot(v); d != dot {
			t.Fatalf("call %d: Dot swapped = %b, first call %b", i, d, dot)
		}
	}
}
