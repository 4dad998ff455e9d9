package page

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxLabelNest is how many enclosing labels leave a control's text out of
// theirs.
const maxLabelNest = 4

// nearbyWords is how many words of nearby text a control without a label
// takes as its label.
const nearbyWords = 6

type span struct{ start, end int }

type linkState struct {
	span
	href, alt, title string
	nofollow         bool
}

type formState struct {
	span
	f         Form
	action    string
	regionEnd int // end of the last owned control
	fields    []*fieldState
}

type fieldState struct {
	span
	f           Field
	owners      []int // form ordinals from attrOwnerMark
	formAttr    string
	hasFormAttr bool
	domForm     *formState // nearest form ancestor in the tree
	wrapLabel   int        // index of the wrapping label, or -1
	ariaLabel   string
	caption     string // submit/button caption
	hasValue    bool
	labelable   bool
}

type labelState struct {
	span
	inner  []span // controls inside the label, left out of its text
	hasFor bool
	used   bool // a wrapping label labels only its first control
}

// walker collects everything in one pass over the tree.
type walker struct {
	buf       textBuf
	hidden    []span // noscript/template text, kept out of Page.Text
	hideDepth int
	mute      int // inside a select or datalist: option text is not page text

	title          string
	haveTitle      bool
	baseHref       string
	haveBase       bool
	robotsNoFollow bool

	links   []linkState
	curLink int

	forms     []*formState
	formByOrd map[int]*formState
	formByID  map[string]*formState
	formStack []*formState

	fields     []*fieldState
	labels     []labelState
	labelStack []int
	labelFor   map[string]int
	curSelect  *fieldState
	curButton  *fieldState

	// Element states, allocated from blocks that are reused.
	formArena  arena[formState]
	fieldArena arena[fieldState]
}

// walkers holds walkers for reuse: their buffers and slices grow to what
// a page needs once, not on every page.
var walkers = sync.Pool{New: func() any { return &walker{curLink: -1} }}

func extract(root *html.Node, base *url.URL) *Page {
	w := walkers.Get().(*walker)
	w.walk(root)
	p := w.page(base)
	w.recycle()
	walkers.Put(w)
	return p
}

// Bounds on what a recycled walker keeps: a huge page's buffers are left
// to the collector. A walker kept between pages holds at most about
// 700 KiB (text 256 KiB, links 72 KiB, labels 48 KiB, form and control
// states 140 KiB, maps and the rest less); the pool holds about one walker per
// goroutine parsing at once, and drops idle ones at garbage collections.
const (
	maxKeptText   = 256 << 10
	maxKeptItems  = 1024
	maxKeptStates = 256 // form and control states (a few hundred bytes each)
)

// recycle empties the walker for the next page, keeping its buffers
// unless they grew past the bounds. Every kept element is zeroed so that
// nothing of this page (its tree, its strings) stays reachable.
func (w *walker) recycle() {
	*w = walker{
		buf:        textBuf{b: keep(w.buf.b, maxKeptText)},
		hidden:     keep(w.hidden, maxKeptItems),
		links:      keep(w.links, maxKeptItems),
		forms:      keep(w.forms, maxKeptItems),
		formByOrd:  keepMap(w.formByOrd),
		formByID:   keepMap(w.formByID),
		formStack:  keep(w.formStack, maxKeptItems),
		fields:     keep(w.fields, maxKeptItems),
		labels:     keep(w.labels, maxKeptItems),
		labelStack: keep(w.labelStack, maxKeptItems),
		labelFor:   keepMap(w.labelFor),
		formArena:  w.formArena,
		fieldArena: w.fieldArena,
		curLink:    -1,
	}
	w.formArena.reset()
	w.fieldArena.reset()
}

// keep returns s emptied and zeroed, or nil when its capacity is over max.
func keep[T any](s []T, max int) []T {
	if cap(s) > max {
		return nil
	}
	clear(s)
	return s[:0]
}

func keepMap[K comparable, V any](m map[K]V) map[K]V {
	if len(m) > maxKeptItems {
		return nil
	}
	clear(m)
	return m
}

// arenaBlock is how many elements an arena allocates at once.
const arenaBlock = 16

// arena allocates zeroed T's from blocks it keeps from page to page.
// Pointers to them stay valid until reset.
type arena[T any] struct {
	blocks [][]T
	n      int
}

func (a *arena[T]) new() *T {
	b := a.n / arenaBlock
	if b == len(a.blocks) {
		a.blocks = append(a.blocks, make([]T, arenaBlock))
	}
	p := &a.blocks[b][a.n%arenaBlock]
	a.n++
	return p
}

// reset zeroes the elements handed out and keeps up to maxKeptStates of
// them for reuse.
func (a *arena[T]) reset() {
	for i := 0; i*arenaBlock < a.n; i++ {
		clear(a.blocks[i][:min(arenaBlock, a.n-i*arenaBlock)])
	}
	if len(a.blocks)*arenaBlock > maxKeptStates {
		clear(a.blocks[maxKeptStates/arenaBlock:])
		a.blocks = a.blocks[:maxKeptStates/arenaBlock]
	}
	a.n = 0
}

func (w *walker) walk(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if w.mute == 0 {
				w.buf.add(c.Data)
			}
		case html.ElementNode:
			w.element(c)
		}
	}
}

// element reads what the page needs of n (links, forms, controls, labels,
// title, base, robots) and adds its text as its role says (roleOf).
func (w *walker) element(n *html.Node) {
	if n.Namespace == "" {
		switch n.DataAtom {
		case atom.Title:
			if !w.haveTitle {
				w.title, w.haveTitle = collapse(textContent(n)), true
			}
			return
		case atom.Base:
			if href, ok := attr(n, "href"); ok && !w.haveBase {
				w.baseHref, w.haveBase = href, true
			}
			return
		case atom.Meta:
			if name, _ := attr(n, "name"); strings.EqualFold(strings.TrimSpace(name), "robots") {
				if c, _ := attr(n, "content"); strings.Contains(strings.ToLower(c), "nofollow") ||
					strings.Contains(strings.ToLower(c), "none") {
					w.robotsNoFollow = true
				}
			}
			return
		case atom.A, atom.Area:
			w.link(n)
			return
		case atom.Img:
			w.img(n)
			return
		case atom.Form:
			w.form(n)
			return
		case atom.Input, atom.Select, atom.Textarea, atom.Button:
			w.control(n)
			return
		case atom.Label:
			w.label(n)
			return
		case atom.Option:
			if w.curSelect != nil {
				w.option(n)
			}
		case atom.Datalist:
			w.mute++
			w.block(n)
			w.mute--
			return
		}
	}
	switch roleOf(n) {
	case roleNone:
	case roleBox:
		// noscript, template: their links and controls count, their text
		// is cut out of Page.Text (visibleText)
		start := w.buf.len()
		w.hideDepth++
		w.block(n)
		w.hideDepth--
		if w.hideDepth == 0 {
			w.hidden = append(w.hidden, span{start, w.buf.len()})
		}
	case roleInline:
		w.walk(n)
	default:
		w.block(n)
	}
}

// block walks an element that separates the text before and after it.
func (w *walker) block(n *html.Node) {
	w.buf.brk()
	w.walk(n)
	w.buf.brk()
}

func (w *walker) link(n *html.Node) {
	href, ok := attr(n, "href")
	if !ok || w.curLink >= 0 {
		w.walk(n)
		return
	}
	l := linkState{href: href}
	for _, a := range n.Attr {
		switch a.Key {
		case "rel":
			l.nofollow = hasToken(a.Val, "nofollow")
		case "title", "aria-label":
			if l.title == "" {
				l.title = a.Val
			}
		case "alt": // <area alt>
			l.alt = a.Val
		}
	}
	l.start = w.buf.len()
	w.links = append(w.links, l)
	w.curLink = len(w.links) - 1
	w.walk(n)
	w.links[w.curLink].end = w.buf.len()
	w.curLink = -1
}

func (w *walker) img(n *html.Node) {
	w.buf.brk()
	alt, _ := attr(n, "alt")
	if alt = collapse(alt); alt == "" {
		return
	}
	if w.curLink >= 0 && w.links[w.curLink].alt == "" {
		w.links[w.curLink].alt = alt
	}
	if w.curButton != nil && w.curButton.caption == "" {
		w.curButton.caption = alt
	}
}

func (w *walker) form(n *html.Node) {
	fs := w.formArena.new()
	fs.f.Index = len(w.forms)
	ord := -1
	for _, a := range n.Attr {
		switch a.Key {
		case "id":
			fs.f.ID = a.Val
		case "name":
			fs.f.Name = a.Val
		case "class":
			fs.f.Class = collapse(a.Val)
		case "action":
			fs.action = a.Val
		case "method":
			if strings.EqualFold(strings.TrimSpace(a.Val), "post") {
				fs.f.Method = "POST"
			}
		case "enctype":
			switch e := strings.ToLower(strings.TrimSpace(a.Val)); e {
			case "multipart/form-data", "text/plain":
				fs.f.Enctype = e
			}
		case attrFormMark:
			ord = atoi(a.Val)
		}
	}
	if fs.f.Method == "" {
		fs.f.Method = "GET"
	}
	if fs.f.Enctype == "" {
		fs.f.Enctype = "application/x-www-form-urlencoded"
	}
	w.forms = append(w.forms, fs)
	if ord >= 0 {
		if w.formByOrd == nil {
			w.formByOrd = make(map[int]*formState)
		}
		w.formByOrd[ord] = fs
	}
	if fs.f.ID != "" {
		if w.formByID == nil {
			w.formByID = make(map[string]*formState)
		}
		if _, dup := w.formByID[fs.f.ID]; !dup {
			w.formByID[fs.f.ID] = fs
		}
	}
	w.buf.brk()
	fs.start = w.buf.len()
	w.formStack = append(w.formStack, fs)
	w.walk(n)
	w.formStack = w.formStack[:len(w.formStack)-1]
	fs.end = w.buf.len()
	fs.regionEnd = fs.end
	w.buf.brk()
}

func (w *walker) control(n *html.Node) {
	fs := w.fieldArena.new()
	fs.wrapLabel, fs.labelable = -1, true
	fs.f.Tag = n.Data
	var typ, value string
	for _, a := range n.Attr {
		switch a.Key {
		case "type":
			typ = a.Val
		case "name":
			fs.f.Name = a.Val
		case "id":
			fs.f.ID = a.Val
		case "value":
			value, fs.hasValue = a.Val, true
		case "placeholder":
			fs.f.Placeholder = collapse(a.Val)
		case "aria-label":
			fs.ariaLabel = collapse(a.Val)
		case "checked":
			fs.f.Checked = true
		case "required":
			fs.f.Required = true
		case "disabled":
			fs.f.Disabled = true
		case "size":
			fs.f.Size = max(atoi(strings.TrimSpace(a.Val)), 0)
		case "maxlength":
			fs.f.MaxLength = max(atoi(strings.TrimSpace(a.Val)), 0)
		case "multiple":
			if n.DataAtom == atom.Select {
				typ = "select-multiple"
			}
		case "alt":
			if n.DataAtom == atom.Input {
				fs.caption = collapse(a.Val)
			}
		case "form":
			fs.formAttr, fs.hasFormAttr = a.Val, true
		case attrOwnerMark:
			for o := range strings.FieldsSeq(a.Val) {
				if n := atoi(o); n >= 0 {
					fs.owners = append(fs.owners, n)
				}
			}
		}
	}
	if len(w.formStack) > 0 {
		fs.domForm = w.formStack[len(w.formStack)-1]
	}
	w.buf.brk()
	fs.start = w.buf.len()
	switch n.DataAtom {
	case atom.Input:
		fs.f.Type = inputType(typ)
		fs.f.Value = value
		switch fs.f.Type {
		case "checkbox", "radio":
			if !fs.hasValue {
				fs.f.Value = "on"
			}
		case "hidden":
			fs.labelable = false
		case "image":
			if fs.caption == "" {
				fs.caption = collapse(value)
			}
		case "submit", "reset", "button":
			fs.caption = collapse(value)
			if !fs.hasValue { // what browsers show on a button without a value
				switch fs.f.Type {
				case "submit":
					fs.caption = "Submit"
				case "reset":
					fs.caption = "Reset"
				}
			}
		}
	case atom.Select:
		fs.f.Type = "select-one"
		if typ == "select-multiple" {
			fs.f.Type = typ
		}
		outer := w.curSelect
		w.curSelect = fs
		w.mute++
		w.walk(n)
		w.mute--
		w.curSelect = outer
		fs.f.Value = selectValue(&fs.f)
	case atom.Textarea:
		fs.f.Type = "textarea"
		fs.f.Value = textContent(n)
		w.walk(n)
	case atom.Button:
		fs.f.Type = buttonType(typ)
		fs.f.Value = value
		outer := w.curButton
		w.curButton = fs
		start := w.buf.len()
		w.walk(n)
		w.curButton = outer
		if c := bytes.TrimSpace(w.buf.b[start:]); len(c) > 0 {
			fs.caption = string(c)
		} else if fs.caption == "" {
			fs.caption = collapse(value)
		}
	}
	fs.f.Checked = fs.f.Checked && (fs.f.Type == "checkbox" || fs.f.Type == "radio")
	fs.end = w.buf.len()
	w.buf.brk()
	// Labels nest only on broken pages; the innermost few are enough and
	// keep the work linear.
	for _, li := range w.labelStack[max(0, len(w.labelStack)-maxLabelNest):] {
		w.labels[li].inner = append(w.labels[li].inner, fs.span)
	}
	if k := len(w.labelStack); k > 0 && fs.labelable {
		li := w.labelStack[k-1]
		if l := &w.labels[li]; !l.hasFor && !l.used {
			l.used = true
			fs.wrapLabel = li
		}
	}
	w.fields = append(w.fields, fs)
}

func (w *walker) option(n *html.Node) {
	o := Option{Text: collapse(textContent(n))}
	value, hasValue := "", false
	for _, a := range n.Attr {
		switch a.Key {
		case "value":
			value, hasValue = a.Val, true
		case "selected":
			o.Selected = true
		case "label":
			if o.Text == "" {
				o.Text = collapse(a.Val)
			}
		}
	}
	o.Value = o.Text
	if hasValue {
		o.Value = value
	}
	w.curSelect.f.Options = append(w.curSelect.f.Options, o)
}

func (w *walker) label(n *html.Node) {
	l := labelState{}
	forID, hasFor := attr(n, "for")
	l.hasFor = hasFor
	li := len(w.labels)
	if hasFor && forID != "" {
		if w.labelFor == nil {
			w.labelFor = make(map[string]int)
		}
		if _, dup := w.labelFor[forID]; !dup {
			w.labelFor[forID] = li
		}
	}
	l.start = w.buf.len()
	w.labels = append(w.labels, l)
	w.labelStack = append(w.labelStack, li)
	w.walk(n)
	w.labelStack = w.labelStack[:len(w.labelStack)-1]
	w.labels[li].end = w.buf.len()
}

func selectValue(f *Field) string {
	for _, o := range f.Options {
		if o.Selected {
			return o.Value
		}
	}
	if f.Type == "select-one" && len(f.Options) > 0 {
		return f.Options[0].Value
	}
	return ""
}

var inputTypes = map[string]bool{
	"text": true, "search": true, "email": true, "password": true, "hidden": true,
	"checkbox": true, "radio": true, "submit": true, "reset": true, "button": true,
	"image": true, "file": true, "number": true, "tel": true, "url": true, "date": true,
	"datetime-local": true, "datetime": true, "month": true, "week": true, "time": true,
	"range": true, "color": true,
}

func inputType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if inputTypes[t] {
		return t
	}
	return "text"
}

func buttonType(t string) string {
	switch t = strings.ToLower(strings.TrimSpace(t)); t {
	case "button", "reset":
		return t
	}
	return "submit"
}

// isInline reports whether an element flows with the text around it (no
// word break at its edges).
func isInline(a atom.Atom) bool {
	switch a {
	case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Big, atom.Cite, atom.Code,
		atom.Data, atom.Dfn, atom.Em, atom.Font, atom.I, atom.Kbd, atom.Mark, atom.Nobr,
		atom.Q, atom.S, atom.Samp, atom.Small, atom.Span, atom.Strike, atom.Strong, atom.Sub,
		atom.Sup, atom.Time, atom.Tt, atom.U, atom.Var, atom.Wbr, atom.Ins, atom.Del:
		return true
	}
	return false
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// hasToken reports whether the space-separated list s contains tok (any case).
func hasToken(s, tok string) bool {
	for f := range strings.FieldsSeq(s) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// textContent concatenates the text nodes under n.
func textContent(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
		return c.Data
	}
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				rec(c)
			}
		}
	}
	rec(n)
	return b.String()
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}
