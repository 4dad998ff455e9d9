package surface

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Estimator names the method that estimates P(q), the fraction of the
// database matching a candidate query q (section 3.2 of Ntoulas et al.).
type Estimator string

const (
	// Independence assumes a term occurs in the documents downloaded so far
	// as often as in the whole database: P(q) = P(q | q1 ∨ … ∨ qi−1), read
	// from the corrected statistics table and scaled by the estimated size.
	Independence Estimator = "independence"
	// Zipf ranks the terms by their frequency in the statistics table and
	// fits α(r+β)^−γ to the known result counts of the issued queries by
	// their ranks; a candidate's count is the curve at its rank.
	Zipf Estimator = "zipf"
)

// ParseEstimator accepts "independence" (or "ind") and "zipf".
func ParseEstimator(s string) (Estimator, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "independence", "ind":
		return Independence, nil
	case "zipf":
		return Zipf, nil
	}
	return "", fmt.Errorf("surface: unknown estimator %q (want independence or zipf)", s)
}

// Cost is the cost model of a query: Cost(q) = Q + R·P(q) + D·P_new(q),
// with P(q) and P_new(q) counted in documents (the fraction times the
// database size), so Q is the cost of sending a query, R the cost of one
// result entry on the result pages and D the cost of downloading one new
// document. The zero value means the constant cost {1, 0, 0}.
type Cost struct{ Q, R, D float64 }

// DefaultCost is one unit per query.
var DefaultCost = Cost{Q: 1}

// ParseCost reads "cq,cr,cd" (for example "1,0.01,0.1").
func ParseCost(s string) (Cost, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultCost, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return Cost{}, fmt.Errorf("surface: cost %q: want cq,cr,cd", s)
	}
	var v [3]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return Cost{}, fmt.Errorf("surface: cost %q: %q is not a non-negative number", s, p)
		}
		v[i] = f
	}
	c := Cost{v[0], v[1], v[2]}
	if c == (Cost{}) {
		return Cost{}, fmt.Errorf("surface: cost %q: all zero", s)
	}
	return c, nil
}

func (c Cost) orDefault() Cost {
	if c == (Cost{}) {
		return DefaultCost
	}
	return c
}

// Of is the cost of a query with the given number of results and new
// documents.
func (c Cost) Of(results, fresh float64) float64 {
	c = c.orDefault()
	return c.Q + c.R*results + c.D*fresh
}

// String formats the cost as cq,cr,cd.
func (c Cost) String() string {
	c = c.orDefault()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return f(c.Q) + "," + f(c.R) + "," + f(c.D)
}

// ZipfFit is a fitted curve N(r) = α(r+β)^−γ of result counts by rank.
type ZipfFit struct {
	Alpha, Beta, Gamma float64
	Points             int     // issued queries the fit used
	RSS                float64 // residual sum of squares in log space
}

// At evaluates the curve at rank r (1 = most frequent).
func (z ZipfFit) At(r float64) float64 { return z.Alpha * math.Pow(r+z.Beta, -z.Gamma) }

// FitZipf fits α(r+β)^−γ to (rank, count) points by least squares in log
// space: for a fixed β, log α and γ come from a linear regression of log N
// on log(r+β); β is searched on a log grid and refined by golden-section
// search. It needs at least three points with distinct ranks and positive
// counts.
func FitZipf(ranks, counts []float64) (ZipfFit, bool) {
	var xs, ys []float64
	distinct := map[float64]bool{}
	maxR := 1.0
	for i := range ranks {
		if counts[i] > 0 && ranks[i] >= 1 {
			xs = append(xs, ranks[i])
			ys = append(ys, math.Log(counts[i]))
			distinct[ranks[i]] = true
			maxR = math.Max(maxR, ranks[i])
		}
	}
	if len(distinct) < 3 {
		return ZipfFit{}, false
	}
	fit := func(beta float64) ZipfFit {
		var sx, sy, sxx, sxy float64
		n := float64(len(xs))
		lx := make([]float64, len(xs))
		for i, r := range xs {
			lx[i] = math.Log(r + beta)
			sx += lx[i]
			sy += ys[i]
			sxx += lx[i] * lx[i]
			sxy += lx[i] * ys[i]
		}
		den := n*sxx - sx*sx
		if den <= 0 {
			return ZipfFit{RSS: math.Inf(1)}
		}
		slope := (n*sxy - sx*sy) / den
		icpt := (sy - slope*sx) / n
		gamma := -slope
		if gamma < 0 {
			// counts growing with rank: a flat line is the best Zipf curve
			gamma, icpt = 0, sy/n
		}
		var rss float64
		for i := range lx {
			d := ys[i] - (icpt - gamma*lx[i])
			rss += d * d
		}
		return ZipfFit{Alpha: math.Exp(icpt), Beta: beta, Gamma: gamma, Points: len(xs), RSS: rss}
	}
	// grid over β ∈ {0} ∪ [0.01, 10·maxRank] on a log scale
	best := fit(0)
	bestLog := math.Inf(-1)
	lo, hi := math.Log(0.01), math.Log(10*maxR)
	const steps = 40
	for i := 0; i <= steps; i++ {
		lb := lo + (hi-lo)*float64(i)/steps
		if f := fit(math.Exp(lb)); f.RSS < best.RSS {
			best, bestLog = f, lb
		}
	}
	if !math.IsInf(bestLog, -1) {
		// golden-section refinement on log β within one grid step
		step := (hi - lo) / steps
		a, b := bestLog-step, bestLog+step
		const g = 0.6180339887498949
		c, d := b-g*(b-a), a+g*(b-a)
		fc, fd := fit(math.Exp(c)), fit(math.Exp(d))
		for i := 0; i < 40; i++ {
			if fc.RSS < fd.RSS {
				b, d, fd = d, c, fc
				c = b - g*(b-a)
				fc = fit(math.Exp(c))
			} else {
				a, c, fc = c, d, fd
				d = a + g*(b-a)
				fd = fit(math.Exp(d))
			}
		}
		for _, f := range []ZipfFit{fc, fd} {
			if f.RSS < best.RSS {
				best = f
			}
		}
	}
	return best, true
}

// Size estimates the number of documents in the database by capture–
// recapture over the issued queries (the independence assumption of
// section 3.2: the fraction of a query's results already in C = q1 ∨ … ∨
// qi−1 is P(C)): Ŝ = Σ |C_{i−1}|·|returned_i| / (Σ |returned_i ∩ C_{i−1}| + 1).
// It works with hidden totals. ok is false before two queries returned
// documents; the estimate is never below the corrected covered size. It is
// the adaptive policy's working estimate; the coverage reported to users is
// State.Coverage (coverage.go), which does not take a cut answer's overlap
// with the downloaded documents for its matches' overlap.
func (s *Stats) Size() (size float64, ok bool) {
	acc := newSchnabel(1)
	for _, q := range s.Queries {
		if q.CBefore <= 0 || q.Returned == 0 {
			continue
		}
		acc.Add(0, q.CBefore*float64(q.Returned), float64(q.InC))
		ok = true
	}
	floor := math.Max(s.W, float64(s.Docs()))
	if !ok {
		return sizeFallback * floor, false
	}
	size, _, _ = acc.Estimate()
	if size < floor {
		size = floor
	}
	return size, true
}

// sizeFallback is the size assumed, relative to what was seen, before a
// capture–recapture estimate exists: large, so that the first choices
// favour the terms most likely to overflow the result limit, whose top
// results are all new while the sample is small.
const sizeFallback = 10.0
