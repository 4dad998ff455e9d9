package surface

import (
	"math/rand"
	"sync"
)

// Size probes. When the interface hides its totals and cuts its answers at
// the result limit, a cut answer tells nothing of how many documents match,
// so it is no capture–recapture sample (coverage.go); only complete answers
// are, and a policy that picks frequent terms gets few. While the complete
// answers hold fewer than minProbeRecaptures recaptures (their known
// documents), the harvest spends one query in probeGap on a probe: an
// unissued word of the bundled generic word list, drawn in a fixed random
// order from a band of frequency ranks (band b: ranks 100·2^b to
// 100·2^(b+1)), starting at probeBand and moving one band rarer after each
// probe the limit cut and one band more frequent after each that matched
// nothing, so that probes come back complete and not empty. Probe words
// are chosen without looking at the downloaded documents, so their
// recaptures are as fair a sample as the random policy's; the documents
// they return are downloaded like any query's, and their complete answers
// anchor the rank estimates of the cut answers' totals too.
const (
	minProbeRecaptures = 30
	probeGap           = 4
	probeBand          = 2
	probeSeed          = 1
)

var (
	probeOnce  sync.Once
	probeBands [][]string
)

// probeWords returns the probe words by band, each band shuffled.
func probeWords() [][]string {
	probeOnce.Do(func() {
		var w []string
		for _, x := range GenericWords() {
			if len([]rune(x)) >= 3 {
				w = append(w, x)
			}
		}
		rng := rand.New(rand.NewSource(probeSeed))
		for lo := 100; lo < len(w); lo *= 2 {
			hi := 2 * lo
			if hi > len(w) {
				hi = len(w)
			}
			band := append([]string(nil), w[lo:hi]...)
			rng.Shuffle(len(band), func(i, j int) { band[i], band[j] = band[j], band[i] })
			probeBands = append(probeBands, band)
		}
	})
	return probeBands
}

// completeRecaptures counts the recaptures of the complete answers
// (unlimited, shorter than the limit and the longest answer).
func (st *State) completeRecaptures() int {
	n := 0
	for i, l := range st.log {
		if !l.Limited && !l.FromDocs && l.Total < 0 && (st.k <= 0 || l.Returned < st.k) && l.Returned < st.maxRet && i < len(st.Stats.Queries) {
			n += st.Stats.Queries[i].Known
		}
	}
	return n
}

// completeProbes counts the probes that came back complete and matched a
// document: the leave-one-out estimator (loo.go) wants minLOOQueries of
// them, so that it does not rest on one or two words.
func (st *State) completeProbes() int {
	n := 0
	for _, l := range st.log {
		if l.Probe && !l.Limited && l.Returned > 0 && (st.k <= 0 || l.Returned < st.k) && l.Returned < st.maxRet {
			n++
		}
	}
	return n
}

// probe returns the next size probe, if one is due.
func (st *State) probe(opt Options) (Proposal, bool) {
	if opt.NoProbe || st.reported || len(st.log) < 3 || (opt.Budget > 0 && opt.Budget-len(st.log) < 2) {
		return Proposal{}, false
	}
	last, limited := 0, false
	for _, l := range st.log {
		if l.Probe {
			last = l.N
		}
		limited = limited || l.Limited
	}
	if !limited || len(st.log)-last < probeGap || (st.completeRecaptures() >= minProbeRecaptures && st.completeProbes() >= minLOOQueries) {
		return Proposal{}, false
	}
	band := probeBand
	for _, l := range st.log {
		if l.Probe && l.Limited {
			band++
		} else if l.Probe && l.Returned == 0 {
			band--
		}
	}
	bands := probeWords()
	if band < 0 {
		band = 0
	}
	if band >= len(bands) {
		band = len(bands) - 1
	}
	// the band, then the others nearest first
	for d := 0; d < len(bands); d++ {
		for _, b := range []int{band + d, band - d} {
			if b < 0 || b >= len(bands) || (d == 0 && b != band) {
				continue
			}
			for _, w := range bands[b] {
				if usable(st, w) {
					return Proposal{Query: w, probe: true}, true
				}
			}
		}
	}
	return Proposal{}, false
}
