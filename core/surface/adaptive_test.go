package surface

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// gitwebEntry is one line of testdata/gitweb-cars.jsonl: a query of
// `dwcrawl surface --form` through the search form of Debian's gitweb
// 2.39.5 over a repository of 406 commits, one per car of the vega cars
// data (testbed/lab), with the records it downloaded first. Keys are the
// commits' abbreviated hashes; the records keep their text only.
type gitwebEntry struct {
	Log     QueryLog `json:"log"`
	Results []string `json:"results"`
	Fresh   []string `json:"fresh"`
	Docs    []Doc    `json:"docs"`
}

// gitwebRecords is the number of commits behind the form: the truth.
const gitwebRecords = 406

func readGitweb(t *testing.T) []Entry {
	t.Helper()
	f, err := os.Open("testdata/gitweb-cars.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var es []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var e gitwebEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("testdata/gitweb-cars.jsonl:%d: %v", line, err)
		}
		// the records are keyed by their hashes, as Doc.Key keys an ID
		for i := range e.Results {
			e.Results[i] = "id:" + e.Results[i]
		}
		for i := range e.Fresh {
			e.Docs[i].ID = e.Fresh[i]
			e.Fresh[i] = "id:" + e.Fresh[i]
		}
		es = append(es, Entry{Log: e.Log, Results: e.Results, Fresh: e.Fresh, Docs: e.Docs})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return es
}

// TestCoverageGitweb replays the journal of a real gitweb harvest: the
// commit search pages through every match (no answer is cut, so no size
// probe is due) and hides its totals; the query "add" (the 16th) returned
// all 406 commits and the next 184 queries nothing new. The fair
// estimators rest on the first query or two: they said 8.3 % (interval
// 0–25 %) at 40 queries and 4.5 % at 200. The estimate over the complete
// answers must hold the truth, 100 %, and be within 10 points of it.
func TestCoverageGitweb(t *testing.T) {
	es := readGitweb(t)
	if len(es) != 200 {
		t.Fatalf("%d queries in the fixture, want 200", len(es))
	}
	for _, n := range []int{16, 40, 100, 200} {
		j := &MemJournal{}
		for _, e := range es[:n] {
			_ = j.Append(context.Background(), e)
		}
		st := NewState("form:gitweb", TermOptions{}, 0)
		if err := Replay(context.Background(), j, st, nil); err != nil {
			t.Fatal(err)
		}
		truth := float64(st.Docs()) / gitwebRecords
		e := st.Coverage()
		t.Logf("%d queries: %d records, truth %.3f, estimate %.3f [%.3f, %.3f] of %.0f, %s", n, st.Docs(), truth, e.Coverage, e.Low, e.High, e.Size, e.Estimator)
		if n == 16 {
			// one query downloaded nearly everything and nothing has been
			// recaptured since: no basis for a narrow claim either way
			if e.Valid() && e.High-e.Low < 0.5 && (e.Low > truth || e.High < truth) {
				t.Errorf("after %d queries a narrow interval [%.3f, %.3f] that misses the truth %.3f", n, e.Low, e.High, truth)
			}
			continue
		}
		if !strings.HasPrefix(e.Estimator, EstimatorAdaptive) {
			t.Errorf("%d queries: estimator %q, want %s", n, e.Estimator, EstimatorAdaptive)
		}
		if math.Abs(e.Coverage-truth) > 0.10 {
			t.Errorf("%d queries: estimate %.3f, truth %.3f", n, e.Coverage, truth)
		}
		if e.Low > truth || e.High < truth {
			t.Errorf("%d queries: interval [%.3f, %.3f] misses the truth %.3f", n, e.Low, e.High, truth)
		}
	}
}

// TestCoverageCompleteAdaptive: an interface that returns every match and
// hides its totals, harvested by the adaptive policy only (every query
// after the first chosen from the downloaded records, no probes due). On
// records of one length, of two lengths (a fifth five times longer) and of
// two or ten words (most records hold only rare words, a heterogeneity the
// length does not explain), the interval holds the truth at every
// checkpoint and the estimate is near it.
func TestCoverageCompleteAdaptive(t *testing.T) {
	cases := []struct {
		name        string
		n, vocab    int
		short, long int
		longFrac    float64
		tol         float64
	}{
		{"one length", 10000, 4000, 8, 8, 0, 0.05},
		{"two lengths", 10000, 4000, 8, 40, 0.2, 0.05},
		// Chao's estimate from the records returned once and twice is
		// conservative here: the adaptive policy's terms come back to the
		// records it has, so more of the others are seen once
		{"rare-word records", 20000, 30000, 2, 10, 0.2, 0.15},
	}
	for _, c := range cases {
		for _, seed := range []int64{1, 2} {
			recs, words := synthCorpus(seed, c.n, c.vocab, c.short, c.long, c.longFrac, false)
			db := hiddendb.New(recs, hiddendb.Options{K: 1 << 30, PageSize: 100, ShowTotal: false, Seed: seed})
			pol, err := NewPolicy("adaptive", PolicyOptions{Words: words[:1500], Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			_, err = Harvest(context.Background(), hiddendb.Searcher{DB: db}, pol, Options{Budget: 40, EstimateEvery: 1, Progress: func(p Progress) {
				if p.Queries != 10 && p.Queries != 20 && p.Queries != 40 {
					return
				}
				checked++
				e := p.Estimate
				truth := float64(p.Docs) / float64(db.Len())
				t.Logf("%s, seed %d, %d queries: truth %.3f, estimate %.3f [%.3f, %.3f], %s", c.name, seed, p.Queries, truth, e.Coverage, e.Low, e.High, e.Estimator)
				if !strings.HasPrefix(e.Estimator, EstimatorAdaptive) {
					t.Errorf("%s, seed %d, %d queries: estimator %q", c.name, seed, p.Queries, e.Estimator)
				}
				if e.Low > truth || e.High < truth {
					t.Errorf("%s, seed %d, %d queries: interval [%.3f, %.3f] misses the truth %.3f", c.name, seed, p.Queries, e.Low, e.High, truth)
				}
				if math.Abs(e.Coverage-truth) > c.tol {
					t.Errorf("%s, seed %d, %d queries: estimate %.3f, truth %.3f", c.name, seed, p.Queries, e.Coverage, truth)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if checked != 3 {
				t.Fatalf("%s, seed %d: %d checkpoints", c.name, seed, checked)
			}
		}
	}
}

// TestChao1: Chao's estimate from hand-counted capture frequencies.
func TestChao1(t *testing.T) {
	// 10 documents: 0–3 returned once, 4–5 twice, 6–9 three times
	c := &captureLog{queries: []queryCapture{
		{before: 0, docs: []int32{0, 1, 4, 5, 6, 7, 8, 9}},
		{before: 10, docs: []int32{2, 4, 6, 7, 8, 9}},
		{before: 10, docs: []int32{3, 5, 6, 7, 8, 9}},
	}}
	size, lo, hi, ok := c.chao1(10, 0, 1.645)
	// f1 = 4, f2 = 2: 10 + 16/4
	if !ok || math.Abs(size-14) > 1e-9 || !(lo > 10 && lo < size && hi > size) {
		t.Errorf("chao1 %.3f [%.3f, %.3f] ok %v, want 14 inside", size, lo, hi, ok)
	}
	c.queries[1].docs = []int32{2, 3}
	c.queries[2].docs = nil
	if _, _, _, ok := c.chao1(10, 0, 1.645); ok {
		t.Errorf("chao1 without a document returned twice")
	}
}

// TestAdaptiveCutAnswers: when the interface cuts the adaptive policy's
// answers at a result limit, the records the cut lists return again and
// again (the best ranked) would look like all there is to Chao's estimate
// (on WordNet at k=100 with hidden totals, counting them, it said 45 %
// where 5 % was true): the estimate over the complete answers is not made
// when more than maxCutFrac of the answers were cut.
func TestAdaptiveCutAnswers(t *testing.T) {
	const seed = 3
	recs, words := synthCorpus(seed, 10000, 4000, 8, 8, 0, false)
	db := hiddendb.New(recs, hiddendb.Options{K: 100, PageSize: 50, ShowTotal: false, Seed: seed})
	pol, err := NewPolicy("adaptive", PolicyOptions{Words: words[:1500], Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Harvest(context.Background(), hiddendb.Searcher{DB: db}, pol, Options{Budget: 100, NoProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	cut := 0
	for _, l := range st.Log() {
		if l.Limited {
			cut++
		}
	}
	if cut < 20 {
		t.Fatalf("seed %d: %d of 100 answers cut: the case tests nothing", seed, cut)
	}
	if _, ok := st.Stats.estimateAdaptive(st.K(), maxStrata, float64(st.Docs())); ok {
		t.Errorf("seed %d: estimate over the complete answers made with %d of 100 answers cut", seed, cut)
	}
	if e := st.Coverage(); strings.HasPrefix(e.Estimator, EstimatorAdaptive) {
		t.Errorf("seed %d: estimator %q", seed, e.Estimator)
	}
	// without the rule the estimate would be made
	defer func(f float64) { maxCutFrac = f }(maxCutFrac)
	maxCutFrac = 1
	e, ok := st.Stats.estimateAdaptive(st.K(), maxStrata, float64(st.Docs()))
	truth := float64(st.Docs()) / float64(db.Len())
	t.Logf("seed %d: truth %.3f; with every cut answer allowed: %.3f [%.3f, %.3f] made %v", seed, truth, e.Coverage, e.Low, e.High, ok)
	if !ok {
		t.Fatalf("seed %d: the case tests nothing", seed)
	}
}
