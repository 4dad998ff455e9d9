package app

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// TestSurfaceFormProfile: a crawl records its profile's keywords and
// politeness in its directory, and a surface of a form it found fetches
// with that politeness, unless given a profile (--profile); the first
// queries are a given profile's keywords or seeds of its own, never the
// recorded keywords (the form's page words start a harvest without them).
func TestSurfaceFormProfile(t *testing.T) {
	ctx := context.Background()
	p, err := profile.Load(ctx, filepath.Join("..", "..", "domains", "auto.lua"))
	if err != nil {
		t.Fatal(err)
	}
	p.Politeness.Delay = 20 * time.Millisecond
	p.Politeness.UserAgent = "recorded-agent/1"
	p.Seeds = []string{"http://127.0.0.1:9/"}
	dir := t.TempDir()
	c, err := NewCrawl(ctx, CrawlOptions{Profile: p, Dir: dir, Net: NetOptions{AllowPrivate: true}, Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := store.Open(dir, store.Options{Kind: store.KindSurface, AlsoKinds: []string{store.KindCrawl}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := putLoopbackForm(t, db)

	other := &profile.Profile{Name: "other", Keywords: []string{"other"}, Politeness: profile.Politeness{Delay: 5 * time.Millisecond}}
	for _, tc := range []struct {
		name      string
		opt       SurfaceOptions
		delay     time.Duration
		agent     string
		seeds     []string
		recording bool
	}{
		{"recorded", SurfaceOptions{Form: id}, 20 * time.Millisecond, "recorded-agent/1", nil, true},
		{"profile's keywords", SurfaceOptions{Form: id, Profile: other}, 5 * time.Millisecond, "", []string{"other"}, false},
		{"own seeds", SurfaceOptions{Form: id, Seeds: []string{"civic"}}, 20 * time.Millisecond, "recorded-agent/1", []string{"civic"}, true},
		{"profile", SurfaceOptions{Form: id, Profile: other, Seeds: other.Keywords}, 5 * time.Millisecond, "", []string{"other"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt, err := formProfile(tc.opt, db)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(opt.Seeds, tc.seeds) {
				t.Errorf("seeds %v, want %v", opt.Seeds, tc.seeds)
			}
			src, err := openFormInterface(ctx, opt, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer src.close()
			fo := src.fetcher.Options()
			if fo.Delay != tc.delay {
				t.Errorf("delay %v, want %v", fo.Delay, tc.delay)
			}
			if got := fo.UserAgent == "recorded-agent/1"; got != tc.recording || (tc.agent != "" && fo.UserAgent != tc.agent) {
				t.Errorf("user agent %q, want the recorded one: %v", fo.UserAgent, tc.recording)
			}
		})
	}
}

// putLoopbackForm records a search form on a loopback page and returns
// its id.
func putLoopbackForm(t *testing.T, db *store.DB) string {
	t.Helper()
	base, _ := url.Parse("http://127.0.0.1:9/players/")
	pg, err := page.Parse([]byte(`<html><body><form action="/players/search"><input type="text" name="q"><input type="submit" value="Search"></form></body></html>`), "text/html", base)
	if err != nil || len(pg.Forms) != 1 {
		t.Fatalf("parse: %v, %d forms", err, len(pg.Forms))
	}
	pf := pg.Forms[0]
	fields, _ := json.Marshal(pf.Fields)
	f := store.Form{Site: "http://127.0.0.1:9", PageURL: base.String(), Index: pf.Index, Kind: "search", Searchable: 1,
		Action: pf.Action, Method: strings.ToUpper(pf.Method), Fields: fields}
	f.ID = store.FormID(f.PageURL, f.Index)
	if err := db.PutForm(f); err != nil {
		t.Fatal(err)
	}
	return f.ID
}
