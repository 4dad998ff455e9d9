package page

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Attributes that markForms adds and extract reads; they never reach a
// Page. The random suffix keeps a page from forging them.
var (
	markSuffix    = strconv.FormatUint(rand.Uint64(), 36)
	attrFormMark  = "data-dwcrawl-form-" + markSuffix  // on <form>: its ordinal among form start tags
	attrOwnerMark = "data-dwcrawl-owner-" + markSuffix // on controls: the ordinals of the forms that own it
)

// insertion is text to insert before src[at].
type insertion struct {
	at   int
	text string
}

// openForm is a form the simulation considers open: its ordinal and the
// element depth at its start tag.
type openForm struct{ ord, depth int }

// formSim follows the form element pointer of the HTML5 tree builder over
// the token stream, and the nesting of forms in a tree builder that keeps
// nested form start tags.
type formSim struct {
	forms    int        // form start tags seen
	open     []openForm // open forms, innermost (the form element pointer) last
	depth    int        // open (non-void) elements, roughly
	inSelect bool       // inside a <select>, where the tree builder ignores form tags
	foreign  int        // depth of <svg>/<math>, where no element holds raw text
}

// markForms rewrites src (UTF-8) for the HTML5 tree builder so that the
// resulting tree has the forms the package documents: an end tag is
// inserted before every <form> that starts while another is open (and a
// </select> before form tags inside a select, where the builder would ignore
// them). Each <form> gets attrFormMark with its ordinal; each control seen
// while a form is open gets attrOwnerMark with the ordinals of the forms
// that own it: the innermost open form (the form element pointer) and the
// forms that enclose it, if it was nested inside open elements of theirs.
// A page without a form start tag is read as it is.
func markForms(src []byte) io.Reader {
	sp := new(splicer)
	sp.mark(src)
	return sp
}

// formInsertions computes markForms' insertions. ok is false when the
// tokens do not add up to src, in which case src should be parsed unmarked
// (it still parses, only less faithfully); tagScanner accounts for every
// byte, so that does not happen.
func formInsertions(src []byte) (ins []insertion, ok bool) {
	return appendFormInsertions(nil, src)
}

// appendFormInsertions appends the insertions of src to ins.
func appendFormInsertions(ins []insertion, src []byte) ([]insertion, bool) {
	if !hasFormTag(src) {
		return ins, true
	}
	z := tagScanner{src: src}
	var s formSim
	for {
		z.allowCDATA = s.foreign > 0
		tt, start, selfClosing := z.next()
		switch tt {
		case html.ErrorToken:
			return ins, z.pos == len(src)
		case html.StartTagToken, html.SelfClosingTagToken:
			name := tagName(src[start+1:])
			ins = s.startTag(ins, src, start, name, selfClosing)
			if name == "noscript" || s.foreign > 0 {
				// Scripting is off (noscript holds markup) and foreign
				// content has no raw-text elements: as the tree builder.
				z.rawTag = ""
			}
		case html.EndTagToken:
			ins = s.endTag(ins, start, tagName(src[start+2:]))
		}
	}
}

func (s *formSim) startTag(ins []insertion, src []byte, start int, name string, selfClosing bool) []insertion {
	// The tag name follows '<' directly in the raw token.
	at := start + 1 + len(name)
	if at > len(src) || src[start] != '<' {
		return ins
	}
	switch name {
	case "form":
		return s.formStart(ins, start, at)
	case "select":
		// A <select> inside a select closes it instead.
		s.inSelect = !s.inSelect
	case "input", "textarea", "keygen":
		s.inSelect = false
	case "svg", "math":
		if !selfClosing {
			s.foreign++
		}
	default:
		if s.foreign > 0 && breaksOutOfForeign(name) {
			s.foreign = 0
		}
	}
	if len(s.open) > 0 && isControl(name) {
		ins = append(ins, insertion{at, s.ownerMark()})
	}
	if !selfClosing && !isVoid(name) {
		s.depth++
	}
	return ins
}

func (s *formSim) formStart(ins []insertion, start, at int) []insertion {
	pre := ""
	if s.inSelect {
		pre, s.inSelect = "</select>", false
	}
	if len(s.open) > 0 {
		// The HTML5 builder would drop this start tag; end the open form
		// for it (harmless when its pointer is already null).
		pre += "</form>"
	}
	if pre != "" {
		ins = append(ins, insertion{start, pre})
	}
	// Forms with no element of theirs still open around this point end
	// here; the others enclose the new form.
	for len(s.open) > 0 && s.open[len(s.open)-1].depth >= s.depth {
		s.open = s.open[:len(s.open)-1]
	}
	s.open = append(s.open, openForm{ord: s.forms, depth: s.depth})
	s.forms++
	return append(ins, insertion{at, mark(attrFormMark, s.forms-1)})
}

// maxOwners bounds the forms one control can belong to (real pages nest
// forms one or two deep; hostile ones must not make the output quadratic).
const maxOwners = 4

// ownerMark lists the innermost open form, then the enclosing forms that
// still have elements open around the current point, innermost first.
func (s *formSim) ownerMark() string {
	top := len(s.open) - 1
	if ord := s.open[top].ord; ord < len(ownerMarks) {
		single := true
		for i := top - 1; i >= 0; i-- {
			if s.open[i].depth < s.depth {
				single = false
				break
			}
		}
		if single {
			return ownerMarks[ord]
		}
	}
	b := make([]byte, 0, 32)
	b = append(b, ' ')
	b = append(b, attrOwnerMark...)
	b = append(b, `="`...)
	b = strconv.AppendInt(b, int64(s.open[top].ord), 10)
	for i, n := top-1, 1; i >= 0 && n < maxOwners; i-- {
		if s.open[i].depth < s.depth {
			n++
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(s.open[i].ord), 10)
		}
	}
	return string(append(b, '"'))
}

func (s *formSim) endTag(ins []insertion, start int, name string) []insertion {
	switch name {
	case "form":
		if s.inSelect {
			ins = append(ins, insertion{start, "</select>"})
			s.inSelect = false
		}
		// The end tag closes the innermost form; an enclosing form whose
		// elements are still open owns what follows.
		if len(s.open) > 0 {
			s.open = s.open[:len(s.open)-1]
		}
		for len(s.open) > 0 && s.open[len(s.open)-1].depth >= s.depth {
			s.open = s.open[:len(s.open)-1]
		}
		return ins
	case "select":
		s.inSelect = false
	case "svg", "math":
		if s.foreign > 0 {
			s.foreign--
		}
	}
	if s.depth > 0 {
		s.depth--
	}
	return ins
}

func isControl(name string) bool {
	switch name {
	case "input", "select", "textarea", "button":
		return true
	}
	return false
}

// isVoid lists the elements that have no end tag.
func isVoid(name string) bool {
	switch name {
	case "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img",
		"input", "keygen", "link", "meta", "param", "source", "track", "wbr":
		return true
	}
	return false
}

// breaksOutOfForeign lists the HTML start tags that end SVG/MathML content.
func breaksOutOfForeign(name string) bool {
	switch name {
	case "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt",
		"em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li",
		"listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span",
		"strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var":
		return true
	}
	return false
}

// tagName returns the lower-case name of the tag at the start of b (a raw
// tag after its "<" or "</"), as the tokenizer delimits it, if it names an
// HTML element (an atom), else "".
func tagName(b []byte) string {
	var buf [16]byte // longer than the names markForms acts on
	n := 0
	for _, c := range b {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return ""
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return atom.Lookup(buf[:n]).String()
}

func mark(attr string, ord int) string {
	if attr == attrFormMark && ord < len(formMarks) {
		return formMarks[ord]
	}
	return " " + attr + `="` + strconv.Itoa(ord) + `"`
}

// The marks of the first forms, made once: a page's form marks and the
// marks of controls that one form owns cost no allocation.
var formMarks, ownerMarks [64]string

func init() {
	for i := range formMarks {
		formMarks[i] = " " + attrFormMark + `="` + strconv.Itoa(i) + `"`
		ownerMarks[i] = " " + attrOwnerMark + `="` + strconv.Itoa(i) + `"`
	}
}

// splicer reads src with markForms' insertions in place, without copying
// src. Parse reuses splicers (see splicers).
type splicer struct {
	src []byte
	ins []insertion
	pos int // next byte of src to read
	k   int // next insertion
	off int // bytes of ins[k].text read
}

var splicers = sync.Pool{New: func() any { return new(splicer) }}

// mark computes the insertions of src and rewinds the reader.
func (r *splicer) mark(src []byte) {
	ins, ok := appendFormInsertions(r.ins[:0], src)
	if !ok {
		ins = ins[:0]
	}
	*r = splicer{src: src, ins: ins}
}

// release drops the document and keeps the insertion buffer for reuse
// unless it grew large.
func (r *splicer) release() {
	ins := r.ins
	if cap(ins) > maxKeptItems {
		ins = nil
	}
	clear(ins)
	*r = splicer{ins: ins[:0]}
}

func (r *splicer) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if r.k < len(r.ins) && r.pos == r.ins[r.k].at {
			t := r.ins[r.k].text
			c := copy(p[n:], t[r.off:])
			n += c
			if r.off += c; r.off == len(t) {
				r.k, r.off = r.k+1, 0
			}
			continue
		}
		end := len(r.src)
		if r.k < len(r.ins) {
			end = r.ins[r.k].at
		}
		if r.pos == end {
			break
		}
		c := copy(p[n:], r.src[r.pos:end])
		n += c
		r.pos += c
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// hasFormTag reports whether src contains "<form" (any case) followed by a
// character that ends a tag name.
func hasFormTag(src []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '<')
		if j < 0 {
			return false
		}
		i += j + 1
		if i+5 > len(src) {
			return false
		}
		if src[i]|0x20 == 'f' && src[i+1]|0x20 == 'o' && src[i+2]|0x20 == 'r' && src[i+3]|0x20 == 'm' {
			switch src[i+4] {
			case ' ', '\t', '\n', '\r', '\f', '/', '>':
				return true
			}
		}
	}
}
