package hiddendb

import (
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
)

func BenchmarkWordNet(b *testing.B) {
	recs, err := LoadJSONL(sharedtest.Path(b, "corpora", "wordnet-glosses.jsonl"), "id")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			New(recs, Options{K: 1000, IndexFields: []string{"lemmas", "gloss"}})
		}
	})
	db := New(recs, Options{K: 1000, IndexFields: []string{"lemmas", "gloss"}})
	qs := []string{"water", "person", "music", "plant genus", "small", "used car"}
	b.Run("search", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			db.Search(qs[i%len(qs)], 1)
		}
	})
}
