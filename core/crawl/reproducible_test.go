package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/testseed"
	"github.com/dwcrawl/dwcrawl/store"
)

// pageSequence lists the recorded pages in the order the crawl numbered
// them, one "seq url" line each.
func pageSequence(t *testing.T, db *store.DB) []string {
	t.Helper()
	var recs []pageRecord
	err := db.ScanJSON(store.TagPages, nil, func(_, v []byte) error {
		var r pageRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = fmt.Sprintf("%d %s", r.Seq, r.URL)
	}
	return out
}

func formIDs(t *testing.T, db *store.DB) []string {
	t.Helper()
	var ids []string
	if err := db.ScanForms(func(f store.Form) error {
		ids = append(ids, fmt.Sprintf("%s relevant=%v", f.ID, f.Relevant))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestReproducible runs each strategy twice with 4 workers and the same
// seed in reproducible mode: the same pages must be recorded in the same
// order, with the same forms and the same summary.
func TestReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web four times per strategy")
	}
	for _, strategy := range []string{SmartCrawler, ACHE} {
		t.Run(strategy, func(t *testing.T) {
			var seqs, forms [2][]string
			var sums [2]Snapshot
			for i := range 2 {
				c, err := Assemble(context.Background(), Setup{Profile: testProfile(t, "auto"), Dir: t.TempDir(), Strategy: strategy, Workers: 4,
					Pages: 400, Web: killWeb(), Logger: quiet(), Seed: testSeed, Reproducible: true})
				if err != nil {
					t.Fatal(err)
				}
				sn, err := c.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				seqs[i], forms[i] = pageSequence(t, c.DB), formIDs(t, c.DB)
				sn.Elapsed, sn.PagesPerSecond = 0, 0
				sums[i] = sn
				c.Close()
			}
			if len(seqs[0]) != 400 {
				t.Fatalf("%d pages recorded, want 400", len(seqs[0]))
			}
			for j := range seqs[0] {
				if j >= len(seqs[1]) || seqs[0][j] != seqs[1][j] {
					t.Fatalf("page sequences differ at %d: %q vs %q", j, seqs[0][j], at(seqs[1], j))
				}
			}
			if strings.Join(forms[0], "\n") != strings.Join(forms[1], "\n") {
				t.Errorf("forms differ:\n%v\n%v", forms[0], forms[1])
			}
			if !reflect.DeepEqual(sums[0], sums[1]) {
				t.Errorf("summaries differ:\n%+v\n%+v", sums[0], sums[1])
			}
			t.Logf("%s: %d pages in the same order twice, %d forms, %d relevant; first pages %v", strategy, len(seqs[0]), len(forms[0]), sums[0].RelevantForms, seqs[0][:3])
		})
	}
}

// jitter delays every request by a pseudo-random time drawn from its seed,
// its method and URL and how many times that request was sent before: the
// same seed gives the same delays whatever order the requests come in, and
// another seed reorders the fetches' ends as a loaded machine would.
type jitter struct {
	next http.RoundTripper
	seed uint64
	mu   sync.Mutex
	sent map[string]int
}

func (j *jitter) RoundTrip(r *http.Request) (*http.Response, error) {
	key := r.Method + " " + r.URL.String()
	j.mu.Lock()
	n := j.sent[key]
	j.sent[key]++
	j.mu.Unlock()
	h := hash64(fmt.Sprintf("%d\x00%s\x00%d", j.seed, key, n))
	// mostly a few milliseconds, one request in 16 a long stall
	d := time.Duration(h%8) * time.Millisecond
	if h>>8%16 == 0 {
		d = time.Duration(40+h>>16%200) * time.Millisecond
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		return nil, r.Context().Err()
	}
	return j.next.RoundTrip(r)
}

// TestReproducibleUnderJitter: a reproducible crawl depends neither on
// timing nor on the runtime's choices (map order). Two runs with the same
// crawl seed, each with its requests delayed by seeded random times
// (another seed in each run, so the fetches end in other orders), and with
// feature spaces rebuilt every few examples (each rebuild rescores the
// frontiers: a score off by its last bit reorders equal links), record the
// same pages in the same order, the same forms, the same summary and the
// same sites with bit for bit the same scores.
func TestReproducibleUnderJitter(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the simulated web twice")
	}
	base := testseed.Seed(t) // the two runs' jitter: base and base+1
	var seqs, forms, sites [2][]string
	var sums [2]Snapshot
	for i := range 2 {
		p := testProfile(t, "auto")
		p.Learn.SitesEvery, p.Learn.FormsEvery = 2, 3
		wrap := func(rt http.RoundTripper) http.RoundTripper {
			return &jitter{next: rt, seed: base + uint64(i), sent: map[string]int{}}
		}
		c, err := Assemble(context.Background(), Setup{Profile: p, Dir: t.TempDir(), Strategy: SmartCrawler, Workers: 4,
			Pages: 500, Web: killWeb(), Logger: quiet(), Seed: testSeed, Reproducible: true, Transport: wrap})
		if err != nil {
			t.Fatal(err)
		}
		sn, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		seqs[i], forms[i], sites[i] = pageSequence(t, c.DB), formIDs(t, c.DB), siteScores(t, c.DB)
		sn.Elapsed, sn.PagesPerSecond = 0, 0
		sums[i] = sn
		c.Close()
	}
	if sums[0].LearnSites < 2 || sums[0].LearnForms < 2 {
		t.Fatalf("%d FSS and %d FSL rebuilds: too few to test them", sums[0].LearnSites, sums[0].LearnForms)
	}
	for j := range seqs[0] {
		if j >= len(seqs[1]) || seqs[0][j] != seqs[1][j] {
			t.Fatalf("page sequences differ at %d: %q vs %q", j, seqs[0][j], at(seqs[1], j))
		}
	}
	if len(seqs[1]) != len(seqs[0]) {
		t.Fatalf("%d pages recorded, then %d", len(seqs[0]), len(seqs[1]))
	}
	if strings.Join(forms[0], "\n") != strings.Join(forms[1], "\n") {
		t.Errorf("forms differ:\n%v\n%v", forms[0], forms[1])
	}
	for j := range sites[0] {
		if j >= len(sites[1]) || sites[0][j] != sites[1][j] {
			t.Errorf("sites differ at %d: %q vs %q", j, sites[0][j], at(sites[1], j))
			break
		}
	}
	if !reflect.DeepEqual(sums[0], sums[1]) {
		t.Errorf("summaries differ:\n%+v\n%+v", sums[0], sums[1])
	}
	t.Logf("%d pages in the same order twice, %d forms, %d relevant, %d sites; %d FSS and %d FSL rebuilds",
		len(seqs[0]), len(forms[0]), sums[0].RelevantForms, len(sites[0]), sums[0].LearnSites, sums[0].LearnForms)
}

// siteScores lists the stored sites with their status and the bits of
// their score.
func siteScores(t *testing.T, db *store.DB) []string {
	t.Helper()
	var out []string
	if err := db.ScanSites(func(s store.Site) error {
		out = append(out, fmt.Sprintf("%s %v %x", s.URL, s.Status, math.Float64bits(s.Score)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// TestCheckCountersFindsDrift: a counter that no longer matches the
// records is named.
func TestCheckCountersFindsDrift(t *testing.T) {
	c := assemble(t, t.TempDir(), SmartCrawler, 120)
	defer c.Close()
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p, err := CheckCounters(c.DB); err != nil || len(p) > 0 {
		t.Fatalf("after a clean crawl: %v %v", p, err)
	}
	for _, name := range []string{counterNames[cPages], counterNames[cRelevant], counterNames[cDeep]} {
		if err := c.DB.AddCounter(name, 1); err != nil {
			t.Fatal(err)
		}
		p, err := CheckCounters(c.DB)
		if err != nil || len(p) != 1 || !strings.Contains(p[0], name) {
			t.Errorf("after adding 1 to %s: %v %v", name, p, err)
		}
		c.DB.AddCounter(name, -1)
	}
}
