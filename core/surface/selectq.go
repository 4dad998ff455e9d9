package surface

import (
	"math"
)

// SelectOptions configures the greedy query selection.
type SelectOptions struct {
	Estimator Estimator
	Cost      Cost
	// K is the interface's result limit (0: none or unknown).
	K int
	// RankAware decides how the overlap of a limited query's top-K with the
	// downloaded documents is estimated: "auto" (default) uses the documents'
	// estimated rank positions when the interface appears to rank by a
	// query-independent order, "on" always, "off" never (overlap
	// proportional to K/N).
	RankAware string
	// NoCalibrate turns off the self-calibration of the estimates against
	// the true counts of the issued queries (see Stats.Select): only the
	// prior shrinkage and spread apply.
	NoCalibrate bool
}

// Choice is a selected query with the estimates that chose it.
type Choice struct {
	Term string
	// Matches is the estimated number of matching documents, N̂(q) = Ŝ·P(q).
	Matches float64
	// Results is the expected number of results, min(N̂, K).
	Results float64
	// Gain is the expected number of new documents, Ŝ·P_new(q) restricted to
	// the returned results.
	Gain float64
	// Cost is Cost(q) and Efficiency = Gain/Cost.
	Cost, Efficiency float64
}

// model holds what one selection round needs, computed once per round.
type model struct {
	opt      SelectOptions
	cost     Cost
	k        float64
	size     float64
	scale    float64 // Ŝ/W for independence
	zipf     ZipfFit
	useZ     bool
	qmax     int
	rankOf   []float64 // zipf: rank of a quantized weight
	bestRank []float64 // zipf: best rank within a class
	nByQ     []float64 // zipf: cached curve value per quantized weight
	static   bool
	cal      calibration
}

// calibration is the correction of log N̂ learnt from the issued queries:
// log(true/estimated) ≈ B0 + B1·v, with v the relative variance of the
// term's corrected count (see Stats.relVar), and the spread of the true
// count around the corrected estimate, a variance S2 + v in log space.
type calibration struct {
	B0, B1, S2 float64
}

// factor is the multiplier of N̂ for a term of relative variance v.
func (c calibration) factor(v float64) float64 { return math.Exp(c.B0 + c.B1*v) }

// spread is the standard deviation of log N for a term of relative
// variance v.
func (c calibration) spread(v float64) float64 { return math.Sqrt(c.S2 + v) }

// calibDecay weighs the calibration toward recent queries: the estimator's
// bias changes as the sample grows.
const calibDecay = 0.9

// Priors of the calibration, each worth a few issued queries: no bias for
// a well-sampled term (B0 = 0, weight calibPrior0); a shrinkage of log N̂ by
// calibSlope·v (weight calibPrior1, in units of v²); a spread of sigmaPrior
// beyond the sampling noise (two pseudo-observations).
//
// The shrinkage is Tweedie's formula for selection bias (Efron 2011): when
// log N̂ = log N + ε with Var ε ≈ v and the terms' true counts have a
// power-law tail (density ∝ N^−a in log N), E[log N | N̂] = log N̂ − a·v,
// whichever way the term was selected. Term counts have a ≈ 1–2 near the
// top of the vocabulary and the Poisson noise of a few occurrences exceeds
// v, hence the prior slope of 2; the issued queries refine it.
const (
	calibPrior0 = 2.0
	calibPrior1 = 0.2
	calibSlope  = -2.0
)

// quantize maps a corrected count to a rank class: exact below 64, then 64
// classes per doubling, so ranking a million terms needs a few thousand
// classes and ties are within 1%.
func quantize(w float64) int {
	if w < 64 {
		if w <= 0 {
			return 0
		}
		return int(w + 0.5)
	}
	return 64 + int(64*(math.Log2(w)-6))
}

// Model returns the estimates the next selection uses: the database size
// estimate, the Zipf fit (when the estimator is Zipf and a fit exists) and
// whether the ranking looks query-independent.
func (s *Stats) Model(opt SelectOptions) (size float64, zipf ZipfFit, static bool) {
	m := s.model(opt)
	return m.size, m.zipf, m.static
}

func (s *Stats) model(opt SelectOptions) *model {
	m := &model{opt: opt, cost: opt.Cost.orDefault(), k: float64(opt.K)}
	m.size, _ = s.Size()
	if s.W > 0 {
		m.scale = m.size / s.W
	}
	switch opt.RankAware {
	case "on":
		m.static = true
	case "off":
	default:
		frac, pairs := s.StaticRank()
		m.static = pairs >= 30 && frac >= 0.9
	}
	if opt.Estimator == Zipf {
		s.fitZipf(m)
	}
	s.calibrate(m)
	return m
}

// calibrate fits the calibration to the issued queries: a weighted ridge
// regression of log(true/estimated) on v toward the priors, older queries
// weighing less. A greedy choice among noisy estimates favours the
// overestimated ones (a term seen in a few heavily weighted documents); the
// shrinkage by v corrects for that, and the issued queries measure how much
// is left. Each query's estimate carried the calibration of its time, which
// is recomputed along the way to recover the uncalibrated estimate.
func (s *Stats) calibrate(m *model) {
	var sw, sv, svv, sy, svy, syy, svar float64
	fit := func() calibration {
		a11, a12, a22 := sw+calibPrior0, sv, svv+calibPrior1
		r1, r2 := sy, svy+calibPrior1*calibSlope
		det := a11*a22 - a12*a12
		c := calibration{B0: (r1*a22 - r2*a12) / det, B1: (a11*r2 - a12*r1) / det}
		rss := syy - 2*c.B0*sy - 2*c.B1*svy + c.B0*c.B0*sw + 2*c.B0*c.B1*sv + c.B1*c.B1*svv
		c.S2 = math.Max((rss-svar+2*sigmaPrior*sigmaPrior)/(sw+2), sigmaFloor*sigmaFloor)
		return c
	}
	if m.opt.NoCalibrate {
		m.cal = fit() // the priors alone
		return
	}
	for _, q := range s.Queries {
		if q.Pred <= 0 {
			continue
		}
		c := fit()
		v := q.RelVar
		actual := float64(q.Total)
		if q.Total < 0 {
			actual = float64(q.Returned)
		}
		if actual <= 0 {
			actual = 0.5
		}
		r := math.Log(actual/q.Pred) + math.Log(c.factor(v))
		if q.Total < 0 && q.Limited {
			// censored: only N ≥ Returned is known; the expected
			// residual beyond that bound under the current calibration
			mu, sd := c.B0+c.B1*v, c.spread(v)
			a := (r - mu) / sd
			r = mu + sd*normHazard(a)
		}
		sw, sv, svv = calibDecay*sw+1, calibDecay*sv+v, calibDecay*svv+v*v
		sy, svy, syy = calibDecay*sy+r, calibDecay*svy+v*r, calibDecay*syy+r*r
		svar = calibDecay*svar + v
	}
	m.cal = fit()
}

// normHazard is φ(a)/(1 − Φ(a)), the mean of a standard normal variable
// above a.
func normHazard(a float64) float64 {
	tail := 0.5 * math.Erfc(a/math.Sqrt2)
	if tail < 1e-300 {
		return a
	}
	return math.Exp(-a*a/2) / math.Sqrt(2*math.Pi) / tail
}

// fitZipf ranks the non-banned terms by corrected frequency (ties share the
// mean rank) and fits the curve to the issued queries with known counts.
func (s *Stats) fitZipf(m *model) {
	qmax := len(s.cls) - 1
	if qmax < 0 {
		return
	}
	cnt := make([]int32, qmax+1)
	for v, l := range s.cls {
		cnt[v] = int32(len(l))
	}
	rank := make([]float64, qmax+1)
	greater := 0.0
	for v := qmax; v >= 0; v-- {
		rank[v] = greater + (float64(cnt[v])+1)/2
		greater += float64(cnt[v])
	}
	var rs, ns []float64
	for _, q := range s.Queries {
		n := float64(q.Total)
		if q.Total < 0 {
			if q.Limited {
				continue
			}
			n = float64(q.Returned)
		}
		qt := s.opt.QueryTerms(q.Query)
		if len(qt) != 1 || n <= 0 {
			continue
		}
		id, ok := s.ids[qt[0]]
		if !ok {
			continue
		}
		rs = append(rs, rank[quantize(s.w[id])])
		ns = append(ns, n)
	}
	z, ok := FitZipf(rs, ns)
	if !ok {
		return
	}
	m.zipf, m.useZ, m.qmax, m.rankOf = z, true, qmax, rank
	m.bestRank = make([]float64, qmax+1)
	greater = 0
	for v := qmax; v >= 0; v-- {
		m.bestRank[v] = greater + 1
		greater += float64(cnt[v])
	}
	m.nByQ = make([]float64, qmax+1)
	for i := range m.nByQ {
		m.nByQ[i] = -1
	}
}

// matches is N̂(t), never below what was already seen of t.
func (s *Stats) matches(m *model, i int) float64 {
	var n float64
	if m.useZ {
		q := quantize(s.w[i])
		if q > m.qmax {
			q = m.qmax
		}
		if n = m.nByQ[q]; n < 0 {
			n = m.zipf.At(m.rankOf[q])
			m.nByQ[q] = n
		}
	} else {
		n = m.scale * s.w[i]
	}
	n *= m.cal.factor(s.relVar(int32(i)))
	if d := float64(s.df[i]); n < d {
		n = d
	}
	return n
}

// overlaps estimates, for each likely match count n of a term, how many
// of its top-K results were downloaded already: with a query-independent
// ranking, the downloaded documents containing it whose estimated rank
// quantile is within K/n; otherwise a proportional share K/n of them.
func (s *Stats) overlaps(m *model, i int, ns [3]float64) [3]float64 {
	var o, b [3]float64
	var bf [3]float32
	for j, n := range ns {
		b[j] = math.Min(m.k/n, 1)
		bf[j] = float32(b[j])
	}
	if !m.static {
		for j := range o {
			o[j] = float64(s.df[i]) * b[j]
		}
		return o
	}
	// ns ascending, so the bands are nested: b[0] ≥ b[1] ≥ b[2]. Long
	// posting lists are sampled with a stride (at most overlapSample
	// documents read), which keeps a selection cheap on huge tables.
	var c0, c1, c2, unknown int
	post := s.post[i]
	stride := 1
	if len(post) > overlapSample {
		stride = (len(post) + overlapSample - 1) / overlapSample
	}
	for k := 0; k < len(post); k += stride {
		u := s.docU[post[k]]
		switch {
		case u != u: // unknown position
			unknown++
		case u < bf[0]:
			c0++
			if u < bf[1] {
				c1++
				if u < bf[2] {
					c2++
				}
			}
		}
	}
	scale := float64(len(post)) / float64((len(post)+stride-1)/stride)
	o[0] = scale * (float64(c0) + float64(unknown)*b[0])
	o[1] = scale * (float64(c1) + float64(unknown)*b[1])
	o[2] = scale * (float64(c2) + float64(unknown)*b[2])
	return o
}

// Select is the greedy step of Algorithm 3.1: among the terms of the
// statistics table not yet issued, it returns the one with the highest
// efficiency P_new(q)/Cost(q). In document counts:
//
//   - N̂(q) = Ŝ·P(q), from the independence estimator (P(q) =
//     P(q | q1∨…∨qi−1) read from the corrected table, Ŝ by capture–recapture)
//     or the Zipf estimator;
//   - P_new(q) = P(q) − P(q1∨…∨qi−1)·P(q | q1∨…∨qi−1), i.e. N̂(q) minus the
//     downloaded documents containing q;
//   - with a result limit K only the top K results can be new: when N̂ > K
//     the new documents are K minus the downloaded ones among q's top K
//     (with a query-independent ranking, those whose estimated rank
//     quantile is within K/N̂; else a proportional share);
//   - Cost(q) = cq + cr·results + cd·new.
//
// Two refinements make the greedy choice robust to estimation noise. Each
// estimate is shrunk by its own uncertainty, the relative variance v of the
// term's corrected count (a term seen in a few heavily weighted documents
// is more likely one the maximum picked for being overestimated), and
// calibrated against the issued queries (their true counts against what was
// predicted; see calibrate). The gain is the expected gain under the
// remaining uncertainty (log-normal, variance v plus the spread the issued
// queries measure), which prefers a term safely above K to one whose
// estimate only barely reaches it. ok is false when no candidate is left.
//
// Cost: terms are visited from the largest corrected count down, class by
// class, and the visit stops once no term of a class could beat the best
// efficiency found; the downloaded documents of a term are only read for
// terms expected to exceed K, and long posting lists are sampled.
func (s *Stats) Select(opt SelectOptions) (Choice, bool) {
	m := s.model(opt)
	best := -1
	var bc Choice
	bc.Efficiency = math.Inf(-1)
	consider := func(i int, n, res, gain float64) {
		if gain < 0 {
			gain = 0
		}
		c := m.cost.Of(res, gain)
		eff := gain / c
		if best < 0 || eff > bc.Efficiency || (eff == bc.Efficiency && s.df[i] > s.df[best]) {
			best = i
			bc = Choice{Matches: n, Results: res, Gain: gain, Cost: c, Efficiency: eff}
		}
	}
	// the largest calibrated factors at the quadrature nodes over the
	// relative variances v ∈ [0, 1], for the bounds
	var fmax [3]float64
	for x := 0; x <= boundSteps; x++ {
		v := float64(x) / boundSteps
		for j, z := range ghNodes(m.cal.spread(v)) {
			fmax[j] = math.Max(fmax[j], m.cal.factor(v)*math.Exp(z))
		}
	}
	// bound reports whether a class can still beat the best choice: its
	// largest possible N̂ with every result new.
	bound := func(v int) bool {
		if best < 0 {
			return true
		}
		wu := classTop(v)
		nu := wu * m.scale
		if m.useZ {
			nu = m.zipf.At(m.bestRank[v])
		}
		g := 0.0
		for j := range fmax {
			x := math.Max(nu*fmax[j], wu)
			if m.k > 0 {
				x = math.Min(x, m.k)
			}
			g += ghW[j] * x
		}
		c := m.cost.orDefault()
		return g/(c.Q+(c.R+c.D)*g) > bc.Efficiency
	}
	for v := len(s.cls) - 1; v > 0 && bound(v); v-- {
		for _, t := range s.cls[v] {
			i := int(t)
			if s.flag[i] != 0 {
				continue
			}
			s.evaluate(m, i, consider, bc.Efficiency, best >= 0)
		}
	}
	if best < 0 {
		return Choice{}, false
	}
	bc.Term = s.terms[best]
	return bc, true
}

// Three-point Gauss–Hermite rule for the expected gain under a log-normal
// uncertainty of N̂.
var (
	ghZ = math.Sqrt(3)
	ghW = [3]float64{1.0 / 6, 2.0 / 3, 1.0 / 6}
)

func ghNodes(sig float64) [3]float64 { return [3]float64{-ghZ * sig, 0, ghZ * sig} }

// sigmaPrior is the spread of log(true/estimated) beyond the sampling noise
// assumed before the issued queries measure it (two pseudo-observations),
// sigmaFloor the least spread assumed.
const (
	sigmaPrior = 0.5
	sigmaFloor = 0.1
)

// boundSteps is the grid over v on which the bounds of Select take the
// largest calibrated factor.
const boundSteps = 16

// evaluate computes the expected gain of candidate i (Gauss–Hermite over
// the log-normal uncertainty of N̂) and offers it to consider; the overlap
// of an overflowing term is only computed when its all-new bound could beat
// the best efficiency so far.
func (s *Stats) evaluate(m *model, i int, consider func(int, float64, float64, float64), bestEff float64, haveBest bool) {
	n := s.matches(m, i)
	df := float64(s.df[i])
	sd := ghZ * m.cal.spread(s.relVar(int32(i)))
	fb := [3]float64{math.Exp(-sd), 1, math.Exp(sd)}
	var ns [3]float64
	over := false
	for j := range fb {
		ns[j] = math.Max(n*fb[j], df)
		if m.k > 0 && ns[j] > m.k {
			over = true
		}
	}
	if !over {
		g := 0.0
		for j := range ns {
			g += ghW[j] * (ns[j] - df)
		}
		consider(i, n, n, g)
		return
	}
	ub, res := 0.0, 0.0
	for j := range ns {
		ub += ghW[j] * math.Min(ns[j], m.k)
		res += ghW[j] * math.Min(ns[j], m.k)
	}
	if haveBest && ub/m.cost.Of(res, ub) <= bestEff {
		return
	}
	ov := s.overlaps(m, i, ns)
	g := 0.0
	for j, nj := range ns {
		if nj <= m.k {
			g += ghW[j] * (nj - df)
		} else {
			g += ghW[j] * math.Max(m.k-ov[j], 0)
		}
	}
	consider(i, n, res, g)
}

// overlapSample bounds the documents read to estimate one overlap.
const overlapSample = 4096

// classTop is the largest corrected count of quantize class v.
func classTop(v int) float64 {
	if v < 64 {
		return float64(v) + 0.5
	}
	return math.Exp2(float64(v+1-64)/64 + 6)
}
