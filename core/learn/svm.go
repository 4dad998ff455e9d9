package learn

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// SVMOptions tune [TrainSVM] and [TrainOVR].
type SVMOptions struct {
	C           float64            // regularisation (default 1); larger fits the data harder
	ClassWeight map[string]float64 // multiplies C for a class's cases (missing = 1)
	Balanced    bool               // weight each class by n/(K·n_c), on top of ClassWeight
	Epochs      int                // max passes over the data (default 1000)
	Tol         float64            // stop when the projected-gradient spread falls below Tol (default 0.1, as liblinear)
	Seed        uint64             // order of coordinate updates
	PlattFolds  int                // folds of internal CV for Platt scaling (default 3; 1 = fit on training outputs)
}

func (o *SVMOptions) defaults() {
	if o.C <= 0 {
		o.C = 1
	}
	if o.Epochs <= 0 {
		o.Epochs = 1000
	}
	if o.Tol <= 0 {
		o.Tol = 0.1
	}
	if o.PlattFolds <= 0 {
		o.PlattFolds = 3
	}
}

// SVM is a binary linear SVM f(x) = W·x + B with Platt's sigmoid
// P(y = +1 | x) = 1 / (1 + exp(PA·f(x) + PB)).
type SVM struct {
	W  []float64 `json:"w"`
	B  float64   `json:"b"`
	PA float64   `json:"platt_a"`
	PB float64   `json:"platt_b"`
}

// svmJSON is the file layout of an SVM: weights stored with five
// significant digits (relative error 1e-5, far below what moves a
// decision; more digits only grow model files).
type svmJSON struct {
	W  []float32 `json:"w"`
	B  float64   `json:"b"`
	PA float64   `json:"platt_a"`
	PB float64   `json:"platt_b"`
}

// weightDigits is the number of significant digits of a stored weight.
const weightDigits = 5

// MarshalJSON encodes the SVM with weights of weightDigits digits.
func (m *SVM) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 16+8*len(m.W))
	b = append(b, `{"w":[`...)
	for i, w := range m.W {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, w, 'g', weightDigits, 32)
	}
	b = append(b, `],"b":`...)
	b = strconv.AppendFloat(b, m.B, 'g', -1, 64)
	b = append(b, `,"platt_a":`...)
	b = strconv.AppendFloat(b, m.PA, 'g', -1, 64)
	b = append(b, `,"platt_b":`...)
	b = strconv.AppendFloat(b, m.PB, 'g', -1, 64)
	return append(b, '}'), nil
}

// UnmarshalJSON decodes an SVM written by MarshalJSON.
func (m *SVM) UnmarshalJSON(b []byte) error {
	var j svmJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*m = SVM{W: make([]float64, len(j.W)), B: j.B, PA: j.PA, PB: j.PB}
	for i, w := range j.W {
		m.W[i] = float64(w)
	}
	return nil
}

// Decision returns the signed margin W·x + B.
func (m *SVM) Decision(x Sparse) float64 { return x.Dot(m.W) + m.B }

// Prob returns the Platt-scaled probability that x is positive.
func (m *SVM) Prob(x Sparse) float64 { return sigmoid(m.PA*m.Decision(x) + m.PB) }

func sigmoid(fApB float64) float64 {
	// 1/(1+exp(fApB)), computed without overflow.
	if fApB >= 0 {
		e := math.Exp(-fApB)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(fApB))
}

// TrainSVM trains a binary L1-loss linear SVM by dual coordinate descent
// (Hsieh et al. 2008) on cases X of dimension dim with labels y (true =
// positive) and per-case costs cost (nil = C for all), then fits Platt's
// sigmoid.
func TrainSVM(X []Sparse, y []bool, dim int, cost []float64, opt SVMOptions) (*SVM, error) {
	opt.defaults()
	if len(X) != len(y) || (cost != nil && len(cost) != len(y)) {
		return nil, fmt.Errorf("train svm: %d cases, %d labels, %d costs", len(X), len(y), len(cost))
	}
	if len(X) == 0 {
		return nil, fmt.Errorf("train svm: no cases")
	}
	if cost == nil {
		cost = make([]float64, len(X))
		for i := range cost {
			cost[i] = opt.C
		}
	}
	m := dcd(X, y, dim, cost, opt)
	dec := plattInputs(X, y, dim, cost, opt, m)
	m.PA, m.PB = fitPlatt(dec, y)
	return m, nil
}

// dcd is the dual coordinate descent solver; the bias is an extra
// feature of constant value 1 (regularised, as in liblinear).
func dcd(X []Sparse, y []bool, dim int, cost []float64, opt SVMOptions) *SVM {
	n := len(X)
	w := make([]float64, dim)
	var b float64
	alpha := make([]float64, n)
	qii := make([]float64, n)
	ys := make([]float64, n)
	order := make([]int, n)
	for i := range n {
		qii[i] = X[i].SqNorm() + 1
		ys[i] = -1
		if y[i] {
			ys[i] = 1
		}
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5f3759df))
	for range opt.Epochs {
		rng.Shuffle(n, func(a, c int) { order[a], order[c] = order[c], order[a] })
		maxPG, minPG := math.Inf(-1), math.Inf(1)
		for _, i := range order {
			g := ys[i]*(X[i].Dot(w)+b) - 1
			var pg float64
			switch {
			case alpha[i] == 0:
				pg = math.Min(g, 0)
			case alpha[i] >= cost[i]:
				pg = math.Max(g, 0)
			default:
				pg = g
			}
			maxPG = math.Max(maxPG, pg)
			minPG = math.Min(minPG, pg)
			if math.Abs(pg) < 1e-12 {
				continue
			}
			old := alpha[i]
			alpha[i] = math.Min(math.Max(old-g/qii[i], 0), cost[i])
			d := (alpha[i] - old) * ys[i]
			for k, j := range X[i].Idx {
				if int(j) < dim {
					w[j] += d * X[i].Val[k]
				}
			}
			b += d
		}
		if maxPG-minPG < opt.Tol {
			break
		}
	}
	return &SVM{W: w, B: b}
}

// plattInputs returns decision values for Platt scaling: out-of-fold values
// from an internal cross-validation when there is enough data, else the
// training values of m.
func plattInputs(X []Sparse, y []bool, dim int, cost []float64, opt SVMOptions, m *SVM) []float64 {
	dec := make([]float64, len(X))
	k := opt.PlattFolds
	if k < 2 || len(X) < 10*k {
		for i, x := range X {
			dec[i] = m.Decision(x)
		}
		return dec
	}
	// Stratified folds: positives and negatives dealt round-robin in a
	// seeded random order.
	fold := make([]int, len(X))
	rng := rand.New(rand.NewPCG(opt.Seed, 0x2545f491))
	perm := rng.Perm(len(X))
	var np, nn int
	for _, i := range perm {
		if y[i] {
			fold[i] = np % k
			np++
		} else {
			fold[i] = nn % k
			nn++
		}
	}
	for f := range k {
		var tx []Sparse
		var ty []bool
		var tc []float64
		for i := range X {
			if fold[i] != f {
				tx, ty, tc = append(tx, X[i]), append(ty, y[i]), append(tc, cost[i])
			}
		}
		fm := dcd(tx, ty, dim, tc, opt)
		for i := range X {
			if fold[i] == f {
				dec[i] = fm.Decision(X[i])
			}
		}
	}
	return dec
}

// fitPlatt fits the sigmoid 1/(1+exp(A·f+B)) to decision values by
// Newton's method with backtracking on the regularised targets of Platt
// (1999), following Lin, Lin & Weng (2007).
func fitPlatt(dec []float64, y []bool) (float64, float64) {
	var prior1, prior0 float64
	for _, v := range y {
		if v {
			prior1++
		} else {
			prior0++
		}
	}
	hi := (prior1 + 1) / (prior1 + 2)
	lo := 1 / (prior0 + 2)
	t := make([]float64, len(y))
	for i, v := range y {
		if v {
			t[i] = hi
		} else {
			t[i] = lo
		}
	}
	a, b := 0.0, math.Log((prior0+1)/(prior1+1))
	obj := func(a, b float64) float64 {
		var f float64
		for i, d := range dec {
			fApB := d*a + b
			if fApB >= 0 {
				f += t[i]*fApB + math.Log1p(math.Exp(-fApB))
			} else {
				f += (t[i]-1)*fApB + math.Log1p(math.Exp(fApB))
			}
		}
		return f
	}
	const sigma = 1e-12
	fval := obj(a, b)
	for range 100 {
		h11, h22, h21, g1, g2 := sigma, sigma, 0.0, 0.0, 0.0
		for i, d := range dec {
			fApB := d*a + b
			var p, q float64
			if fApB >= 0 {
				p = math.Exp(-fApB) / (1 + math.Exp(-fApB))
				q = 1 / (1 + math.Exp(-fApB))
			} else {
				p = 1 / (1 + math.Exp(fApB))
				q = math.Exp(fApB) / (1 + math.Exp(fApB))
			}
			d2 := p * q
			h11 += d * d * d2
			h22 += d2
			h21 += d * d2
			d1 := t[i] - p
			g1 += d * d1
			g2 += d1
		}
		if math.Abs(g1) < 1e-5 && math.Abs(g2) < 1e-5 {
			break
		}
		det := h11*h22 - h21*h21
		da := -(h22*g1 - h21*g2) / det
		db := -(-h21*g1 + h11*g2) / det
		gd := g1*da + g2*db
		step := 1.0
		for step >= 1e-10 {
			na, nb := a+step*da, b+step*db
			nf := obj(na, nb)
			if nf < fval+1e-4*step*gd {
				a, b, fval = na, nb, nf
				break
			}
			step /= 2
		}
		if step < 1e-10 {
			break
		}
	}
	return a, b
}

// OVR is a one-vs-rest linear SVM over several classes. With two classes it
// holds a single model for Classes[1] against Classes[0].
type OVR struct {
	Classes []string `json:"classes"`
	Dim     int      `json:"dim"`
	Models  []*SVM   `json:"models"`
}

// TrainOVR trains one binary SVM per class (or one for two classes).
func TrainOVR(X []Sparse, labels []string, dim int, opt SVMOptions) (*OVR, error) {
	opt.defaults()
	if len(X) != len(labels) {
		return nil, fmt.Errorf("train ovr: %d cases, %d labels", len(X), len(labels))
	}
	classes := distinct(labels)
	if len(classes) < 2 {
		return nil, fmt.Errorf("train ovr: need two classes, have %v", classes)
	}
	count := make(map[string]float64)
	for _, l := range labels {
		count[l]++
	}
	cost := make([]float64, len(X))
	for i, l := range labels {
		c := opt.C
		if w, ok := opt.ClassWeight[l]; ok {
			c *= w
		}
		if opt.Balanced {
			c *= float64(len(labels)) / (float64(len(classes)) * count[l])
		}
		cost[i] = c
	}
	m := &OVR{Classes: classes, Dim: dim}
	targets := classes
	if len(classes) == 2 {
		targets = classes[1:]
	}
	for _, c := range targets {
		y := make([]bool, len(labels))
		for i, l := range labels {
			y[i] = l == c
		}
		s, err := TrainSVM(X, y, dim, cost, opt)
		if err != nil {
			return nil, fmt.Errorf("train ovr class %q: %w", c, err)
		}
		m.Models = append(m.Models, s)
	}
	return m, nil
}

// Probs returns class probabilities in Classes order: the Platt outputs,
// normalised to sum to 1.
func (m *OVR) Probs(x Sparse) []float64 {
	if len(m.Models) == 1 {
		p := m.Models[0].Prob(x)
		return []float64{1 - p, p}
	}
	out := make([]float64, len(m.Models))
	var z float64
	for i, s := range m.Models {
		out[i] = s.Prob(x)
		z += out[i]
	}
	for i := range out {
		if z > 0 {
			out[i] /= z
		} else {
			out[i] = 1 / float64(len(out))
		}
	}
	return out
}

// Predict returns the most probable class and its probability.
func (m *OVR) Predict(x Sparse) (string, float64) {
	p := m.Probs(x)
	b := argmax(p)
	return m.Classes[b], p[b]
}
