package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/cluster"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// TestPolitePerIPOptions follows per-address politeness from where it is
// set (a profile's politeness.per_ip, --polite-per-ip) to the fetcher's
// options of every command and to the profile a crawl records for a later
// surface.
func TestPolitePerIPOptions(t *testing.T) {
	ctx := context.Background()
	load := func(pol string) *profile.Profile {
		src := "return { name = 'x', keywords = {'car'}, seeds = {'a.example'}, politeness = { " + pol + " } }\n"
		path := filepath.Join(t.TempDir(), "x.lua")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := profile.LoadSource(ctx, path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name    string
		pol     string // the profile's politeness table
		flag    bool   // --polite-per-ip
		profile bool   // wanted in the profile
		want    bool   // wanted in the fetcher's options
	}{
		{"default", "", false, false, false},
		{"profile", "per_ip = true", false, true, true},
		{"flag", "", true, false, true},
		{"both", "per_ip = true", true, true, true},
		{"profile off, flag on", "per_ip = false", true, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := load(tt.pol)
			if p.Politeness.PerIP != tt.profile {
				t.Errorf("profile politeness.per_ip = %v, want %v", p.Politeness.PerIP, tt.profile)
			}
			net := NetOptions{PolitePerIP: tt.flag}
			fo := crawl.FetchOptions(p) // run, worker, surface, classify --probe
			if err := net.apply(&fo); err != nil {
				t.Fatal(err)
			}
			if fo.PolitePerIP != tt.want {
				t.Errorf("crawl fetcher PolitePerIP = %v, want %v", fo.PolitePerIP, tt.want)
			}
			if bare, err := net.FetchOptions(); err != nil || bare.PolitePerIP != tt.flag { // classify, seeds
				t.Errorf("command fetcher PolitePerIP = %v (%v), want %v", bare.PolitePerIP, err, tt.flag)
			}
			if f, err := interfaceFetcher(map[string]string{"url": "https://search.example/?q={q}"}, net, nil); err != nil { // enrich
				t.Fatal(err)
			} else if f.Options().PolitePerIP != tt.flag {
				t.Errorf("interface fetcher PolitePerIP = %v, want %v", f.Options().PolitePerIP, tt.flag)
			}
			if got := strings.Contains(net.Describe(), "per IP"); got != tt.flag {
				t.Errorf("Describe() = %q", net.Describe())
			}
			// run --nats: the workers get it with the crawl's spec
			spec, err := ClusterSpec(ClusterRunOptions{CrawlOptions: CrawlOptions{Profile: p, Net: net, Strategy: "smartcrawler"}})
			if err != nil {
				t.Fatal(err)
			}
			var back cluster.Spec
			if b, err := json.Marshal(spec); err != nil || json.Unmarshal(b, &back) != nil || back.PolitePerIP != tt.flag {
				t.Errorf("cluster spec PolitePerIP = %v (%v), want %v", back.PolitePerIP, err, tt.flag)
			}

			// a crawl records it; a surface of its forms fetches with it
			db, err := store.Open(t.TempDir(), store.Options{Kind: store.KindCrawl})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := recordCrawlProfile(db, p, 0); err != nil {
				t.Fatal(err)
			}
			r, err := recordedProfile(db)
			if err != nil {
				t.Fatal(err)
			}
			if r.Politeness.PerIP != tt.profile || crawl.FetchOptions(r).PolitePerIP != tt.profile {
				t.Errorf("recorded politeness.per_ip = %v, want %v", r.Politeness.PerIP, tt.profile)
			}
		})
	}
}
