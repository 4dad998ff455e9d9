package learn

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestGroupKFold(t *testing.T) {
	seed := uint64(42)
	t.Logf("seed %d", seed)
	var labels, groups []string
	// 60 hosts with 1..5 cases; ~30% positive, hosts skewed.
	for h := range 60 {
		n := 1 + h%5
		for i := range n {
			l := "neg"
			if (h*7+i)%10 < 3 {
				l = "pos"
			}
			labels = append(labels, l)
			groups = append(groups, fmt.Sprintf("host%d", h))
		}
	}
	folds, err := GroupKFold(labels, groups, 5, seed)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[int]bool)
	hostFold := make(map[string]int)
	var pos float64
	for _, l := range labels {
		if l == "pos" {
			pos++
		}
	}
	total := float64(len(labels))
	for f, idx := range folds {
		var fp float64
		for _, i := range idx {
			if seen[i] {
				t.Fatalf("case %d in two folds", i)
			}
			seen[i] = true
			if g, ok := hostFold[groups[i]]; ok && g != f {
				t.Fatalf("host %s in folds %d and %d", groups[i], g, f)
			}
			hostFold[groups[i]] = f
			if labels[i] == "pos" {
				fp++
			}
		}
		if len(idx) == 0 {
			t.Fatalf("fold %d empty", f)
		}
		if share := fp / pos; math.Abs(share-0.2) > 0.08 {
			t.Errorf("fold %d holds %.2f of the positives", f, share)
		}
		if size := float64(len(idx)) / total; math.Abs(size-0.2) > 0.08 {
			t.Errorf("fold %d holds %.2f of the cases", f, size)
		}
		train := TrainIndices(len(labels), idx)
		if len(train)+len(idx) != len(labels) {
			t.Errorf("train %d + test %d != %d", len(train), len(idx), len(labels))
		}
	}
	if len(seen) != len(labels) {
		t.Errorf("%d of %d cases assigned", len(seen), len(labels))
	}
	again, _ := GroupKFold(labels, groups, 5, seed)
	if fmt.Sprint(again) != fmt.Sprint(folds) {
		t.Error("same seed, different folds")
	}
	if _, err := GroupKFold(labels, groups[:3], 5, seed); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := GroupKFold(labels, groups, 1, seed); err == nil {
		t.Error("k=1 accepted")
	}
}

func TestConfusion(t *testing.T) {
	c := NewConfusion("s", "o")
	add := func(tr, pr string, n int) {
		for range n {
			c.Add(tr, pr)
		}
	}
	add("s", "s", 8)
	add("s", "o", 2)
	add("o", "s", 1)
	add("o", "o", 9)
	add("l", "o", 1) // new class appended
	if c.N() != 21 {
		t.Fatalf("n = %d", c.N())
	}
	if got, want := c.Accuracy(), 17.0/21; math.Abs(got-want) > 1e-12 {
		t.Errorf("accuracy %v want %v", got, want)
	}
	s := c.Class("s")
	p, r := 8.0/9, 8.0/10
	if math.Abs(s.Precision-p) > 1e-12 || math.Abs(s.Recall-r) > 1e-12 || math.Abs(s.F1-2*p*r/(p+r)) > 1e-12 || s.Support != 10 {
		t.Errorf("s = %+v", s)
	}
	if l := c.Class("l"); l.Recall != 0 || l.Precision != 0 || l.Support != 1 {
		t.Errorf("l = %+v", l)
	}
	if c.Class("nope") != (PRF{}) {
		t.Error("unknown class has figures")
	}
	d := NewConfusion()
	d.Merge(c)
	d.Merge(c)
	if d.N() != 42 || d.Accuracy() != c.Accuracy() {
		t.Errorf("merge: n=%d acc=%v", d.N(), d.Accuracy())
	}
	out := c.String()
	for _, w := range []string{"true\\pred", "precision", "accuracy 0.8095 (n=21)"} {
		if !strings.Contains(out, w) {
			t.Errorf("String() lacks %q:\n%s", w, out)
		}
	}
}
