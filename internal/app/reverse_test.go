package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
)

// TestBundledProfilesChooseEngine: every bundled profile picks the first
// real engine whose environment is set, says why reverse search is off when
// none is, and takes the simulated engine with --testbed. Choosing sends no
// request (the plugins' checks read the environment only), so the engines'
// addresses below are never contacted.
func TestBundledProfilesChooseEngine(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "domains", "*.lua"))
	if err != nil || len(files) < 12 {
		t.Fatalf("bundled profiles: %v, %v", files, err)
	}
	unset := map[string]string{"SEARXNG_URL": "", "BRAVE_API_KEY": "", "GOOGLE_API_KEY": "", "GOOGLE_CSE_ID": ""}
	tests := []struct {
		name    string
		env     map[string]string
		testbed bool
		want    string   // the engine chosen, "" when off
		wantWhy []string // what the off reason names
	}{
		{"none", nil, false, "", []string{"SEARXNG_URL", "BRAVE_API_KEY", "GOOGLE_API_KEY"}},
		{"searxng", map[string]string{"SEARXNG_URL": "http://127.0.0.1:1/"}, false, "search/searxng", nil},
		{"brave", map[string]string{"BRAVE_API_KEY": "k"}, false, "search/brave", nil},
		{"google", map[string]string{"GOOGLE_API_KEY": "k", "GOOGLE_CSE_ID": "cx"}, false, "search/google", nil},
		{"google half-configured", map[string]string{"GOOGLE_API_KEY": "k"}, false, "", []string{"GOOGLE_CSE_ID"}},
		{"searxng first", map[string]string{"SEARXNG_URL": "http://127.0.0.1:1/", "BRAVE_API_KEY": "k"}, false, "search/searxng", nil},
		{"testbed", map[string]string{"BRAVE_API_KEY": "k"}, true, "search/simweb", nil},
	}
	ctx := context.Background()
	f, err := fetch.New(fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range unset {
				t.Setenv(k, v)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			for _, file := range files {
				p, err := profile.Load(ctx, file)
				if err != nil {
					t.Fatal(err)
				}
				rs, err := Reverse(p, tt.testbed, nil, log)(ctx, f)
				var off *ReverseOffError
				switch {
				case tt.want == "":
					if !errors.As(err, &off) {
						t.Errorf("%s: want reverse search off, got %v, %v", file, rs, err)
						continue
					}
					for _, w := range tt.wantWhy {
						if !strings.Contains(off.Why, w) {
							t.Errorf("%s: off reason %q does not name %s", file, off.Why, w)
						}
					}
				case err != nil:
					t.Errorf("%s: %v", file, err)
				default:
					if got := rs.(*reverseSearcher).Name(); got != tt.want {
						t.Errorf("%s: engine %s, want %s", file, got, tt.want)
					}
					rs.(*reverseSearcher).Close()
				}
			}
		})
	}
}
