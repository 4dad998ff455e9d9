package simweb

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestEngineEncoding(t *testing.T) {
	w := MustNew(SmallConfig())
	e := w.buildEngine()
	got, err := decodeEngine(encodeEngine(e), len(w.sites))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e.pages, got.pages) || !reflect.DeepEqual(e.siteOff, got.siteOff) ||
		!reflect.DeepEqual(postingsOf(e.terms), postingsOf(got.terms)) || !reflect.DeepEqual(postingsOf(e.inlinks), postingsOf(got.inlinks)) {
		t.Fatal("decoded index differs from the built one")
	}
	for _, sets := range [][2]postingSet{{e.terms, got.terms}, {e.inlinks, got.inlinks}} {
		sets[0].each(func(k string, ps []int32) {
			if g := sets[1].get(k); !reflect.DeepEqual(g, ps) {
				t.Fatalf("postings of %q: %v, built %v", k, g, ps)
			}
		})
	}
	if got.terms.get("no-such-term-zz") != nil || got.inlinks.get("") != nil {
		t.Error("postings of a key the index lacks")
	}
	if !w.engineSampleOK(got) {
		t.Fatal("the index of this web fails its sample check")
	}
	cfg := SmallConfig()
	cfg.Seed++
	if other := MustNew(cfg); other.engineSampleOK(got) {
		t.Error("another web's pages pass the sample check of this index")
	}
	b := encodeEngine(e)
	for _, bad := range [][]byte{b[:len(b)/2], append(append([]byte(nil), b[:100]...), b[101:]...), []byte("junk")} {
		if _, err := decodeEngine(bad, len(w.sites)); err == nil {
			t.Errorf("damaged index of %d bytes decoded", len(bad))
		}
	}
	if _, err := decodeEngine(b, len(w.sites)+1); err == nil {
		t.Error("index decoded for a web of another size")
	}
}

// TestEngineCache: an index that took long to build is cached, the next
// web of the same config reads it and answers the same, and another config
// builds its own.
func TestEngineCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("DWCRAWL_CACHE_DIR", cache)
	old := engineCacheMinBuild
	engineCacheMinBuild = 0
	defer func() { engineCacheMinBuild = old }()

	cfg := SmallConfig()
	w1 := MustNew(cfg)
	builds := engineBuilds.Load()
	q := []string{"link:" + w1.Seeds("auto", 1)[0], "used cars", "site:" + w1.sites[3].host}
	var want []SearchResult
	for _, s := range q {
		want = append(want, w1.EngineSearch(s, 1))
	}
	files, _ := filepath.Glob(filepath.Join(cache, "simweb-engine-*.idx"))
	if engineBuilds.Load() != builds+1 || len(files) != 1 {
		t.Fatalf("%d builds, cache files %v", engineBuilds.Load()-builds, files)
	}
	w2 := MustNew(cfg)
	for i, s := range q {
		if got := w2.EngineSearch(s, 1); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%q from the cache: %+v, built: %+v", s, got, want[i])
		}
	}
	if engineBuilds.Load() != builds+1 {
		t.Error("the second web built its index instead of reading the cache")
	}
	// a damaged file is rebuilt
	os.WriteFile(files[0], []byte("damaged"), 0o644)
	w3 := MustNew(cfg)
	w3.Prepare()
	if engineBuilds.Load() != builds+2 {
		t.Error("a damaged cache file was used")
	}
	cfg.Seed++
	MustNew(cfg).Prepare()
	if files, _ = filepath.Glob(filepath.Join(cache, "simweb-engine-*.idx")); len(files) != 2 {
		t.Errorf("cache files %v, want one per config", files)
	}
}

// BenchmarkEngine compares building the default web's index with reading
// it from the cache.
func BenchmarkEngine(b *testing.B) {
	b.Setenv("DWCRAWL_CACHE_DIR", b.TempDir())
	cfg := DefaultConfig()
	cfg.Data = FindDataDir()
	w := MustNew(cfg)
	b.Run("build", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w.buildEngine()
		}
	})
	w.Prepare() // writes the cache
	file := w.engineCacheFile()
	b.Run("load", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			data, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			e, err := decodeEngine(data, len(w.sites))
			if err != nil || !w.engineSampleOK(e) {
				b.Fatal(err)
			}
		}
		fi, _ := os.Stat(file)
		b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
	})
}

// postingsOf spells a posting set out as a map.
func postingsOf(s postingSet) map[string][]int32 {
	m := map[string][]int32{}
	s.each(func(k string, ps []int32) { m[k] = ps })
	return m
}
