package surface

import (
	"math"
	"sort"
)

// Capture–recapture over the complete answers to the adaptive policy's
// own queries.
//
// The estimators of coverage.go and loo.go leave out the complete answers
// to the terms the adaptive policy picked from the downloaded documents:
// the policy picked each for how often it occurs among them, so its count
// there (the recaptures) is inflated by the choice. When those answers are
// all there is — an interface that pages through every match (so no answer
// is cut and no size probe is due) and the policy's own queries — the fair
// estimators rest on the first query or two. Through gitweb's commit search
// (all 406 records downloaded in 16 queries, then 184 queries that
// returned only records already downloaded) they said "8.3 %, 90 % interval
// 0–25 %" at 40 queries and 4.5 % at 200.
//
// Yet a complete answer carries the evidence whatever chose its term: the
// choice looked only at the downloaded documents, so its matches among the
// others are a fair draw, and a term whose every match was downloaded
// already is one the downloads cover. Two estimates use them:
//
//   - Chao's (1984) estimate N̂ = S + f₁²/(2f₂) from the numbers of
//     documents returned by exactly one query and by two, robust to
//     documents matched more often than others (records of rare words
//     only, which the length strata do not see); it is the point.
//   - A stratified Schnabel estimate corrected for the choice: a choice in
//     proportion to the count biases it by exactly one (E[m(m−1)]/E[m] =
//     (n−1)p), so the downloaded match that made the term eligible is taken
//     off the first capture, the answer and the recaptures alike; a choice
//     of the largest count, which the policy comes closer to, can lift a
//     count by a few standard deviations, so the interval allows z·√m more
//     per query.
//
// The interval joins Chao's log-normal interval, the Schnabel estimate's
// bootstrap over the queries, exact Poisson interval and selection
// allowance, and the spread of the queries' own estimates (terms that
// occur together or apart move them alike, which the bootstrap does not
// see). The estimate is used only when at most maxCutFrac of the answers
// were cut (a cut answer holds the best ranked of its matches, which every
// cut list returns again, so they would seem all there is) and the fair
// estimators rest on
// fewer than minLOORecaptures recaptures (EstimateCoverage).

// EstimatorAdaptive names the estimator over the complete answers to the
// policy's own queries; it is followed by "/complete".
const EstimatorAdaptive = "chao1+adaptive-schnabel"

// maxCutFrac is the largest fraction of cut answers the estimate over the
// complete answers allows (an interface that pages through every match
// can still be taken for one that cuts: gitweb's answers of all 406
// records, twice the same size, looked like a limit of 406).
var maxCutFrac = 0.1

// cut reports whether the answer was cut by the result limit k (0:
// unknown) or the harvest found it limited.
func (q *queryCapture) cut(k int) bool { return q.limited || (k > 0 && len(q.docs) >= k) }

// adaptiveRow is one complete answer by stratum: nᵢ₋₁,ₛ·Tᵢ,ₛ and mᵢ,ₛ with
// the selection correction taken off, and mᵢ,ₛ less the allowance.
type adaptiveRow struct {
	q          int
	nT, m, low []float64
	sumM       float64
}

// estimateAdaptive is the estimate over the answers not cut (k the result
// limit, 0 unknown) when few were, the Schnabel part stratified by document
// length as loo.go is (strata merged until each holds
// minStratumRecaptures recaptures); ok is false when an answer was cut or
// reported its total, or the answers hold fewer than minLOORecaptures
// corrected recaptures over minLOOQueries queries.
func (s *Stats) estimateAdaptive(k, strata int, floor float64) (CoverageEstimate, bool) {
	n := len(s.docTerms)
	qs, ok := s.caps.completeAnswers(k)
	if !ok {
		return CoverageEstimate{}, false
	}
	lens := s.docLens()
	rows, got := buildStrata(n, strata, func(ns int) ([]adaptiveRow, []float64, int) {
		return s.caps.adaptiveRows(ns, qs, lens)
	})
	matched := 0
	var recaptures float64
	for _, r := range rows {
		if r.sumM > 0 {
			matched++
		}
		recaptures += r.sumM
	}
	if recaptures < minLOORecaptures || matched < minLOOQueries {
		return CoverageEstimate{}, false
	}
	// estimate is the stratified estimate with query weights w (nil: 1);
	// low selects the recaptures less the selection allowance
	estimate := func(w []float64, low bool) (size, relVar float64) {
		acc := newSchnabel(got)
		for _, r := range rows {
			wi := 1.0
			if w != nil {
				wi = w[r.q]
			}
			m := r.m
			if low {
				m = r.low
			}
			acc.AddRow(wi, r.nT, m)
		}
		size, _, relVar = acc.Estimate()
		return size, relVar
	}
	raw, relVar := estimate(nil, false)
	size := math.Max(raw, floor)
	boot := s.bootstrap(bootstrapRuns, floor, func(w []float64) (float64, bool) {
		sz, _ := estimate(w, false)
		return sz, sz > 0
	})
	lo, hi := schnabelInterval(boot, size, raw, recaptures, relVar, floor)
	// the selection allowance: as if every chosen term's count had been
	// lifted z standard deviations by the choice
	if sl, _ := estimate(nil, true); sl > hi {
		hi = sl
	}
	lo, hi = widenBySpread(rows, lo, hi, floor)
	// Chao's estimate from the documents returned once and twice: the
	// point, joined with the interval above
	if c, clo, chi, ok := s.caps.chao1(n, k, coverageZ); ok {
		size = math.Max(c, floor)
		lo = math.Max(floor, math.Min(lo, clo))
		hi = math.Max(hi, chi)
		lo, hi = math.Min(lo, size), math.Max(hi, size)
	}
	return sizeEstimate(n, size, lo, hi, EstimatorAdaptive+"/"+totalNames[totalComplete], len(rows), got), true
}

// completeAnswers are the queries with a keyword, sent after a document
// was downloaded, whose answers were not cut at the result limit k (0:
// unknown); ok is false when an answer reported its total (the fair
// estimators hold) or more than maxCutFrac of the answers were cut: a cut
// answer returns the best ranked of its matches, which every cut list
// returns again, so the capture frequencies would say the few best ranked
// are all there is.
func (c *captureLog) completeAnswers(k int) (qs []int, ok bool) {
	answered, cut := 0, 0
	for qi := range c.queries {
		q := &c.queries[qi]
		if q.reported >= 0 {
			return nil, false
		}
		if len(q.docs) == 0 {
			continue
		}
		answered++
		if q.cut(k) {
			cut++
			continue
		}
		if q.before > 0 && len(q.terms) > 0 {
			qs = append(qs, qi)
		}
	}
	return qs, float64(cut) <= maxCutFrac*float64(answered)
}

// adaptiveRows are the rows of the complete answers qs in ns length strata
// (lens: the documents' lengths), the corrected recaptures per stratum
// and the strata used.
func (c *captureLog) adaptiveRows(ns int, qs []int, lens []int) ([]adaptiveRow, []float64, int) {
	cuts := lengthCuts(lens, ns)
	stratum := func(l int) int { return sort.SearchInts(cuts, l+1) }
	ns = len(cuts) + 1
	per := make([]float64, ns)
	rows := make([]adaptiveRow, 0, len(qs))
	for _, qi := range qs {
		q := &c.queries[qi]
		before := make([]float64, ns)
		for d := 0; d < q.before; d++ {
			before[stratum(lens[d])]++
		}
		ret := make([]float64, ns)
		known := make([]float64, ns)
		m := 0.0
		for _, d := range q.docs {
			st := stratum(lens[d])
			ret[st]++
			if int(d) < q.before {
				known[st]++
				m++
			}
		}
		// a policy's choice: take off the downloaded match that made
		// the term eligible, from the first capture, the answer and
		// the recaptures alike, shared out over the strata as the
		// recaptures are
		sel := q.fromDocs && !q.probe && m > 0
		r := adaptiveRow{q: qi, nT: make([]float64, ns), m: make([]float64, ns), low: make([]float64, ns)}
		for j := 0; j < ns; j++ {
			corr := 0.0
			if sel {
				corr = known[j] / m
			}
			r.nT[j] = (before[j] - corr) * (ret[j] - corr)
			r.m[j] = known[j] - corr
			r.low[j] = r.m[j]
			if sel {
				r.low[j] = math.Max(0, r.m[j]-coverageZ*math.Sqrt(m)*known[j]/m)
			}
			r.sumM += r.m[j]
			per[j] += r.m[j]
		}
		rows = append(rows, r)
	}
	return rows, per, ns
}

// widenBySpread widens [lo, hi] (never below floor) to the spread of the
// rows' own estimates, weighed by their recaptures: terms that occur
// together or apart (which the model, every term independent of the
// others, ignores) move each query's estimate alike, so the bootstrap over
// queries does not see that bias, but the queries' disagreement bounds it.
func widenBySpread(rows []adaptiveRow, lo, hi, floor float64) (float64, float64) {
	alpha := (1 - CoverageLevel) / 2
	type lp struct{ size, w float64 }
	var lps []lp
	var wsum float64
	for _, r := range rows {
		var nt float64
		for _, x := range r.nT {
			nt += x
		}
		if r.sumM > 0 {
			lps = append(lps, lp{nt / r.sumM, r.sumM})
			wsum += r.sumM
		}
	}
	sort.Slice(lps, func(i, j int) bool { return lps[i].size < lps[j].size })
	var acc float64
	for _, x := range lps {
		acc += x.w
		if acc >= alpha*wsum {
			lo = math.Max(floor, math.Min(lo, x.size))
			break
		}
	}
	acc = 0
	for i := len(lps) - 1; i >= 0; i-- {
		acc += lps[i].w
		if acc >= alpha*wsum {
			hi = math.Max(hi, lps[i].size)
			break
		}
	}
	return lo, hi
}

// chao1 is Chao's (1984) estimate of the size from the numbers of
// documents returned by exactly one answer not cut (f1) and by two (f2), robust to
// documents that are matched more or less often than others, with the
// log-normal interval of Chao (1987) at the normal quantile z; ok is false
// without any document returned twice.
func (c *captureLog) chao1(n, k int, z float64) (size, lo, hi float64, ok bool) {
	cnt := make([]int, n)
	for _, q := range c.queries {
		if q.cut(k) {
			continue
		}
		for _, d := range q.docs {
			cnt[d]++
		}
	}
	var f1, f2 float64
	for _, x := range cnt {
		switch x {
		case 1:
			f1++
		case 2:
			f2++
		}
	}
	if f2 == 0 {
		return 0, 0, 0, false
	}
	s := float64(n)
	r := f1 / f2
	extra := f1 * r / 2
	if extra <= 0 {
		return s, s, s, true
	}
	v := f2 * (r*r*r*r/4 + r*r*r + r*r/2)
	w := math.Exp(z * math.Sqrt(math.Log(1+v/(extra*extra))))
	return s + extra, s + extra/w, s + extra*w, true
}
