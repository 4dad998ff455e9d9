package simweb

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// mix is the splitmix64 finaliser: a cheap, well-distributed 64-bit hash
// used to derive independent random streams from (seed, labels…).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// strHash hashes a label so that streams can be named ("site", "links", …).
func strHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// key folds a seed, a stream label and integers into one 64-bit key.
func key(seed int64, label string, parts ...uint64) uint64 {
	k := mix(uint64(seed) ^ strHash(label))
	for _, p := range parts {
		k = mix(k ^ p)
	}
	return k
}

// rngFor returns a deterministic generator for the stream (seed, label, parts).
// Every structural decision of the web draws from its own stream, so a site
// or page can be regenerated alone, in any order, with the same result.
func rngFor(seed int64, label string, parts ...uint64) *rand.Rand {
	k := key(seed, label, parts...)
	return rand.New(rand.NewPCG(k, mix(k^0x5851f42d4c957f2d)))
}

// unit maps a key to a float in [0,1).
func unit(k uint64) float64 { return float64(k>>11) / (1 << 53) }

// chance reports a Bernoulli(p) outcome fixed by a key.
func chance(k uint64, p float64) bool { return p > 0 && unit(k) < p }

// weighted is a discrete distribution over indices 0..n-1.
type weighted struct {
	cum []float64
}

func newWeighted(w []float64) weighted {
	cum := make([]float64, len(w))
	s := 0.0
	for i, x := range w {
		if x > 0 {
			s += x
		}
		cum[i] = s
	}
	return weighted{cum: cum}
}

func (d weighted) empty() bool { return len(d.cum) == 0 || d.cum[len(d.cum)-1] <= 0 }

// pick draws an index with probability proportional to its weight; callers
// check empty() first.
func (d weighted) pick(r *rand.Rand) int {
	t := r.Float64() * d.cum[len(d.cum)-1]
	i := sort.Search(len(d.cum), func(i int) bool { return d.cum[i] > t })
	if i >= len(d.cum) {
		i = len(d.cum) - 1
	}
	return i
}

// zipfWeights returns n weights proportional to 1/(i+1)^s.
func zipfWeights(n int, s float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / math.Pow(float64(i+1), s)
	}
	return w
}

// lognormalInt draws round(median·exp(sigma·N(0,1))) clamped to [lo,hi].
func lognormalInt(r *rand.Rand, median, sigma float64, lo, hi int) int {
	v := int(math.Round(median * math.Exp(sigma*r.NormFloat64())))
	if v < lo {
		v = lo
	}
	if hi > 0 && v > hi {
		v = hi
	}
	return v
}

// poisson draws a Poisson(mean) count (Knuth; means here are small).
func poisson(r *rand.Rand, mean float64) int {
	if mean <= 0 {
		return 0
	}
	if mean > 30 {
		v := int(math.Round(mean + math.Sqrt(mean)*r.NormFloat64()))
		if v < 0 {
			v = 0
		}
		return v
	}
	l := math.Exp(-mean)
	k, p := 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// pickStr returns a random element of xs ("" when empty).
func pickStr(r *rand.Rand, xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[r.IntN(len(xs))]
}
