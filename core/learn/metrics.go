package learn

import (
	"fmt"
	"strings"
)

// Confusion is a confusion matrix: M[t][p] counts cases of true class
// Classes[t] predicted as Classes[p].
type Confusion struct {
	Classes []string `json:"classes"`
	M       [][]int  `json:"matrix"`
	idx     map[string]int
}

// NewConfusion returns an empty matrix over classes; labels added later
// that are not in classes are appended.
func NewConfusion(classes ...string) *Confusion {
	c := &Confusion{idx: make(map[string]int)}
	for _, l := range classes {
		c.index(l)
	}
	return c
}

func (c *Confusion) index(l string) int {
	if c.idx == nil {
		c.idx = make(map[string]int)
		for i, x := range c.Classes {
			c.idx[x] = i
		}
	}
	if i, ok := c.idx[l]; ok {
		return i
	}
	c.Classes = append(c.Classes, l)
	for i := range c.M {
		c.M[i] = append(c.M[i], 0)
	}
	c.M = append(c.M, make([]int, len(c.Classes)))
	c.idx[l] = len(c.Classes) - 1
	return len(c.Classes) - 1
}

// lookup returns the index of class l or -1, without adding it.
func (c *Confusion) lookup(l string) int {
	for i, x := range c.Classes {
		if x == l {
			return i
		}
	}
	return -1
}

// Add counts one case of class truth predicted as pred.
func (c *Confusion) Add(truth, pred string) {
	t := c.index(truth)
	p := c.index(pred)
	c.M[t][p]++
}

// Merge adds the counts of o (by class name).
func (c *Confusion) Merge(o *Confusion) {
	for t, row := range o.M {
		for p, n := range row {
			if n == 0 {
				continue
			}
			ti, pi := c.index(o.Classes[t]), c.index(o.Classes[p])
			c.M[ti][pi] += n
		}
	}
}

// N returns the number of cases counted.
func (c *Confusion) N() int {
	n := 0
	for _, row := range c.M {
		for _, v := range row {
			n += v
		}
	}
	return n
}

// Accuracy returns the fraction of cases on the diagonal (0 when empty).
func (c *Confusion) Accuracy() float64 {
	n, ok := 0, 0
	for t, row := range c.M {
		for p, v := range row {
			n += v
			if t == p {
				ok += v
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(ok) / float64(n)
}

// PRF holds one class's precision, recall, F1 and support (true cases).
type PRF struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Support   int     `json:"support"`
}

// Class returns precision, recall and F1 of class l (zeros when undefined).
func (c *Confusion) Class(l string) PRF {
	i := c.lookup(l)
	if i < 0 {
		return PRF{}
	}
	var tp, fp, fn int
	for t, row := range c.M {
		for p, v := range row {
			switch {
			case t == i && p == i:
				tp += v
			case p == i:
				fp += v
			case t == i:
				fn += v
			}
		}
	}
	r := PRF{Support: tp + fn}
	if tp+fp > 0 {
		r.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r.Recall = float64(tp) / float64(tp+fn)
	}
	if r.Precision+r.Recall > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	return r
}

// PerClass returns Class for every class.
func (c *Confusion) PerClass() map[string]PRF {
	out := make(map[string]PRF, len(c.Classes))
	for _, l := range c.Classes {
		out[l] = c.Class(l)
	}
	return out
}

// MacroF1 returns the unweighted mean F1 over classes with support.
func (c *Confusion) MacroF1() float64 {
	var s float64
	n := 0
	for _, l := range c.Classes {
		r := c.Class(l)
		if r.Support > 0 {
			s += r.F1
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// String prints the matrix (rows = truth, columns = prediction) followed by
// per-class precision, recall and F1.
func (c *Confusion) String() string {
	var sb strings.Builder
	w := 6
	for _, l := range c.Classes {
		w = max(w, len(l)+1)
	}
	first := max(w, len("true\\pred")+1)
	fmt.Fprintf(&sb, "%-*s", first, "true\\pred")
	for _, l := range c.Classes {
		fmt.Fprintf(&sb, "%*s", w, l)
	}
	sb.WriteByte('\n')
	for t, row := range c.M {
		fmt.Fprintf(&sb, "%-*s", first, c.Classes[t])
		for _, v := range row {
			fmt.Fprintf(&sb, "%*d", w, v)
		}
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "\n%-*s %9s %9s %9s %8s\n", first, "class", "precision", "recall", "f1", "support")
	for _, l := range c.Classes {
		r := c.Class(l)
		fmt.Fprintf(&sb, "%-*s %9.3f %9.3f %9.3f %8d\n", first, l, r.Precision, r.Recall, r.F1, r.Support)
	}
	fmt.Fprintf(&sb, "accuracy %.4f (n=%d)\n", c.Accuracy(), c.N())
	return sb.String()
}
