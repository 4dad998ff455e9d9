package fpgrowth

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// textbook is the running example of Han, Pei & Yin (SIGMOD 2000), Table 1,
// and of most data-mining textbooks (min support 3).
var textbook = []string{"facdgimp", "abcflmo", "bfhjo", "bcksp", "afcelpmn"}

func encode(txs []string) [][]int32 {
	var out [][]int32
	for _, s := range txs {
		var t []int32
		for _, r := range s {
			t = append(t, int32(r-'a'))
		}
		out = append(out, t)
	}
	return out
}

func render(sets []Itemset) []string {
	var out []string
	for _, s := range sets {
		var b strings.Builder
		for _, it := range s.Items {
			b.WriteByte(byte('a' + it))
		}
		out = append(out, fmt.Sprintf("%s:%d", b.String(), s.Support))
	}
	sort.Strings(out)
	return out
}

func TestTextbook(t *testing.T) {
	cases := []struct {
		name string
		opt  Options
		want []string
	}{
		{"all", Options{MinSupport: 3}, []string{
			"a:3", "ac:3", "acf:3", "acfm:3", "acm:3", "af:3", "afm:3", "am:3",
			"b:3", "c:4", "cf:3", "cfm:3", "cm:3", "cp:3", "f:4", "fm:3", "m:3", "p:3"}},
		{"closed", Options{MinSupport: 3, Closed: true}, []string{"acfm:3", "b:3", "c:4", "cp:3", "f:4"}},
		{"maxlen2", Options{MinSupport: 3, MaxLen: 2}, []string{
			"a:3", "ac:3", "af:3", "am:3", "b:3", "c:4", "cf:3", "cm:3", "cp:3", "f:4", "fm:3", "m:3", "p:3"}},
		{"minsup4", Options{MinSupport: 4}, []string{"c:4", "f:4"}},
		{"closed-minsup2", Options{MinSupport: 2, Closed: true}, nil}, // checked against brute force below
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Mine(encode(textbook), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want == nil {
				want = render(brute(encode(textbook), c.opt))
			}
			if g, w := strings.Join(render(got), " "), strings.Join(want, " "); g != w {
				t.Fatalf("got  %s\nwant %s", g, w)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	_, err := Mine(encode(textbook), Options{MinSupport: 1, Limit: 10})
	if err != ErrLimit {
		t.Fatalf("err = %v, want ErrLimit", err)
	}
}

// brute enumerates every itemset over the items that occur (small inputs).
func brute(tx [][]int32, opt Options) []Itemset {
	itemSet := map[int32]bool{}
	for _, t := range tx {
		for _, it := range t {
			itemSet[it] = true
		}
	}
	var items []int32
	for it := range itemSet {
		items = append(items, it)
	}
	sort.Slice(items, func(a, b int) bool { return items[a] < items[b] })
	has := make([]map[int32]bool, len(tx))
	for i, t := range tx {
		has[i] = map[int32]bool{}
		for _, it := range t {
			has[i][it] = true
		}
	}
	support := func(set []int32) int {
		n := 0
		for _, h := range has {
			ok := true
			for _, it := range set {
				if !h[it] {
					ok = false
					break
				}
			}
			if ok {
				n++
			}
		}
		return n
	}
	var all []Itemset
	for mask := 1; mask < 1<<len(items); mask++ {
		var set []int32
		for b, it := range items {
			if mask&(1<<b) != 0 {
				set = append(set, it)
			}
		}
		if opt.MaxLen > 0 && !opt.Closed && len(set) > opt.MaxLen {
			continue
		}
		if s := support(set); s >= opt.MinSupport {
			all = append(all, Itemset{set, s})
		}
	}
	if !opt.Closed {
		return all
	}
	var out []Itemset
	for _, s := range all {
		closed := true
		for _, it := range items {
			in := false
			for _, x := range s.Items {
				if x == it {
					in = true
				}
			}
			if !in && support(append(append([]int32(nil), s.Items...), it)) == s.Support {
				closed = false
				break
			}
		}
		if closed {
			out = append(out, s)
		}
	}
	return out
}

func TestRandomAgainstBruteForce(t *testing.T) {
	seed := int64(20190630)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for round := 0; round < 60; round++ {
		nItems := 3 + rng.Intn(8)
		var tx [][]int32
		for i := 0; i < 4+rng.Intn(25); i++ {
			var tr []int32
			for it := 0; it < nItems; it++ {
				if rng.Float64() < 0.45 {
					tr = append(tr, int32(it))
				}
			}
			if rng.Intn(4) == 0 && len(tr) > 0 {
				tr = append(tr, tr[0]) // duplicate item inside a transaction
			}
			tx = append(tx, tr)
		}
		for _, opt := range []Options{
			{MinSupport: 1 + rng.Intn(4)},
			{MinSupport: 1 + rng.Intn(4), Closed: true},
			{MinSupport: 1 + rng.Intn(3), MaxLen: 1 + rng.Intn(3)},
		} {
			got, err := Mine(tx, opt)
			if err != nil {
				t.Fatal(err)
			}
			g, w := strings.Join(render(got), " "), strings.Join(render(brute(tx, opt)), " ")
			if g != w {
				t.Fatalf("round %d opt %+v tx %v\ngot  %s\nwant %s", round, opt, tx, g, w)
			}
		}
	}
}

func TestNearDuplicatesDoNotExplode(t *testing.T) {
	// two identical 40-item transactions: 2^40 frequent itemsets, one closed
	var a []int32
	for i := int32(0); i < 40; i++ {
		a = append(a, i)
	}
	got, err := Mine([][]int32{a, a, {1, 2}}, Options{MinSupport: 2, Closed: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Items) != 2 || got[0].Support != 3 || len(got[1].Items) != 40 {
		t.Fatalf("got %v", got)
	}
}

func TestMergeHoldsEveryClosedSet(t *testing.T) {
	seed := int64(7)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for round := 0; round < 40; round++ {
		var tx [][]int32
		for i := 0; i < 5+rng.Intn(20); i++ {
			var tr []int32
			for it := 0; it < 8; it++ {
				if rng.Float64() < 0.5 {
					tr = append(tr, int32(it))
				}
			}
			tx = append(tx, tr)
		}
		minsup := 1 + rng.Intn(3)
		got, err := Mine(tx, Options{MinSupport: minsup, Merge: true})
		if err != nil {
			t.Fatal(err)
		}
		all := map[string]bool{}
		for _, s := range render(brute(tx, Options{MinSupport: minsup})) {
			all[s] = true
		}
		have := map[string]bool{}
		for _, s := range render(got) {
			if !all[s] {
				t.Fatalf("round %d: %s is not a frequent itemset with that support", round, s)
			}
			have[s] = true
		}
		for _, s := range render(brute(tx, Options{MinSupport: minsup, Closed: true})) {
			if !have[s] {
				t.Fatalf("round %d: closed set %s missing", round, s)
			}
		}
	}
}
