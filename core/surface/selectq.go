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
	opt    SelectOptions
	cost   Cost
	k      float64
	size   float64
	scale  float64 // Ŝ/W for independence
	zipf   ZipfFit
	useZ   bool
	qmax   int
	rankOf []float64 // zipf: rank of a quantized weight
	nByQ   []float64 // zipf: cached curve value per quantized weight
	static bool
	calib  [calibBuckets]float64 // multiplier of N̂ by evidence (df bucket)
}

const calibBuckets = 6

// calibBucket groups terms by how many downloaded documents contain them:
// 1, 2, 3–4, 5–8, 9–16, 17+.
func calibBucket(df int32) int {
	switch {
	case df <= 1:
		return 0
	case df == 2:
		return 1
	case df <= 4:
		return 2
	case df <= 8:
		return 3
	case df <= 16:
		return 4
	}
	return 5
}

func quantize(w float64) int {
	if w <= 0 {
		return 0
	}
	return int(w + 0.5)
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
	var sum [calibBuckets]float64
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
			b := calibBucket(int32(q.DFBefore))
			sum[b] += math.Log(actual / q.Pred)
			cnt[b]++
		}
	}
	for b := range m.calib {
		m.calib[b] = math.Exp(sum[b] / (cnt[b] + 2))
	}
}

// fitZipf ranks the non-banned terms by corrected frequency (ties share the
// mean rank) and fits the curve to the issued queries with known counts.
func (s *Stats) fitZipf(m *model) {
	qmax := 0
	for i, f := range s.flag {
		if f&flagBanned == 0 {
			if q := quantize(s.w[i]); q > qmax {
				qmax = q
			}
		}
	}
	cnt := make([]int32, qmax+1)
	for i, f := range s.flag {
		if f&flagBanned == 0 {
			cnt[quantize(s.w[i])]++
		}
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
	m.nByQ = make([]float64, qmax+1)
	for i := range m.nByQ {
		m.nByQ[i] = -1
	}
}

// matches is N̂(t), never below what was already seen of t.
var devTrueN func(string) float64

func (s *Stats) matches(m *model, i int) float64 {
	var n float64
	if devTrueN != nil {
		return devTrueN(s.terms[i])
	}
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
	n *= m.calib[calibBucket(s.df[i])]
	if d := float64(s.df[i]); n < d {
		n = d
	}
	return n
}

// overlap estimates how many of the top-K results of an overflowing term
// (N̂ > K) were downloaded already.
func (s *Stats) overlap(m *model, i int, n float64) float64 {
	b := m.k / n
	if !m.static {
		return float64(s.df[i]) * b
	}
	var o float64
	bf := float32(b)
	for _, d := range s.post[i] {
		u := s.docU[d]
		switch {
		case u < bf:
			o++
		case u != u: // unknown position
			o += b
		}
	}
	return o
}

// Select is the greedy step of Algorithm 3.1: among the terms of the
// statistics table not yet issued, it returns the one with the highest
// efficiency P_new(q)/Cost(q), where P_new(q) = P(q) − P(q1∨…∨qi−1)·
// P(q | q1∨…∨qi−1) counts the matches not downloaded yet; for a result-limited
// interface only the top K results can be new. ok is false when no candidate
// is left.
//
// The scan is linear in the table and cheap per term; only the terms whose
// estimated matches exceed K need their downloaded documents inspected, and
// those are few (their postings add up to at most the downloaded text).
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
	var over []int32
	var overN []float64
	for i, f := range s.flag {
		if f != 0 {
			continue
		}
		n := s.matches(m, i)
		if m.k > 0 && n > m.k {
			over = append(over, int32(i))
			overN = append(overN, n)
			continue
		}
		consider(i, n, n, n-float64(s.df[i]))
	}
	for j, i := range over {
		n := overN[j]
		// upper bound first: all K results new
		if best >= 0 && m.k/m.cost.Of(m.k, m.k) <= bc.Efficiency {
			continue
		}
		consider(int(i), n, m.k, m.k-s.overlap(m, int(i), n))
	}
	if best < 0 {
		return Choice{}, false
	}
	bc.Term = s.terms[best]
	return bc, true
}
