package surface

import (
	"math"
	"testing"
)

// TestSchnabel: the accumulator's estimate, recaptures and relative
// variance against sums worked by hand.
func TestSchnabel(t *testing.T) {
	type sample struct {
		stratum int
		nT, m   float64
	}
	cases := []struct {
		name                     string
		strata                   int
		samples                  []sample
		size, recaptures, relVar float64
	}{
		{"empty", 1, nil, 0, 0, 0},
		// Chapman: (100·50 + 200·40) / (5 + 10 + 1) = 13000/16; relVar 1/16
		{"one stratum", 1, []sample{{0, 100 * 50, 5}, {0, 200 * 40, 10}}, 812.5, 15, 1.0 / 16},
		// no recapture: N̂ = ΣnT, as uncertain as one event
		{"no recaptures", 1, []sample{{0, 50, 0}}, 50, 0, 1},
		// 600/3 + 1000/5 = 400; relVar (200²/3 + 200²/5)/400² = 2/15
		{"two strata", 2, []sample{{0, 600, 2}, {1, 400, 1}, {1, 600, 3}}, 400, 6, 2.0 / 15},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			acc := newSchnabel(c.strata)
			for _, s := range c.samples {
				acc.Add(s.stratum, s.nT, s.m)
			}
			size, m, rv := acc.Estimate()
			if math.Abs(size-c.size) > 1e-9*c.size || m != c.recaptures || math.Abs(rv-c.relVar) > 1e-12 {
				t.Errorf("estimate %v, %v recaptures, relVar %v; want %v, %v, %v", size, m, rv, c.size, c.recaptures, c.relVar)
			}
		})
	}
	// a row weighed by 2 counts as that row twice
	acc := newSchnabel(2)
	acc.AddRow(2, []float64{300, 500}, []float64{1, 2})
	if size, m, rv := acc.Estimate(); size != 400 || m != 6 || math.Abs(rv-2.0/15) > 1e-12 {
		t.Errorf("weighed row: %v, %v recaptures, relVar %v; want 400, 6, 2/15", size, m, rv)
	}
}
