package text

import (
	"iter"
	"sync"
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
	sp := spanPool.Get().(*tokBuf)
	lb, spans := lowerTokens(s, sp.lower[:0], sp.spans[:0])
	var out []string
	if len(spans) > 0 {
		ls := string(lb)
		out = make([]string, len(spans))
		for i, t := range spans {
			out[i] = ls[t.start:t.end]
		}
	}
	sp.put(lb, spans)
	return out
}

// tokSpan is a token's place in the lower-cased text.
type tokSpan struct{ start, end int }

// tokBuf is the scratch space of Tokenize and Terms: the lower-cased
// tokens back to back and their spans (a page's text has hundreds of
// tokens; both are dropped at the end of the call).
type tokBuf struct {
	lower []byte
	spans []tokSpan
}

var spanPool = sync.Pool{New: func() any { return new(tokBuf) }}

func (b *tokBuf) put(lower []byte, spans []tokSpan) {
	if cap(spans) <= 1<<16 && cap(lower) <= 1<<20 { // a huge page's are not worth keeping
		b.lower, b.spans = lower, spans
		spanPool.Put(b)
	}
}

// lowerTokens tokenizes s in one pass: it appends s's letters and digits
// lower-cased, tokens back to back, to b and returns the spans of the tokens
// in it (no allocation per token).
func lowerTokens(s string, b []byte, spans []tokSpan) ([]byte, []tokSpan) {
	start := -1 // start of the current token in b, or -1
	var prev rune
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if !letterOrDigit(r) {
			if start >= 0 {
				spans = append(spans, tokSpan{start, len(b)})
				start = -1
			}
			prev = 0
			continue
		}
		if prev != 0 && (splits(prev, r) || endsAcronym(prev, r, s[i:])) {
			spans = append(spans, tokSpan{start, len(b)})
			start = -1
		}
		if start < 0 {
			start = len(b)
		}
		if c := byte(r); r < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		} else {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		prev = r
	}
	if start >= 0 {
		spans = append(spans, tokSpan{start, len(b)})
	}
	return b, spans
}

// letterOrDigit is unicode.IsLetter(r) || unicode.IsDigit(r), without the
// table look-up for ASCII.
func letterOrDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiAlnum(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// splits is boundary, without the table look-ups for ASCII.
func splits(prev, r rune) bool {
	if prev < utf8.RuneSelf && r < utf8.RuneSelf {
		return asciiBoundary(byte(prev), byte(r))
	}
	return boundary(prev, r)
}

// endsAcronym is acronymEnd, without the table look-ups for ASCII.
func endsAcronym(prev, r rune, next string) bool {
	if prev < utf8.RuneSelf && r < utf8.RuneSelf {
		if !asciiUpper(byte(prev)) || !asciiUpper(byte(r)) || next == "" {
			return false
		}
		if c := next[0]; c < utf8.RuneSelf {
			return 'a' <= c && c <= 'z'
		}
	}
	return acronymEnd(prev, r, next)
}

func asciiAlnum(c byte) bool  { return asciiLetter(c) || '0' <= c && c <= '9' }
func asciiLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func asciiUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }

// asciiBoundary is boundary for ASCII: lower→upper, letter↔digit.
func asciiBoundary(prev, c byte) bool {
	pd, cd := '0' <= prev && prev <= '9', '0' <= c && c <= '9'
	return 'a' <= prev && prev <= 'z' && asciiUpper(c) || asciiLetter(prev) && cd || pd && asciiLetter(c)
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
	sp := spanPool.Get().(*tokBuf)
	lb, spans := lowerTokens(s, sp.lower[:0], sp.spans[:0])
	var out []string
	if len(spans) > 0 {
		out = make([]string, 0, len(spans))
	}
	for _, t := range spans {
		if term, ok := termOf(lb[t.start:t.end]); ok {
			out = append(out, term)
		}
	}
	sp.put(lb, spans)
	return out
}

// AllTerms yields the terms of s one by one, in the order Terms returns
// them, without building the slice: for a caller that keeps few of a
// page's terms (a classifier reading its own features).
func AllTerms(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		sp := spanPool.Get().(*tokBuf)
		lb, spans := lowerTokens(s, sp.lower[:0], sp.spans[:0])
		defer sp.put(lb, spans)
		for _, t := range spans {
			if term, ok := termOf(lb[t.start:t.end]); ok && !yield(term) {
				return
			}
		}
	}
}

// termOf returns the term of a lower-cased token, ok false when Terms drops
// it (one character, a stop word).
func termOf(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] >= utf8.RuneSelf && utf8.RuneCount(tok) < 2 {
		return "", false
	}
	if hasDigit(tok) { // no stop word has a digit; Stem keeps such words
		return string(tok), true
	}
	// One look-up answers both "stop word?" and "stem?".
	e := entryOf(stemCache, tok)
	return e.stem, !e.stop
}
