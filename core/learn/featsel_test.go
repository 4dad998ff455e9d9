package learn

import (
	"reflect"
	"testing"
)

func TestSelectDF(t *testing.T) {
	docs := [][]string{{"b", "a", "a"}, {"a", "c"}, {"c", "b"}, {"d"}}
	tests := []struct {
		k    int
		want []string
	}{
		{2, []string{"a", "b"}}, // a, b, c all df 2: ties by term
		{0, []string{"a", "b", "c", "d"}},
		{10, []string{"a", "b", "c", "d"}},
	}
	for _, tt := range tests {
		if got := SelectDF(docs, tt.k); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("k=%d: %v, want %v", tt.k, got, tt.want)
		}
	}
}

func TestSplitCompound(t *testing.T) {
	vocab := map[string]bool{"book": true, "car": true, "used": true, "cars": true, "rent": true}
	tests := []struct {
		tok  string
		want []string
	}{
		{"abebooks", []string{"abe", "book"}},
		{"usedcars", []string{"used", "cars"}},
		{"book", []string{"book"}},
		{"carrental", []string{"car", "rent", "al"}},
		{"zzzzzz", []string{"zzzzzz"}},
		{"car", []string{"car"}},
	}
	for _, tt := range tests {
		if got := SplitCompound(tt.tok, vocab); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.tok, got, tt.want)
		}
	}
}

func TestSelectSpaces(t *testing.T) {
	spaces := map[string][][]string{
		"url":    {{"abebooks", "book"}, {"book", "shop"}, {"bookfinder"}},
		"anchor": {{"find", "book"}, {"find"}},
	}
	got := SelectSpaces(spaces, 2, "url")
	// url: first pass top-2 {book(2), abebooks/bookfinder/shop(1) → abebooks};
	// split: abebooks→abe,book; bookfinder→book,finder → book df 3.
	if got["url"][0] != "book" {
		t.Errorf("url space %v", got["url"])
	}
	if want := []string{"find", "book"}; !reflect.DeepEqual(got["anchor"], want) {
		t.Errorf("anchor space %v, want %v", got["anchor"], want)
	}
}
