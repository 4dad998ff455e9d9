package enrich

import (
	"math/rand"
	"strings"
	"testing"
)

func TestJaccard(t *testing.T) {
	docs := []string{
		"Deep web crawling through keyword queries Wang Shea",
		"Deep web crawling through keyword queries Wang",
		"Something else entirely",
	}
	l := NewLocal(docs)
	cases := []struct {
		name string
		doc  Doc
		th   float64
		want []int
	}{
		{"identical", Doc{Fields: map[string]string{"title": "Deep web crawling through keyword queries", "author": "Wang Shea"}}, 0.9, []int{0}},
		{"one word more", Doc{Text: "deep web crawling through keyword queries wang shea wu"}, 0.85, []int{0}},
		{"lower threshold", Doc{Text: "deep web crawling through keyword queries wang shea"}, 0.8, []int{0, 1}},
		{"unknown words", Doc{Text: "zzz yyy xxx"}, 0.5, nil},
		{"empty", Doc{}, 0.9, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewJaccard(l, c.th, []string{"title", "author"})
			var got []int
			for _, x := range m.Match(c.doc) {
				got = append(got, x.Record)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

// The prefix-filtered join must find exactly what a brute-force join finds.
func TestJaccardAgainstBruteForce(t *testing.T) {
	seed := int64(42)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	vocab := make([]string, 30)
	for i := range vocab {
		vocab[i] = wordName(i)
	}
	gen := func() string {
		n := 1 + rng.Intn(9)
		var w []string
		for i := 0; i < n; i++ {
			w = append(w, vocab[rng.Intn(len(vocab))])
		}
		if rng.Intn(5) == 0 {
			w = append(w, "unknownword"+wordName(rng.Intn(5)))
		}
		return strings.Join(w, " ")
	}
	var docs []string
	for i := 0; i < 400; i++ {
		docs = append(docs, gen())
	}
	l := NewLocal(docs)
	for _, th := range []float64{0.5, 0.7, 0.9, 1} {
		m := NewJaccard(l, th, nil)
		for q := 0; q < 120; q++ {
			var h string
			if q%2 == 0 {
				h = docs[rng.Intn(len(docs))] // near-duplicates exist
			} else {
				h = gen()
			}
			got := map[int]bool{}
			for _, x := range m.Match(Doc{Text: h}) {
				got[x.Record] = true
			}
			ht := map[string]bool{}
			for _, t := range Terms(h) {
				ht[t] = true
			}
			for r, d := range docs {
				dt := map[string]bool{}
				for _, t := range Terms(d) {
					dt[t] = true
				}
				inter := 0
				for t := range ht {
					if dt[t] {
						inter++
					}
				}
				union := len(ht) + len(dt) - inter
				want := union > 0 && float64(inter)/float64(union) >= th-1e-12
				if want != got[r] {
					t.Fatalf("τ=%g hidden %q local %q: brute %v, join %v", th, h, d, want, got[r])
				}
			}
		}
	}
}

func TestExactAndParseMatch(t *testing.T) {
	tab, err := LoadTable("testdata/bom.csv")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseMatch("exact:author")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ms.New(tab, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Match(Doc{Fields: map[string]string{"author": "  ann   LEE "}}); len(got) != 1 || got[0].Record != 0 {
		t.Fatalf("exact match = %v", got)
	}
	if got := m.Match(Doc{Fields: map[string]string{"author": ""}}); len(got) != 0 {
		t.Fatalf("empty key matched %v", got)
	}
	cases := []struct {
		in, want, err string
	}{
		{"", "jaccard:0.9", ""},
		{"jaccard:0.8", "jaccard:0.8", ""},
		{"jaccard", "jaccard:0.9", ""},
		{"exact:a+b", "exact:a+b", ""},
		{"exact:a,b", "exact:a+b", ""},
		{"jaccard:2", "", "threshold"},
		{"exact:", "", "key columns"},
		{"cosine:0.5", "", "want jaccard"},
	}
	for _, c := range cases {
		got, err := ParseMatch(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseMatch(%q) err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got.String() != c.want {
			t.Errorf("ParseMatch(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
}
