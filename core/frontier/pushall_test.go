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
