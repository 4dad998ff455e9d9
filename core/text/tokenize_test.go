package text

import (
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// tokenizeRunes is the plain rune-by-rune statement of Tokenize's rules
// (the implementation until the one-pass tokenizer), kept as the reference
// the fast one must match.
func tokenizeRunes(s string) []string {
	var out []string
	var b strings.Builder
	var prev rune
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			prev = 0
			continue
		}
		if prev != 0 && (boundary(prev, r) || acronymEnd(prev, r, s[i:])) {
			flush()
		}
		b.WriteRune(unicode.ToLower(r))
		prev = r
	}
	flush()
	return out
}

// termsRef is Terms as it was stated before the one-pass tokenizer.
func termsRef(s string) []string {
	toks := tokenizeRunes(s)
	out := toks[:0]
	for _, t := range toks {
		if utf8.RuneCountInString(t) < 2 || IsStop(t) {
			continue
		}
		out = append(out, Stem(t))
	}
	return out
}

// Tokenize and Terms return exactly what the rune-by-rune statement of the
// rules returns, on ASCII and non-ASCII text (case changes that change a
// letter's length in UTF-8, invalid bytes, U+FFFD) alike.
func TestTokenizeMatchesRunes(t *testing.T) {
	const seed = 19
	rng := rand.New(rand.NewPCG(seed, seed))
	alphabet := []string{"a", "Z", "b", "Y", "z", "A", "0", "9", " ", "_", "-", ".", "/", "HTTPServer", "mp3Page2",
		"\t", "\n", "é", "É", "ß", "ẞ", "İ", "Ⱥ", "K", "Σ", "σ", "ς", "日本", "٣", "›", "–", "\xff", "\ufffd", "the", "of"}
	cases := []string{"", " ", "a", "A", "AB", "ABc", "aB", "a1", "1a", "HTTPServer", "getURL", "x-Y_z", "...abc...",
		"ÉCOLEnormale", "AÉb", "Ab\xffC", "İstanbul"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := Tokenize(s), tokenizeRunes(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: Tokenize(%q) = %q, rune by rune %q", seed, s, got, want)
		}
		if got, want := Terms(s), termsRef(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: Terms(%q) = %q, rune by rune %q", seed, s, got, want)
		}
		if got, want := slices.Collect(AllTerms(s)), termsRef(s); !slices.Equal(got, want) {
			t.Fatalf("seed %d: AllTerms(%q) = %q, rune by rune %q", seed, s, got, want)
		}
	}
}

// AllTerms stops when its caller does.
func TestAllTermsStops(t *testing.T) {
	var got []string
	for term := range AllTerms("used cars, trucks and vans for sale") {
		got = append(got, term)
		if len(got) == 2 {
			break
		}
	}
	if want := Terms("used cars")[:2]; !slices.Equal(got, want) {
		t.Fatalf("first two terms %q, want %q", got, want)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Used Cars for Sale", "XMLHttpRequest getURL HTTPServer", "mp3Player", "a-B_c9D", "Café › ÉCOLE–x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Tokenize(s), tokenizeRunes(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokenize(%q) = %q, rune by rune %q", s, got, want)
		}
		if got, want := Terms(s), termsRef(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Terms(%q) = %q, rune by rune %q", s, got, want)
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
