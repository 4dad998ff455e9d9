package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/experiment/startbench"
	"github.com/dwcrawl/dwcrawl/experiment/webproc"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// TestBenchStartup measures two short crawls of each mode (this test
// binary running as dwcrawl) on a small web and checks that every run was
// measured: the numbers themselves are the benchmark's, not asserted.
func TestBenchStartup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs crawls in child processes")
	}
	cfg := simweb.SmallConfig()
	cfg.Faults = simweb.NoFaults()
	cfgFile := filepath.Join(t.TempDir(), "web.json")
	if err := os.WriteFile(cfgFile, cfg.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := startbench.Run(context.Background(), startbench.Options{
		Command: webproc.Command{Exe: os.Args[0], Env: []string{selfMainEnv + "=1"}}, Profile: autoProfile, Config: cfgFile, Runs: 2, Pages: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	startbench.WriteText(&out, res)
	t.Log("\n" + out.String())
	if len(res.Modes) != 2 || res.Modes[0].Name != "testbed" || res.Modes[1].Name != "web-addr" {
		t.Fatalf("modes %+v", res.Modes)
	}
	for _, m := range res.Modes {
		if len(m.Wall) != 2 || len(m.CPU) != 2 || len(m.MaxRSS) != 2 {
			t.Fatalf("%s: %d runs measured, want 2", m.Name, len(m.Wall))
		}
		for i := range m.Wall {
			if m.Wall[i] <= 0 || m.CPU[i] <= 0 || m.MaxRSS[i] <= 0 || m.CPU[i] > 2*m.Wall[i]+1 {
				t.Errorf("%s run %d: wall %.3f s, cpu %.3f s, rss %.1f MiB", m.Name, i, m.Wall[i], m.CPU[i], m.MaxRSS[i])
			}
		}
		if !strings.Contains(out.String(), m.Name) {
			t.Errorf("the table lacks mode %s", m.Name)
		}
		if m.Name == "web-addr" && !strings.Contains(strings.Join(m.Args, " "), "--web-addr 127.0.0.1:") {
			t.Errorf("web-addr mode ran %v", m.Args)
		}
	}
}
