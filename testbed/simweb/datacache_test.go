package simweb

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDataCache reads a data directory through the cache: the first read
// writes a cache entry, the second gives the same data from it, and a
// changed data file makes a new entry.
func TestDataCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("DWCRAWL_CACHE_DIR", cache)
	dir := t.TempDir()
	airports := filepath.Join(dir, "airports.csv")
	if err := os.WriteFile(airports, []byte("iata,name,city,state\nAAA,Alpha Field,Springfield,IL\nBBB,Beta Field,Shelbyville,IL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	direct, err := loadData(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, err := loadDataCached(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "simweb-data-*.gob"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v, want one", entries)
	}
	second, err := loadDataCached(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first.key == "" || first.key != second.key {
		t.Errorf("data keys %q and %q", first.key, second.key)
	}
	for _, n := range second.TopicNames {
		if l := second.Topics[n].lazy; l == nil || l.load == nil {
			t.Fatalf("topic %s: pool read before its first use", n)
		}
	}
	direct.key = first.key
	if !reflect.DeepEqual(direct, materialized(first)) || !reflect.DeepEqual(direct, materialized(second)) {
		t.Error("data read through the cache differs from the directory's")
	}
	if err := os.WriteFile(airports, []byte("iata,name,city,state\nAAA,Alpha Field,Springfield,IL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := loadDataCached(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed.Cities) != len(direct.Cities)-1 {
		t.Errorf("after a data change: %d cities, before %d", len(changed.Cities), len(direct.Cities))
	}
	if entries, _ = filepath.Glob(filepath.Join(cache, "simweb-data-*.gob")); len(entries) != 2 {
		t.Errorf("after a data change: cache entries %v, want two", entries)
	}
	// every change makes an entry; only the newest engineCacheKeep stay
	for n := 2; n <= engineCacheKeep+2; n++ {
		row := fmt.Sprintf("iata,name,city,state\nAAA,Alpha Field %d,Springfield,IL\n", n)
		if err := os.WriteFile(airports, []byte(row), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadDataCached(dir); err != nil {
			t.Fatal(err)
		}
	}
	if entries, _ = filepath.Glob(filepath.Join(cache, "simweb-data-*.gob")); len(entries) != engineCacheKeep {
		t.Errorf("after %d data changes: %d cache entries, want %d", engineCacheKeep+1, len(entries), engineCacheKeep)
	}
	// A damaged pool (the last topic's) is read from the directory again.
	damaged, err := loadDataCached(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(e)
		b[len(b)-3] ^= 0xff
		os.WriteFile(e, b, 0o644)
	}
	direct2, _ := loadData(dir)
	for _, n := range damaged.TopicNames {
		if got, want := damaged.Topics[n].RecordPool(), direct2.Topics[n].RecordPool(); !reflect.DeepEqual(got, want) {
			t.Errorf("topic %s with a damaged cache: %d records, want %d", n, len(got), len(want))
		}
	}
	// A damaged entry is read from the directory again (and rewritten).
	for _, e := range entries {
		os.WriteFile(e, []byte("not gob"), 0o644)
	}
	again, err := loadDataCached(dir)
	if err != nil || again == nil || len(again.TopicNames) != len(direct.TopicNames) {
		t.Errorf("damaged cache: %v", err)
	}
}

// TestDataCacheSharedData checks the cache on the shared data folder.
func TestDataCacheSharedData(t *testing.T) {
	if testing.Short() {
		t.Skip("long: reads the shared data folder twice")
	}
	dir := FindDataDir()
	if dir == "" {
		t.Skip("no shared data folder")
	}
	t.Setenv("DWCRAWL_CACHE_DIR", t.TempDir())
	direct, err := loadData(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadDataCached(dir); err != nil {
		t.Fatal(err)
	}
	cached, err := loadDataCached(dir)
	if err != nil {
		t.Fatal(err)
	}
	direct.key = cached.key
	if !reflect.DeepEqual(direct, materialized(cached)) {
		t.Error("shared data read through the cache differs")
	}
}

// materialized reads d's pools and drops their loaders, so that d compares
// equal to data read from the directory.
func materialized(d *Data) *Data {
	for _, t := range d.Topics {
		t.pool, t.lazy = t.RecordPool(), nil
	}
	return d
}

// TestPrepareAll: a web on cached data reads its record pools lazily;
// PrepareAll reads every one and builds the engine's index, so that a
// server that calls it before it announces itself does no more of that
// while it serves.
func TestPrepareAll(t *testing.T) {
	if testing.Short() {
		t.Skip("long: builds a web on the shared data folder")
	}
	dir := FindDataDir()
	if dir == "" {
		t.Skip("no shared data folder")
	}
	cfg := DefaultConfig()
	cfg.Data = dir
	if _, err := New(cfg); err != nil { // the first may write the cache
		t.Fatal(err)
	}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lazy := 0
	for _, tp := range w.topics {
		if tp.lazy != nil && tp.lazy.load != nil {
			lazy++
		}
	}
	if lazy == 0 {
		t.Fatal("no topic's record pool is read lazily: nothing to prepare")
	}
	w.PrepareAll()
	for _, tp := range w.topics {
		if tp.lazy != nil && tp.lazy.load != nil {
			t.Errorf("topic %s: record pool still unread after PrepareAll", tp.Name)
		}
	}
	if w.eng == nil {
		t.Error("engine index not built by PrepareAll")
	}
}
