package text

import (
	"sync"

	"github.com/kljensen/snowball/english"
)

// stemCache memoises stems: crawls see the same few thousand words millions
// of times and the Snowball stemmer allocates.
var stemCache sync.Map

// Stem returns the English Snowball stem of a lower-case word. Words that
// contain digits are returned as they are.
func Stem(w string) string {
	if v, ok := stemCache.Load(w); ok {
		return v.(string)
	}
	s := w
	if !hasDigit(w) {
		s = english.Stem(w, false)
	}
	stemCache.Store(w, s)
	return s
}

func hasDigit(w string) bool {
	for _, r := range w {
		if r >= '0' && r <= '9' {
			return true
		}
	}
	return false
}
