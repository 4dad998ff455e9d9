package learn

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNBHandComputed(t *testing.T) {
	// Manning, Raghavan & Schütze, Introduction to IR, Example 13.1.
	docs := [][]string{
		strings.Fields("chinese beijing chinese"),
		strings.Fields("chinese chinese shanghai"),
		strings.Fields("chinese macao"),
		strings.Fields("tokyo japan chinese"),
	}
	labels := []string{"china", "china", "china", "other"}
	m, err := TrainNB(docs, labels, 1)
	if err != nil {
		t.Fatal(err)
	}
	test := strings.Fields("chinese chinese chinese tokyo japan")
	// |V| = 6; china: 8 tokens, chinese 5; other: 3 tokens, chinese 1.
	// Laplace-smoothed class prior: (3+1)/(4+2), (1+1)/(4+2).
	pc := 4.0 / 6 * math.Pow(6.0/14, 3) * (1.0 / 14) * (1.0 / 14)
	po := 2.0 / 6 * math.Pow(2.0/9, 3) * (2.0 / 9) * (2.0 / 9)
	want := pc / (pc + po)
	label, p := m.Predict(test)
	if label != "china" || math.Abs(p-want) > 1e-12 {
		t.Errorf("predict = %s %.6f, want china %.6f", label, p, want)
	}
	s := m.LogScores(test)
	if math.Abs(s[0]-math.Log(pc)) > 1e-12 || math.Abs(s[1]-math.Log(po)) > 1e-12 {
		t.Errorf("log scores %v, want %v %v", s, math.Log(pc), math.Log(po))
	}
	// A frozen model scores the same.
	m.Freeze()
	if fs := m.LogScores(test); math.Abs(fs[0]-s[0]) > 1e-12 || math.Abs(fs[1]-s[1]) > 1e-12 {
		t.Errorf("frozen log scores %v, want %v", fs, s)
	}
	// Unseen terms are ignored.
	if got := m.Prob(append(test, "zzz"), "china"); math.Abs(got-want) > 1e-12 {
		t.Errorf("with unseen term P = %v", got)
	}
	// Uniform prior drops the class-frequency factor.
	m.Uniform = true
	m.Freeze()
	pu := (pc / (4.0 / 6)) / (pc/(4.0/6) + po/(2.0/6))
	if got := m.Prob(test, "china"); math.Abs(got-pu) > 1e-12 {
		t.Errorf("uniform prior P = %v, want %v", got, pu)
	}
}

func TestNBLongDocumentNoUnderflow(t *testing.T) {
	m, _ := TrainNB([][]string{{"a", "b"}, {"c", "d"}}, []string{"x", "y"}, 1)
	doc := make([]string, 5000)
	for i := range doc {
		doc[i] = "a"
	}
	p := m.Probs(doc)
	if math.IsNaN(p[0]) || p[0] < 0.999 || math.Abs(p[0]+p[1]-1) > 1e-12 {
		t.Errorf("probs %v", p)
	}
}

func TestNBOnlineAdd(t *testing.T) {
	m := NewNB([]string{"pos", "neg"}, 0)
	if err := m.Add([]string{"good"}, "pos"); err != nil {
		t.Fatal(err)
	}
	if err := m.Add([]string{"bad"}, "neg"); err != nil {
		t.Fatal(err)
	}
	if err := m.Add([]string{"x"}, "other"); err == nil {
		t.Error("unknown class accepted")
	}
	if l, _ := m.Predict([]string{"good"}); l != "pos" {
		t.Errorf("predict good = %s", l)
	}
	if err := m.AddWeighted([]string{"x"}, "pos", 0); err == nil {
		t.Error("zero weight accepted")
	}
	// Weight 2 is the same as adding twice.
	a, b := NewNB([]string{"p", "n"}, 1), NewNB([]string{"p", "n"}, 1)
	_ = a.AddWeighted([]string{"x", "y"}, "p", 2)
	_ = b.Add([]string{"x", "y"}, "p")
	_ = b.Add([]string{"x", "y"}, "p")
	_ = a.Add([]string{"z"}, "n")
	_ = b.Add([]string{"z"}, "n")
	if pa, pb := a.Probs([]string{"x", "z"}), b.Probs([]string{"x", "z"}); math.Abs(pa[0]-pb[0]) > 1e-12 {
		t.Errorf("weighted %v, repeated %v", pa, pb)
	}
	if _, err := TrainNB([][]string{{"a"}}, nil, 1); err == nil {
		t.Error("length mismatch accepted")
	}
}

// ProbOf scores the terms a sequence yields as Prob scores a slice of
// them, bit for bit, frozen or not.
func TestNBProbOf(t *testing.T) {
	docs := [][]string{strings.Fields("a b b c"), strings.Fields("c d e"), strings.Fields("a e e f")}
	m, err := TrainNB(docs, []string{"x", "y", "x"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := [][]string{nil, strings.Fields("a a z"), strings.Fields("f e d c b a"), strings.Fields("q")}
	for _, frozen := range []bool{false, true} {
		if frozen {
			m.Freeze()
		}
		for _, d := range tests {
			for _, label := range []string{"x", "y", "unknown"} {
				if got, want := m.ProbOf(slices.Values(d), label), m.Prob(d, label); got != want {
					t.Errorf("frozen %v: ProbOf(%q, %s) = %v, Prob %v", frozen, d, label, got, want)
				}
			}
		}
	}
}
