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
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return tokenizeRunes(s)
		}
	}
	return tokenizeASCII(s)
}

// tokenizeASCII is Tokenize for ASCII s: s is lower-cased once and the
// tokens are slices of the copy (one allocation for the text, none per
// token; a page's text is nearly always ASCII).
func tokenizeASCII(s string) []string {
	lower := make([]byte, len(s))
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
		if !asciiAlnum(s[i]) && i > 0 && asciiAlnum(s[i-1]) {
			n++
		}
	}
	ls := string(lower)
	out := make([]string, 0, n+1)
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !asciiAlnum(c) {
			if start >= 0 {
				out = append(out, ls[start:i])
				start = -1
			}
			continue
		}
		if start >= 0 && (asciiBoundary(s[i-1], c) || asciiAcronymEnd(s, i)) {
			out = append(out, ls[start:i])
			start = -1
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, ls[start:])
	}
	if len(out) == 0 {
		return nil // as tokenizeRunes
	}
	return out
}

func asciiAlnum(c byte) bool  { return asciiLetter(c) || '0' <= c && c <= '9' }
func asciiLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func asciiUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }

// asciiAcronymEnd is acronymEnd for ASCII: s[i] is an upper-case letter
// between an upper-case letter and a lower-case one.
func asciiAcronymEnd(s string, i int) bool {
	return i+1 < len(s) && asciiUpper(s[i-1]) && asciiUpper(s[i]) && 'a' <= s[i+1] && s[i+1] <= 'z'
}

// asciiBoundary is boundary for ASCII: lower→upper, letter↔digit.
func asciiBoundary(prev, c byte) bool {
	pd, cd := '0' <= prev && prev <= '9', '0' <= c && c <= '9'
	return 'a' <= prev && prev <= 'z' && asciiUpper(c) || asciiLetter(prev) && cd || pd && asciiLetter(c)
}

// tokenizeRunes is Tokenize for any UTF-8 text, rune by rune.
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
