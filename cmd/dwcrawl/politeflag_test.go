package main

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

// TestPolitePerIPFlag checks that every command that fetches takes
// --polite-per-ip with the other network flags (the worker takes it from
// the crawl's spec, see internal/app) and that it reaches NetOptions.
func TestPolitePerIPFlag(t *testing.T) {
	fetching := []string{"run", "surface", "classify", "enrich", "serve", "seeds", "sample"}
	for _, c := range newApp().Commands {
		if !slices.Contains(fetching, c.Name) {
			continue
		}
		fetching = slices.DeleteFunc(fetching, func(n string) bool { return n == c.Name })
		var has bool
		for _, f := range c.Flags {
			has = has || slices.Contains(f.Names(), "polite-per-ip")
		}
		if !has {
			t.Errorf("dwcrawl %s has no --polite-per-ip", c.Name)
		}
	}
	if len(fetching) > 0 {
		t.Errorf("commands not found: %v", fetching)
	}
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"x"}, false},
		{[]string{"x", "--polite-per-ip"}, true},
		{[]string{"x", "--polite-per-ip=false"}, false},
	} {
		var got app.NetOptions
		a := &cli.App{Flags: netFlags(), Action: func(c *cli.Context) error { got = netOptions(c); return nil }}
		if err := a.Run(tt.args); err != nil {
			t.Fatal(err)
		}
		if got.PolitePerIP != tt.want {
			t.Errorf("%v: PolitePerIP = %v, want %v", tt.args, got.PolitePerIP, tt.want)
		}
	}
}
