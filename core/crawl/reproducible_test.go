package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

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
