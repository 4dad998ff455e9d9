package page

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// textBuf accumulates the visible text of a document with white space
// collapsed to single spaces. Offsets into it (len) delimit the text of
// links, forms, labels and controls. Its buffer is reused from page to page
// (see walker.recycle): the page's text is copied out once, at its size.
type textBuf struct {
	b     []byte
	space bool // a separator is due before the next non-space character
}

// brk marks a word boundary (an element edge that separates text).
func (t *textBuf) brk() {
	if len(t.b) > 0 {
		t.space = true
	}
}

func (t *textBuf) len() int { return len(t.b) }

func (t *textBuf) add(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c <= ' ' {
			i++
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				t.brk()
			}
			continue // other control characters are dropped
		}
		j := i + 1
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				t.brk()
				i += size
				continue
			}
			j = i + size
		}
		// s[i:j] is a character that is not white space: copy it with the
		// text after it that needs no collapsing at once.
		j = plainEnd(s, j)
		if t.space {
			t.b = append(t.b, ' ')
			t.space = false
		}
		t.b = append(t.b, s[i:j]...)
		i = j
	}
}

// plainEnd returns the end of the text from s[j:] (which follows a
// character that is not white space) that textBuf.add would copy as it is:
// characters other than white space and control characters, and single
// spaces followed by printable ASCII.
func plainEnd(s string, j int) int {
	for j < len(s) {
		c := s[j]
		switch {
		case c > ' ' && c < utf8.RuneSelf:
			j++
		case c == ' ':
			if j+1 < len(s) && s[j+1] > ' ' && s[j+1] < utf8.RuneSelf {
				j += 2
				continue
			}
			return j
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				return j
			}
			j += size
		default:
			return j
		}
	}
	return j
}

// collapse trims s and collapses its white space runs to single spaces.
func collapse(s string) string {
	if collapsed(s) {
		return s
	}
	var arr [128]byte
	t := textBuf{b: arr[:0]}
	t.add(s)
	return string(t.b)
}

// collapsed reports whether collapse(s) is s: no white space but single
// spaces between other characters, and no control characters (which
// textBuf drops).
func collapsed(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == ' ' && s[i+1] == ' ' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

// between returns text[start:end] (page text) trimmed, clamped to text.
func between(text string, start, end int) string {
	if start < 0 {
		start = 0
	}
	if end > len(text) {
		end = len(text)
	}
	if start >= end {
		return ""
	}
	return trimSep(text[start:end])
}

// trimSep trims the spaces at the ends of s, a piece of page text (a
// textBuf's), whose only white space is the single spaces that separate
// words: strings.TrimSpace would return the same, at more cost.
func trimSep(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] == ' ' {
		i++
	}
	for j > i && s[j-1] == ' ' {
		j--
	}
	return s[i:j]
}

// maxWordBytes bounds how far lastWords and firstWords look per word, so
// that a page of one huge "word" and many links stays linear; a word cut by
// the bound is returned in part.
const maxWordBytes = 64

// lastWords returns the last n words of text[:end] (page text).
func lastWords(text string, end, n int) string {
	end = min(end, len(text))
	for end > 0 && text[end-1] == ' ' {
		end--
	}
	lo := max(0, end-n*maxWordBytes)
	k := end
	words := 0
	for k > lo && words < n {
		if i := strings.LastIndexByte(text[lo:k], ' '); i >= 0 {
			k = lo + i + 1
		} else {
			k = lo
		}
		words++
		if words < n {
			for k > lo && text[k-1] == ' ' {
				k--
			}
		}
	}
	for k < end && !utf8.RuneStart(text[k]) {
		k++
	}
	return trimSep(text[k:end])
}

// firstWords returns the first n words of text[start:] (page text).
func firstWords(text string, start, n int) string {
	start = max(start, 0)
	for start < len(text) && text[start] == ' ' {
		start++
	}
	hi := min(len(text), start+n*maxWordBytes)
	k := start
	words := 0
	for k < hi && words < n {
		if i := strings.IndexByte(text[k:hi], ' '); i >= 0 {
			k += i
		} else {
			k = hi
		}
		words++
		if words < n {
			for k < hi && text[k] == ' ' {
				k++
			}
		}
	}
	for k > start && k < len(text) && !utf8.RuneStart(text[k]) {
		k--
	}
	return trimSep(text[start:k])
}
