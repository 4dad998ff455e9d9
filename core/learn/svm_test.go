package learn

import (
	"math"
	"math/rand/v2"
	"testing"
)

func sp(idx []int32, val []float64) Sparse { return Sparse{Idx: idx, Val: val} }

func TestSVMTwoPoints(t *testing.T) {
	// x = +1 positive, x = −1 negative, bias as a regularised feature: the
	// dual solution is α = (½, ½), so w = 1, b = 0 (hand-computed).
	X := []Sparse{sp([]int32{0}, []float64{1}), sp([]int32{0}, []float64{-1})}
	y := []bool{true, false}
	m, err := TrainSVM(X, y, 1, nil, SVMOptions{C: 10, Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.W[0]-1) > 1e-3 || math.Abs(m.B) > 1e-3 {
		t.Errorf("w = %v, b = %v; want 1, 0", m.W, m.B)
	}
	if m.Prob(X[0]) <= 0.5 || m.Prob(X[1]) >= 0.5 {
		t.Errorf("probs %v %v", m.Prob(X[0]), m.Prob(X[1]))
	}
}

func TestSVMClassWeights(t *testing.T) {
	// Overlapping 1-D classes: weighting the positives moves the boundary
	// toward the negatives, so more cases are called positive.
	var X []Sparse
	var y []bool
	for i := range 40 {
		x := float64(i)/39*2 - 1 // -1..1
		X = append(X, sp([]int32{0}, []float64{x}))
		y = append(y, (x > 0) != (i%5 == 0)) // 20% label noise
	}
	count := func(cost []float64) int {
		m, err := TrainSVM(X, y, 1, cost, SVMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range X {
			if m.Decision(x) > 0 {
				n++
			}
		}
		return n
	}
	cost := make([]float64, len(X))
	for i := range cost {
		cost[i] = 1
		if y[i] {
			cost[i] = 10
		}
	}
	if a, b := count(nil), count(cost); b <= a {
		t.Errorf("positives predicted: plain %d, weighted %d", a, b)
	}
}

func TestOVRThreeClusters(t *testing.T) {
	seed := uint64(7)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var X []Sparse
	var labels []string
	names := []string{"a", "b", "c"}
	for i := range 150 {
		c := i % 3
		m := map[int32]float64{int32(c): 1 + rng.Float64(), 3: rng.Float64() * 0.3}
		X = append(X, NewSparse(m).Normalize())
		labels = append(labels, names[c])
	}
	m, err := TrainOVR(X, labels, 4, SVMOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range X {
		l, p := m.Predict(x)
		if l != labels[i] || p < 0.5 {
			t.Fatalf("case %d: %s %.2f, want %s", i, l, p, labels[i])
		}
		if s := sum(m.Probs(x)); math.Abs(s-1) > 1e-9 {
			t.Fatalf("probs sum %v", s)
		}
	}
	// Two classes use one model.
	var X2 []Sparse
	var l2 []string
	for i, l := range labels {
		if l != "c" && (l == "a" || i%2 == 0) { // unbalanced a:b = 2:1
			X2, l2 = append(X2, X[i]), append(l2, l)
		}
	}
	m2, err := TrainOVR(X2, l2, 4, SVMOptions{Seed: seed, Balanced: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Models) != 1 {
		t.Errorf("%d models for 2 classes", len(m2.Models))
	}
	for i, x := range X2 {
		if l, _ := m2.Predict(x); l != l2[i] {
			t.Errorf("two-class case %d: %s, want %s", i, l, l2[i])
		}
	}
	if _, err := TrainOVR(X[:3], []string{"a", "a", "a"}, 4, SVMOptions{}); err == nil {
		t.Error("one class accepted")
	}
}

func TestPlattMonotone(t *testing.T) {
	dec := []float64{-2, -1, -0.5, 0.5, 1, 2}
	y := []bool{false, false, true, false, true, true}
	a, b := fitPlatt(dec, y)
	if a >= 0 {
		t.Fatalf("A = %v, want negative (P rises with the margin)", a)
	}
	if p := sigmoid(a*0 + b); math.Abs(p-0.5) > 0.15 {
		t.Errorf("P(f=0) = %v", p)
	}
}

func TestTFIDF(t *testing.T) {
	docs := [][]string{{"a", "b", "a"}, {"a", "c"}, {"d"}}
	v := FitTFIDF(docs, 1, 0)
	if v.Dim() != 4 || v.Index("a") != 0 || v.Index("zz") != -1 {
		t.Fatalf("vocab %v", v.Terms)
	}
	x := v.Transform([]string{"a", "a", "b", "zz"})
	// a: tf 2 → (1+ln2)·(ln(4/3)+1); b: tf 1 → ln(4/2)+1.
	wa := (1 + math.Log(2)) * (math.Log(4.0/3) + 1)
	wb := math.Log(2) + 1
	n := math.Hypot(wa, wb)
	if len(x.Idx) != 2 || math.Abs(x.Val[0]-wa/n) > 1e-12 || math.Abs(x.Val[1]-wb/n) > 1e-12 {
		t.Errorf("vector %+v", x)
	}
	if top := FitTFIDF(docs, 1, 1); len(top.Terms) != 1 || top.Terms[0] != "a" {
		t.Errorf("max features kept %v", top.Terms)
	}
	if md := FitTFIDF(docs, 2, 0); len(md.Terms) != 1 {
		t.Errorf("min df kept %v", md.Terms)
	}
}
