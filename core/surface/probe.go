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
// documents), the harvest spends one query in probeGap on a probe: the next
// unissued word of a fixed random order of the bundled generic word list
// (ranks probeSkip to probeSkip+probeWords, frequent enough to match, rare
// enough to be answered in full). Probe words are chosen without looking at
// the downloaded documents, so their recaptures are as unbiased a sample as
// the random policy's; the documents they return are downloaded like any
// query's, and their complete answers anchor the rank estimates of the cut
// answers' totals too.
const (
	minProbeRecaptures = 30
	probeGap           = 4
	probeSkip          = 100
	probeWords         = 5000
	probeSeed          = 1
)

var (
	probeOnce sync.Once
	probeList []string
)

// probeOrder is the probe word order.
func probeOrder() []string {
	probeOnce.Do(func() {
		var w []string
		for _, x := range GenericWords() {
			if len([]rune(x)) >= 3 {
				w = append(w, x)
			}
		}
		if len(w) > probeSkip {
			w = w[probeSkip:]
		}
		if len(w) > probeWords {
			w = w[:probeWords]
		}
		rand.New(rand.NewSource(probeSeed)).Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		probeList = w
	})
	return probeList
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
	if !limited || len(st.log)-last < probeGap || st.completeRecaptures() >= minProbeRecaptures {
		return Proposal{}, false
	}
	for _, w := range probeOrder() {
		if usable(st, w) {
			return Proposal{Query: w, probe: true}, true
		}
	}
	return Proposal{}, false
}
