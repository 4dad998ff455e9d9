package page

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"golang.org/x/net/html"
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
