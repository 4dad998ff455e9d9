package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenize splits s into lower-cased tokens made of Unicode letters and
// digits. Anything else separates tokens; inside a run of letters and digits,
// a lower→upper case change ("camelCase"), the end of an acronym before a
// capitalised word ("HTTPServer" → http, server) and a letter↔digit change
// ("mp3", "page2") also split, which is what URL paths and form field names
// need.
func Tokenize(s string) []string {
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

// acronymEnd reports whether r starts a capitalised word that follows an
// acronym: the "S" of "HTTPServer" (upper, upper, then lower-case next).
func acronymEnd(prev, r rune, next string) bool {
	if !unicode.IsUpper(prev) || !unicode.IsUpper(r) || next == "" {
		return false
	}
	n, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLower(n)
}

func boundary(prev, r rune) bool {
	switch {
	case unicode.IsLower(prev) && unicode.IsUpper(r):
		return true
	case unicode.IsLetter(prev) && unicode.IsDigit(r):
		return true
	case unicode.IsDigit(prev) && unicode.IsLetter(r):
		return true
	}
	return false
}

// Terms tokenizes s, drops stop words and one-character tokens, and stems
// what is left: the form every feature space and classifier uses.
func Terms(s string) []string {
	toks := Tokenize(s)
	out := toks[:0]
	for _, t := range toks {
		if utf8.RuneCountInString(t) < 2 || IsStop(t) {
			continue
		}
		out = append(out, Stem(t))
	}
	return out
}
