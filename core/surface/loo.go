package surface

import (
	"math"
	"math/rand"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Leave-one-out capture–recapture over the independent queries.
//
// The Schnabel estimator of coverage.go compares each query's matches with
// the documents downloaded before it. Two things make that weak when the
// interface hides its totals: the adaptive policy picks its terms from the
// downloaded documents (its complete answers are left out, its cut answers
// need rank estimates of their totals), and the few queries whose choice
// did not look at the downloads (the size probes, the generic and random
// policies' words) are compared only with what was downloaded before them,
// a small first capture early in a harvest, so they hold few recaptures and
// the estimate rests on a handful of documents.
//
// A query chosen without looking at the downloaded documents is as good a
// second capture against everything the other queries downloaded, before
// or after it: the documents returned by the other queries (D₋ᵢ) are the
// first capture and its matches among them, counted from their text, the
// recaptures. So every independent query i with a known total Tᵢ adds
// |D₋ᵢ|·Tᵢ and mᵢ = |Mᵢ ∩ D₋ᵢ|, stratified by the documents' number of
// distinct terms as in coverage.go (heterogeneous catchability: a long
// document matches more words); N̂ = Σ_s Σ_i |D₋ᵢ,s|·Tᵢ,s / (Σ_i mᵢ,s + 1).
// An old probe thus keeps gaining recaptures as the harvest goes on,
// instead of keeping the few it had when it was sent. Strata are merged
// until each holds minStratumRecaptures recaptures, so that no stratum's
// estimate rests on a few documents.
//
// The estimator is named EstimatorLOO. When the interface hides its totals
// and its recaptures reach minLOORecaptures over at least minLOOQueries
// queries, it replaces the Schnabel estimate, and its interval is widened
// to hold the Schnabel interval too (both rest on independent captures;
// their spread shows that model's bias). With reported totals every query
// is a full capture and the Schnabel estimate stays. When neither has
// minRecaptures recaptures, the estimate is still reported, with the wide
// exact Poisson interval of fewRecaptures, rather than none. The harvest
// keeps probing until minLOOQueries probes came back complete (probe.go).

// EstimatorLOO names the leave-one-out estimator over the independent
// queries; like EstimatorSchnabel it is followed by "/" and the sources of
// the totals.
const EstimatorLOO = "loo-schnabel"

// FewSuffix is appended to an estimator's name when the estimate rests on
// fewer than minRecaptures recaptures: its interval is the exact Poisson
// interval of the recaptures, open above when there are none.
const FewSuffix = "/few-recaptures"

const (
	minLOORecaptures     = 30
	minLOOQueries        = 5
	minStratumRecaptures = 30
)

// looRow is one independent query: |D₋ᵢ,s|·Tᵢ,s and mᵢ,s per stratum.
type looRow struct {
	q         int
	nT, recap []float64
	sumNT     float64
}

// independent reports whether query q was chosen without looking at the
// downloaded documents.
func (q *queryCapture) independent() bool { return q.probe || !q.fromDocs }

// estimateLOO is the leave-one-out estimate over the independent queries
// whose totals are known (tot, src from captureLog.totals), with at most
// strata strata; ok is false when fewer than two such queries matched a
// downloaded document.
func (s *Stats) estimateLOO(tot []float64, src []totalSource, strata int, floor float64) (CoverageEstimate, bool) {
	n := len(s.docTerms)
	qs := s.looQueries(tot, src)
	if len(qs) < 2 {
		return CoverageEstimate{}, false
	}
	only, lens := s.caps.soleQuery(n), s.docLens()
	rows, got := buildStrata(n, strata, func(ns int) ([]looRow, []float64, int) {
		return s.looRows(ns, qs, only, lens, tot)
	})
	estimate := func(w []float64) (size, recaptures, relVar float64) {
		acc := newSchnabel(got)
		for _, r := range rows {
			wi := 1.0
			if w != nil {
				wi = w[r.q]
			}
			acc.AddRow(wi, r.nT, r.recap)
		}
		return acc.Estimate()
	}
	raw, recaptures, relVar := estimate(nil)
	var sumNT float64
	used := make([]int, len(rows))
	for i, r := range rows {
		sumNT += r.sumNT
		used[i] = r.q
	}
	if sumNT <= 0 {
		return CoverageEstimate{}, false
	}
	name := EstimatorLOO + "/" + sourceNames(src, used)
	if recaptures < minRecaptures {
		return fewRecaptures(n, sumNT, recaptures, floor, name, len(rows)), true
	}
	size := math.Max(raw, floor)
	boot := s.bootstrap(bootstrapRuns, floor, func(w []float64) (float64, bool) {
		sz, m, _ := estimate(w)
		return sz, m > 0
	})
	lo, hi := schnabelInterval(boot, size, raw, recaptures, relVar, floor)
	e := sizeEstimate(n, size, lo, hi, name, len(rows), got)
	return e, recaptures >= minLOORecaptures && len(rows) >= minLOOQueries
}

// looQuery is an independent query of known total and the downloaded
// documents that match it.
type looQuery struct {
	q       int
	matches []int32
}

// looQueries are the independent queries of known total (tot, src) that
// have a keyword, with their matches among the downloaded documents.
func (s *Stats) looQueries(tot []float64, src []totalSource) []looQuery {
	var qs []looQuery
	for qi := range s.caps.queries {
		q := &s.caps.queries[qi]
		if !q.independent() || len(q.terms) == 0 || (src[qi] != totalReported && src[qi] != totalComplete && src[qi] != totalRank) || tot[qi] <= 0 {
			continue
		}
		var ms []int32
		if src[qi] == totalComplete {
			// a complete answer is its match set: the interface's own
			// matching (substrings, stems, fields the records do not
			// show) decides, not the records' text
			ms = q.docs
		} else {
			for _, d := range s.post[q.terms[0]] {
				if s.containsAll(d, q.terms[1:]) {
					ms = append(ms, d)
				}
			}
		}
		qs = append(qs, looQuery{qi, ms})
	}
	return qs
}

// soleQuery returns, for each of the n documents, the one query that
// returned it (−1: several, −2: none).
func (c *captureLog) soleQuery(n int) []int32 {
	only := make([]int32, n)
	for d := range only {
		only[d] = -2
	}
	for qi, q := range c.queries {
		for _, d := range q.docs {
			switch only[d] {
			case -2:
				only[d] = int32(qi)
			case int32(qi), -1:
			default:
				only[d] = -1
			}
		}
	}
	return only
}

// looRows are the rows of qs in ns length strata (lens: the documents'
// lengths, only: soleQuery), the recaptures per stratum and the strata
// used: each query against the documents the others returned.
func (s *Stats) looRows(ns int, qs []looQuery, only []int32, lens []int, tot []float64) ([]looRow, []float64, int) {
	cuts := lengthCuts(lens, ns)
	stratum := func(l int) int { return sort.SearchInts(cuts, l+1) }
	ns = len(cuts) + 1
	size := make([]float64, ns)
	for d := range lens {
		size[stratum(lens[d])]++
	}
	perStratum := make([]float64, ns)
	rows := make([]looRow, 0, len(qs))
	for _, x := range qs {
		q := &s.caps.queries[x.q]
		r := looRow{q: x.q, nT: make([]float64, ns), recap: make([]float64, ns)}
		mine := make([]float64, ns) // documents only this query returned
		share := make([]float64, ns)
		for _, d := range q.docs {
			st := stratum(lens[d])
			share[st] += 1 / float64(len(q.docs))
			if only[d] == int32(x.q) {
				mine[st]++
			}
		}
		for _, d := range x.matches {
			if only[d] != int32(x.q) {
				r.recap[stratum(lens[d])]++
			}
		}
		for j := 0; j < ns; j++ {
			r.nT[j] = (size[j] - mine[j]) * tot[x.q] * share[j]
			r.sumNT += r.nT[j]
			perStratum[j] += r.recap[j]
		}
		rows = append(rows, r)
	}
	return rows, perStratum, ns
}

// docLens are the downloaded documents' numbers of distinct terms.
func (s *Stats) docLens() []int {
	lens := make([]int, len(s.docTerms))
	for d := range s.docTerms {
		lens[d] = len(s.docTerms[d])
	}
	return lens
}

// sourceNames joins the sources of the given queries' totals
// ("reported", "complete", "rank") with "+".
func sourceNames(src []totalSource, queries []int) string {
	seen := map[totalSource]bool{}
	for _, q := range queries {
		seen[src[q]] = true
	}
	name, sep := "", ""
	for _, t := range []totalSource{totalReported, totalComplete, totalRank} {
		if seen[t] {
			name += sep + totalNames[t]
			sep = "+"
		}
	}
	return name
}

// fewRecaptures is the estimate from m < minRecaptures recaptures of a
// first-times-second capture sum sumNT (Σ nᵢ·Tᵢ): Chapman's point estimate
// sumNT/(m+1) with the exact Poisson interval of the expected recaptures
// λ, the size being sumNT/λ: [sumNT/λ_high, sumNT/λ_low], open above (a
// coverage interval down to 0) when m = 0. Wide, but it holds what the
// data say, where "none" would say nothing.
func fewRecaptures(docs int, sumNT, m, floor float64, name string, queries int) CoverageEstimate {
	mlo, mhi := poissonInterval(m, CoverageLevel)
	size := math.Max(floor, sumNT/(m+1))
	lo := math.Min(size, math.Max(floor, sumNT/mhi))
	hi := math.Inf(1)
	if mlo > 0 {
		hi = math.Max(size, sumNT/mlo)
	}
	return sizeEstimate(docs, size, lo, hi, name+FewSuffix, queries, 1)
}

// buildStrata calls build with the most length strata the documents allow
// (one per minStratumDocs, at most strata), merging strata while one has
// fewer than minStratumRecaptures recaptures. build returns its rows, the
// recaptures per stratum and the strata it used; buildStrata returns the
// rows and strata of the last call.
func buildStrata[R any](n, strata int, build func(ns int) ([]R, []float64, int)) ([]R, int) {
	ns := min(n/minStratumDocs, strata)
	rows, per, got := build(ns)
	for ns > 1 {
		thin := false
		for _, m := range per {
			thin = thin || m < minStratumRecaptures
		}
		if !thin {
			break
		}
		ns--
		rows, per, got = build(ns)
	}
	return rows, got
}

// bootstrap reruns est with Poisson(1) query weights runs times
// (seeded by the number of queries, so an estimate is reproducible) and
// returns the sorted sizes of the runs est accepts, none below floor.
func (s *Stats) bootstrap(runs int, floor float64, est func(w []float64) (float64, bool)) []float64 {
	rng := rand.New(rand.NewSource(int64(len(s.caps.queries))))
	pois := distuv.Poisson{Lambda: 1, Src: rng}
	w := make([]float64, len(s.caps.queries))
	boot := make([]float64, 0, runs)
	for b := 0; b < runs; b++ {
		for i := range w {
			w[i] = pois.Rand()
		}
		if sz, ok := est(w); ok {
			boot = append(boot, math.Max(sz, floor))
		}
	}
	sort.Float64s(boot)
	return boot
}
