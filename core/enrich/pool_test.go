package enrich

import (
	"github.com/dwcrawl/dwcrawl/core/postings"
	"sort"
	"strings"
	"testing"
)

func poolQueries(p *Pool) map[string]Query {
	out := map[string]Query{}
	for i, q := range p.Queries {
		out[p.Text(i)] = q
	}
	return out
}

func TestBuildPool(t *testing.T) {
	docs := []string{
		"deep web crawling Wang",    // 0
		"deep web search Wang",      // 1
		"deep web crawling Ntoulas", // 2
		"graph mining J. Smith",     // 3
		"graph mining J. Smith",     // 4 (duplicate of 3)
		"the of",                    // 5: stop words only
	}
	p, err := BuildPool(NewLocal(docs), PoolOptions{MinSupport: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := poolQueries(p)
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("pool: %q stats %+v", keys, p.Stats)
	want := map[string]struct {
		kind    QueryKind
		support int
	}{
		"deep web crawling wang":    {Specific, 1},
		"deep web wang search":      {Specific, 1}, // keywords in first-seen order
		"deep web crawling ntoulas": {Specific, 1},
		"graph mining j smith":      {Specific, 2},
		"deep web":                  {Frequent, 3},
		"deep web crawling":         {Frequent, 2},
		"deep web wang":             {Frequent, 2},
	}
	if len(got) != len(want) {
		t.Fatalf("pool has %d queries %q, want %d", len(got), keys, len(want))
	}
	for text, w := range want {
		q, ok := got[text]
		if !ok {
			t.Fatalf("missing query %q (pool %q)", text, keys)
		}
		if q.Kind != w.kind || q.Support != w.support {
			t.Errorf("%q: kind %v support %d, want %v %d", text, q.Kind, q.Support, w.kind, w.support)
		}
	}
	// "graph mining smith" (mined without the one-letter "j") is dominated
	// by its closure, the duplicates' specific query
	if p.Stats.Duplicates != 1 || p.Stats.Dominated < 1 {
		t.Errorf("stats %+v: want 1 duplicate and ≥ 1 dominated", p.Stats)
	}
	if p.SpecificQuery(5) != -1 || p.SpecificQuery(3) != p.SpecificQuery(4) {
		t.Errorf("specific queries: %d %d %d", p.SpecificQuery(5), p.SpecificQuery(3), p.SpecificQuery(4))
	}
	for i := range p.Queries {
		if strings.Join(p.Keywords(i), " ") != p.Text(i) {
			t.Fatalf("keywords/text mismatch for %d", i)
		}
	}
}

// Every pool query must be closed (no keyword can be added without losing a
// record) and q(D) must be exact; every frequent closed set of the long
// keywords must be represented by a query with the same records.
func TestPoolClosedAndExact(t *testing.T) {
	recs := synthetic(3, 300)
	var docs []string
	for _, r := range recs {
		docs = append(docs, r.Fields["title"]+" "+r.Fields["author"])
	}
	l := NewLocal(docs)
	p, err := BuildPool(l, PoolOptions{MinSupport: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stats %+v", p.Stats)
	for i, q := range p.Queries {
		// exact q(D) by brute force
		var want []int32
		for r, ts := range l.terms {
			if containsAll(ts, q.terms) {
				want = append(want, int32(r))
			}
		}
		if !equalIDs(want, q.recs) {
			t.Fatalf("query %q: recs %v, want %v", p.Text(i), q.recs, want)
		}
		if q.Kind == Frequent && q.Support < 3 {
			t.Fatalf("query %q: support %d < t", p.Text(i), q.Support)
		}
		// closed: the intersection of its records' keywords is itself
		inter := append([]int32(nil), l.terms[q.recs[0]]...)
		for _, r := range q.recs[1:] {
			inter = postings.Intersect(nil, inter, l.terms[r])
		}
		if !equalIDs(inter, q.terms) {
			t.Fatalf("query %q is dominated by %q", p.Text(i), l.dict.text(inter))
		}
	}
}

func TestPoolLimit(t *testing.T) {
	recs := synthetic(3, 300)
	var docs []string
	for _, r := range recs {
		docs = append(docs, r.Fields["title"])
	}
	_, err := BuildPool(NewLocal(docs), PoolOptions{MinSupport: 2, Limit: 10})
	if err == nil || !strings.Contains(err.Error(), "raise the minimum support") {
		t.Fatalf("err = %v", err)
	}
}
