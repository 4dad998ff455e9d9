// Reference implementations (the code the faster one replaced) and the
// tests that hold the faster code to them.

package page

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// formInsertionsRef is formInsertions as written with html.Tokenizer (until
// tagScanner): the reference tagScanner must match.
// ok is false when the token
// offsets do not add up to src, in which case src should be parsed
// unmarked (it still parses, only less faithfully).
func formInsertionsRef(src []byte) (ins []insertion, ok bool) {
	if !hasFormTag(src) {
		return nil, true
	}
	z := html.NewTokenizer(bytes.NewReader(src))
	var s formSim
	pos := 0
	for {
		z.AllowCDATA(s.foreign > 0)
		tt := z.Next()
		raw := z.Raw()
		start := pos
		pos += len(raw)
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name := tagName(raw[1:])
			ins = s.startTag(ins, src, start, name, tt == html.SelfClosingTagToken)
			if name == "noscript" || s.foreign > 0 {
				// Scripting is off (noscript holds markup) and foreign
				// content has no raw-text elements: as the tree builder.
				z.NextIsNotRawText()
			}
		case html.EndTagToken:
			ins = s.endTag(ins, start, tagName(raw[2:]))
		}
	}
	return ins, pos == len(src)
}

// scanTokens lists the tokens of src as (start, kind) with the Tokenizer
// (ref) or tagScanner, driven alike: CDATA allowed and raw text turned off
// after some tags, by their count. Kinds other than tags are not told apart
// (the Tokenizer names doctypes and CDATA sections, tagScanner does not).
func scanTokens(src []byte, ref bool) []string {
	var out []string
	kind := func(tt html.TokenType) string {
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken, html.ErrorToken:
			return tt.String()
		}
		return "other"
	}
	tags := 0
	if ref {
		z := html.NewTokenizer(bytes.NewReader(src))
		pos := 0
		for {
			z.AllowCDATA(tags%3 == 1)
			tt := z.Next()
			out = append(out, fmt.Sprint(pos, kind(tt)))
			pos += len(z.Raw())
			if tt == html.ErrorToken {
				return out
			}
			if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
				if tags++; tags%4 == 0 {
					z.NextIsNotRawText()
				}
			}
		}
	}
	z := tagScanner{src: src}
	for {
		z.allowCDATA = tags%3 == 1
		tt, start, _ := z.next()
		out = append(out, fmt.Sprint(start, kind(tt)))
		if tt == html.ErrorToken {
			return out
		}
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			if tags++; tags%4 == 0 {
				z.rawTag = ""
			}
		}
	}
}

// nastyDoc is randomDoc with the syntax tagScanner must read as the
// Tokenizer does: comments, scripts with escapes, CDATA, doctypes, bogus
// comments, quotes, "/>" and repeated attributes, raw text elements.
func nastyDoc(rng *rand.Rand) []byte {
	pieces := []string{
		"<!-- c -->", "<!-->", "<!--->", "<!-- a --!>", "<!-- --!-->", "<!-- -- -->", "<!", "<!-", "<!--",
		"<!DOCTYPE html>", "<!doctype", "<!DOCTY", "<![CDATA[ <form> ]]>", "<![CDATA[x]]]>", "<![CDA", "<?xml x?>",
		"</>", "</ x>", "</3>", "<3", "< a>", "<", "</", "<a", "<a ", "<a x", "<a x=", "<a x='", "<a x=\"v",
		"<script>", "</script>", "<script/>", "<SCRIPT>x</SCRIPT >", "<!--<script>", "-->", "--!>", "</scr", "<scrip",
		"<script>a<!--b<script>c</script>d-->e</script>", "<script><!--<SCRIPT/x--></script>", "<Script >",
		"<title>", "</title>", "<textarea>", "</TEXTAREA/>", "<style>", "</style\t>", "<xmp>", "</xmp>",
		"<iframe>", "</iframe>", "<noembed>", "</noembed>", "<noframes>", "</noframes>", "<plaintext>",
		"<noscript>", "</noscript>", "<br/>", "<a x=/>", "<a x=1 x=/>", "<a X=1 x=/>", "<a x=\"/\"/>", "<a x/>",
		"<a =x/>", "<a ==/>", "<a x = '>' >", "<a\tb\nc\fd\re>", "<svg/>", "<math/>", "<svg><![CDATA[<form>]]></svg>",
		"<form/>", "<input/>", "<select/>", "</form x='>'>", "<a x=y>", "'", "\"", "=", ">", "/", "-", "!",
	}
	var b bytes.Buffer
	b.Write(randomDoc(rng))
	for n := 3 + rng.IntN(40); n > 0; n-- {
		if rng.IntN(3) == 0 {
			b.WriteString([]string{"<form>", "<input name=a>", "</form>", "<select>", "<table>", "<svg>", "</svg>"}[rng.IntN(7)])
		}
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.Bytes()
}

func scannerCorpus(t *testing.T) [][]byte {
	rng := rand.New(rand.NewPCG(goldenSeed, 2))
	var docs [][]byte
	for _, d := range goldenDocs(t) {
		docs = append(docs, decode(d.body, d.contentType))
	}
	for range 3000 {
		docs = append(docs, nastyDoc(rng))
	}
	// Every document also cut short at a random point: the input may end
	// inside any token.
	for _, d := range docs[:len(docs):len(docs)] {
		if len(d) > 0 {
			docs = append(docs, d[:rng.IntN(len(d))])
		}
	}
	return docs
}

// tagScanner splits documents into tokens where the Tokenizer does, and
// formInsertions marks them as formInsertionsRef does.
func TestTagScannerMatchesTokenizer(t *testing.T) {
	docs := scannerCorpus(t)
	for _, pg := range loadFormasaurusIfPresent(t) {
		docs = append(docs, decode(pg.Body, ""))
	}
	t.Logf("seed %d, %d documents", goldenSeed, len(docs))
	for _, d := range docs {
		if got, want := scanTokens(d, false), scanTokens(d, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("tokens of %q:\n got %v\nwant %v", d, got, want)
		}
		gotIns, gotOK := formInsertions(d)
		wantIns, wantOK := formInsertionsRef(d)
		if !reflect.DeepEqual(gotIns, wantIns) || gotOK != wantOK {
			t.Fatalf("insertions of %q:\n got %v %v\nwant %v %v", d, gotIns, gotOK, wantIns, wantOK)
		}
	}
}

func FuzzTagScanner(f *testing.F) {
	rng := rand.New(rand.NewPCG(goldenSeed, 3))
	for range 20 {
		f.Add(nastyDoc(rng))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		src = truncateNUL(validUTF8(src))
		if got, want := scanTokens(src, false), scanTokens(src, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("tokens of %q:\n got %v\nwant %v", src, got, want)
		}
		gotIns, gotOK := formInsertions(src)
		wantIns, wantOK := formInsertionsRef(src)
		if !reflect.DeepEqual(gotIns, wantIns) || gotOK != wantOK {
			t.Fatalf("insertions of %q:\n got %v %v\nwant %v %v", src, gotIns, gotOK, wantIns, wantOK)
		}
	})
}

// tagNameRef names the tag at the start of b as html.Tokenizer does
// (lower case, NUL aside), keeping only names of HTML elements.
func tagNameRef(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(append(append([]byte("<"), b...), '>')))
	if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return ""
	}
	name, _ := z.TagName()
	if atom.Lookup(name) == 0 {
		return ""
	}
	return string(name)
}

// TestTagName holds tagName to the tokenizer on the names markForms acts
// on, in every case, and on seeded random strings.
func TestTagName(t *testing.T) {
	rng := rand.New(rand.NewPCG(goldenSeed, 4))
	t.Logf("seed %d", goldenSeed)
	cases := []string{"", "form", "FORM>", "Form/", "form x", "forms", "h1", "h7", "textarea\t", "basefont", "abcdefghijklm", "svg\f"}
	for _, n := range strings.Fields(`form input select textarea button keygen noscript svg math
		area base basefont bgsound col frame link param source track
		b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img
		li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var`) {
		cases = append(cases, n, strings.ToUpper(n)+" ", n+"x")
	}
	const alphabet = "aAbBfFoOrRmMiInNpPuUtTsSvVgG12 />"
	for range 20000 {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		if got, want := tagName([]byte(c)), tagNameRef([]byte(c)); got != want {
			t.Fatalf("tagName(%q) = %q, want %q", c, got, want)
		}
	}
}

// collapseRef is collapse as first written, byte by byte.
func collapseRef(s string) string {
	var b []byte
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c <= ' ' {
				if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
					space = len(b) > 0
				}
				continue
			}
			if space {
				b, space = append(b, ' '), false
			}
			b = append(b, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = len(b) > 0
		} else {
			if space {
				b, space = append(b, ' '), false
			}
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// collapse (runs of ASCII at once, strings already collapsed returned as
// they are) collapses as collapseRef.
func TestCollapse(t *testing.T) {
	rng := rand.New(rand.NewPCG(goldenSeed, 5))
	alphabet := []string{"a", "B", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\x01", "\x7f", "é", "\u00a0", "\u3000", "\u2028", "\xff", "\ufffd", "word"}
	cases := []string{"", " ", "a", " a", "a ", "a  b", "a b", "a\tb", "a\u00a0b"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if got, want := collapse(c), collapseRef(c); got != want {
			t.Fatalf("collapse(%q) = %q, want %q", c, got, want)
		}
	}
}

// textBufRef is textBuf.add as written before it copied runs of plain text
// at once: word by word.
type textBufRef struct {
	b     []byte
	space bool
}

func (t *textBufRef) add(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' {
				i++
				if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
					if len(t.b) > 0 {
						t.space = true
					}
				}
				continue
			}
			j := i + 1
			for j < len(s) && s[j] > ' ' && s[j] < utf8.RuneSelf {
				j++
			}
			if t.space {
				t.b = append(t.b, ' ')
				t.space = false
			}
			t.b = append(t.b, s[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if len(t.b) > 0 {
				t.space = true
			}
		} else {
			if t.space {
				t.b = append(t.b, ' ')
				t.space = false
			}
			t.b = append(t.b, s[i:i+size]...)
		}
		i += size
	}
}

// TestTextBufMatchesRef feeds random text (white space of every kind,
// control characters, multi-byte and invalid bytes), a few strings in a
// row, to textBuf and textBufRef.
func TestTextBufMatchesRef(t *testing.T) {
	pieces := []string{"a", "bc", "word", "abcdefgh", "two words", "some more words here", "~!", " ", " ", " ", "  ", "\t", "\n", "\r\n", "\f", "\v", "\x01", "\x7f", "\x00",
		"\u00a0", "\u0085", "\u2003", "\u3000", "\u2028", "é", "–", "日本", "\xff", "\xe2\x80", ".", "-"}
	rng := rand.New(rand.NewPCG(goldenSeed, 4))
	t.Logf("seed %d", goldenSeed)
	for range 20000 {
		var got textBuf
		var want textBufRef
		for n := rng.IntN(4); n >= 0; n-- {
			var b strings.Builder
			for k := rng.IntN(40); k > 0; k-- {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			got.add(b.String())
			want.add(b.String())
			if string(got.b) != string(want.b) || got.space != want.space {
				t.Fatalf("after %q: got %q (space %v), want %q (space %v)", b.String(), got.b, got.space, want.b, want.space)
			}
		}
	}
}

// spliceRef is the reader markForms returned before splicer: the pieces of
// src and the insertions, one reader each.
func spliceRef(src []byte, ins []insertion) io.Reader {
	rs := make([]io.Reader, 0, 2*len(ins)+1)
	prev := 0
	for _, in := range ins {
		rs = append(rs, bytes.NewReader(src[prev:in.at]), strings.NewReader(in.text))
		prev = in.at
	}
	return io.MultiReader(append(rs, bytes.NewReader(src[prev:]))...)
}

// TestSplicerMatchesRef reads the marked documents of the scanner corpus
// through a reused splicer, in reads of random sizes, and compares them with
// spliceRef's.
func TestSplicerMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(goldenSeed, 5))
	t.Logf("seed %d", goldenSeed)
	var sp splicer
	marked := 0
	for _, d := range scannerCorpus(t) {
		ins, ok := formInsertions(d)
		if !ok {
			ins = nil
		}
		want, _ := io.ReadAll(spliceRef(d, ins))
		sp.mark(d)
		var got []byte
		for {
			p := make([]byte, 1+rng.IntN(64))
			n, err := sp.Read(p)
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil || n == 0 {
				t.Fatalf("Read = %d, %v", n, err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("marked %q:\n got %q\nwant %q", d, got, want)
		}
		if len(ins) > 0 {
			marked++
		}
		sp.release()
	}
	if marked == 0 {
		t.Fatal("no document with insertions")
	}
}

// TestMarksCached checks the marks made once against marks made on demand,
// and an owner mark of nested forms (not cached).
func TestMarksCached(t *testing.T) {
	for ord := range len(formMarks) + 2 {
		want := fmt.Sprintf(` %s="%d"`, attrFormMark, ord)
		if got := mark(attrFormMark, ord); got != want {
			t.Errorf("mark(form, %d) = %q, want %q", ord, got, want)
		}
		s := formSim{open: []openForm{{ord: ord, depth: 2}}, depth: 3}
		if got, want := s.ownerMark(), fmt.Sprintf(` %s="%d"`, attrOwnerMark, ord); got != want {
			t.Errorf("ownerMark(%d) = %q, want %q", ord, got, want)
		}
		s = formSim{open: []openForm{{ord: 70, depth: 1}, {ord: ord, depth: 2}}, depth: 3}
		if got, want := s.ownerMark(), fmt.Sprintf(` %s="%d 70"`, attrOwnerMark, ord); got != want {
			t.Errorf("nested ownerMark(%d) = %q, want %q", ord, got, want)
		}
	}
}

// lastWordsRef is lastWords before it used strings.LastIndexByte: it returns the last n words of text[:end].
func lastWordsRef(text string, end, n int) string {
	end = min(end, len(text))
	for end > 0 && text[end-1] == ' ' {
		end--
	}
	lo := max(0, end-n*maxWordBytes)
	k := end
	for words := 0; k > lo && words < n; {
		for k > lo && text[k-1] != ' ' {
			k--
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
	return strings.TrimSpace(text[k:end])
}

// firstWordsRef is firstWords before it used strings.IndexByte: it returns the first n words of text[start:].
func firstWordsRef(text string, start, n int) string {
	start = max(start, 0)
	for start < len(text) && text[start] == ' ' {
		start++
	}
	hi := min(len(text), start+n*maxWordBytes)
	k := start
	for words := 0; k < hi && words < n; {
		for k < hi && text[k] != ' ' {
			k++
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
	return strings.TrimSpace(text[start:k])
}

// TestWordsMatchRef compares lastWords and firstWords with the byte loops
// they replaced, on random text (long words, runs of spaces, multi-byte
// characters) at every offset.
func TestWordsMatchRef(t *testing.T) {
	pieces := []string{"a", "bc", "word", " ", "  ", "é", "日本", strings.Repeat("x", 70), "–"}
	rng := rand.New(rand.NewPCG(goldenSeed, 6))
	t.Logf("seed %d", goldenSeed)
	for range 500 {
		var b strings.Builder
		for k := rng.IntN(60); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		for off := -1; off <= len(text); off++ {
			for _, n := range []int{1, 3, LinkContextWords, FormContextWords} {
				if off < 0 {
					// lastWords takes no negative end
				} else if got, want := lastWords(text, off, n), lastWordsRef(text, off, n); got != want {
					t.Fatalf("lastWords(%q, %d, %d) = %q, want %q", text, off, n, got, want)
				}
				if got, want := firstWords(text, off, n), firstWordsRef(text, off, n); got != want {
					t.Fatalf("firstWords(%q, %d, %d) = %q, want %q", text, off, n, got, want)
				}
			}
		}
	}
}
