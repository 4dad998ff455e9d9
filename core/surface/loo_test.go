package surface

import (
	"math"
	"testing"
)

// TestFewRecaptures: with fewer recaptures than an estimate needs, the
// estimate is still reported, with the exact Poisson interval of the
// recaptures: open above (coverage down to 0) with none, and holding the
// point estimate and the proven floor otherwise.
func TestFewRecaptures(t *testing.T) {
	cases := []struct {
		name      string
		sumNT, m  float64
		floor     float64
		wantOpen  bool
		wantPoint float64
	}{
		{"none", 1e6, 0, 300, true, 1e6},
		{"three", 1e6, 3, 300, false, 2.5e5},
		{"below floor", 1000, 2, 900, false, 900},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := fewRecaptures(300, c.sumNT, c.m, c.floor, "x", 4)
			if e.Estimator != "x"+FewSuffix || !e.Valid() {
				t.Fatalf("estimator %q valid %v", e.Estimator, e.Valid())
			}
			if math.Abs(e.Size-c.wantPoint) > 1e-6*c.wantPoint {
				t.Errorf("size %.1f, want %.1f", e.Size, c.wantPoint)
			}
			if math.IsInf(e.SizeHigh, 1) != c.wantOpen || (c.wantOpen && e.Low != 0) {
				t.Errorf("size high %v, coverage low %v: open above %v", e.SizeHigh, e.Low, c.wantOpen)
			}
			if !(e.SizeLow <= e.Size && e.Size <= e.SizeHigh) || e.SizeLow < c.floor || e.High > 1 {
				t.Errorf("interval [%.1f, %.1f] around %.1f (floor %.0f), coverage high %.3f", e.SizeLow, e.SizeHigh, e.Size, c.floor, e.High)
			}
		})
	}
}
