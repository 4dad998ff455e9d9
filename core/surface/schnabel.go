package surface

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// schnabel accumulates the sums of a stratified Schnabel capture–recapture
// estimate with Chapman's +1: per stratum s, Σᵢ nᵢ₋₁,ₛ·Tᵢ,ₛ (first capture
// times second) and Σᵢ mᵢ,ₛ (recaptures). Every estimator of coverage.go,
// loo.go and adaptive.go, and Stats.Size, is one of these; they differ in
// what they count as a capture.
type schnabel struct {
	nT, m []float64
}

func newSchnabel(strata int) *schnabel {
	return &schnabel{nT: make([]float64, strata), m: make([]float64, strata)}
}

// Add adds one sample to stratum s: the product nT of the first capture
// and the sample's size, and its recaptures m (weighed by the caller).
func (a *schnabel) Add(s int, nT, m float64) {
	a.nT[s] += nT
	a.m[s] += m
}

// AddRow adds one sample over every stratum, weighed by w.
func (a *schnabel) AddRow(w float64, nT, m []float64) {
	for j := range a.nT {
		a.nT[j] += w * nT[j]
		a.m[j] += w * m[j]
	}
}

// Estimate returns N̂ = Σₛ nTₛ/(mₛ+1), the recaptures Σₛ mₛ and the
// Poisson relative variance of N̂, Σₛ N̂ₛ²/(mₛ+1) / N̂² (0 when N̂ is 0): a
// stratum with few recaptures is as uncertain as its count, however many
// the others have.
func (a *schnabel) Estimate() (size, recaptures, relVar float64) {
	var v float64
	for j := range a.nT {
		sj := a.nT[j] / (a.m[j] + 1)
		size += sj
		recaptures += a.m[j]
		v += sj * sj / (a.m[j] + 1)
	}
	if size > 0 {
		relVar = v / (size * size)
	}
	return size, recaptures, relVar
}

// coverageZ is the normal quantile of the two-sided CoverageLevel interval.
var coverageZ = distuv.UnitNormal.Quantile(1 - (1-CoverageLevel)/2)

// schnabelInterval is the CoverageLevel interval of the size estimate
// size = max(raw, floor) from recaptures recaptures with relative variance
// relVar: it joins the percentiles of the sorted bootstrap sizes boot (none:
// the point), the exact Poisson interval of the recaptures (the size scales
// as 1/(M+1)) and the log-normal interval of relVar, never below floor.
// An estimate raw below a bound the data prove (floor: the downloaded
// documents, a reported total) means the model is off by at least that
// factor, so the truth may be as far above the bound.
func schnabelInterval(boot []float64, size, raw, recaptures, relVar, floor float64) (lo, hi float64) {
	alpha := (1 - CoverageLevel) / 2
	lo, hi = size, size
	if len(boot) > 0 {
		lo, hi = quantileSorted(boot, alpha), quantileSorted(boot, 1-alpha)
	}
	mlo, mhi := poissonInterval(recaptures, CoverageLevel)
	lo = math.Max(floor, math.Min(lo, size*(recaptures+1)/(mhi+1)))
	hi = math.Max(hi, size*(recaptures+1)/(mlo+1))
	lo = math.Max(floor, math.Min(lo, size*math.Exp(-coverageZ*math.Sqrt(relVar))))
	hi = math.Max(hi, size*math.Exp(coverageZ*math.Sqrt(relVar)))
	lo, hi = math.Min(lo, size), math.Max(hi, size)
	if raw < floor {
		hi = math.Max(hi, floor*floor/math.Max(raw, 1))
	}
	return lo, hi
}

// sizeEstimate is the estimate of a database of size [lo, hi] around size
// of which docs documents were downloaded.
func sizeEstimate(docs int, size, lo, hi float64, name string, queries, strata int) CoverageEstimate {
	fn := float64(docs)
	return CoverageEstimate{
		Docs: docs, Size: size, SizeLow: lo, SizeHigh: hi,
		Coverage: fn / size, Low: fn / hi, High: fn / lo,
		Estimator: name, Queries: queries, Strata: strata,
	}
}
