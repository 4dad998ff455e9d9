package surface

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Coverage estimation: how much of the database the downloaded documents
// are, with an interval and the name of the estimator.
//
// Every issued query is a capture–recapture experiment. Its full match set
// M_i (T_i documents) is the second capture, the documents downloaded before
// it (n_{i−1}) the first, and the downloaded documents that match it
// (m_i = |M_i ∩ D_{i−1}|, computed from their text) the recaptures; summed
// over the queries this is Schnabel's estimator N̂ = Σ n_{i−1}·T_i / (Σ m_i + 1)
// (the +1 is Chapman's). Using the full match set rather than the returned
// top k matters: a result-limited query returns the best ranked of its
// matches, and the downloaded documents are the best ranked of theirs, so
// the overlap of the returned results with what was downloaded is far
// larger than the overlap of the matches. The estimate the harvest used to
// report (Stats.Size, still the adaptive policy's working estimate) took
// that overlap, and the result counts it assumed for cut answers whose
// totals were hidden, at face value: it read 81 % coverage where 11 % was
// true.
//
// T_i is the reported total when the interface shows it, the number
// returned when the answer was complete (not cut by the result limit), and
// otherwise, under a query-independent ranking (Stats.StaticRank), an
// estimate from rank positions (rankFit), used only when the lists of known
// total, estimated the same way, validate it. A cut answer without a total
// is left out; when the interface hides its totals and cuts most answers,
// the harvest spends a few size probes (probe.go) on complete answers.
// Complete answers to terms the adaptive policy picked for their frequency
// among the downloaded documents are left out too: their few matches are
// mostly the ones that got them picked.
//
// A rank total is only used where nothing the list shows contradicts it:
// a cut list proves at least its returned documents plus the downloaded
// ones that match it by text but were not returned (minTotal), and under
// the ranking its documents lie above the cut-off quantile n/T (beyond).
// A relevance order (fossil's search orders by a score, and only ties fall
// back to the date) breaks both for the lists it reorders; those get no
// total, and when the lists that contradict the fit are as many as the
// lists of known total that confirm it, no list gets one. The interval
// carries the standard error of the fit's scale (the median of its
// validations) on the share of the estimate that rests on rank totals.
// The recaptures are counted from the downloaded documents' text, checked
// against the answers themselves (textRecall, for result pages that show
// snippets).
//
// Capture–recapture assumes every document is as likely to be matched; it is
// not: a document with many distinct terms matches more queries, so it is
// both more likely downloaded and more likely matched again, m_i is too large
// and N̂ too small (the heterogeneous-capture bias, model M_h). The estimator
// is therefore stratified by the documents' number of distinct terms (up to
// eight strata of at least fifty downloaded documents, quantiles of the
// downloaded ones): N̂ = Σ_s Σ_i n_{i−1,s}·T_{i,s} / (Σ_i m_{i,s} + 1), with
// T_{i,s} the query's total shared out as its returned documents are (for a
// top-k list under a query-independent ranking those are a random sample of
// its matches). Heterogeneity the length does not explain (terms that occur
// together, such as a generic word list's conversational words) still
// biases the estimate toward too high a coverage.
//
// The interval joins a percentile bootstrap over the queries, which are the
// sampling units (it carries both the noise of the recaptures and the
// spread between queries that correlate with the downloaded set more or
// less than others), the exact Poisson interval of the total recaptures and
// the Poisson error of each stratum; an estimate below what the data prove
// (the downloaded count, a reported total) widens it by as much above.
//
// A complete answer is its own match set: its recaptures are its documents
// downloaded before it, not the downloaded documents its terms match, since
// the interface's matching (gitweb greps substrings: "16" finds "165")
// decides what it returns. When the fair estimators (this one and loo.go)
// rest on fewer than minLOORecaptures recaptures, the complete answers to
// the adaptive policy's own choices, corrected for the choice, take over
// if they hold enough (adaptive.go).

// CoverageLevel is the nominal level of the coverage interval.
const CoverageLevel = 0.90

// Estimator names of CoverageEstimate.
const (
	// EstimatorExact: the interface reported the size of the database.
	EstimatorExact = "exact"
	// EstimatorSchnabel: stratified Schnabel capture–recapture over the
	// queries' match sets; the suffix says where the totals came from.
	EstimatorSchnabel = "stratified-schnabel"
	// EstimatorNone: not enough recaptures yet.
	EstimatorNone = "none"
)

// CoverageEstimate is an estimate of the database size and of the fraction
// of it downloaded, with a CoverageLevel interval. Size fields are NaN when
// there is no estimate (Estimator "none").
type CoverageEstimate struct {
	Docs                    int
	Size, SizeLow, SizeHigh float64
	Coverage, Low, High     float64
	// Estimator names the method: "exact", "stratified-schnabel/",
	// "loo-schnabel/" or "chao1+adaptive-schnabel/" followed by the source
	// of the query totals ("reported", "complete", "rank" or a "+"-joined
	// mix), with FewSuffix when recaptures are few, or "none".
	Estimator string
	// Queries is the number of queries the estimate used, Strata the
	// number of document strata.
	Queries, Strata int
}

// Valid reports whether an estimate exists.
func (e CoverageEstimate) Valid() bool { return !math.IsNaN(e.Coverage) }

// noEstimate is the estimate before enough data.
func noEstimate(docs int) CoverageEstimate {
	nan := math.NaN()
	return CoverageEstimate{Docs: docs, Size: nan, SizeLow: nan, SizeHigh: nan, Coverage: nan, Low: nan, High: nan, Estimator: EstimatorNone}
}

// ExactCoverage is the estimate when the database size is known.
func ExactCoverage(docs, size int) CoverageEstimate {
	c := math.Min(1, float64(docs)/float64(size))
	s := float64(size)
	return CoverageEstimate{Docs: docs, Size: s, SizeLow: s, SizeHigh: s, Coverage: c, Low: c, High: c, Estimator: EstimatorExact}
}

// totalSource says where a query's total came from.
type totalSource uint8

const (
	totalNone     totalSource = iota
	totalReported             // shown by the interface
	totalComplete             // answer not limited: every match returned
	totalRank                 // estimated from rank positions
)

var totalNames = [...]string{"", "reported", "complete", "rank"}

// lenCount is a histogram bin: documents with len distinct terms.
type lenCount struct{ len, n int32 }

// queryCapture is what the estimators keep of one issued query.
type queryCapture struct {
	before   int  // documents downloaded before the query
	probe    bool // a size probe (probe.go)
	fromDocs bool // chosen from the downloaded documents (Proposal.FromDocs)
	reported int  // reported total, -1 hidden
	limited  bool // the answer was cut by the result limit
	docs     []int32
	terms    []int32    // the query's term ids (its matches: documents holding all)
	known    []lenCount // downloaded before and matching, by length
	returned []lenCount // returned, by length
	// the downloaded documents it returned (certain matches, whatever
	// their text says), by length; how many of them match by text; and
	// the text matches it did not return, by length
	seen       []lenCount
	seenText   int
	knownOther []lenCount
}

// Text recall. The recaptures of a query are counted from the text of the
// downloaded documents, which is what the result pages showed of them: a
// snippet (fossil shows the part of a check-in comment around the match) or
// a title may lack words the engine indexes. The downloaded documents a
// query returned are matches whatever their text says, so the share of them
// that match by text measures the text's recall for that query. Below
// minTextRecall the text does not tell which downloaded documents match and
// the query is no capture (counting only the text matches would inflate the
// size by the inverse of the recall); above it, the text matches it did not
// return are scaled up by it.
const minTextRecall = 0.8

// textRecall is the share of the downloaded documents q returned that match
// it by text (1 when it returned none).
func (q *queryCapture) textRecall() float64 {
	n := 0
	for _, b := range q.seen {
		n += int(b.n)
	}
	if n == 0 {
		return 1
	}
	return float64(q.seenText) / float64(n)
}

// minTotal is the fewest matches q's answer proves: what it returned, and,
// when it was cut and the text identifies its matches, the downloaded
// documents that match by text but ranked below the cut.
func (q *queryCapture) minTotal() float64 {
	n := float64(len(q.docs))
	if !q.limited || q.textRecall() < minTextRecall {
		return n
	}
	for _, b := range q.knownOther {
		n += float64(b.n)
	}
	return n
}

// captureLog holds the per-query captures.
type captureLog struct {
	queries []queryCapture
	// rankSE is the standard error of the log scale of the rank totals of
	// the last unweighted fit (the median of its validations), 0 without
	// rank totals
	rankSE float64
}

// observe records an issued query and sets iq.DocsBefore and iq.Known.
func (c *captureLog) observe(s *Stats, iq *IssuedQuery, res []Result, ids []int32) {
	iq.DocsBefore = len(s.docTerms) - iq.New
	q := queryCapture{before: iq.DocsBefore, reported: iq.Total, limited: iq.Limited, docs: make([]int32, len(res)), terms: ids}
	fresh := make(map[int32]bool, iq.New)
	ret := map[int32]int32{}
	for i, r := range res {
		q.docs[i] = r.Doc
		ret[int32(len(s.docTerms[r.Doc]))]++
		if r.Fresh {
			fresh[r.Doc] = true
		}
	}
	q.returned = histogram(ret)
	known := map[int32]int32{}
	other := map[int32]int32{}
	isKnown := map[int32]bool{}
	if len(ids) > 0 {
		for _, d := range s.post[ids[0]] {
			if !fresh[d] && s.containsAll(d, ids[1:]) {
				iq.Known++
				known[int32(len(s.docTerms[d]))]++
				other[int32(len(s.docTerms[d]))]++
				isKnown[d] = true
			}
		}
		seen := map[int32]int32{}
		done := map[int32]bool{}
		for _, r := range res {
			if r.Fresh || done[r.Doc] {
				continue
			}
			done[r.Doc] = true
			l := int32(len(s.docTerms[r.Doc]))
			seen[l]++
			if isKnown[r.Doc] {
				q.seenText++
				other[l]--
			}
		}
		q.seen = histogram(seen)
	}
	q.known = histogram(known)
	q.knownOther = histogram(other)
	c.queries = append(c.queries, q)
}

// totals returns every query's number of matches and where it came from.
// An answer is complete when it is not limited and shorter than the result
// limit k (0: unknown, then shorter than the longest answer seen, which the
// limit is at least). With rank estimates allowed (a query-independent
// ranking), the limited lists get totals from rank positions (rankFit). w
// weighs each query's observations (the bootstrap; nil: 1).
func (c *captureLog) totals(ndocs, k int, useRank bool, w []float64) ([]float64, []totalSource) {
	maxRet := 0
	for _, q := range c.queries {
		if len(q.docs) > maxRet {
			maxRet = len(q.docs)
		}
	}
	tot := make([]float64, len(c.queries))
	src := make([]totalSource, len(c.queries))
	var pending []int
	for i, q := range c.queries {
		n := len(q.docs)
		switch {
		case q.reported >= 0:
			tot[i], src[i] = float64(q.reported), totalReported
		case !q.limited && ((k > 0 && n < k) || (k <= 0 && n < maxRet)):
			tot[i], src[i] = float64(n), totalComplete
		default:
			pending = append(pending, i)
		}
	}
	if useRank && len(pending) > 0 {
		c.rankFit(ndocs, tot, src, pending, w)
	}
	return tot, src
}

// Rank fit bounds: iterations of the fit, the anchor observations
// (documents of the limited lists whose quantile other lists gave) it needs
// before it estimates anything, and the largest relative error of the sums
// a list's estimate is the ratio of.
const (
	rankIters      = 12
	minAnchors     = 3
	maxRelErr      = 0.5
	minValidations = 3
	maxRankBias    = 0.405 // log 1.5
	maxBelowBound  = 0.2
	maxBeyond      = 0.25
)

// rankFit estimates the totals of the pending (limited, total unknown)
// lists from rank positions, under a query-independent ranking: a document
// at global rank quantile u_d has p−1 ~ Binomial(T_i, u_d) matches ranked
// above it in list i of T_i matches. So u_d = Σ(p−1)/ΣT over the lists it
// is in, and T_i = Σ(p−1)/Σu over the documents of list i whose quantile
// the other lists give (leave-one-out, so a document's quantile does not
// depend on the position it is used to explain) — Poisson ratio estimates,
// alternated until they settle, with the lists of known total fixed. The
// lists share their best ranked documents, so their totals are tied to one
// another, and the complete answers fix the scale. In a limited list only
// documents well inside it count (u at most half the list's cut-off
// quantile n/T): near the cut-off, the documents of a quantile that made it
// into the list are those whose position fell short of the limit, so their
// positions are biased low. w weighs each query's observations (the
// bootstrap; nil: 1).
func (c *captureLog) rankFit(ndocs int, tot []float64, src []totalSource, pending []int, w []float64) {
	f := newRankFitter(c, ndocs, tot, src, pending, w)
	if f.anchors() < minAnchors {
		return
	}
	f.iterate()
	// Validation: the lists of known total, estimated the same way from the
	// others, measure the fit's bias on the scale where the truth is known;
	// the rank totals are divided by the median ratio. With fewer than
	// minValidations such lists, or a median ratio beyond 1.5 either way,
	// the rank totals are not used.
	errs, confirmed, contradicted := f.validations()
	bias := 0.0
	if len(errs) > 0 {
		sort.Float64s(errs)
		bias = errs[len(errs)/2]
	}
	below, est := f.dropBelowBound(bias)
	if confirmed < minValidations || contradicted >= confirmed || math.Abs(bias) > maxRankBias || float64(below) > maxBelowBound*float64(est) {
		// too few checks, or the positions do not follow a ranking
		// independent of the content (a relevance or date order, or one
		// correlated with the documents' ids, ties the positions of lists
		// on related terms): no rank totals
		for _, i := range pending {
			f.known[i] = false
		}
	}
	if w == nil {
		c.rankSE = 0
		for _, i := range pending {
			if f.known[i] {
				c.rankSE = medianSE(errs[:confirmed], bias)
				break
			}
		}
	}
	for _, i := range pending {
		if f.known[i] {
			tot[i], src[i] = tot[i]/math.Exp(bias), totalRank
		} else {
			tot[i] = 0
		}
	}
}

// rankFitter is the state of one rankFit.
type rankFitter struct {
	c         *captureLog
	tot       []float64
	w         []float64 // query weights (nil: 1)
	pending   []int
	isPending []bool
	known     []bool // the list's total is known or estimated
	// per document: Σ w(p−1) and Σ w·T over the lists that count it
	sumP, sumE []float64
	counted    [][]bool // pending lists: which positions count
	// contra: the log ratio of a list's estimate to the fewest matches it
	// proves, when below (0: not contradicted; +Inf: contradicted from
	// above, see beyond)
	contra []float64
}

// newRankFitter counts the lists of known total that are not pending.
func newRankFitter(c *captureLog, ndocs int, tot []float64, src []totalSource, pending []int, w []float64) *rankFitter {
	n := len(c.queries)
	f := &rankFitter{c: c, tot: tot, w: w, pending: pending, isPending: make([]bool, n), known: make([]bool, n),
		sumP: make([]float64, ndocs), sumE: make([]float64, ndocs), counted: make([][]bool, n), contra: make([]float64, n)}
	for _, i := range pending {
		f.isPending[i] = true
	}
	for i := range c.queries {
		f.known[i] = src[i] != totalNone && tot[i] > 0
	}
	for i := range c.queries {
		if f.known[i] && !f.isPending[i] {
			f.add(i, 1)
		}
	}
	return f
}

func (f *rankFitter) weight(i int) float64 {
	if f.w == nil {
		return 1
	}
	return f.w[i]
}

// add adds list i's counted positions to the sums (sign −1: takes them
// out), if its total is known.
func (f *rankFitter) add(i int, sign float64) {
	wi := f.weight(i) * sign
	if wi == 0 || !f.known[i] {
		return
	}
	for p, d := range f.c.queries[i].docs {
		if f.counted[i] != nil && !f.counted[i][p] {
			continue
		}
		f.sumP[d] += wi * float64(p)
		f.sumE[d] += wi * f.tot[i]
	}
}

// anchors counts the documents of the pending lists whose quantile other
// lists give.
func (f *rankFitter) anchors() int {
	n := 0
	for _, i := range f.pending {
		for _, d := range f.c.queries[i].docs {
			if f.sumE[d] > 0 {
				n++
			}
		}
	}
	return n
}

// listTotal estimates list i's total from the documents the other lists
// give a quantile (the caller leaves list i out of the sums), counting
// those within half the cut-off of a list of t matches (t 0: all).
func (f *rankFitter) listTotal(i int, t float64) (float64, []bool, bool) {
	docs := f.c.queries[i].docs
	n := float64(len(docs))
	limit := math.Inf(1)
	if t > 0 {
		limit = 0.5 * n / t
	}
	var sp, su, vu float64
	cnt := make([]bool, len(docs))
	for p, d := range docs {
		if f.sumE[d] <= 0 {
			continue
		}
		u := f.sumP[d] / f.sumE[d]
		if u > limit {
			continue
		}
		sp += float64(p)
		su += u
		// Poisson variance of the quantile, with one event added so
		// that a document always ranked first (no event) still carries
		// the uncertainty of its lists' resolution
		vu += (f.sumP[d] + 1) / (f.sumE[d] * f.sumE[d])
		cnt[p] = true
	}
	// both sums must be known to within maxRelErr (Poisson errors), or
	// the ratio is noise
	if su <= 0 || sp < 1/(maxRelErr*maxRelErr) || vu > maxRelErr*maxRelErr*su*su {
		return 0, nil, false
	}
	return sp / su, cnt, true
}

// beyond reports whether list i's estimate t is contradicted from
// above: under the ranking the list returned its t best ranked
// matches' first n, quantiles up to n/t, so most of its documents of
// known quantile lie below twice that. (The fit counts only documents
// well inside the cut-off, so an estimate too high, which narrows the
// cut-off, would otherwise keep itself up.)
func (f *rankFitter) beyond(i int, t float64) bool {
	n := float64(len(f.c.queries[i].docs))
	out, all := 0, 0
	for _, d := range f.c.queries[i].docs {
		if f.sumE[d] <= 0 {
			continue
		}
		all++
		if f.sumP[d]/f.sumE[d] > 2*n/t {
			out++
		}
	}
	return float64(out) > maxBeyond*float64(all)
}

// iterate alternates the pending lists' totals and the documents'
// quantiles until they settle (at most rankIters rounds).
func (f *rankFitter) iterate() {
	for iter := 0; iter < rankIters; iter++ {
		changed := false
		for _, i := range f.pending {
			f.add(i, -1) // leave list i out
			prev := 0.0
			if f.known[i] {
				prev = f.tot[i]
			}
			t, cnt, ok := f.listTotal(i, prev)
			switch {
			case ok && t < f.c.queries[i].minTotal():
				// contradicted by what the list proves (see dropBelowBound)
				changed = changed || f.known[i]
				f.known[i], f.counted[i], f.contra[i] = false, nil, math.Log(t/f.c.queries[i].minTotal())
			case ok && f.beyond(i, t):
				changed = changed || f.known[i]
				f.known[i], f.counted[i], f.contra[i] = false, nil, math.Inf(1)
			case ok:
				f.contra[i] = 0
				if !f.known[i] || math.Abs(t-f.tot[i]) > 1e-3*t {
					changed = true
				}
				f.tot[i], f.known[i], f.counted[i] = t, true, cnt
			}
			f.add(i, 1)
		}
		if !changed {
			break
		}
	}
}

// validations are the log ratios of the estimates of the lists of known
// total, made the same way from the others, to their totals (confirmed of
// them), then those of the pending lists contradicted from below: a
// contradicted list's error is below its log ratio to the bound, a
// censored validation, which counts for the median when it is below it.
// contradicted counts the contradicted lists.
func (f *rankFitter) validations() (errs []float64, confirmed, contradicted int) {
	for i := range f.c.queries {
		if f.isPending[i] || !f.known[i] || f.weight(i) <= 0 {
			continue
		}
		f.add(i, -1)
		if t, _, ok := f.listTotal(i, f.tot[i]); ok {
			errs = append(errs, math.Log(t/f.tot[i]))
		}
		f.add(i, 1)
	}
	confirmed = len(errs)
	for _, i := range f.pending {
		if f.contra[i] != 0 && f.weight(i) > 0 {
			if f.contra[i] < 0 {
				errs = append(errs, f.contra[i])
			}
			contradicted++
		}
	}
	return errs, confirmed, contradicted
}

// dropBelowBound takes the total from the pending lists whose estimate,
// corrected by bias, is below the fewest matches the list proves
// (minTotal: a cut list has more matches than it returned and than the
// downloaded documents matching it by text), and from the contradicted
// ones: the positions contradict the model for that list (a relevance
// order, under which a list's positions follow its own scores); many such
// lists, and the model is off. It returns how many were below and how
// many had an estimate.
func (f *rankFitter) dropBelowBound(bias float64) (below, est int) {
	for _, i := range f.pending {
		if f.contra[i] != 0 || (f.known[i] && f.tot[i]/math.Exp(bias) < f.c.queries[i].minTotal()) {
			below++
			f.known[i] = false
		}
		if f.contra[i] != 0 || f.known[i] {
			est++
		}
	}
	return below, est
}

// medianSE is the standard error of the median m of xs, from their spread
// about it (√(π/2)·σ/√n, σ with one degree of freedom spent on m).
func medianSE(xs []float64, m float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(math.Pi/2) * math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
}

// needsRank reports whether some query's total can only come from rank
// estimates.
func (c *captureLog) needsRank(k int) bool {
	maxRet := 0
	for _, q := range c.queries {
		if len(q.docs) > maxRet {
			maxRet = len(q.docs)
		}
	}
	for _, q := range c.queries {
		n := len(q.docs)
		if q.reported < 0 && (q.limited || (k > 0 && n >= k) || (k <= 0 && n >= maxRet)) {
			return true
		}
	}
	return false
}

func histogram(m map[int32]int32) []lenCount {
	out := make([]lenCount, 0, len(m))
	for l, n := range m {
		out = append(out, lenCount{l, n})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].len < out[b].len })
	return out
}

// Stratification bounds: at most maxStrata strata of at least
// minStratumDocs downloaded documents each. bootstrapRuns is the number of
// bootstrap replicates (fewer when the rank estimates of the totals must be
// redone in each).
// minRecaptures is the fewest recaptures an estimate is made from: below
// about seven, Chapman's estimator is biased (Robson & Regier's rule) and
// its interval spans nearly everything.
const minRecaptures = 7

const (
	maxStrata         = 8
	minStratumDocs    = 50
	bootstrapRuns     = 200
	bootstrapRunsRank = 60
)

// captureRow is one query's captures by stratum: n_{i−1,s}, the share of
// its returned documents in s, m_{i,s}.
type captureRow struct {
	q                    int // index in captureLog.queries
	before, share, known []float64
}

// EstimateCoverage estimates the database size and the coverage of the
// downloaded documents (see the comment at the top of coverage.go); k is
// the result limit (0: unknown). The interval joins a Poisson bootstrap over
// the queries (each query weighed by a Poisson(1) count, so the order the
// rank estimates chain in is kept; the rank estimates are redone in every
// replicate) and the exact Poisson interval of the total number of
// recaptures, which dominates while recaptures are few. The bootstrap is
// seeded by the number of queries, so one harvest gives one estimate.
func (s *Stats) EstimateCoverage(k int) CoverageEstimate {
	return s.estimateCoverage(k, maxStrata)
}

// estimateCoverage is EstimateCoverage with at most strata strata (1: the
// plain Schnabel estimator).
func (s *Stats) estimateCoverage(k, strata int) CoverageEstimate {
	n := len(s.docTerms)
	frac, pairs := s.StaticRank()
	useRank := pairs >= 10 && frac >= 0.9
	lens := s.docLens()
	cuts := lengthCuts(lens, min(n/minStratumDocs, strata))
	ns := len(cuts) + 1
	tot, src := s.caps.totals(n, k, useRank, nil)
	rows := s.caps.captureRows(lens, cuts, src)
	floor := provenFloor(n, tot, src)
	raw, recaptures, relVar, used := schnabelRows(rows, ns, nil, tot, src)
	loo, looOK := s.estimateLOO(tot, src, strata, floor)
	// when the fair estimators rest on fewer than minLOORecaptures
	// recaptures, the complete answers to the policy's own choices,
	// corrected for the choice (adaptive.go), say more if they hold enough
	if !looOK && recaptures < minLOORecaptures {
		if ad, ok := s.estimateAdaptive(k, strata, floor); ok {
			return ad
		}
	}
	name := EstimatorSchnabel + "/" + sourceNames(src, rowQueries(rows))
	if used < 2 || recaptures < minRecaptures {
		if loo.Estimator != "" {
			return loo
		}
		var sumNT float64
		for _, r := range rows {
			for j := range r.before {
				if src[r.q] != totalNone {
					sumNT += r.nT(j, tot[r.q])
				}
			}
		}
		if used == 0 || sumNT <= 0 {
			return noEstimate(n)
		}
		return fewRecaptures(n, sumNT, recaptures, floor, name, used)
	}
	size := math.Max(raw, floor)
	redo := useRank && s.caps.needsRank(k)
	runs := bootstrapRuns
	if redo {
		runs = bootstrapRunsRank
	}
	boot := s.bootstrap(runs, floor, func(w []float64) (float64, bool) {
		bt, bs := tot, src
		if redo {
			bt, bs = s.caps.totals(n, k, useRank, w)
		}
		sz, _, _, u := schnabelRows(rows, ns, w, bt, bs)
		return sz, u > 0
	})
	lo, hi := schnabelInterval(boot, size, raw, recaptures, relVar, floor)
	if se := s.caps.rankSE; se > 0 {
		// the scale of the rank totals is known to the precision of
		// their validation (rankFit): the share of the estimate resting
		// on them is as uncertain
		if f, ok := rankShare(rows, tot, src); ok {
			lo = math.Max(floor, math.Min(lo, size*(1-f+f*math.Exp(-coverageZ*se))))
			hi = math.Max(hi, size*(1-f+f*math.Exp(coverageZ*se)))
		}
	}
	// with reported totals every query is a full capture and the
	// sequential estimate holds; without them, its sample is the few
	// complete and rank-estimated answers, which the leave-one-out
	// estimate re-counts against every download
	if looOK && !reported(src) {
		// the leave-one-out estimate, with an interval that also holds the
		// sequential one's: the two share the model (independent
		// captures), whose bias the spread between them shows
		fn := float64(n)
		loo.SizeLow, loo.SizeHigh = math.Min(loo.SizeLow, lo), math.Max(loo.SizeHigh, hi)
		loo.Low, loo.High = fn/loo.SizeHigh, fn/loo.SizeLow
		return loo
	}
	return sizeEstimate(n, size, lo, hi, name, used, ns)
}

// captureRows are the captures of the queries that count (see the comment
// at the top of coverage.go), in the length strata cuts (lens: the
// documents' lengths), with sources src from totals.
func (c *captureLog) captureRows(lens, cuts []int, src []totalSource) []captureRow {
	stratum := func(l int32) int { return sort.SearchInts(cuts, int(l)+1) }
	ns := len(cuts) + 1
	var rows []captureRow
	cum := make([]float64, ns)
	next := 0 // documents counted into cum
	for qi, q := range c.queries {
		for ; next < q.before && next < len(lens); next++ {
			cum[stratum(int32(lens[next]))]++
		}
		if q.before == 0 || len(q.docs) == 0 || len(q.terms) == 0 {
			// no keyword (only bound inputs): its matches among the
			// downloaded documents cannot be counted from their text
			continue
		}
		if q.fromDocs && !q.limited && q.reported < 0 {
			// a complete answer to a term picked for its frequency among
			// the downloaded documents: its few matches are mostly the
			// ones that got it picked
			continue
		}
		rec := q.textRecall()
		if rec < minTextRecall && src[qi] != totalComplete {
			// the text does not show which downloaded documents match
			continue
		}
		r := captureRow{q: qi, before: append([]float64(nil), cum...), share: make([]float64, ns), known: make([]float64, ns)}
		for _, b := range q.returned {
			r.share[stratum(b.len)] += float64(b.n) / float64(len(q.docs))
		}
		if src[qi] == totalComplete {
			// a complete answer's recaptures are its documents downloaded
			// before it, whatever the interface matched them on
			for _, d := range q.docs {
				if int(d) < q.before {
					r.known[stratum(int32(lens[d]))]++
				}
			}
		} else {
			// the recaptures: the downloaded documents it returned, and
			// the other text matches scaled by the text's recall
			for _, b := range q.seen {
				r.known[stratum(b.len)] += float64(b.n)
			}
			for _, b := range q.knownOther {
				r.known[stratum(b.len)] += float64(b.n) / rec
			}
			for j := range r.known {
				r.known[j] = math.Min(r.known[j], r.before[j])
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// nT is nᵢ₋₁,ₛ·Tᵢ,ₛ of the row in stratum j for the query's total t.
func (r captureRow) nT(j int, t float64) float64 { return r.before[j] * t * r.share[j] }

// rowQueries are the rows' query indices.
func rowQueries(rows []captureRow) []int {
	qs := make([]int, len(rows))
	for i, r := range rows {
		qs[i] = r.q
	}
	return qs
}

// provenFloor is the fewest documents the data prove: the n downloaded and
// every reported or complete total.
func provenFloor(n int, tot []float64, src []totalSource) float64 {
	floor := float64(n)
	for qi := range tot {
		if src[qi] == totalReported || src[qi] == totalComplete {
			floor = math.Max(floor, tot[qi])
		}
	}
	return floor
}

// reported reports whether some query's total was reported.
func reported(src []totalSource) bool {
	for _, t := range src {
		if t == totalReported {
			return true
		}
	}
	return false
}

// schnabelRows is the stratified Schnabel estimate of rows in ns strata
// with query weights w (nil: 1) and totals tot from sources src; it also
// returns the recaptures, the relative variance and the queries used.
func schnabelRows(rows []captureRow, ns int, w, tot []float64, src []totalSource) (size, recaptures, relVar float64, used int) {
	acc := newSchnabel(ns)
	for _, r := range rows {
		if src[r.q] == totalNone {
			continue
		}
		wi := 1.0
		if w != nil {
			wi = w[r.q]
		}
		used++
		for j := 0; j < ns; j++ {
			acc.Add(j, wi*r.before[j]*tot[r.q]*r.share[j], wi*r.known[j])
		}
	}
	size, recaptures, relVar = acc.Estimate()
	return size, recaptures, relVar, used
}

// rankShare is the share of the estimate's first-times-second captures
// whose totals are rank estimates; ok is false when there are none at all.
func rankShare(rows []captureRow, tot []float64, src []totalSource) (f float64, ok bool) {
	var rk, all float64
	for _, r := range rows {
		for j := range r.before {
			x := r.nT(j, tot[r.q])
			all += x
			if src[r.q] == totalRank {
				rk += x
			}
		}
	}
	return rk / all, all > 0
}

// poissonInterval is the exact (Garwood) interval of a Poisson mean at the
// given level after observing m events (m rounded to an integer).
func poissonInterval(m, level float64) (lo, hi float64) {
	m = math.Round(m)
	a := (1 - level) / 2
	if m > 0 {
		lo = distuv.ChiSquared{K: 2 * m}.Quantile(a) / 2
	}
	hi = distuv.ChiSquared{K: 2*m + 2}.Quantile(1-a) / 2
	return lo, hi
}

// lengthCuts returns the ascending stratum boundaries (a document of length
// l is in stratum SearchInts(cuts, l+1)) of at most n strata, quantiles of
// lens.
func lengthCuts(lens []int, n int) []int {
	if n <= 1 || len(lens) == 0 {
		return nil
	}
	sorted := append([]int(nil), lens...)
	sort.Ints(sorted)
	var cuts []int
	for j := 1; j < n; j++ {
		c := sorted[j*len(sorted)/n]
		if c > sorted[0] && (len(cuts) == 0 || c > cuts[len(cuts)-1]) {
			cuts = append(cuts, c)
		}
	}
	return cuts
}

// quantileSorted is the p-quantile of sorted xs (linear interpolation).
func quantileSorted(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	x := p * float64(len(xs)-1)
	i := int(x)
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	f := x - float64(i)
	return xs[i]*(1-f) + xs[i+1]*f
}
