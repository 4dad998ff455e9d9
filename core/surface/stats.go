package surface

import (
	"math"
	"regexp"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// Term flags in the statistics table.
const (
	flagIssued uint8 = 1 << iota // already sent as a query
	flagBanned                   // never a candidate: too short, returned nothing, rejected
)

// TermOptions says how the interface reads a query, so that the candidate
// terms are the ones it can answer.
type TermOptions struct {
	// KeepStopWords makes stop words candidates. By default the interface is
	// assumed to ignore them (as hiddendb and most sites do), so they are
	// never issued and not counted.
	KeepStopWords bool
	// MinLen is the minimum length of a candidate term in runes (default 2).
	MinLen int
}

// Tokens returns the distinct terms of s as the interface indexes them
// (text.Tokenize), without stop words unless kept.
func (o TermOptions) Tokens(s string) []string {
	toks := text.Tokenize(s)
	out := toks[:0]
	seen := make(map[string]struct{}, len(toks))
	for _, t := range toks {
		if _, dup := seen[t]; dup || (!o.KeepStopWords && text.IsStop(t)) {
			continue
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	return out
}

// candidate reports whether term t may be issued as a query.
func (o TermOptions) candidate(t string) bool {
	if !o.KeepStopWords && text.IsStop(t) {
		return false
	}
	min := o.MinLen
	if min < 1 {
		// a single letter is page chrome ("a", the initials of an index)
		// far more often than a query a site answers
		min = 2
	}
	return len([]rune(t)) >= min
}

// QueryTerms returns the terms of a (possibly multi-word) query as the
// interface matches them; the bindings of a form query (ParseFormQuery)
// are not terms.
func (o TermOptions) QueryTerms(q string) []string { return o.Tokens(stripBindings(q)) }

// Stats is the query statistics table of Ntoulas et al. (Figure 8): for
// every term seen in a downloaded document, the number of downloaded
// documents containing it, updated incrementally after each query.
//
// Next to these exact counts it keeps counts corrected for result-limited
// queries (equations 6–7): they estimate, for every term, how many documents
// of C = q1 ∨ … ∨ qi (everything matching an issued query, downloaded or
// not) contain it. Equation 7 treats the k documents a limited query
// returned as a random sample of its N matches, i.e. each stands for N/k of
// them; equation 6 combines the queries so that a document matching several
// of them is counted once. Both are applied per document: a downloaded
// document d is weighted by 1/π(d), where π(d) is the rate at which a
// document with d's terms is returned by the issued queries it matches — the
// largest k/N among them when the interface ranks by a query-independent
// order (a document is in a query's top k exactly when its global rank is
// above that query's cut-off), 1 − Π(1 − k/N) otherwise. For unlimited
// queries π = 1 and the table is the plain incremental count.
type Stats struct {
	opt   TermOptions
	ids   map[string]int32
	terms []string
	flag  []uint8
	df    []int32   // downloaded documents containing the term
	w     []float64 // corrected count in C (Σ 1/π over the documents containing the term)
	w2    []float64 // Σ 1/π² over the same documents (the spread of w)
	post  [][]int32 // downloaded documents containing the term
	cut   []float32 // issued terms: returned/matches of the query (0: not issued)
	// W is the corrected size of C, the estimated number of documents
	// matching at least one issued query.
	W float64

	docTerms   [][]int32
	docU       []float32 // estimated global rank quantile of each document (NaN: unknown)
	docUN      []float32 // size of the result list the estimate came from
	docLastQ   []int32   // last query (1-based) that returned the document
	docLastPos []int32   // its position there
	piMax      []float32 // inclusion rate, query-independent ranking
	piInd      []float32 // inclusion rate, independent rankings
	indep      bool      // weights use piInd

	multi []multiQuery // issued multi-term queries
	caps  captureLog   // what the size estimators keep (coverage.go)
	// Queries are the issued queries in order, with what they returned.
	Queries []IssuedQuery

	// Terms by class of corrected count (quantize), so that selection can
	// visit them from the most to the least frequent and stop early.
	// Banned terms are in no class (clsOf −1).
	cls    [][]int32
	clsOf  []int32
	clsPos []int32

	rankObs  float64 // rank-order observations (pairs compared)
	rankConc float64 // concordant pairs among them
}

type multiQuery struct {
	terms []int32
	cut   float32
}

// IssuedQuery is what the statistics remember of one issued query.
type IssuedQuery struct {
	Query string
	// Total is the reported number of matches, -1 when hidden.
	Total int
	// Returned is the number of documents the interface returned.
	Returned int
	// New is the number of documents downloaded for the first time.
	New int
	// Est is the number of matches assumed for the correction: Total when
	// known, else the estimate at selection time (at least Returned).
	Est float64
	// InC is the number of the returned documents that were already in C
	// (matched an earlier query).
	InC int
	// CBefore is W before the query.
	CBefore float64
	// Pred is the policy's estimate of the matches at selection (0: none)
	// and DFBefore the downloaded documents containing the query then.
	Pred     float64
	PredGain float64
	DFBefore int
	WBefore  float64
	// RelVar is the relative variance of the query term's corrected count
	// at selection, Σ 1/π² / (Σ 1/π)² over the downloaded documents
	// containing it: the inverse of its effective sample size (0: none).
	RelVar float64
	// Limited reports whether the results were cut by the result limit.
	Limited bool
	// DocsBefore is the number of documents downloaded before the query
	// and Known how many of them match it (contain every query term): the
	// first and second captures of the capture–recapture size estimators.
	DocsBefore, Known int
}

// NewStats returns an empty table.
func NewStats(opt TermOptions) *Stats {
	return &Stats{opt: opt, ids: make(map[string]int32)}
}

// Len is the number of terms in the table.
func (s *Stats) Len() int { return len(s.terms) }

// Docs is the number of downloaded documents.
func (s *Stats) Docs() int { return len(s.docTerms) }

// Term returns term i.
func (s *Stats) Term(i int) string { return s.terms[i] }

// DF returns the number of downloaded documents containing t.
func (s *Stats) DF(t string) int {
	if i, ok := s.ids[t]; ok {
		return int(s.df[i])
	}
	return 0
}

// Weight returns the corrected count of t in the covered set C.
func (s *Stats) Weight(t string) float64 {
	if i, ok := s.ids[t]; ok {
		return s.w[i]
	}
	return 0
}

// Issued reports whether t was sent as a query.
func (s *Stats) Issued(t string) bool {
	i, ok := s.ids[t]
	return ok && s.flag[i]&flagIssued != 0
}

// Ban removes t from the candidates (for example a term the interface
// rejected).
func (s *Stats) Ban(t string) {
	i := s.intern(t)
	s.flag[i] |= flagBanned
	s.unclass(i)
}

// reclass moves term t to the class of its current weight.
func (s *Stats) reclass(t int32) {
	c := s.clsOf[t]
	if c < 0 && s.flag[t]&flagBanned != 0 {
		return
	}
	q := int32(quantize(s.w[t]))
	if q == c {
		return
	}
	s.unclass(t)
	for int(q) >= len(s.cls) {
		s.cls = append(s.cls, nil)
	}
	s.clsOf[t] = q
	s.clsPos[t] = int32(len(s.cls[q]))
	s.cls[q] = append(s.cls[q], t)
}

// unclass removes term t from its class.
func (s *Stats) unclass(t int32) {
	c := s.clsOf[t]
	if c < 0 {
		return
	}
	l := s.cls[c]
	p := s.clsPos[t]
	last := l[len(l)-1]
	l[p] = last
	s.clsPos[last] = p
	s.cls[c] = l[:len(l)-1]
	s.clsOf[t] = -1
}

func (s *Stats) intern(t string) int32 {
	if i, ok := s.ids[t]; ok {
		return i
	}
	i := int32(len(s.terms))
	s.ids[t] = i
	s.terms = append(s.terms, t)
	var f uint8
	if !s.opt.candidate(t) {
		f = flagBanned
	}
	s.flag = append(s.flag, f)
	s.df = append(s.df, 0)
	s.w = append(s.w, 0)
	s.w2 = append(s.w2, 0)
	s.post = append(s.post, nil)
	s.cut = append(s.cut, 0)
	s.clsOf = append(s.clsOf, -1)
	s.clsPos = append(s.clsPos, 0)
	s.reclass(i)
	return i
}

// addDoc adds a newly downloaded document (weight 0 until Observe) and
// returns its number.
func (s *Stats) addDoc(content string) int32 {
	n := int32(len(s.docTerms))
	toks := s.opt.Tokens(dropCut(content))
	ids := make([]int32, 0, len(toks))
	for _, t := range toks {
		id := s.intern(t)
		ids = append(ids, id)
		s.df[id]++
		s.post[id] = append(s.post[id], n)
	}
	s.docTerms = append(s.docTerms, ids)
	s.docU = append(s.docU, float32(math.NaN()))
	s.docUN = append(s.docUN, 0)
	s.docLastQ = append(s.docLastQ, 0)
	s.docLastPos = append(s.docLastPos, 0)
	s.piMax = append(s.piMax, 0)
	s.piInd = append(s.piInd, 0)
	return n
}

// cutWord is a word that touches an ellipsis: where a result page cut a
// record's text short ("a bod ... ilus of the kidney"), the words on
// either side of the cut are pieces that no record holds whole.
var cutWord = regexp.MustCompile(`[\p{L}\p{N}]*[ \t]?(?:\.\.\.+|…)[ \t]?[\p{L}\p{N}]*`)

// dropCut removes the pieces of words around the ellipses of a record's
// text, so that they are never issued as queries nor counted as terms.
func dropCut(content string) string {
	if !strings.Contains(content, "...") && !strings.Contains(content, "…") {
		return content
	}
	return cutWord.ReplaceAllString(content, " ")
}

// relVar is the relative variance of term t's corrected count, Σ 1/π² /
// (Σ 1/π)²: 1/df when every document weighs the same, more when a few
// heavily weighted documents make up the count. 1 without a count.
func (s *Stats) relVar(t int32) float64 {
	if s.w[t] <= 0 {
		return 1
	}
	return math.Min(s.w2[t]/(s.w[t]*s.w[t]), 1)
}

// containsAll reports whether document d has every term of q.
func (s *Stats) containsAll(d int32, q []int32) bool {
	for _, t := range q {
		found := false
		for _, x := range s.docTerms[d] {
			if x == t {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// inC reports whether downloaded document d matches an issued query.
func (s *Stats) inC(d int32) bool {
	for _, t := range s.docTerms[d] {
		if s.flag[t]&flagIssued != 0 {
			return true
		}
	}
	for _, q := range s.multi {
		if s.containsAll(d, q.terms) {
			return true
		}
	}
	return false
}

func (s *Stats) pi(d int32) float32 {
	if s.indep {
		return s.piInd[d]
	}
	return s.piMax[d]
}

// setPi changes document d's inclusion rates and moves its weight.
func (s *Stats) include(d int32, cut float32) {
	old := s.pi(d)
	if cut > s.piMax[d] {
		s.piMax[d] = cut
	}
	s.piInd[d] = 1 - (1-s.piInd[d])*(1-cut)
	if p := s.pi(d); p != old {
		var delta, delta2 float64
		if old > 0 {
			delta = -1 / float64(old)
			delta2 = -delta * delta
		}
		delta += 1 / float64(p)
		delta2 += 1 / (float64(p) * float64(p))
		for _, t := range s.docTerms[d] {
			s.w[t] += delta
			s.w2[t] += delta2
			s.reclass(t)
		}
		s.W += delta
	}
}

// reweight recomputes every weight (after a change of ranking model).
func (s *Stats) reweight() {
	for i := range s.w {
		s.w[i], s.w2[i] = 0, 0
	}
	s.W = 0
	for d := range s.docTerms {
		if p := s.pi(int32(d)); p > 0 {
			x := 1 / float64(p)
			for _, t := range s.docTerms[d] {
				s.w[t] += x
				s.w2[t] += x * x
			}
			s.W += x
		}
	}
	for t := range s.w {
		s.reclass(int32(t))
	}
}

// Result is one returned document of a query, for Stats.Observe.
type Result struct {
	Doc   int32 // document number in the table
	Fresh bool  // downloaded for the first time by this query
	Pos   int   // 1-based position in the result list
}

// Observe updates the table with a query's results: Figure 8 with the
// correction of equations 6–7 (see Stats). The fresh documents must already
// have been added with addDoc. total is the reported match count (-1
// hidden); est and gain are the selection-time estimates of the matches and
// of the new documents (0: none), est standing for the total when that is
// hidden; limited reports that the result list was cut by the result limit.
func (s *Stats) Observe(query string, res []Result, total int, est, gain float64, limited bool) IssuedQuery {
	iq := IssuedQuery{Query: query, Total: total, Returned: len(res), CBefore: s.W, Limited: limited, Pred: est, PredGain: gain}
	n := float64(len(res))
	if qt := s.opt.QueryTerms(query); len(qt) == 1 {
		if id, ok := s.ids[qt[0]]; ok {
			iq.WBefore = s.w[id] // fresh documents weigh nothing yet
			iq.RelVar = s.relVar(id)
		}
	}
	switch {
	case total >= 0:
		iq.Est = float64(total)
	case limited && est > n:
		iq.Est = est
	default:
		iq.Est = n
	}
	if iq.Est < n {
		iq.Est = n
	}
	cut := float32(1)
	if limited && iq.Est > 0 {
		cut = float32(n / iq.Est)
	}
	for _, r := range res {
		if r.Fresh {
			iq.New++
		}
		// A document downloaded before matched the query that returned it,
		// so it is in C; a fresh one is in C if it matches an earlier query.
		if !r.Fresh || s.inC(r.Doc) {
			iq.InC++
		}
	}
	s.observeRanks(res, iq.Est)
	// Fresh documents take the rates of the earlier queries they match.
	for _, r := range res {
		if !r.Fresh {
			continue
		}
		for _, t := range s.docTerms[r.Doc] {
			if c := s.cut[t]; c > 0 {
				s.include(r.Doc, c)
			}
		}
		for _, q := range s.multi {
			if s.containsAll(r.Doc, q.terms) {
				s.include(r.Doc, q.cut)
			}
		}
	}
	// Every downloaded document matching this query gains its rate; the
	// returned ones match it by definition.
	qt := s.opt.QueryTerms(query)
	ids := make([]int32, len(qt))
	for i, t := range qt {
		ids[i] = s.intern(t)
	}
	s.caps.observe(s, &iq, res, ids)
	if len(ids) == 1 {
		iq.DFBefore = int(s.df[ids[0]])
		for _, r := range res {
			if r.Fresh {
				iq.DFBefore--
			}
		}
		if iq.DFBefore < 0 {
			iq.DFBefore = 0
		}
	}
	returned := make(map[int32]bool, len(res))
	for _, r := range res {
		returned[r.Doc] = true
		s.include(r.Doc, cut)
	}
	if len(ids) > 0 {
		for _, d := range s.post[ids[0]] {
			if !returned[d] && s.containsAll(d, ids[1:]) {
				s.include(d, cut)
			}
		}
	}
	switch len(ids) {
	case 0:
	case 1:
		s.flag[ids[0]] |= flagIssued
		if cut > s.cut[ids[0]] {
			s.cut[ids[0]] = cut
		}
	default:
		s.multi = append(s.multi, multiQuery{terms: ids, cut: cut})
		if id, ok := s.ids[strings.Join(qt, " ")]; ok {
			s.flag[id] |= flagIssued
		}
	}
	s.Queries = append(s.Queries, iq)
	s.checkRanking()
	return iq
}

// checkRanking switches the weights to independent rankings once the result
// lists show that the interface does not rank by a query-independent order.
func (s *Stats) checkRanking() {
	frac, pairs := s.StaticRank()
	indep := pairs >= 30 && frac < 0.75
	if indep != s.indep {
		s.indep = indep
		s.reweight()
	}
}

// observeRanks refines the documents' global rank quantiles from their
// positions in a result list of n matches, and checks whether the list
// orders documents as the earlier lists did: under a query-independent
// ranking two documents that appeared together before appear in the same
// order again; under a relevance ranking only about half of them do.
func (s *Stats) observeRanks(res []Result, n float64) {
	if n <= 0 {
		return
	}
	q := int32(len(s.Queries) + 1)
	prev := -1
	for i, r := range res {
		if r.Fresh {
			continue
		}
		if prev >= 0 {
			a, b := res[prev].Doc, r.Doc
			if s.docLastQ[a] == s.docLastQ[b] && s.docLastQ[a] > 0 {
				s.rankObs++
				if s.docLastPos[a] < s.docLastPos[b] {
					s.rankConc++
				}
			}
		}
		prev = i
	}
	for _, r := range res {
		s.docLastQ[r.Doc] = q
		s.docLastPos[r.Doc] = int32(r.Pos)
		u := float32((float64(r.Pos) - 0.5) / n)
		if float32(n) > s.docUN[r.Doc] {
			s.docU[r.Doc] = u
			s.docUN[r.Doc] = float32(n)
		}
	}
}

// StaticRank estimates whether the interface ranks by a query-independent
// order: the fraction of consecutive already-known documents in result lists
// that keep the order of their earlier rank estimates (about 0.5 for
// unrelated orders, 1 for a static one), and the number of pairs it is
// based on.
func (s *Stats) StaticRank() (frac float64, pairs int) {
	if s.rankObs == 0 {
		return 0.5, 0
	}
	return s.rankConc / s.rankObs, int(s.rankObs)
}
