package learn

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// AttrKind says how an attribute's values are read.
type AttrKind int

const (
	// Continuous attributes are real numbers split by a threshold (≤ t, > t).
	Continuous AttrKind = iota
	// Nominal attributes take one of Values (stored as the value's index)
	// and split into one branch per value.
	Nominal
)

// MarshalText encodes the kind as "continuous" or "nominal".
func (k AttrKind) MarshalText() ([]byte, error) {
	switch k {
	case Continuous:
		return []byte("continuous"), nil
	case Nominal:
		return []byte("nominal"), nil
	}
	return nil, fmt.Errorf("attr kind %d", int(k))
}

// UnmarshalText decodes "continuous" or "nominal".
func (k *AttrKind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "continuous":
		*k = Continuous
	case "nominal":
		*k = Nominal
	default:
		return fmt.Errorf("attr kind %q", b)
	}
	return nil
}

// Attr describes one attribute (column) of a [Dataset].
type Attr struct {
	Name   string   `json:"name"`
	Kind   AttrKind `json:"kind"`
	Values []string `json:"values,omitempty"` // nominal only
}

// Missing is the value of an unknown attribute (NaN).
var Missing = math.NaN()

// Dataset is a table of cases for [TrainTree]: X[i][a] is the value of
// attribute a in case i (math.NaN() when unknown; a nominal value is the
// index into Attrs[a].Values), Y[i] the index of its class, and W[i] its
// weight (nil means 1 for every case).
type Dataset struct {
	Attrs   []Attr
	Classes []string
	X       [][]float64
	Y       []int
	W       []float64
}

// TreeOptions tune [TrainTree]. The zero value gives C4.5's defaults.
type TreeOptions struct {
	MinLeaf  int     // minimum weight of cases in at least two branches of a test (default 2)
	CF       float64 // pruning confidence factor (default 0.25); smaller prunes harder
	NoPrune  bool    // keep the unpruned tree
	MaxDepth int     // 0 = unlimited
}

// Tree is a trained C4.5 decision tree.
type Tree struct {
	Attrs   []Attr   `json:"attrs"`
	Classes []string `json:"classes"`
	Root    *Node    `json:"root"`
}

// Node is a tree node. A leaf has no Children; an inner node tests Attr:
// a continuous test sends x ≤ Threshold to Children[0] and the rest to
// Children[1]; a nominal test sends value v to Children[v]. A case whose
// value is missing goes down every branch b with weight BranchW[b].
type Node struct {
	Attr      int       `json:"attr"`
	Threshold float64   `json:"thr,omitempty"`
	Children  []*Node   `json:"children,omitempty"`
	BranchW   []float64 `json:"branch_w,omitempty"`
	Class     int       `json:"class"` // majority class of the training cases here
	Dist      []float64 `json:"dist"`  // weighted training class counts here
	Prob      []float64 `json:"prob"`  // leaf class probabilities (Laplace), parent's if empty
}

// IsLeaf reports whether n has no children.
func (n *Node) IsLeaf() bool { return len(n.Children) == 0 }

// wcase is a (possibly fractional) training case.
type wcase struct {
	i int
	w float64
}

type treeBuilder struct {
	d      *Dataset
	opt    TreeOptions
	k      int
	values [][]float64 // sorted distinct known values of each continuous attribute
}

// TrainTree grows a C4.5 tree on d and, unless opt.NoPrune, prunes it with
// pessimistic error estimates.
func TrainTree(d *Dataset, opt TreeOptions) (*Tree, error) {
	if len(d.X) != len(d.Y) || (d.W != nil && len(d.W) != len(d.Y)) {
		return nil, fmt.Errorf("train tree: %d rows, %d labels, %d weights", len(d.X), len(d.Y), len(d.W))
	}
	if len(d.X) == 0 {
		return nil, fmt.Errorf("train tree: no cases")
	}
	if len(d.Classes) == 0 {
		return nil, fmt.Errorf("train tree: no classes")
	}
	for i, row := range d.X {
		if len(row) != len(d.Attrs) {
			return nil, fmt.Errorf("train tree: row %d has %d values for %d attributes", i, len(row), len(d.Attrs))
		}
		if d.Y[i] < 0 || d.Y[i] >= len(d.Classes) {
			return nil, fmt.Errorf("train tree: row %d has class %d", i, d.Y[i])
		}
	}
	if opt.MinLeaf <= 0 {
		opt.MinLeaf = 2
	}
	if opt.CF <= 0 {
		opt.CF = 0.25
	}
	if opt.CF > 0.5 {
		return nil, fmt.Errorf("train tree: confidence factor %g > 0.5", opt.CF)
	}
	b := &treeBuilder{d: d, opt: opt, k: len(d.Classes), values: make([][]float64, len(d.Attrs))}
	for a, at := range d.Attrs {
		if at.Kind == Continuous {
			b.values[a] = sortedValues(d.X, a)
		}
	}
	cases := make([]wcase, len(d.X))
	for i := range cases {
		w := 1.0
		if d.W != nil {
			w = d.W[i]
		}
		cases[i] = wcase{i, w}
	}
	root := b.grow(cases, 0)
	if !opt.NoPrune {
		b.prune(root)
	}
	setProbs(root, nil)
	return &Tree{Attrs: d.Attrs, Classes: d.Classes, Root: root}, nil
}

func (b *treeBuilder) dist(cases []wcase) []float64 {
	dist := make([]float64, b.k)
	for _, c := range cases {
		dist[b.d.Y[c.i]] += c.w
	}
	return dist
}

// split is a candidate test.
type split struct {
	attr      int
	threshold float64
	gain      float64
	ratio     float64
}

const epsilon = 1e-9

func (b *treeBuilder) grow(cases []wcase, depth int) *Node {
	dist := b.dist(cases)
	n := &Node{Attr: -1, Dist: dist, Class: argmax(dist)}
	total := sum(dist)
	if dist[n.Class] >= total-epsilon || total < 2*float64(b.opt.MinLeaf) ||
		(b.opt.MaxDepth > 0 && depth >= b.opt.MaxDepth) {
		return n
	}
	best, ok := b.choose(cases, total)
	if !ok {
		return n
	}
	parts, bw := b.partition(cases, best)
	n.Attr, n.Threshold, n.BranchW = best.attr, best.threshold, bw
	for _, p := range parts {
		if len(p) == 0 {
			n.Children = append(n.Children, &Node{Attr: -1, Dist: make([]float64, b.k), Class: n.Class})
			continue
		}
		n.Children = append(n.Children, b.grow(p, depth+1))
	}
	return n
}

// choose picks, among tests whose gain is at least the average gain of the
// tests with positive gain, the one with the highest gain ratio.
func (b *treeBuilder) choose(cases []wcase, total float64) (split, bool) {
	var cands []split
	for a := range b.d.Attrs {
		var s split
		var ok bool
		if b.d.Attrs[a].Kind == Nominal {
			s, ok = b.nominalSplit(cases, a, total)
		} else {
			s, ok = b.continuousSplit(cases, a, total)
		}
		if ok {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return split{}, false
	}
	var avg float64
	for _, s := range cands {
		avg += s.gain
	}
	avg /= float64(len(cands))
	best := split{ratio: -1}
	for _, s := range cands {
		if s.gain >= avg-1e-3 && s.ratio > best.ratio+epsilon {
			best = s
		}
	}
	return best, best.ratio > 0
}

// entropy returns the information (bits) of a class distribution with the
// given total weight.
func entropy(dist []float64, total float64) float64 {
	if total <= 0 {
		return 0
	}
	var h float64
	for _, v := range dist {
		if v > 0 {
			p := v / total
			h -= p * math.Log2(p)
		}
	}
	return h
}

// gainAndSplitInfo computes C4.5's gain (scaled by the known fraction) and
// split information (with the unknown cases as an extra outcome).
func gainAndSplitInfo(branches [][]float64, known, unknown []float64) (gain, info float64) {
	kw := sum(known)
	uw := sum(unknown)
	total := kw + uw
	var after float64
	for _, bd := range branches {
		bw := sum(bd)
		after += bw / kw * entropy(bd, bw)
		if bw > 0 {
			p := bw / total
			info -= p * math.Log2(p)
		}
	}
	if uw > 0 {
		p := uw / total
		info -= p * math.Log2(p)
	}
	gain = kw / total * (entropy(known, kw) - after)
	return gain, info
}

func (b *treeBuilder) nominalSplit(cases []wcase, a int, total float64) (split, bool) {
	nv := len(b.d.Attrs[a].Values)
	branches := make([][]float64, nv)
	for v := range branches {
		branches[v] = make([]float64, b.k)
	}
	known := make([]float64, b.k)
	unknown := make([]float64, b.k)
	for _, c := range cases {
		x := b.d.X[c.i][a]
		y := b.d.Y[c.i]
		if math.IsNaN(x) {
			unknown[y] += c.w
			continue
		}
		branches[int(x)][y] += c.w
		known[y] += c.w
	}
	big := 0
	for _, bd := range branches {
		if sum(bd) >= float64(b.opt.MinLeaf) {
			big++
		}
	}
	if big < 2 {
		return split{}, false
	}
	gain, info := gainAndSplitInfo(branches, known, unknown)
	if gain <= epsilon || info <= epsilon {
		return split{}, false
	}
	return split{attr: a, gain: gain, ratio: gain / info}, true
}

func (b *treeBuilder) continuousSplit(cases []wcase, a int, total float64) (split, bool) {
	type kv struct {
		x float64
		y int
		w float64
	}
	var ks []kv
	unknown := make([]float64, b.k)
	for _, c := range cases {
		x := b.d.X[c.i][a]
		if math.IsNaN(x) {
			unknown[b.d.Y[c.i]] += c.w
			continue
		}
		ks = append(ks, kv{x, b.d.Y[c.i], c.w})
	}
	if len(ks) < 2 {
		return split{}, false
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].x < ks[j].x })
	known := make([]float64, b.k)
	for _, e := range ks {
		known[e.y] += e.w
	}
	kw := sum(known)
	// C4.5 release 8: each side of a threshold needs at least
	// 10% of the average class weight, bounded to [MinLeaf, 25].
	minSplit := 0.1 * kw / float64(b.k)
	minSplit = math.Min(math.Max(minSplit, float64(b.opt.MinLeaf)), 25)
	if kw < 2*minSplit {
		return split{}, false
	}
	left := make([]float64, b.k)
	right := append([]float64(nil), known...)
	var lw float64
	bestGain, bestThr := -1.0, 0.0
	tries := 0
	branches := [][]float64{left, right}
	for i := 0; i < len(ks)-1; i++ {
		left[ks[i].y] += ks[i].w
		right[ks[i].y] -= ks[i].w
		lw += ks[i].w
		if ks[i+1].x <= ks[i].x {
			continue
		}
		if lw < minSplit-epsilon || kw-lw < minSplit-epsilon {
			continue
		}
		tries++
		// Only the "after" term varies between thresholds; compute the
		// full gain, cheap enough for crawler-sized data.
		g, _ := gainAndSplitInfo(branches, known, unknown)
		if g > bestGain+epsilon {
			bestGain, bestThr = g, (ks[i].x+ks[i+1].x)/2
		}
	}
	if tries == 0 {
		return split{}, false
	}
	// Like C4.5 release 8, the threshold is the largest value of the whole
	// training set not above the midpoint, so printed trees show real values.
	bestThr = b.floorValue(a, bestThr)
	// Recompute split info at the chosen threshold.
	for c := range left {
		left[c], right[c] = 0, 0
	}
	for _, e := range ks {
		if e.x <= bestThr {
			left[e.y] += e.w
		} else {
			right[e.y] += e.w
		}
	}
	_, info := gainAndSplitInfo(branches, known, unknown)
	// MDL correction for choosing among `tries` thresholds (Quinlan 1996).
	gain := bestGain - math.Log2(float64(tries))/total
	if gain <= epsilon || info <= epsilon {
		return split{}, false
	}
	return split{attr: a, threshold: bestThr, gain: gain, ratio: gain / info}, true
}

// floorValue returns the largest training value of attribute a that is
// not above x.
func (b *treeBuilder) floorValue(a int, x float64) float64 {
	vs := b.values[a]
	i := sort.SearchFloat64s(vs, x) // first >= x
	if i < len(vs) && vs[i] == x {
		return x
	}
	if i == 0 {
		return x
	}
	return vs[i-1]
}

func sortedValues(X [][]float64, a int) []float64 {
	var vs []float64
	for _, row := range X {
		if !math.IsNaN(row[a]) {
			vs = append(vs, row[a])
		}
	}
	sort.Float64s(vs)
	out := vs[:0]
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// partition sends cases down the branches of s; cases with a missing value
// go down every branch with a weight proportional to the branch's known
// weight (returned as branch weights).
func (b *treeBuilder) partition(cases []wcase, s split) ([][]wcase, []float64) {
	nb := 2
	if b.d.Attrs[s.attr].Kind == Nominal {
		nb = len(b.d.Attrs[s.attr].Values)
	}
	parts := make([][]wcase, nb)
	bw := make([]float64, nb)
	var missing []wcase
	for _, c := range cases {
		x := b.d.X[c.i][s.attr]
		if math.IsNaN(x) {
			missing = append(missing, c)
			continue
		}
		br := branchOf(b.d.Attrs[s.attr].Kind, x, s.threshold)
		parts[br] = append(parts[br], c)
		bw[br] += c.w
	}
	kw := sum(bw)
	for i := range bw {
		bw[i] /= kw
	}
	for _, c := range missing {
		for br := range parts {
			if bw[br] > 0 {
				parts[br] = append(parts[br], wcase{c.i, c.w * bw[br]})
			}
		}
	}
	return parts, bw
}

func branchOf(kind AttrKind, x, thr float64) int {
	if kind == Nominal {
		return int(x)
	}
	if x <= thr {
		return 0
	}
	return 1
}

// prune replaces subtrees by leaves bottom-up when the leaf's pessimistic
// error estimate is no worse than the subtree's (C4.5 subtree replacement),
// and returns the subtree's estimated errors.
func (b *treeBuilder) prune(n *Node) float64 {
	total := sum(n.Dist)
	leafErr := total - n.Dist[n.Class]
	leafEst := leafErr + addErrs(total, leafErr, b.opt.CF)
	if n.IsLeaf() {
		return leafEst
	}
	var treeEst float64
	for _, c := range n.Children {
		treeEst += b.prune(c)
	}
	if leafEst <= treeEst+0.1 {
		n.Children, n.BranchW, n.Attr, n.Threshold = nil, nil, -1, 0
		return leafEst
	}
	return treeEst
}

// addErrs returns the extra errors to add to e observed errors among n
// cases so that e + addErrs is the upper limit of the binomial confidence
// interval at confidence cf (C4.5's pessimistic estimate).
func addErrs(n, e, cf float64) float64 {
	if n <= 0 {
		return 0
	}
	if e < 1 {
		// Exact for e = 0: solve (1-p)^n = cf; interpolate for 0 < e < 1.
		base := n * (1 - math.Pow(cf, 1/n))
		if e == 0 {
			return base
		}
		return base + e*(addErrs(n, 1, cf)-base)
	}
	if e+0.5 >= n {
		return math.Max(n-e, 0)
	}
	z := normalQuantile(1 - cf)
	f := (e + 0.5) / n
	r := (f + z*z/(2*n) + z*math.Sqrt(f/n-f*f/n+z*z/(4*n*n))) / (1 + z*z/n)
	return r*n - e
}

// normalQuantile returns z with Φ(z) = p, by bisection on math.Erfc.
func normalQuantile(p float64) float64 {
	lo, hi := -10.0, 10.0
	for range 100 {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// setProbs fills leaf probabilities: Laplace-corrected training
// frequencies, or the parent's for an empty leaf.
func setProbs(n *Node, parent []float64) {
	total := sum(n.Dist)
	k := len(n.Dist)
	if total > 0 || parent == nil {
		n.Prob = make([]float64, k)
		for c, v := range n.Dist {
			n.Prob[c] = (v + 1) / (total + float64(k))
		}
	} else {
		n.Prob = parent
	}
	for _, c := range n.Children {
		setProbs(c, n.Prob)
	}
	if !n.IsLeaf() {
		// inner nodes keep Prob only as the fallback for their children.
		n.Prob = nil
	}
}

// Probs returns the class probabilities for case x (attribute values in
// Attrs order, NaN for unknown).
func (t *Tree) Probs(x []float64) []float64 {
	out := make([]float64, len(t.Classes))
	t.Root.accumulate(t.Attrs, x, 1, out)
	return out
}

func (n *Node) accumulate(attrs []Attr, x []float64, w float64, out []float64) {
	for !n.IsLeaf() {
		v := x[n.Attr]
		if math.IsNaN(v) {
			for b, c := range n.Children {
				if n.BranchW[b] > 0 {
					c.accumulate(attrs, x, w*n.BranchW[b], out)
				}
			}
			return
		}
		br := branchOf(attrs[n.Attr].Kind, v, n.Threshold)
		if br >= len(n.Children) { // nominal value unseen at training
			br = 0
		}
		n = n.Children[br]
	}
	for c, p := range n.Prob {
		out[c] += w * p
	}
}

// Predict returns the index of the most probable class of x.
func (t *Tree) Predict(x []float64) int { return argmax(t.Probs(x)) }

// Explain returns the tests on x's path from the root to its leaf, e.g.
// "text_inputs <= 1" (following the heaviest branch when a value is
// missing).
func (t *Tree) Explain(x []float64) []string {
	var out []string
	n := t.Root
	for !n.IsLeaf() {
		a := t.Attrs[n.Attr]
		v := x[n.Attr]
		var br int
		if math.IsNaN(v) {
			br = argmax(n.BranchW)
			out = append(out, a.Name+" missing")
		} else {
			br = branchOf(a.Kind, v, n.Threshold)
			if br >= len(n.Children) {
				br = 0
			}
			out = append(out, n.test(a, br))
		}
		n = n.Children[br]
	}
	return out
}

func (n *Node) test(a Attr, br int) string {
	if a.Kind == Nominal {
		return a.Name + " = " + a.Values[br]
	}
	op := " <= "
	if br == 1 {
		op = " > "
	}
	return a.Name + op + strconv.FormatFloat(n.Threshold, 'g', 6, 64)
}

// Size returns the number of nodes and of leaves.
func (t *Tree) Size() (nodes, leaves int) {
	var walk func(*Node)
	walk = func(n *Node) {
		nodes++
		if n.IsLeaf() {
			leaves++
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(t.Root)
	return nodes, leaves
}

// String prints the tree in C4.5's text layout, one test per line, leaves
// as "class (cases)" or "class (cases/errors)".
func (t *Tree) String() string {
	var sb strings.Builder
	if t.Root.IsLeaf() {
		sb.WriteString(t.leafText(t.Root))
		sb.WriteByte('\n')
		return sb.String()
	}
	t.print(&sb, t.Root, 0)
	return sb.String()
}

func (t *Tree) print(sb *strings.Builder, n *Node, depth int) {
	a := t.Attrs[n.Attr]
	for b, c := range n.Children {
		sb.WriteString(strings.Repeat("|   ", depth))
		sb.WriteString(n.test(a, b))
		if c.IsLeaf() {
			sb.WriteString(": ")
			sb.WriteString(t.leafText(c))
			sb.WriteByte('\n')
			continue
		}
		sb.WriteByte('\n')
		t.print(sb, c, depth+1)
	}
}

func (t *Tree) leafText(n *Node) string {
	total := sum(n.Dist)
	errs := total - n.Dist[n.Class]
	if errs > 1e-6 {
		return fmt.Sprintf("%s (%s/%s)", t.Classes[n.Class], fmtW(total), fmtW(errs))
	}
	return fmt.Sprintf("%s (%s)", t.Classes[n.Class], fmtW(total))
}

func fmtW(w float64) string { return strconv.FormatFloat(w, 'f', 1, 64) }

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
