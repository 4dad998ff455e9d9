package surface

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestFitZipf(t *testing.T) {
	cases := []struct {
		name               string
		alpha, beta, gamma float64
	}{
		{"classic", 10000, 0, 1},
		{"shifted", 50000, 5, 1.2},
		{"flat-head", 2000, 30, 0.8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rs, ns []float64
			for r := 1.0; r <= 200; r *= 1.3 {
				rs = append(rs, math.Round(r))
				ns = append(ns, c.alpha*math.Pow(math.Round(r)+c.beta, -c.gamma))
			}
			z, ok := FitZipf(rs, ns)
			if !ok {
				t.Fatal("no fit")
			}
			for _, r := range []float64{1, 10, 100, 500} {
				want := c.alpha * math.Pow(r+c.beta, -c.gamma)
				if got := z.At(r); math.Abs(got-want)/want > 0.05 {
					t.Fatalf("fit %+v: N(%g) = %g, want %g", z, r, got, want)
				}
			}
		})
	}
	if _, ok := FitZipf([]float64{1, 1, 1}, []float64{5, 6, 7}); ok {
		t.Fatal("fit from one distinct rank")
	}
}

func TestParseCost(t *testing.T) {
	cases := []struct {
		in   string
		want Cost
		err  bool
	}{
		{"", DefaultCost, false},
		{"1,0,0", Cost{1, 0, 0}, false},
		{" 1, 0.01 ,0.5", Cost{1, 0.01, 0.5}, false},
		{"1,2", Cost{}, true},
		{"a,b,c", Cost{}, true},
		{"-1,0,0", Cost{}, true},
		{"0,0,0", Cost{}, true},
	}
	for _, c := range cases {
		got, err := ParseCost(c.in)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Fatalf("ParseCost(%q) = %+v, %v", c.in, got, err)
		}
	}
	if got := (Cost{1, 0.5, 2}).Of(10, 4); got != 1+5+8 {
		t.Fatalf("Of = %g", got)
	}
}

// With queries that pick documents independently of what was downloaded,
// the capture–recapture size estimate is close to the truth.
func TestSizeEstimate(t *testing.T) {
	const seed, size = 11, 5000
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	s := NewStats(TermOptions{})
	seen := map[int]int32{}
	for q := 0; q < 30; q++ {
		var res []Result
		for d := 0; d < size; d++ {
			if r.Intn(50) == 0 {
				n, ok := seen[d]
				if !ok {
					n = s.addDoc("doc " + word(d))
					seen[d] = n
				}
				res = append(res, Result{Doc: n, Fresh: !ok, Pos: len(res) + 1})
			}
		}
		s.Observe(word(100000+q), res, len(res), 0, 0, false)
	}
	got, ok := s.Size()
	if !ok || math.Abs(got-size)/size > 0.1 {
		t.Fatalf("Size() = %g, %v; want about %d", got, ok, size)
	}
}

func TestSelectGreedy(t *testing.T) {
	s := NewStats(TermOptions{})
	seen := map[string]int32{}
	docs := []string{}
	for i := 0; i < 30; i++ {
		d := "common " + word(i)
		if i%2 == 0 {
			d += " even"
		}
		if i%10 == 0 {
			d += " rare"
		}
		docs = append(docs, d)
	}
	observe(s, seen, "common", docs[:10], 30, true)
	cases := []struct {
		name string
		opt  SelectOptions
		want string
	}{
		// "even" is in half the sample: the most new documents
		{"constant cost", SelectOptions{}, "even"},
		// a price per result and per download: efficiency is new/cost
		{"result cost", SelectOptions{Cost: Cost{Q: 1, R: 10, D: 2}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, ok := s.Select(c.opt)
			if !ok {
				t.Fatal("no choice")
			}
			t.Logf("choice %+v", ch)
			if c.want != "" && ch.Term != c.want {
				t.Fatalf("chose %q, want %q", ch.Term, c.want)
			}
			cost := c.opt.Cost.Of(ch.Results, ch.Gain)
			if math.Abs(ch.Cost-cost) > 1e-9 || math.Abs(ch.Efficiency-ch.Gain/cost) > 1e-9 {
				t.Fatalf("cost %g, efficiency %g; want %g, %g", ch.Cost, ch.Efficiency, cost, ch.Gain/cost)
			}
			if ch.Term == "common" {
				t.Fatal("issued term proposed")
			}
		})
	}
	s.Ban("even")
	if ch, _ := s.Select(SelectOptions{}); ch.Term == "even" {
		t.Fatal("banned term proposed")
	}
}

// A term whose top-k is already downloaded is worth less than one with the
// same estimated count whose top documents are new (rank-aware overlap).
func TestSelectOverlapOfLimitedQueries(t *testing.T) {
	s := NewStats(TermOptions{})
	seen := map[string]int32{}
	var old, other []string
	for i := 0; i < 20; i++ {
		old = append(old, "seen "+word(i)+" shared")
	}
	for i := 20; i < 40; i++ {
		other = append(other, "fresh "+word(i)+" shared")
	}
	// both lists sit at the very top of a static ranking
	observe(s, seen, "seen", old, 20, false)
	observe(s, seen, "fresh", other, 20, false)
	ch, ok := s.Select(SelectOptions{K: 10, RankAware: "on"})
	if !ok {
		t.Fatal("no choice")
	}
	if ch.Gain > 10 || ch.Results > 10 {
		t.Fatalf("a limited query cannot return more than k: %+v", ch)
	}
	if strings.HasPrefix(ch.Term, "w") && ch.Gain > 1.5 {
		t.Fatalf("a term seen once promises %g new documents", ch.Gain)
	}
}

// Of two terms with the same corrected count, the one resting on fewer,
// heavier documents gets the smaller estimate (shrinkage by relative
// variance).
func TestShrinkageByRelativeVariance(t *testing.T) {
	s := NewStats(TermOptions{})
	seen := map[string]int32{}
	// one document of "alpha" standing for 10 (a limited query, k/N = 0.1)
	observe(s, seen, "alpha", []string{"alpha heavy"}, 10, true)
	var light []string
	for i := 0; i < 10; i++ {
		light = append(light, "beta light "+word(i))
	}
	observe(s, seen, "beta", light, 10, false)
	if wh, wl := s.Weight("heavy"), s.Weight("light"); math.Abs(wh-wl) > 1e-6 {
		t.Fatalf("weights %g, %g; want equal", wh, wl)
	}
	m := s.model(SelectOptions{})
	h, l := s.matches(m, int(s.ids["heavy"])), s.matches(m, int(s.ids["light"]))
	t.Logf("heavy %g light %g", h, l)
	if h >= l {
		t.Fatalf("estimate of the term seen once %g ≥ of the term seen ten times %g", h, l)
	}
}

// When every issued query matches three times its uncalibrated estimate,
// the calibration learns most of that factor (and not a fraction of it: each
// estimate already carried the calibration of its time).
func TestCalibrationLearnsBias(t *testing.T) {
	const seed = 5
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	s := NewStats(TermOptions{})
	seen := map[string]int32{}
	var docs []string
	for i := 0; i < 400; i++ {
		d := "common"
		for j := 0; j < 8; j++ {
			d += " " + word(int(math.Exp(r.Float64()*5)))
		}
		docs = append(docs, d+" "+word(10000+i))
	}
	observe(s, seen, "common", docs, 400, false)
	opt := SelectOptions{}
	for q := 0; q < 40; q++ {
		ch, ok := s.Select(opt)
		if !ok {
			t.Fatal("no choice")
		}
		m := s.model(SelectOptions{NoCalibrate: true})
		id := s.ids[ch.Term]
		raw := m.scale * s.w[id]
		var res []Result
		for i, d := range s.post[id] {
			res = append(res, Result{Doc: d, Pos: i + 1})
		}
		s.Observe(ch.Term, res, int(3*raw+0.5), ch.Matches, ch.Gain, false)
	}
	c := s.model(opt).cal
	f := c.factor(0.05)
	t.Logf("calibration %+v, factor at v = 0.05: %g", c, f)
	if f < 2.2 || f > 4 {
		t.Fatalf("factor %g, want about 3", f)
	}
}
