package surface

import (
	"math"
	"math/rand"
	"testing"
)

// observe adds docs (content strings) returned by a query in order, the
// fresh ones first added to the table, and applies the query.
func observe(s *Stats, seen map[string]int32, query string, docs []string, total int, limited bool) IssuedQuery {
	var res []Result
	for i, d := range docs {
		n, ok := seen[d]
		if !ok {
			n = s.addDoc(d)
			seen[d] = n
		}
		res = append(res, Result{Doc: n, Fresh: !ok, Pos: i + 1})
	}
	return s.Observe(query, res, total, 0, 0, limited)
}

func TestStatsIncrementalCounts(t *testing.T) {
	s := NewStats(TermOptions{})
	seen := map[string]int32{}
	observe(s, seen, "web", []string{"deep web crawl", "web of data", "the hidden web"}, 3, false)
	observe(s, seen, "hidden", []string{"the hidden web", "hidden data"}, 2, false)
	cases := []struct {
		term string
		df   int
	}{
		{"web", 3}, {"hidden", 2}, {"data", 2}, {"deep", 1}, {"crawl", 1}, {"the", 0}, {"of", 0}, {"absent", 0},
	}
	for _, c := range cases {
		t.Run(c.term, func(t *testing.T) {
			if got := s.DF(c.term); got != c.df {
				t.Fatalf("DF(%q) = %d, want %d", c.term, got, c.df)
			}
			// without limited queries the corrected count is the plain count
			if got := s.Weight(c.term); math.Abs(got-float64(c.df)) > 1e-9 {
				t.Fatalf("Weight(%q) = %g, want %d", c.term, got, c.df)
			}
		})
	}
	if s.Docs() != 4 || math.Abs(s.W-4) > 1e-9 {
		t.Fatalf("docs %d, W %g; want 4, 4", s.Docs(), s.W)
	}
	if !s.Issued("web") || !s.Issued("hidden") || s.Issued("data") {
		t.Fatal("issued flags wrong")
	}
	q := s.Queries[1]
	if q.InC != 1 || q.New != 1 || q.Returned != 2 {
		t.Fatalf("second query: %+v (want 1 of 2 results in C, 1 new)", q)
	}
}

func TestStatsCorrectionForLimitedQueries(t *testing.T) {
	s := NewStats(TermOptions{})
	seen := map[string]int32{}
	// "alpha" matches 40 documents but only 4 are returned: each stands for 10
	observe(s, seen, "alpha", []string{"alpha red", "alpha blue", "alpha red green", "alpha"}, 40, true)
	if got, want := s.Weight("red"), 20.0; math.Abs(got-want) > 1e-6 {
		t.Fatalf("Weight(red) = %g, want %g (2 documents × 40/4)", got, want)
	}
	if got, want := s.W, 40.0; math.Abs(got-want) > 1e-6 {
		t.Fatalf("W = %g, want %g", got, want)
	}
	if s.DF("red") != 2 {
		t.Fatalf("DF(red) = %d, want 2 (exact counts stay exact)", s.DF("red"))
	}
	// a complete query returning one of them: that document now stands for
	// itself only (any document with its terms is downloaded through "green")
	observe(s, seen, "green", []string{"alpha red green", "green tea"}, 2, false)
	if got, want := s.Weight("red"), 11.0; math.Abs(got-want) > 1e-6 {
		t.Fatalf("Weight(red) = %g, want %g", got, want)
	}
	if got, want := s.W, 40.0-10+1+1; math.Abs(got-want) > 1e-6 {
		t.Fatalf("W = %g, want %g", got, want)
	}
}

func TestStaticRankDetection(t *testing.T) {
	for _, tc := range []struct {
		name   string
		static bool
	}{{"query-independent", true}, {"relevance", false}} {
		t.Run(tc.name, func(t *testing.T) {
			const seed = 5
			t.Logf("seed %d", seed)
			r := rand.New(rand.NewSource(seed))
			s := NewStats(TermOptions{})
			var docs []int32
			for i := 0; i < 200; i++ {
				docs = append(docs, s.addDoc(word(i)))
			}
			for q := 0; q < 40; q++ {
				// a random subset, in global order or shuffled
				var sub []int32
				for _, d := range docs {
					if r.Intn(4) == 0 {
						sub = append(sub, d)
					}
				}
				if !tc.static {
					r.Shuffle(len(sub), func(i, j int) { sub[i], sub[j] = sub[j], sub[i] })
				}
				var res []Result
				for i, d := range sub {
					res = append(res, Result{Doc: d, Fresh: q == 0, Pos: i + 1})
				}
				s.Observe(word(1000+q), res, len(res), 0, 0, false)
			}
			frac, pairs := s.StaticRank()
			if pairs < 30 {
				t.Fatalf("only %d pairs", pairs)
			}
			if got := frac > 0.9; got != tc.static {
				t.Fatalf("concordance %.2f over %d pairs; static = %v, want %v", frac, pairs, got, tc.static)
			}
		})
	}
}

func TestTermOptions(t *testing.T) {
	cases := []struct {
		opt  TermOptions
		in   string
		want []string
	}{
		{TermOptions{}, "The Hidden-Web crawler and the web", []string{"hidden", "web", "crawler"}},
		{TermOptions{KeepStopWords: true}, "the web", []string{"the", "web"}},
		{TermOptions{}, "MP3 players", []string{"mp", "3", "players"}},
	}
	for _, c := range cases {
		got := c.opt.Tokens(c.in)
		if len(got) != len(c.want) {
			t.Fatalf("Tokens(%q) = %v, want %v", c.in, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("Tokens(%q) = %v, want %v", c.in, got, c.want)
			}
		}
	}
	if (TermOptions{MinLen: 3}).candidate("ab") || (TermOptions{}).candidate("x") || !(TermOptions{}).candidate("xy") || !(TermOptions{MinLen: 1}).candidate("x") {
		t.Fatal("candidate length rule")
	}
}

func TestDropCut(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a depression or fissure where vessels enter a bod ... ilus of the kidney", "a depression or fissure where vessels enter a   of the kidney"},
		{"the act of controlling the ball (or puck); they took ...", "the act of controlling the ball (or puck); they  "},
		{"…respo of the nervous system", "  of the nervous system"},
		{"no cut here. Nor here.", "no cut here. Nor here."},
	}
	for _, tt := range tests {
		if got := dropCut(tt.in); got != tt.want {
			t.Errorf("dropCut(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// the pieces are never terms of the document
	s := NewStats(TermOptions{})
	d := s.addDoc("vessels enter a bod ... ilus of the kidney")
	for _, id := range s.docTerms[d] {
		if w := s.terms[id]; w == "bod" || w == "ilus" {
			t.Errorf("piece %q of a cut word is a term", w)
		}
	}
}
