package text

import (
	"reflect"
	"testing"
)

func TestURLTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"http://www.abebooks.co.uk/servlet/SearchResults?kn=x#y", []string{"abebook", "servlet", "search", "result"}},
		{"https://jobs.example.com/careers/index.html", []string{"job", "exampl", "career"}},
		{"https://www2.carRental.com.au:8080/usedCars2024/", []string{"carrent", "use", "car", "2024"}},
		{"example.org/a/b", []string{"exampl"}},
		{"http://localhost/books", []string{"localhost", "book"}},
		{"http://192.168.0.1/movies/", []string{"movi"}},
		{"HTTP://WWW.Music-Store.DE/cds/The_Beatles", []string{"music", "store", "cds", "beatl"}},
		{"http://www.co.uk/", nil},
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := URLTerms(tc.in)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("URLTerms(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplitCompound(t *testing.T) {
	vocab := map[string]bool{"book": true, "car": true, "rental": true, "store": true, "use": true, "tv": true, "music": true}
	tests := []struct {
		tok  string
		want []string
	}{
		{"abebooks", []string{"abe", "book"}},
		{"carrental", []string{"car", "rental"}},
		{"bookstore", []string{"book", "store"}},
		{"usedcars", []string{"use", "car"}},           // leftovers "d" and "s" are too short
		{"ebooks", []string{"book"}},                   // leftover "e" dropped
		{"xyzbookabc", []string{"xyz", "book", "abc"}}, // leftovers on both sides
		{"book", []string{"book"}},                     // a term itself
		{"bookbook", []string{"book", "book"}},
		{"tvshow", []string{"tvshow"}},             // two-letter terms are not cut
		{"zzz", []string{"zzz"}},                   // nothing known inside
		{"ab", []string{"ab"}},                     // too short to split
		{"müsicstore", []string{"müsic", "store"}}, // multi-byte leftovers
		{"musicstöre", []string{"music", "störe"}},
	}
	for _, tc := range tests {
		t.Run(tc.tok, func(t *testing.T) {
			if got := SplitCompound(tc.tok, vocab); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SplitCompound(%q) = %q, want %q", tc.tok, got, tc.want)
			}
		})
	}
	if got := SplitCompound("abebooks", nil); !reflect.DeepEqual(got, []string{"abebooks"}) {
		t.Errorf("nil vocab: %q", got)
	}
}

func TestTermsAndTokenize(t *testing.T) {
	tests := []struct {
		in          string
		toks, terms []string
	}{
		{"Used Cars for Sale", []string{"used", "cars", "for", "sale"}, []string{"use", "car", "sale"}},
		{"searchResults page2", []string{"search", "results", "page", "2"}, []string{"search", "result", "page"}},
		{"Bücher & Zeitschriften", []string{"bücher", "zeitschriften"}, []string{"bücher", "zeitschriften"}},
		{"XMLHttpRequest getURL HTTPServer", []string{"xml", "http", "request", "get", "url", "http", "server"}, []string{"xml", "request", "get", "url", "server"}},
		{"ÜBERSicht mp3Player", []string{"über", "sicht", "mp", "3", "player"}, []string{"über", "sicht", "mp", "player"}},
	}
	for _, tc := range tests {
		if got := Tokenize(tc.in); !reflect.DeepEqual(got, tc.toks) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.toks)
		}
		if got := Terms(tc.in); !reflect.DeepEqual(got, tc.terms) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.terms)
		}
	}
}
