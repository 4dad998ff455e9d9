package rank

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// DefaultAlpha weighs site similarity against site frequency in the site
// ranker when a profile does not say.
const DefaultAlpha = 0.5

// SiteRanker ranks sites for the site frontier:
//
//	Rank(s) = α·(cos(U,Us) + cos(A,As) + cos(T,Ts)) + (1−α)·log(1+SF(s))
//
// with the vectors of the current FSS. Safe for concurrent use; SetSpace
// swaps the feature space atomically.
type SiteRanker struct {
	alpha float64
	space atomic.Pointer[Space]
}

// NewSiteRanker returns a site ranker with weight alpha (outside [0, 1]:
// DefaultAlpha) over fss (nil: similarity 0 until SetSpace).
func NewSiteRanker(alpha float64, fss *Space) *SiteRanker {
	if alpha < 0 || alpha > 1 || math.IsNaN(alpha) {
		alpha = DefaultAlpha
	}
	r := &SiteRanker{alpha: alpha}
	r.space.Store(fss)
	return r
}

// Alpha returns α.
func (r *SiteRanker) Alpha() float64 { return r.alpha }

// SetSpace replaces FSS (after adaptive learning).
func (r *SiteRanker) SetSpace(fss *Space) { r.space.Store(fss) }

// Space returns the current FSS.
func (r *SiteRanker) Space() *Space { return r.space.Load() }

// Similarity returns ST(s) = cos(U,Us)+cos(A,As)+cos(T,Ts).
func (r *SiteRanker) Similarity(f Features) float64 { return r.space.Load().Similarity(f) }

// Score returns the rank of a site with features f and site frequency sf.
func (r *SiteRanker) Score(f Features, sf int) float64 {
	return r.ScoreSimilarity(r.Similarity(f), sf)
}

// ScoreSimilarity returns the rank of a site of similarity sim (from
// [Space.Similarity] with the current FSS) and site frequency sf.
func (r *SiteRanker) ScoreSimilarity(sim float64, sf int) float64 {
	return r.alpha*sim + (1-r.alpha)*math.Log1p(float64(max(sf, 0)))
}

// LinkRanker ranks the links of a site during in-site exploring:
//
//	LT(l) = cos(P,Pl) + cos(A,Al) + cos(T,Tl)
//
// with the vectors of the current FSL. Safe for concurrent use.
type LinkRanker struct {
	space atomic.Pointer[Space]
}

// NewLinkRanker returns a link ranker over fsl (nil: every link scores 0
// until SetSpace).
func NewLinkRanker(fsl *Space) *LinkRanker {
	r := &LinkRanker{}
	r.space.Store(fsl)
	return r
}

// SetSpace replaces FSL (after adaptive learning).
func (r *LinkRanker) SetSpace(fsl *Space) { r.space.Store(fsl) }

// Space returns the current FSL.
func (r *LinkRanker) Space() *Space { return r.space.Load() }

// Score returns LT(l).
func (r *LinkRanker) Score(f Features) float64 { return r.space.Load().Similarity(f) }

// SiteFrequency counts, for every site, how many known sources link to it:
// SF(s) = Σ_i I_i with I_i = 1 when s appears on known deep site i (or on a
// relevant page found by reverse searching). Links may be recorded before or
// after their source becomes known. Safe for concurrent use.
type SiteFrequency struct {
	mu    sync.Mutex
	out   map[string]map[string]struct{} // source → sites it links to
	known map[string]bool                // sources counted
	sf    map[string]int                 // site → known sources linking to it
}

// NewSiteFrequency returns an empty counter.
func NewSiteFrequency() *SiteFrequency {
	return &SiteFrequency{out: map[string]map[string]struct{}{}, known: map[string]bool{}, sf: map[string]int{}}
}

// Link records that source (a site key or a page URL) links to site. A
// source never links to itself.
func (s *SiteFrequency) Link(source, site string) {
	if source == site || source == "" || site == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.out[source]
	if o == nil {
		o = map[string]struct{}{}
		s.out[source] = o
	}
	if _, ok := o[site]; ok {
		return
	}
	o[site] = struct{}{}
	if s.known[source] {
		s.sf[site]++
	}
}

// MarkKnown records that source is a known deep site (or relevant page):
// every site it links to, now or later, counts it once.
func (s *SiteFrequency) MarkKnown(source string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known[source] {
		return
	}
	s.known[source] = true
	for site := range s.out[source] {
		s.sf[site]++
	}
}

// Forget drops what source links to, keeping the frequencies it already
// gave: call it once source's links are all recorded and it can no longer
// become known (an explored site), so the table does not grow with every
// site seen.
func (s *SiteFrequency) Forget(source string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.out, source)
}

// Known reports whether source was marked known.
func (s *SiteFrequency) Known(source string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.known[source]
}

// SF returns the site frequency of site.
func (s *SiteFrequency) SF(site string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sf[site]
}

// SFState is a SiteFrequency in a form the store can persist (JSON).
type SFState struct {
	Known []string            `json:"known"`
	Links map[string][]string `json:"links"` // source → sites
}

// State returns the counter's contents, sorted, for persisting.
func (s *SiteFrequency) State() SFState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := SFState{Links: make(map[string][]string, len(s.out))}
	for k := range s.known {
		st.Known = append(st.Known, k)
	}
	sort.Strings(st.Known)
	for src, o := range s.out {
		l := make([]string, 0, len(o))
		for site := range o {
			l = append(l, site)
		}
		sort.Strings(l)
		st.Links[src] = l
	}
	return st
}

// Restore adds a persisted state to the counter.
func (s *SiteFrequency) Restore(st SFState) {
	for src, sites := range st.Links {
		for _, site := range sites {
			s.Link(src, site)
		}
	}
	for _, k := range st.Known {
		s.MarkKnown(k)
	}
}
