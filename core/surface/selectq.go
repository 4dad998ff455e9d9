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
	// the true counts of the issued queries (see Stats.Select).
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
	calib    [calibBuckets]float64 // multiplier of N̂ by evidence bucket
	sigma    [calibBuckets]float64 // spread of log(true/estimated) by bucket
}

const calibBuckets = 8

// calibDecay weighs the calibration toward recent queries: the estimator's
// bias changes as the sample grows.
const calibDecay = 0.9

// calibBucket groups terms by the evidence behind their estimate: how many
// downloaded documents contain them (up to 4, more) and how much the
// correction for limited queries scaled them up (w/df below 1.5, 4, 16,
// above).
func calibBucket(df int32, w float64) int {
	b := 0
	if df > 4 {
		b = 4
	}
	r := w / math.Max(float64(df), 1)
	switch {
	case r < 1.5:
	case r < 4:
		b++
	case r < 16:
		b += 2
	default:
		b += 3
	}
	return b
}

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

// calibrate learns, per evidence bucket, how the estimates of the issued
// queries compared with their true counts: the multiplier is the shrunk
// geometric mean of true/estimated (two pseudo-observations of 1). A greedy
// choice among noisy estimates favours the overestimated ones (a term seen
// once in a sample that stands for N/k documents per document); the issued
// queries measure that bias, and the next choices correct for it.
func (s *Stats) calibrate(m *model) {
	var sum, sq [calibBuckets]float64
	var cnt [calibBuckets]float64
	if !m.opt.NoCalibrate {
		for _, q := range s.Queries {
			if q.Pred <= 0 {
				continue
			}
			actual := float64(q.Total)
			if q.Total < 0 {
				if q.Limited {
					continue
				}
				actual = float64(q.Returned)
			}
			if actual <= 0 {
				actual = 0.5
			}
			b := calibBucket(int32(q.DFBefore), q.WBefore)
			r := math.Log(actual / q.Pred)
			// older observations of the bucket weigh less
			sum[b] *= calibDecay
			sq[b] *= calibDecay
			cnt[b] *= calibDecay
			sum[b] += r
			sq[b] += r * r
			cnt[b]++
		}
	}
	for b := range m.calib {
		mean := sum[b] / (cnt[b] + 2)
		m.calib[b] = math.Exp(mean)
		v := (sq[b] - 2*mean*sum[b] + cnt[b]*mean*mean + 2*sigmaPrior*sigmaPrior) / (cnt[b] + 2)
		m.sigma[b] = math.Sqrt(math.Max(v, 0))
	}
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
	n *= m.calib[calibBucket(s.df[i], s.w[i])]
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
// Two refinements make the greedy choice robust to estimation noise. The
// estimates are calibrated against the issued queries (their true counts
// against what was predicted, per evidence bucket), and the gain is the
// expected gain under the remaining uncertainty (log-normal, spread measured
// the same way), which prefers a term safely above K to one whose estimate
// only barely reaches it. ok is false when no candidate is left.
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
	// log-normal spread of N̂ per evidence bucket, as factors at the
	// quadrature nodes, and the largest factors for the bounds
	var fac [calibBuckets][3]float64
	var fmax [3]float64
	cmax := 0.0
	for b := range fac {
		for j, z := range ghNodes(m.sigma[b]) {
			fac[b][j] = math.Exp(z)
			fmax[j] = math.Max(fmax[j], fac[b][j])
		}
		cmax = math.Max(cmax, m.calib[b])
	}
	// bound reports whether a class can still beat the best choice: its
	// largest possible N̂ with every result new.
	bound := func(v int) bool {
		if best < 0 {
			return true
		}
		wu := classTop(v)
		nu := wu * math.Max(m.scale*cmax, 1)
		if m.useZ {
			nu = math.Max(m.zipf.At(m.bestRank[v])*cmax, wu)
		}
		g := 0.0
		for j := range fmax {
			x := nu * fmax[j]
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
			s.evaluate(m, i, &fac[calibBucket(s.df[i], s.w[i])], consider, bc.Efficiency, best >= 0)
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

// sigmaPrior is the spread of log(true/estimated) assumed before the issued
// queries measure it (two pseudo-observations).
const sigmaPrior = 0.5

// evaluate computes the expected gain of candidate i (Gauss–Hermite over
// the log-normal uncertainty of N̂) and offers it to consider; the overlap
// of an overflowing term is only computed when its all-new bound could beat
// the best efficiency so far.
func (s *Stats) evaluate(m *model, i int, fb *[3]float64, consider func(int, float64, float64, float64), bestEff float64, haveBest bool) {
	n := s.matches(m, i)
	df := float64(s.df[i])
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
