package surface

import (
	"context"
	"strings"
	"testing"
)

func TestWordLists(t *testing.T) {
	w := GenericWords()
	if len(w) < 40000 || w[0] != "you" {
		t.Fatalf("bundled list: %d words, first %q", len(w), w[0])
	}
	got, err := ReadWordList(strings.NewReader("# comment\n\nalpha 120\nbeta\n  gamma  3\n"))
	if err != nil || strings.Join(got, ",") != "alpha,beta,gamma" {
		t.Fatalf("ReadWordList = %v, %v", got, err)
	}
}

func TestListPolicies(t *testing.T) {
	words := []string{"the", "web", "of", "x", "hidden", "web", "data"}
	st := NewState("t", TermOptions{MinLen: 2}, 0)
	p := NewGeneric(words)
	var got []string
	for {
		prop, err := p.Next(context.Background(), st)
		if err != nil {
			break
		}
		got = append(got, prop.Query)
		st.issued[prop.Query] = true
	}
	// stop words, short words and repeats are skipped
	if strings.Join(got, ",") != "web,hidden,data" {
		t.Fatalf("generic order %v", got)
	}
	const seed = 42
	t.Logf("seed %d", seed)
	order := func() string {
		st := NewState("t", TermOptions{}, 0)
		p := NewRandom(GenericWords()[:500], seed)
		var qs []string
		for i := 0; i < 20; i++ {
			prop, _ := p.Next(context.Background(), st)
			qs = append(qs, prop.Query)
		}
		return strings.Join(qs, ",")
	}
	if a, b := order(), order(); a != b {
		t.Fatal("random policy not reproducible with a seed")
	}
	if _, err := NewPolicy("best", PolicyOptions{}); err == nil {
		t.Fatal("unknown policy accepted")
	}
}

// The oracle's lazy greedy equals the plain greedy set cover.
func TestOracleGreedy(t *testing.T) {
	db := papersDB(t, 15, true)
	o := NewOracle(db, TermOptions{})
	covered := make([]bool, db.Len())
	st := NewState("t", TermOptions{}, 15)
	vocab := db.Vocabulary()
	for step := 0; step < 15; step++ {
		prop, err := o.Next(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		best := 0
		for term := range vocab {
			if st.Issued(term) {
				continue
			}
			g := 0
			for _, i := range db.TopK(term) {
				if !covered[i] {
					g++
				}
			}
			if g > best {
				best = g
			}
		}
		if int(prop.Gain) != best {
			t.Fatalf("step %d: oracle gain %g, best possible %d", step, prop.Gain, best)
		}
		var fresh []Doc
		for _, i := range db.TopK(prop.Query) {
			if !covered[i] {
				covered[i] = true
				fresh = append(fresh, Doc{ID: db.Record(i).ID})
			}
		}
		st.issued[prop.Query] = true
		o.Observe(st, QueryLog{}, fresh)
	}
}
