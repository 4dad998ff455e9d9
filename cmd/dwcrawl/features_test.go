package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

func TestFeaturesCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crawl")
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	its := []rank.Iteration{
		{Space: rank.SpaceFSL, Round: 1, Examples: 100, Time: at, URL: []rank.TermWeight{{Term: "search", DF: 61}}, Anchor: []rank.TermWeight{{Term: "find", DF: 20}}},
		{Space: rank.SpaceFSS, Round: 2, Examples: 100, Time: at, URL: []rank.TermWeight{{Term: "auto", DF: 40}}, Text: []rank.TermWeight{{Term: "dealer", DF: 33}}},
		{Space: rank.SpaceFSS, Round: 1, Examples: 50, Time: at, URL: []rank.TermWeight{{Term: "car", DF: 31}, {Term: "motor", DF: 12}}},
	}
	for _, it := range its {
		if err := db.PutJSON(store.TagFeatures, crawl.FeatureKey(it.Space, it.Round), it); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	empty := filepath.Join(t.TempDir(), "empty")
	if db, err := store.Open(empty, store.Options{}); err == nil {
		db.Close()
	}

	tests := []struct {
		name string
		args []string
		want []string // in this order
		not  []string
	}{
		{"all", []string{"--dir", dir}, []string{"FSL round 1: 100 searchable forms", "search (61)", "FSS round 1: 50 deep sites", "car (31)", "motor (12)", "FSS round 2: 100 deep sites", "dealer (33)"}, nil},
		{"space", []string{"--dir", dir, "--space", "fss"}, []string{"FSS round 1", "FSS round 2"}, []string{"FSL"}},
		{"none", []string{"--dir", empty}, []string{"no learning iterations recorded"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runApp(t, append([]string{"features"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
	out, _, err := runApp(t, "features", "--dir", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got []rank.Iteration
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 3 || got[0].Space != rank.SpaceFSL || got[2].Round != 2 {
		t.Errorf("--json: %v %+v", err, got)
	}
}
