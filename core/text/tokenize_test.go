package text

import (
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
)

// The ASCII fast path returns exactly what the rune-by-rune tokenizer
// returns.
func TestTokenizeASCIIMatchesRunes(t *testing.T) {
	const seed = 19
	rng := rand.New(rand.NewPCG(seed, seed))
	alphabet := "aZbYzA09 _-./HTTPServer mp3Page2 \t\n"
	cases := []string{"", " ", "a", "A", "AB", "ABc", "aB", "a1", "1a", "HTTPServer", "getURL", "x-Y_z", "...abc..."}
	for range 5000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := tokenizeASCII(s), tokenizeRunes(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: Tokenize(%q) = %q, rune by rune %q", seed, s, got, want)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Used Cars for Sale", "XMLHttpRequest getURL HTTPServer", "mp3Player", "a-B_c9D"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return
			}
		}
		if got, want := tokenizeASCII(s), tokenizeRunes(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokenize(%q) = %q, rune by rune %q", s, got, want)
		}
	})
}

func BenchmarkTerms(b *testing.B) {
	b.ReportAllocs()
	s := "Used Cars for Sale in Atlanta: find a used car, truck or SUV from dealers near you. " +
		"Search 120,000 listings by make, model, price and mileage; compare financing offers and read reviews."
	for b.Loop() {
		Terms(s)
	}
}

// BenchmarkTermsPage runs Terms over the visible text of a simweb page.
func BenchmarkTermsPage(b *testing.B) {
	raw, err := os.ReadFile("testdata/page.txt")
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Terms(s)
	}
}
