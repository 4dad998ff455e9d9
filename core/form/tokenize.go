package form

import "github.com/dwcrawl/dwcrawl/core/text"

// tokenize is [text.Tokenize] with a fast path for ASCII strings (field
// names, ids, classes, URLs and most form text): the string is lower-cased
// once and tokens are slices of it, instead of being built rune by rune.
// It returns exactly what text.Tokenize returns.
func tokenize(s string) []string {
	lower := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return text.Tokenize(s)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	ls := string(lower)
	var out []string
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) {
			if start >= 0 {
				out = append(out, ls[start:i])
				start = -1
			}
			continue
		}
		if start >= 0 && (asciiBoundary(s[i-1], c) || acronymEnd(s, i)) {
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
	return out
}

func isAlnum(c byte) bool { return isLetter(c) || isDigit(c) }
func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// acronymEnd mirrors text.Tokenize's acronym rule: an upper-case letter
// between an upper-case letter and a lower-case one starts a new token
// ("HTTPServer" → "http", "server").
func acronymEnd(s string, i int) bool {
	return i+1 < len(s) && isUpper(s[i-1]) && isUpper(s[i]) && 'a' <= s[i+1] && s[i+1] <= 'z'
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// asciiBoundary mirrors text.Tokenize's split inside a run: lower→upper,
// letter↔digit.
func asciiBoundary(prev, c byte) bool {
	switch {
	case 'a' <= prev && prev <= 'z' && 'A' <= c && c <= 'Z':
		return true
	case isLetter(prev) && isDigit(c):
		return true
	case isDigit(prev) && isLetter(c):
		return true
	}
	return false
}
