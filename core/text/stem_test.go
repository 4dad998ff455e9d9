package text

import (
	"strconv"
	"sync"
	"testing"
)

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"running", "run"},
		{"cars", "car"},
		{"searches", "search"},
		{"mp3", "mp3"},
		{"2010s", "2010s"},
		{"the", "the"},
	}
	for _, tt := range tests {
		for i := 0; i < 2; i++ { // the second call is served by the cache
			if got := Stem(tt.in); got != tt.want {
				t.Errorf("Stem(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
}

// TestStemCacheBounded stems many distinct words from several goroutines:
// the answers stay right and the cache never exceeds its bound.
func TestStemCacheBounded(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100_000; i++ {
				w := "walking" + letters(i*4+g)
				if got := Stem(w); got == "" {
					t.Errorf("Stem(%q) empty", w)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if got := Stem("walking"); got != "walk" {
		t.Errorf("Stem(walking) = %q after churn", got)
	}
	// The snapshot holds at most stemCacheMax words and the pending map
	// less than a quarter of that.
	if n, bound := stemCache.size(), stemCacheMax+stemCacheMax/4; n > bound {
		t.Fatalf("the cache holds %d words, bound %d", n, bound)
	}
}

// letters spells i with letters only (digits bypass the cache).
func letters(i int) string {
	s := strconv.FormatInt(int64(i), 26)
	b := []byte(s)
	for j, c := range b {
		if c >= '0' && c <= '9' {
			b[j] = 'a' + (c - '0')
		} else {
			b[j] = 'k' + (c - 'a')
		}
	}
	return string(b)
}

func BenchmarkStemCached(b *testing.B) {
	words := []string{"searching", "cars", "used", "dealers", "inventory", "listings", "vehicles", "prices"}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			Stem(words[i%len(words)])
			i++
		}
	})
}

// TestStopWordsHaveNoDigit: Terms keeps a token with a digit without
// looking it up, which is right only while no stop word has one.
func TestStopWordsHaveNoDigit(t *testing.T) {
	for _, w := range StopWords() {
		if hasDigit(w) {
			t.Errorf("stop word %q has a digit: Terms would keep it", w)
		}
	}
}
