package soakbench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
)

// TestSoak crawls a small faulty web: every kind of fault is served, and
// every faulty response is explained by a failure record with the matching
// cause or, for a transient fault, by the page recorded after the retry.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls a faulty simulated web")
	}
	p, err := profile.Load(context.Background(), filepath.Join("..", "..", "domains", "auto.lua"))
	if err != nil {
		t.Fatal(err)
	}
	const seed = 3
	res, err := Run(context.Background(), Options{Profile: p, Pages: 1500, Workers: 8, Sites: 2000, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	WriteText(&out, res)
	t.Logf("seed %d\n%s", seed, out.String())
	if res.Pages != 1500 {
		t.Errorf("%d pages recorded, want the budget 1500", res.Pages)
	}
	for _, k := range res.Kinds {
		if k.Responses == 0 {
			t.Errorf("no %s fault served: the soak does not exercise it", k.Kind)
		}
		if k.Missing > 0 {
			t.Errorf("%s: %d URLs unexplained, e.g. %v", k.Kind, k.Missing, k.Examples)
		}
		if k.Failures+k.Recovered+k.Missing != k.URLs {
			t.Errorf("%s: %d+%d+%d outcomes for %d URLs", k.Kind, k.Failures, k.Recovered, k.Missing, k.URLs)
		}
	}
	if res.NoCause > 0 || !res.OK() {
		t.Errorf("%d failure records without a cause; ok=%v", res.NoCause, res.OK())
	}
}
