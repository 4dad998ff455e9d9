package rank

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/text"
)

const eps = 1e-6

func near(a, b float64) bool { return math.Abs(a-b) < eps }

func TestCosTermsMatchesText(t *testing.T) {
	const seed = 3
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	words := []string{"car", "auto", "used", "search", "dealer", "price", "truck"}
	pick := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[rng.IntN(len(words))]
		}
		return out
	}
	for i := 0; i < 200; i++ {
		v := text.NewVector(pick(1 + rng.IntN(6)))
		terms := pick(rng.IntN(60)) // also past the stack buffer
		want := text.Cosine(v, text.NewVector(terms))
		if got := cosTerms(v, v.Norm(), terms); !near(got, want) {
			t.Fatalf("cosTerms(%v, %v) = %v, want %v", v, terms, got, want)
		}
	}
}

// TestSiteRanker checks Rank(s) = α·ST + (1−α)·log(1+SF) on hand-computed
// cases. FSS: U = {car, auto}, A = {used, car}, T = {search}, all weight 1.
func TestSiteRanker(t *testing.T) {
	fss := SpaceFromTerms(SpaceFSS, []string{"car", "auto"}, []string{"used", "car"}, []string{"search"})
	tests := []struct {
		name  string
		f     Features
		alpha float64
		sf    int
		st    float64 // hand-computed ST
		want  float64
	}{
		{
			// cos(U,{car,dealer}) = 1/(√2·√2) = .5; cos(A,{used,car}) = 1;
			// cos(T,{search,cheap}) = 1/√2 = .7071068; ST = 2.2071068.
			name: "similar site, SF 3", alpha: .5, sf: 3,
			f:  Features{URL: []string{"car", "dealer"}, Anchor: []string{"used", "car"}, Text: []string{"search", "cheap"}},
			st: 2.2071068, want: .5*2.2071068 + .5*math.Log(4), // 1.1035534 + .6931472 = 1.7967006
		},
		{
			name: "same, SF 0", alpha: .5, sf: 0,
			f:  Features{URL: []string{"car", "dealer"}, Anchor: []string{"used", "car"}, Text: []string{"search", "cheap"}},
			st: 2.2071068, want: 1.1035534,
		},
		{
			// tf weights 1 + ln tf: anchor {car: 1+ln2, used: 1}:
			// (1.6931472 + 1) / (√(1.6931472² + 1) · √2) = 2.6931472 / 2.7809160 = .9684388.
			name: "repeated anchor term", alpha: 1, sf: 10,
			f:  Features{Anchor: []string{"car", "car", "used"}},
			st: .9684388, want: .9684388,
		},
		{
			// The URL sub-term rule: "carmax" splits on the vocabulary into
			// "car", "max": cos(U, {car, max}) = .5.
			name: "compound host", alpha: .8, sf: 1,
			f:  Features{URL: []string{"carmax"}},
			st: .5, want: .8*.5 + .2*math.Log(2),
		},
		{
			name: "off-topic, frequency only", alpha: .3, sf: 7,
			f:  Features{URL: []string{"recip"}, Anchor: []string{"cook"}},
			st: 0, want: .7 * math.Log(8),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewSiteRanker(tt.alpha, fss)
			if got := r.Similarity(tt.f); !near(got, tt.st) {
				t.Errorf("ST = %.7f, want %.7f", got, tt.st)
			}
			if got := r.Score(tt.f, tt.sf); !near(got, tt.want) {
				t.Errorf("Rank = %.7f, want %.7f", got, tt.want)
			}
		})
	}
	if r := NewSiteRanker(7, nil); r.Alpha() != DefaultAlpha || r.Score(Features{URL: []string{"car"}}, 0) != 0 {
		t.Error("bad alpha or nil space not handled")
	}
}

// TestLinkRanker: FSL P = {use, search}, A = {search}, T = {car}.
func TestLinkRanker(t *testing.T) {
	fsl := SpaceFromTerms(SpaceFSL, text.Terms("used search"), text.Terms("search"), text.Terms("car"))
	r := NewLinkRanker(fsl)
	tests := []struct {
		url, anchor, around string
		want                float64
	}{
		// P {use, search} → 1; A {search, use, car}: 1/√3 = .5773503; T {find, car, near}: 1/√3.
		{"http://x.com/used/search.html?q=1", "Search used cars", "find a car near you", 1 + 2/math.Sqrt(3)},
		// P {search}: 1/√2 = .7071068; A {advanc, search}: 1/√2; T: 0.
		{"http://x.com/search", "Advanced search", "", 2 / math.Sqrt(2)},
		{"http://x.com/about/team", "About us", "our story", 0},
		{"http://x.com", "", "", 0},
	}
	for _, tt := range tests {
		f := LinkFeatures(tt.url, tt.anchor, tt.around)
		if got := r.Score(f); !near(got, tt.want) {
			t.Errorf("LT(%s %q) = %.7f, want %.7f (features %+v)", tt.url, tt.anchor, got, tt.want, f)
		}
	}
	// Swapping the space changes the scores.
	r.SetSpace(SpaceFromTerms(SpaceFSL, nil, []string{"contact"}, nil))
	if got := r.Score(LinkFeatures("http://x.com/a", "Contact", "")); !near(got, 1) {
		t.Errorf("after SetSpace: %v", got)
	}
}

func TestFeaturesEncode(t *testing.T) {
	for _, f := range []Features{
		{URL: []string{"car", "max"}, Anchor: []string{"use", "car"}, Text: []string{"search"}},
		{Anchor: []string{"a"}},
		{},
	} {
		got := DecodeFeatures(f.Encode())
		if len(got.URL)+len(f.URL) > 0 && !reflect.DeepEqual(got.URL, f.URL) ||
			len(got.Anchor)+len(f.Anchor) > 0 && !reflect.DeepEqual(got.Anchor, f.Anchor) ||
			len(got.Text)+len(f.Text) > 0 && !reflect.DeepEqual(got.Text, f.Text) {
			t.Errorf("round trip %+v → %q → %+v", f, f.Encode(), got)
		}
	}
	if got := SiteFeatures("https://www.abebooks.co.uk/rare-books/", "Rare Books", "buy rare books online").URL; !reflect.DeepEqual(got, []string{"abebook", "rare", "book"}) {
		t.Errorf("site URL terms %v", got)
	}
	if got := PathTerms("http://x.com/Used-Cars/searchForm.asp?make=ford"); !reflect.DeepEqual(got, []string{"use", "car", "search", "form"}) {
		t.Errorf("path terms %v", got)
	}
}

func TestSiteFrequency(t *testing.T) {
	s := NewSiteFrequency()
	steps := []struct {
		do   func()
		site string
		want int
	}{
		{func() { s.Link("a", "x"); s.Link("b", "x") }, "x", 0},
		{func() { s.MarkKnown("a") }, "x", 1},
		{func() { s.MarkKnown("a"); s.Link("a", "x") }, "x", 1}, // counted once
		{func() { s.MarkKnown("b") }, "x", 2},
		{func() { s.MarkKnown("c"); s.Link("c", "x") }, "x", 3}, // known before linking
		{func() { s.Link("x", "x") }, "x", 3},                   // no self links
		{func() { s.Link("c", "y") }, "y", 1},
	}
	for i, st := range steps {
		st.do()
		if got := s.SF(st.site); got != st.want {
			t.Errorf("step %d: SF(%s) = %d, want %d", i, st.site, got, st.want)
		}
	}
	r := NewSiteFrequency()
	b, _ := json.Marshal(s.State())
	var state SFState
	json.Unmarshal(b, &state)
	r.Restore(state)
	if r.SF("x") != 3 || r.SF("y") != 1 || !r.Known("c") {
		t.Errorf("restored: SF(x)=%d SF(y)=%d", r.SF("x"), r.SF("y"))
	}
}

func TestLearner(t *testing.T) {
	clock := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	l := NewLearner(LearnerOptions{K: 3, SiteEvery: 2, FormEvery: 1, Now: func() time.Time { return clock }})
	s1 := Features{URL: []string{"abebook"}, Anchor: []string{"book", "store"}, Text: []string{"rare", "book"}}
	s2 := Features{URL: []string{"book", "finder"}, Anchor: []string{"book", "search"}, Text: []string{"book"}}
	if it := l.AddSite(s1); it != nil || l.FSS() != nil {
		t.Fatal("rebuilt after 1 site with N = 2")
	}
	it := l.AddSite(s2)
	if it == nil {
		t.Fatal("no rebuild after N = 2 sites")
	}
	// "book" is frequent (DF 2 in anchors and text), so "abebook" splits
	// into "abe" + "book": U = book(2), abe(1), finder(1).
	want := Iteration{
		Space: SpaceFSS, Round: 1, Examples: 2, Time: clock,
		URL:    []TermWeight{{"book", 2}, {"abe", 1}, {"finder", 1}},
		Anchor: []TermWeight{{"book", 2}, {"search", 1}, {"store", 1}},
		Text:   []TermWeight{{"book", 2}, {"rare", 1}},
	}
	if !reflect.DeepEqual(*it, want) {
		t.Errorf("iteration\n%+v\nwant\n%+v", *it, want)
	}
	fss := l.FSS()
	if w := fss.URL["book"]; !near(w, 1+math.Log(2)) || fss.URL["abe"] != 1 {
		t.Errorf("weights %v", fss.URL)
	}
	if l.AddSite(s1) != nil {
		t.Error("rebuilt after 1 more site")
	}
	if it := l.AddSite(s2); it == nil || it.Round != 2 || it.Examples != 4 {
		t.Errorf("second round %+v", it)
	}
	if it := l.AddForm(Features{URL: []string{"search"}, Anchor: []string{"find"}}); it == nil || it.Space != SpaceFSL || l.FSL() == nil {
		t.Errorf("FSL round %+v", it)
	}

	var buf bytes.Buffer
	if err := WriteTable(&buf, l.Iterations()[0]); err != nil {
		t.Fatal(err)
	}
	wantTable := `FSS round 1: 2 deep sites, 2024-05-01T12:00:00Z
   #  URL         Anchor      Text
   1  book (2)    book (2)    book (2)
   2  abe (1)     search (1)  rare (1)
   3  finder (1)  store (1)
`
	if buf.String() != wantTable {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), wantTable)
	}

	// Persist and resume.
	b, err := json.Marshal(l.State())
	if err != nil {
		t.Fatal(err)
	}
	var st LearnerState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	r := NewLearner(LearnerOptions{K: 3, SiteEvery: 2})
	r.Restore(st)
	f := Features{URL: []string{"abebook"}, Anchor: []string{"book"}}
	if a, b := l.FSS().Similarity(f), r.FSS().Similarity(f); !near(a, b) || a == 0 {
		t.Errorf("restored FSS scores %v, original %v", b, a)
	}
	if n, m := r.Counts(); n != 4 || m != 1 || len(r.Iterations()) != 3 {
		t.Errorf("restored counts %d %d, %d rounds", n, m, len(r.Iterations()))
	}
}

// linkF builds classifier features from a URL path and an anchor.
func linkF(path, anchor string) Features {
	return ClassifierFeatures("http://www.site.example"+path, anchor, "")
}

func TestLinkClassifier(t *testing.T) {
	c := NewLinkClassifier(ClassifierOptions{Levels: 3, Every: 6})
	if lv, p := c.Classify(linkF("/x", "x")); lv != 0 || p != 0 || c.Trained() {
		t.Fatal("untrained classifier predicts")
	}
	// Backward paths: home → inventory → search form page.
	paths := [][]Features{
		{linkF("/dealers", "our dealers"), linkF("/inventory", "browse inventory"), linkF("/inventory/search", "advanced search")},
		{linkF("/listings", "all listings"), linkF("/listings/find", "find a car")},
		{linkF("/dealers/map", "dealers near you"), linkF("/inventory/used", "used inventory"), linkF("/used/search", "search used")},
		{linkF("/browse", "browse listings"), linkF("/search", "search cars")},
		{linkF("/dealers/list", "dealer list"), linkF("/catalog", "browse catalog"), linkF("/catalog/search", "quick search")},
	}
	for _, p := range paths {
		if it, err := c.AddPath(p); it != nil || err != nil {
			t.Fatalf("relearnt before M paths: %v %v", it, err)
		}
	}
	for _, o := range []Features{
		linkF("/privacy", "privacy policy"), linkF("/contact", "contact us"), linkF("/careers", "careers jobs"),
		linkF("/press", "press releases"), linkF("/privacy/cookies", "cookie policy"),
	} {
		c.AddOther(o)
	}
	it, err := c.AddPath([]Features{linkF("/search/cars", "search")})
	if err != nil || it == nil || it.Round != 1 || it.Examples != 6 {
		t.Fatalf("no relearning after M = 6 paths: %+v %v", it, err)
	}
	tests := []struct {
		f    Features
		want int
	}{
		{linkF("/trucks/search", "search trucks"), 1},
		{linkF("/inventory/new", "browse new inventory"), 2},
		{linkF("/dealers/east", "dealers"), 3},
		{linkF("/privacy/terms", "privacy"), 0},
	}
	for _, tt := range tests {
		lv, p := c.Classify(tt.f)
		if lv != tt.want || p <= 0 || p > 1 {
			t.Errorf("Classify(%+v) = %d (%.3f), want %d", tt.f, lv, p, tt.want)
		}
	}
	// Persist and resume: the same predictions.
	b, _ := json.Marshal(c.State())
	var st ClassifierState
	json.Unmarshal(b, &st)
	r := NewLinkClassifier(ClassifierOptions{Levels: 3, Every: 6})
	if err := r.Restore(st); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		l1, p1 := c.Classify(tt.f)
		l2, p2 := r.Classify(tt.f)
		if l1 != l2 || !near(p1, p2) {
			t.Errorf("restored classifier: %d %.4f vs %d %.4f", l2, p2, l1, p1)
		}
	}
	if len(r.Iterations()) != 1 {
		t.Errorf("restored rounds %d", len(r.Iterations()))
	}
	var buf bytes.Buffer
	WriteTable(&buf, c.Iterations()...)
	if !strings.HasPrefix(buf.String(), "ACHE round 1: 6 form paths") {
		t.Errorf("table header: %q", strings.SplitN(buf.String(), "\n", 2)[0])
	}
}

// Similarity is the three contexts' Cosine summed in order, bit for bit
// (a caller keeps the cosines that did not change), URL splits included.
func TestSimilarityIsCosines(t *testing.T) {
	const seed = 5
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	words := []string{"car", "auto", "used", "search", "dealer", "price", "truck", "usedcar", "autodealer", "x"}
	pick := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[rng.IntN(len(words))]
		}
		return out
	}
	var nilSpace *Space
	if nilSpace.Cosine(ContextText, pick(3)) != 0 {
		t.Fatal("a nil space scores")
	}
	for i := 0; i < 300; i++ {
		s := SpaceFromTerms(SpaceFSS, pick(1+rng.IntN(4)), pick(1+rng.IntN(4)), pick(1+rng.IntN(4)))
		f := Features{URL: pick(rng.IntN(8)), Anchor: pick(rng.IntN(20)), Text: pick(rng.IntN(60))}
		got := s.Cosine(ContextURL, f.URL) + s.Cosine(ContextAnchor, f.Anchor) + s.Cosine(ContextText, f.Text)
		if want := s.Similarity(f); got != want {
			t.Fatalf("cosines of %+v sum to %v, Similarity %v", f, got, want)
		}
	}
}
