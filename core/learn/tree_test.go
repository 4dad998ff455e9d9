package learn

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// loadWeather reads Quinlan's golf/weather data (numeric version).
func loadWeather(t *testing.T) *Dataset {
	t.Helper()
	f, err := os.Open("testdata/weather.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	d := &Dataset{
		Attrs: []Attr{
			{Name: "outlook", Kind: Nominal, Values: []string{"sunny", "overcast", "rainy"}},
			{Name: "temperature", Kind: Continuous},
			{Name: "humidity", Kind: Continuous},
			{Name: "windy", Kind: Nominal, Values: []string{"TRUE", "FALSE"}},
		},
		Classes: []string{"yes", "no"},
	}
	for _, r := range rows[1:] {
		x := make([]float64, 4)
		x[0] = float64(indexStr(d.Attrs[0].Values, r[0]))
		x[1], _ = strconv.ParseFloat(r[1], 64)
		x[2], _ = strconv.ParseFloat(r[2], 64)
		x[3] = float64(indexStr(d.Attrs[3].Values, r[3]))
		d.X = append(d.X, x)
		d.Y = append(d.Y, indexStr(d.Classes, r[4]))
	}
	return d
}

func indexStr(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// The tree C4.5 (and Weka's J48) grows on the weather data: thresholds are
// data values (75 is the largest humidity not above the midpoint 77.5).
const weatherTree = `outlook = sunny
|   humidity <= 75: yes (2.0)
|   humidity > 75: no (3.0)
outlook = overcast: yes (4.0)
outlook = rainy
|   windy = TRUE: no (2.0)
|   windy = FALSE: yes (3.0)
`

func TestTreeWeather(t *testing.T) {
	for _, prune := range []bool{false, true} {
		d := loadWeather(t)
		tr, err := TrainTree(d, TreeOptions{NoPrune: !prune})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.String(); got != weatherTree {
			t.Errorf("prune=%v tree:\n%s\nwant:\n%s", prune, got, weatherTree)
		}
		for i, x := range d.X {
			if p := tr.Predict(x); p != d.Y[i] {
				t.Errorf("case %d predicted %s", i, d.Classes[p])
			}
		}
		if n, l := tr.Size(); n != 8 || l != 5 {
			t.Errorf("size %d nodes %d leaves, want 8, 5", n, l)
		}
	}
}

func TestTreeMissingValues(t *testing.T) {
	d := loadWeather(t)
	tr, err := TrainTree(d, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Outlook unknown, humidity high, windy true: sunny→no (3/5 of the
	// known weight 5/14), overcast→yes (4/14), rainy→no (5/14).
	x := []float64{Missing, 70, 90, 0}
	p := tr.Probs(x)
	// Leaf probabilities are Laplace-corrected: (n_c+1)/(n+2).
	wantNo := 5.0/14*(3+1)/(3+2) + 4.0/14*(0+1)/(4+2) + 5.0/14*(2+1)/(2+2)
	if math.Abs(p[1]-wantNo) > 1e-9 {
		t.Errorf("P(no) = %v, want %v", p[1], wantNo)
	}
	if got := strings.Join(tr.Explain(x), "; "); got != "outlook missing; humidity > 75" {
		t.Errorf("explain = %q", got)
	}

	// Training with missing values: hide two outlooks; the tree still
	// classifies the training data well.
	d.X[0][0] = Missing
	d.X[5][2] = Missing
	tr, err = TrainTree(d, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i, x := range d.X {
		if tr.Predict(x) != d.Y[i] {
			wrong++
		}
	}
	if wrong > 2 {
		t.Errorf("%d training errors with missing values:\n%s", wrong, tr)
	}
}

func TestTreePruning(t *testing.T) {
	// Quinlan (1993) §4.2: a test whose branches hold (6 X), (9 X), (1 Y) is
	// pruned: leaf estimate 16·U25%(1,16) ≈ 2.5 < 6·U(0,6)+9·U(0,9)+1·U(0,1) ≈ 3.27.
	d := &Dataset{
		Attrs:   []Attr{{Name: "a", Kind: Nominal, Values: []string{"a", "b", "c"}}},
		Classes: []string{"X", "Y"},
	}
	add := func(v, y, n int) {
		for range n {
			d.X = append(d.X, []float64{float64(v)})
			d.Y = append(d.Y, y)
		}
	}
	add(0, 0, 6)
	add(1, 0, 9)
	add(2, 1, 1)
	un, err := TrainTree(d, TreeOptions{NoPrune: true, MinLeaf: 1})
	if err != nil {
		t.Fatal(err)
	}
	if un.Root.IsLeaf() {
		t.Fatalf("unpruned tree is a leaf")
	}
	pr, err := TrainTree(d, TreeOptions{MinLeaf: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := pr.String(); got != "X (16.0/1.0)\n" {
		t.Errorf("pruned tree %q", got)
	}
}

func TestAddErrs(t *testing.T) {
	// Upper 25% limits from Quinlan (1993), Table 4-1 style examples.
	tests := []struct {
		n, e, rate, tol float64
	}{
		{6, 0, 0.206, 0.001},
		{9, 0, 0.143, 0.001},
		{1, 0, 0.750, 0.001},
		{16, 1, 0.157, 0.005}, // normal approximation with continuity correction
	}
	for _, tt := range tests {
		got := (tt.e + addErrs(tt.n, tt.e, 0.25)) / tt.n
		if math.Abs(got-tt.rate) > tt.tol {
			t.Errorf("U(%v,%v) = %.4f, want %.3f", tt.e, tt.n, got, tt.rate)
		}
	}
	if z := normalQuantile(0.75); math.Abs(z-0.6745) > 1e-4 {
		t.Errorf("z(0.75) = %v", z)
	}
}

func TestTreeContinuousOnly(t *testing.T) {
	// y = x > 5, with min leaf 2: one threshold split at 5.
	d := &Dataset{Attrs: []Attr{{Name: "x", Kind: Continuous}}, Classes: []string{"lo", "hi"}}
	for x := 1; x <= 10; x++ {
		y := 0
		if x > 5 {
			y = 1
		}
		d.X = append(d.X, []float64{float64(x)})
		d.Y = append(d.Y, y)
	}
	tr, err := TrainTree(d, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "x <= 5: lo (5.0)\nx > 5: hi (5.0)\n"
	if got := tr.String(); got != want {
		t.Errorf("tree %q, want %q", got, want)
	}
}

func TestTreeErrors(t *testing.T) {
	tests := []struct {
		name string
		d    *Dataset
		opt  TreeOptions
	}{
		{"empty", &Dataset{Classes: []string{"a"}}, TreeOptions{}},
		{"ragged", &Dataset{Attrs: []Attr{{Name: "x"}}, Classes: []string{"a"}, X: [][]float64{{1, 2}}, Y: []int{0}}, TreeOptions{}},
		{"bad class", &Dataset{Attrs: []Attr{{Name: "x"}}, Classes: []string{"a"}, X: [][]float64{{1}}, Y: []int{3}}, TreeOptions{}},
		{"cf", &Dataset{Attrs: []Attr{{Name: "x"}}, Classes: []string{"a"}, X: [][]float64{{1}}, Y: []int{0}}, TreeOptions{CF: 0.7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := TrainTree(tt.d, tt.opt); err == nil {
				t.Error("no error")
			}
		})
	}
}
