package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// GroupKFold splits cases into k folds for cross-validation so that every
// group (for dwcrawl: a site's host) lies in exactly one fold, while each
// fold's class proportions stay close to the whole set's (stratified). It
// returns the test indices of each fold, each sorted.
//
// Groups are placed largest first (ties in seeded random order) into the
// fold that minimises the spread of per-class fold shares, the greedy rule
// of scikit-learn's StratifiedGroupKFold. With fewer groups than k, some
// folds are empty.
func GroupKFold(labels, groups []string, k int, seed uint64) ([][]int, error) {
	if len(labels) != len(groups) {
		return nil, fmt.Errorf("group k-fold: %d labels, %d groups", len(labels), len(groups))
	}
	if k < 2 {
		return nil, fmt.Errorf("group k-fold: k = %d < 2", k)
	}
	classes := distinct(labels)
	ci := make(map[string]int, len(classes))
	for i, c := range classes {
		ci[c] = i
	}
	type group struct {
		name    string
		members []int
		counts  []float64
		spread  float64
	}
	byName := make(map[string]*group)
	var gs []*group
	classTotal := make([]float64, len(classes))
	for i, g := range groups {
		gr := byName[g]
		if gr == nil {
			gr = &group{name: g, counts: make([]float64, len(classes))}
			byName[g] = gr
			gs = append(gs, gr)
		}
		gr.members = append(gr.members, i)
		gr.counts[ci[labels[i]]]++
		classTotal[ci[labels[i]]]++
	}
	sort.Slice(gs, func(a, b int) bool { return gs[a].name < gs[b].name })
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	rng.Shuffle(len(gs), func(a, b int) { gs[a], gs[b] = gs[b], gs[a] })
	for _, g := range gs {
		g.spread = stddev(g.counts)
	}
	// Most class-skewed (and largest) groups first: they are the hardest to balance.
	sort.SliceStable(gs, func(a, b int) bool {
		if gs[a].spread != gs[b].spread {
			return gs[a].spread > gs[b].spread
		}
		return len(gs[a].members) > len(gs[b].members)
	})
	foldCounts := make([][]float64, k)
	for f := range foldCounts {
		foldCounts[f] = make([]float64, len(classes))
	}
	foldSize := make([]int, k)
	folds := make([][]int, k)
	share := make([]float64, k)
	for _, g := range gs {
		best, bestEval := -1, math.Inf(1)
		for f := range k {
			// Evaluate the mean over classes of the spread of fold shares if g joins f.
			var eval float64
			for c := range classes {
				for ff := range k {
					v := foldCounts[ff][c]
					if ff == f {
						v += g.counts[c]
					}
					share[ff] = v / classTotal[c]
				}
				eval += stddev(share)
			}
			eval /= float64(len(classes))
			if eval < bestEval-1e-12 || (math.Abs(eval-bestEval) <= 1e-12 && foldSize[f] < foldSize[best]) {
				best, bestEval = f, eval
			}
		}
		for c := range classes {
			foldCounts[best][c] += g.counts[c]
		}
		foldSize[best] += len(g.members)
		folds[best] = append(folds[best], g.members...)
	}
	for _, f := range folds {
		sort.Ints(f)
	}
	return folds, nil
}

// TrainIndices returns the indices 0..n-1 that are not in test.
func TrainIndices(n int, test []int) []int {
	in := make([]bool, n)
	for _, i := range test {
		in[i] = true
	}
	out := make([]int, 0, n-len(test))
	for i := range n {
		if !in[i] {
			out = append(out, i)
		}
	}
	return out
}

func stddev(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := sum(xs) / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)))
}
