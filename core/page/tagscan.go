package page

import (
	"bytes"

	"golang.org/x/net/html"
)

// tagScanner finds the tags of a UTF-8 document exactly where
// golang.org/x/net/html's Tokenizer finds them (the same states: raw text
// and RCDATA elements, the script escaping rules, comments, doctypes, bogus
// comments, CDATA when allowed, quoted attribute values, self-closing
// tags), for markForms, which needs only each tag's kind and offset. The
// Tokenizer also copies the input into its own buffer and allocates for
// every attribute key of every tag; on a typical page that pass cost as
// much as a third of the tree builder's.
type tagScanner struct {
	src        []byte
	pos        int
	rawTag     string // the element whose raw text comes next, or ""
	allowCDATA bool
	keys       [][2]int // attribute key spans of the current tag
}

// next scans the next token. It returns html.ErrorToken at the end of the
// input, including a tag that the input ends inside of (as the Tokenizer
// does), and for tags where the token starts and whether it is self-closing.
func (z *tagScanner) next() (tt html.TokenType, start int, selfClosing bool) {
	src, n := z.src, len(z.src)
	start = z.pos
	if start >= n {
		return html.ErrorToken, start, false
	}
	if z.rawTag != "" {
		if z.rawTag == "plaintext" {
			z.pos = n
		} else if z.rawTag == "script" {
			z.pos = z.scriptEnd(start)
		} else {
			z.pos = rawTextEnd(src, start, z.rawTag)
		}
		z.rawTag = ""
		if z.pos > start {
			return html.TextToken, start, false
		}
	}
	for p := start; ; {
		i := bytes.IndexByte(src[p:], '<')
		if i < 0 || p+i+1 >= n {
			z.pos = n
			return html.TextToken, start, false
		}
		lt := p + i
		c := src[lt+1]
		if !(isASCIILetter(c) || c == '/' || c == '!' || c == '?') {
			p = lt + 1
			continue
		}
		if lt > start {
			z.pos = lt
			return html.TextToken, start, false
		}
		break
	}
	lt := start
	switch c := src[lt+1]; {
	case isASCIILetter(c):
		end, nameEnd, sc, ok := z.readTag(lt+2, true)
		if !ok {
			z.pos = n
			return html.ErrorToken, start, false
		}
		z.pos = end
		z.rawTag = rawTextTag(src[lt+1 : nameEnd])
		if sc {
			return html.SelfClosingTagToken, start, true
		}
		return html.StartTagToken, start, false
	case c == '/':
		if lt+2 >= n {
			z.pos = n
			return html.TextToken, start, false
		}
		switch c := src[lt+2]; {
		case c == '>':
			z.pos = lt + 3
			return html.CommentToken, start, false
		case isASCIILetter(c):
			end, _, _, ok := z.readTag(lt+3, false)
			if !ok {
				z.pos = n
				return html.ErrorToken, start, false
			}
			z.pos = end
			return html.EndTagToken, start, false
		}
		z.pos = closeAngle(src, lt+2)
		return html.CommentToken, start, false
	case c == '!':
		z.pos = z.markupDeclEnd(lt + 2)
		return html.CommentToken, start, false
	}
	// "<?": a bogus comment
	z.pos = closeAngle(src, lt+1)
	return html.CommentToken, start, false
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isTagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// closeAngle returns the offset after the first '>' at or after p, or
// len(src).
func closeAngle(src []byte, p int) int {
	if i := bytes.IndexByte(src[p:], '>'); i >= 0 {
		return p + i + 1
	}
	return len(src)
}

func skipTagSpace(src []byte, p int) int {
	for p < len(src) && isTagSpace(src[p]) {
		p++
	}
	return p
}

// rawTextTag returns the element name whose content the Tokenizer reads as
// raw text or RCDATA after this start tag name, or "".
func rawTextTag(name []byte) string {
	if len(name) < 3 || len(name) > 9 {
		return ""
	}
	var buf [9]byte
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(name)]) {
	case "iframe":
		return "iframe"
	case "noembed":
		return "noembed"
	case "noframes":
		return "noframes"
	case "noscript":
		return "noscript"
	case "plaintext":
		return "plaintext"
	case "script":
		return "script"
	case "style":
		return "style"
	case "textarea":
		return "textarea"
	case "title":
		return "title"
	case "xmp":
		return "xmp"
	}
	return ""
}

// readTag reads a tag whose name's first letter is at p-1, through its
// attributes to its '>'. It returns the offset after the '>', the end of
// the name, and whether the tag is self-closing; ok is false when the input
// ends first.
func (z *tagScanner) readTag(p int, startTag bool) (end, nameEnd int, selfClosing, ok bool) {
	src, n := z.src, len(z.src)
	// The name ends at white space (consumed) or at '/' or '>'.
	for ; p < n; p++ {
		if c := src[p]; isTagSpace(c) || c == '/' || c == '>' {
			break
		}
	}
	nameEnd = p
	if p < n && isTagSpace(src[p]) {
		p++
	}
	z.keys = z.keys[:0]
	lastKey, lastValEnd := [2]int{-1, -1}, -1
	for {
		if p = skipTagSpace(src, p); p >= n {
			return 0, 0, false, false
		}
		if src[p] == '>' {
			break
		}
		// The key; '=' is part of it only as its first character.
		ks := p
		for ; p < n; p++ {
			c := src[p]
			if c == '=' && p == ks {
				continue
			}
			if c == '=' || isTagSpace(c) || c == '/' || c == '>' {
				break
			}
		}
		if p >= n {
			return 0, 0, false, false
		}
		ke := p
		// The value.
		ve := ke
		if p = skipTagSpace(src, p); p >= n {
			return 0, 0, false, false
		}
		switch c := src[p]; c {
		case '/':
			p++
		case '=':
			if p = skipTagSpace(src, p+1); p >= n {
				return 0, 0, false, false
			}
			switch q := src[p]; q {
			case '>':
			case '\'', '"':
				i := bytes.IndexByte(src[p+1:], q)
				if i < 0 {
					return 0, 0, false, false
				}
				ve = p + 1 + i
				p = ve + 1
			default:
				for p++; p < n && !isTagSpace(src[p]) && src[p] != '>'; p++ {
				}
				if p >= n {
					return 0, 0, false, false
				}
				ve = p
				if src[p] != '>' {
					p++
				}
			}
		}
		lastKey, lastValEnd = [2]int{ks, ke}, ve
		if startTag && ke > ks {
			z.keys = append(z.keys, lastKey)
		}
	}
	end = p + 1
	// As the Tokenizer: "/>" makes the tag self-closing unless the '/' ends
	// the value of the last attribute it keeps (the first of each name).
	if startTag && src[p-1] == '/' {
		selfClosing = true
		if lastValEnd-1 == p-1 && lastKey[1] > lastKey[0] && z.firstKey(len(z.keys)-1) {
			selfClosing = false
		}
	}
	return end, nameEnd, selfClosing, true
}

// firstKey reports whether attribute key i of the current tag differs
// (ASCII case-insensitively) from the keys before it.
func (z *tagScanner) firstKey(i int) bool {
	k := z.src[z.keys[i][0]:z.keys[i][1]]
	for _, o := range z.keys[:i] {
		if asciiEqualFold(z.src[o[0]:o[1]], k) {
			return false
		}
	}
	return true
}

func asciiEqualFold(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// markupDeclEnd returns the end of a token that starts with "<!" (p is just
// after it): a comment, a CDATA section when allowed, or a doctype or bogus
// comment, which both end at the next '>'.
func (z *tagScanner) markupDeclEnd(p int) int {
	src, n := z.src, len(z.src)
	if p+2 > n {
		return n
	}
	if src[p] == '-' && src[p+1] == '-' {
		return commentEnd(src, p+2)
	}
	if z.allowCDATA && bytes.HasPrefix(src[p:], []byte("[CDATA[")) {
		brackets := 0
		for q := p + len("[CDATA["); q < n; q++ {
			switch src[q] {
			case ']':
				brackets++
			case '>':
				if brackets >= 2 {
					return q + 1
				}
				brackets = 0
			default:
				brackets = 0
			}
		}
		return n
	}
	return closeAngle(src, p)
}

// commentEnd returns the end of a comment whose "<!--" ends at p.
func commentEnd(src []byte, p int) int {
	n := len(src)
	dashes, beginning := 0, true
	for p < n {
		c := src[p]
		p++
		switch c {
		case '-':
			dashes++
			continue
		case '>':
			if dashes >= 2 || beginning {
				return p
			}
		case '!':
			if dashes >= 2 {
				if p >= n {
					return n
				}
				c = src[p]
				p++
				if c == '>' {
					return p
				}
				if c == '-' {
					dashes, beginning = 1, false
					continue
				}
			}
		}
		dashes, beginning = 0, false
	}
	return n
}

// rawEndTag matches "tag" followed by white space, '/' or '>' at p (just
// after a "</"), any case. It returns whether it matched, else where to
// go on (the first byte that did not match) and whether the input ended.
func rawEndTag(src []byte, p int, tag string) (matched bool, next int, eof bool) {
	for i := 0; i < len(tag); i++ {
		if p+i >= len(src) {
			return false, 0, true
		}
		if c := src[p+i]; c != tag[i] && c != tag[i]-('a'-'A') {
			return false, p + i, false
		}
	}
	q := p + len(tag)
	if q >= len(src) {
		return false, 0, true
	}
	switch src[q] {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return true, p - 2, false
	}
	return false, q, false
}

// rawTextEnd returns where the raw text or RCDATA of element tag that
// starts at p ends: at its end tag, or at the end of the input.
func rawTextEnd(src []byte, p int, tag string) int {
	for {
		i := bytes.IndexByte(src[p:], '<')
		if i < 0 {
			return len(src)
		}
		p += i + 1
		if p >= len(src) {
			return len(src)
		}
		if src[p] != '/' {
			continue
		}
		m, next, eof := rawEndTag(src, p+1, tag)
		switch {
		case m:
			return next
		case eof:
			return len(src)
		}
		p = next
	}
}

// The script states of the Tokenizer that scriptEnd walks. Escaped and
// double-escaped text share their dash states: each family is text, dash,
// dash-dash and less-than sign, in that order.
const (
	scriptData = iota
	scriptEscaped
	scriptEscapedDash
	scriptEscapedDashDash
	scriptEscapedLT
	scriptDouble
	scriptDoubleDash
	scriptDoubleDashDash
	scriptDoubleLT
)

// scriptEnd returns where the text of a script element that starts at p
// ends, following the Tokenizer's script states (escaped "<!--" sections,
// and "<script" inside them). Every state reads one byte; the input's end
// ends the element wherever it comes.
func (z *tagScanner) scriptEnd(p int) int {
	src, n := z.src, len(z.src)
	st := scriptData
	for {
		if st == scriptData {
			i := bytes.IndexByte(src[p:], '<')
			if i < 0 {
				return n
			}
			p += i + 1
		}
		if p >= n {
			return n
		}
		c := src[p]
		p++
		switch st {
		case scriptData: // after a '<'
			switch c {
			case '/':
				m, next, eof := rawEndTag(src, p, "script")
				if m {
					return next
				} else if eof {
					return n
				}
				p = next
			case '!': // "<!--" starts escaped text
				if p+1 < n && src[p] == '-' && src[p+1] == '-' {
					p += 2
					st = scriptEscapedDashDash
				}
			default:
				p--
			}
		case scriptEscapedLT:
			switch {
			case c == '/':
				m, next, eof := rawEndTag(src, p, "script")
				if m {
					return next
				} else if eof {
					return n
				}
				p, st = next, scriptEscaped
			case isASCIILetter(c): // "<script" followed by a separator
				p--
				st = scriptEscaped
				k := 0
				for k < len("script") && p+k < n && (src[p+k] == "script"[k] || src[p+k] == "SCRIPT"[k]) {
					k++
				}
				p += k
				if p >= n {
					return n
				}
				if k < len("script") {
					break // the first letter that differs is read as escaped text
				}
				switch src[p] {
				case ' ', '\n', '\r', '\t', '\f', '/', '>':
					p++
					st = scriptDouble
				}
			default:
				p--
				st = scriptData
			}
		case scriptDoubleLT:
			if c != '/' {
				p--
				st = scriptDouble
				break
			}
			m, next, eof := rawEndTag(src, p, "script")
			switch {
			case m:
				p, st = next+len("</script>"), scriptEscaped
			case eof:
				return n
			default:
				p, st = next, scriptDouble
			}
		default: // text, dash and dash-dash of either family
			fam := scriptEscaped
			if st >= scriptDouble {
				fam = scriptDouble
			}
			switch c {
			case '-':
				if st != fam+2 {
					st++
				}
			case '<':
				st = fam + 3
			case '>':
				if st == fam+2 {
					st = scriptData
				} else {
					st = fam
				}
			default:
				st = fam
			}
		}
	}
}
