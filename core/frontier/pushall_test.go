package frontier

import (
	"io"
	"log/slog"
	"reflect"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
)

// PushAll queues what Push queues one link at a time (duplicates, seen URLs
// and too deep links left out), in one write to the real store, and the
// links are there after the store is reopened.
func TestLinkFrontierPushAll(t *testing.T) {
	items := []Item{
		{URL: host + "/", Depth: 0, Score: 0},
		{URL: host + "/used/", Depth: 1, Score: .2, Evidence: &Evidence{From: host + "/", Anchor: "used cars"}},
		{URL: host + "/new/", Depth: 1, Score: .9},
		{URL: host + "/used/", Depth: 1, Score: .5}, // again
		{URL: host + "/deep/x", Depth: 3, Score: 1}, // beyond MaxDepth
		{URL: host + "/used/search", Depth: 2, Score: 5},
	}
	opt := LinkOptions{MaxDepth: 2}
	one := NewLinkFrontier(host, NewMemStore(), opt)
	for _, it := range items {
		if _, err := one.Push(it); err != nil {
			t.Fatal(err)
		}
	}
	open := func(dir string) *store.DB {
		db, err := store.Open(dir, store.Options{NoSync: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	if _, err := one.Push(Item{URL: host + "/about", Depth: 1, Score: .1}); err != nil {
		t.Fatal(err)
	}
	build := func(db *store.DB) *LinkFrontier {
		all := NewLinkFrontier(host, db, opt)
		if _, err := all.Push(Item{URL: host + "/about", Depth: 1, Score: .1}); err != nil {
			t.Fatal(err)
		}
		n, err := all.PushAll(append(items, Item{URL: host + "/about", Depth: 1, Score: 3}))
		if err != nil || n != 4 {
			t.Fatalf("PushAll = %d, %v; want 4 new links", n, err)
		}
		return all
	}
	dir := t.TempDir()
	db := open(dir)
	build(db)
	var stored []string
	if err := db.ScanFrontier(LinkQueue(host), func(e store.FrontierEntry) error {
		stored = append(stored, e.URL)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 5 {
		t.Errorf("store holds %v, want the 5 links", stored)
	}
	db.Close()
	db = open(dir)
	defer db.Close()
	again := NewLinkFrontier(host, db, opt)
	if n, err := again.Load(); err != nil || n != 5 {
		t.Errorf("reopened store: %d links, %v; want 5", n, err)
	}
	fresh := open(t.TempDir())
	defer fresh.Close()
	want := nextAll(t, one)
	if got := nextAll(t, build(fresh)); !reflect.DeepEqual(got, want) {
		t.Errorf("PushAll order %v, Push order %v", got, want)
	}
}

// SiteFrontier.PushAll leaves the frontier and its store as Push one site
// at a time does: new sites, updates in either queue, moves up from low
// to high, with the store reopened and the sites popped in order.
func TestSiteFrontierPushAll(t *testing.T) {
	site := func(name string, score float64) Item {
		return Item{URL: "http://" + name + ".com", Score: score, Evidence: &Evidence{Anchor: name, SF: int(score)}}
	}
	before := []struct {
		it   Item
		high bool
	}{{site("a", 1), true}, {site("b", 2), false}, {site("c", 3), false}, {site("d", 4), false}}
	for _, high := range []bool{true, false} {
		batch := []Item{site("b", 5), site("a", 0.5), site("e", 2), site("f", 6)}
		pops := map[string][]string{}
		for _, mode := range []string{"push", "pushall", "pushall-mem"} {
			var st Store
			var db *store.DB
			dir := t.TempDir()
			open := func() {
				var err error
				db, err = store.Open(dir, store.Options{NoSync: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				if err != nil {
					t.Fatal(err)
				}
				st = db
			}
			if mode == "pushall-mem" {
				st = NewMemStore()
			} else {
				open()
			}
			f := NewSiteFrontier(st)
			for _, b := range before {
				if err := f.Push(b.it, b.high); err != nil {
					t.Fatal(err)
				}
			}
			if mode == "push" {
				for _, it := range batch {
					if err := f.Push(it, high); err != nil {
						t.Fatal(err)
					}
				}
			} else if err := f.PushAll(batch, high); err != nil {
				t.Fatal(err)
			}
			if db != nil { // what was stored, not what is in memory
				db.Close()
				open()
				f = NewSiteFrontier(db)
				if n, err := f.Load(); err != nil || n != 6 {
					t.Fatalf("%s: reloaded %d sites, %v; want 6", mode, n, err)
				}
			}
			for {
				it, ok, err := f.Pop()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				pops[mode] = append(pops[mode], it.URL+":"+it.Evidence.Anchor)
			}
			if db != nil {
				db.Close()
			}
		}
		if !reflect.DeepEqual(pops["pushall"], pops["push"]) || !reflect.DeepEqual(pops["pushall-mem"], pops["push"]) {
			t.Errorf("high %v: Push pops %v, PushAll %v, PushAll on MemStore %v", high, pops["push"], pops["pushall"], pops["pushall-mem"])
		}
		if len(pops["push"]) != 6 {
			t.Errorf("high %v: popped %v, want 6 sites", high, pops["push"])
		}
	}
}
