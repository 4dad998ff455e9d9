package form

import (
	"math/bits"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// wordGroup recognises the tokens of one purpose (search, login, …): exact
// short words and substrings of longer tokens ("searchbox", "loginform").
type wordGroup struct {
	name     string
	exact    map[string]bool
	contains []string
}

func group(name, exact, contains string) wordGroup {
	g := wordGroup{name: name, exact: make(map[string]bool), contains: strings.Fields(contains)}
	for _, w := range strings.Fields(exact) {
		g.exact[w] = true
	}
	return g
}

func (g wordGroup) match(tok string) bool {
	if g.exact[tok] {
		return true
	}
	if len(tok) < 3 {
		return false
	}
	for _, c := range g.contains {
		if strings.Contains(tok, c) {
			return true
		}
	}
	return false
}

// The word groups are multilingual where Formasaurus's pages are (English,
// Russian, German, French, Spanish, …), but kept to words whose meaning is
// unambiguous in a form.
var (
	gSearch = group("search",
		"find lookup srch "+
			"buscar busca suche suchen sok sog søg sök haku ara arama cerca ricerca zoek zoeken szukaj hledat trouver chercher keres "+
			"pesquisa pesquisar procurar найти искать поиск 搜索 搜尋 検索 검색",
		"search query keyword suche suchbegriff suchstring recherch busc zoek keres pesquis поиск найт искат 搜 検索 검색")
	// gQuery are the short names of a query box and the generic captions of
	// any submit button: strong evidence in a text box's name ("q", "s"),
	// weak anywhere else ("s" is also a session id, "Go" jumps to a forum,
	// "OK" logs in), so they are counted apart from gSearch.
	gQuery = group("query",
		"q s k kw qs key keys go query term terms keyword keywords ok los sq qt sch", "")
	gFilter = group("filter",
		"limit sort sortby orderby per",
		"filter filtr sortier")
	gLogin = group("login",
		"user usr pass pw log",
		"login logon signin passw pwd passwd auth username session remember logged вход войти парол anmeld connexion")
	gRegister = group("register",
		"join",
		"regist signup confirm repeat retype birth gender agree terms create captcha firstname lastname регистр")
	gRecover = group("recover", "",
		"forgot lost reset recover remind restore восстанов")
	gContact = group("contact",
		"name msg phone tel body",
		"contact message comment subject feedback inquir enquir question review reply сообщ коммент")
	gNewsletter = group("newsletter", "",
		"newsletter subscri mailing maillist рассылк подпис")
	gOrder = group("order",
		"add buy qty item size",
		"cart basket quantit order checkout product sku price shipping wishlist корзин купить")
	gEmail = group("email", "", "email mail почт")
	groups = []wordGroup{gSearch, gQuery, gFilter, gLogin, gRegister, gRecover, gContact, gNewsletter, gOrder, gEmail}
)

// view is a form broken into the token sources the features read.
type view struct {
	f                                                         *page.Form
	text, search, password, email, hidden, checkbox, radio    int
	selects, textarea, file, submitFields, other, visible     int
	options, required, labels                                 int
	action, names, hiddenNames, attrs, captions, hints, words []string
	mainName                                                  string      // name of the first visible text box
	counts                                                    [][]float64 // [source][group] token counts
}

func isTextType(t string) bool {
	switch t {
	case "", "text", "search":
		return true
	}
	return false
}

func newView(f *page.Form) *view {
	v := &view{f: f}
	links := tokenize(f.LinkText)
	for i := range f.Fields {
		fd := &f.Fields[i]
		typ := strings.ToLower(strings.TrimSpace(fd.Type))
		tag := strings.ToLower(fd.Tag)
		switch {
		case tag == "select":
			v.selects++
			v.options += len(fd.Options)
		case tag == "textarea":
			v.textarea++
		case tag == "button" || typ == "submit" || typ == "image" || typ == "button" || typ == "reset":
			if typ != "reset" && typ != "button" || tag == "button" {
				v.submitFields++
			}
			// The caption itself is in f.Submits; the button adds its name/id.
			v.captions = append(v.captions, tokenize(fd.Name+" "+fd.ID)...)
			continue
		case typ == "hidden":
			v.hidden++
			v.hiddenNames = append(v.hiddenNames, tokenize(fd.Name+" "+fd.ID)...)
			continue
		case typ == "password":
			v.password++
		case typ == "email":
			v.email++
		case typ == "checkbox":
			v.checkbox++
		case typ == "radio":
			v.radio++
		case typ == "file":
			v.file++
		case isTextType(typ):
			if typ == "search" {
				v.search++
			}
			v.text++
			if v.mainName == "" {
				v.mainName = strings.ToLower(fd.Name)
				if v.mainName == "" {
					v.mainName = strings.ToLower(fd.ID)
				}
			}
			v.hints = append(v.hints, tokenize(fd.Value)...)
		default:
			v.other++
		}
		v.visible++
		if fd.Required {
			v.required++
		}
		if fd.Label != "" {
			v.labels++
		}
		v.names = append(v.names, tokenize(fd.Name+" "+fd.ID)...)
		v.hints = append(v.hints, tokenize(fd.Placeholder)...)
		if fd.Label != fd.Placeholder { // the label falls back to the placeholder
			// a label taken from the nearby text may be a link's text
			v.hints = append(v.hints, without(tokenize(fd.Label), links)...)
		}
	}
	for _, s := range f.Submits {
		v.captions = append(v.captions, tokenize(s)...)
	}
	v.action = actionTokens(f.Action)
	v.attrs = tokenize(f.ID + " " + f.Name + " " + f.Class)
	v.words = without(tokenize(capText(f.Text)), links)
	v.countGroups()
	return v
}

// maxTextBytes bounds the form text read: a form that wraps half a page
// (or a thousand-option select) says what it is in its first words, and
// reading all of it costs more than the rest of the classification.
const maxTextBytes = 2000

func capText(s string) string { return capBytes(s, maxTextBytes) }

// capBytes cuts s to at most n bytes at a rune boundary.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// searchName reports whether a text box's name says "search query": the
// whole name is a search word ("q", "query", "keywords"), or one of its
// tokens of three letters or more is ("searchTerm", "site_search"); a
// one-letter token inside a longer name ("q1_name") does not count.
func searchName(name string) bool {
	if name == "" {
		return false
	}
	if gSearch.match(name) || gQuery.match(name) {
		return true
	}
	for _, t := range tokenize(name) {
		if len(t) >= 3 && gSearch.match(t) {
			return true
		}
	}
	return false
}

// actionTokens returns the tokens of an action URL's path and query
// parameter names (the host is left to the external-engine rule).
func actionTokens(action string) []string {
	u, err := url.Parse(action)
	if err != nil {
		return tokenize(action)
	}
	toks := tokenize(u.Path)
	for k := range u.Query() {
		toks = append(toks, tokenize(k)...)
	}
	return toks
}

type feature struct {
	name string
	f    func(v *view) float64
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// structural lists the SFC's attributes, in model order. Changing it
// changes the model format: bump structuralVersion.
var structural = buildStructural()

// structuralVersion identifies the attribute list a model was trained on.
const structuralVersion = 3

func buildStructural() []feature {
	fs := []feature{
		{"text_inputs", func(v *view) float64 { return float64(v.text) }},
		{"search_type_inputs", func(v *view) float64 { return float64(v.search) }},
		{"password_fields", func(v *view) float64 { return float64(v.password) }},
		{"email_inputs", func(v *view) float64 { return float64(v.email) }},
		{"hidden_fields", func(v *view) float64 { return float64(v.hidden) }},
		{"checkboxes", func(v *view) float64 { return float64(v.checkbox) }},
		{"radios", func(v *view) float64 { return float64(v.radio) }},
		{"selects", func(v *view) float64 { return float64(v.selects) }},
		{"select_options", func(v *view) float64 { return float64(v.options) }},
		{"textareas", func(v *view) float64 { return float64(v.textarea) }},
		{"file_inputs", func(v *view) float64 { return float64(v.file) }},
		{"other_inputs", func(v *view) float64 { return float64(v.other) }},
		{"submits", func(v *view) float64 { return float64(max(v.submitFields, len(v.f.Submits))) }},
		{"visible_fields", func(v *view) float64 { return float64(v.visible) }},
		{"required_fields", func(v *view) float64 { return float64(v.required) }},
		{"labelled_fields", func(v *view) float64 { return float64(v.labels) }},
		{"text_fraction", func(v *view) float64 {
			if v.visible == 0 {
				return 0
			}
			return float64(v.text) / float64(v.visible)
		}},
		{"single_text_box", func(v *view) float64 {
			return b2f(v.text == 1 && v.password == 0 && v.textarea == 0 && v.email == 0)
		}},
		{"method_get", func(v *view) float64 { return b2f(v.f.Method != "POST") }},
		{"multipart", func(v *view) float64 { return b2f(strings.Contains(strings.ToLower(v.f.Enctype), "multipart")) }},
		{"action_has_query", func(v *view) float64 { return b2f(strings.Contains(v.f.Action, "?")) }},
		{"main_box_search_name", func(v *view) float64 { return b2f(searchName(v.mainName)) }},
		{"caption_empty", func(v *view) float64 { return b2f(len(v.captions) == 0) }},
		{"form_words", func(v *view) float64 { return float64(len(v.words)) }},
	}
	for gi, g := range groups {
		for si, s := range sources {
			fs = append(fs, feature{s.name + "_" + g.name, func(v *view) float64 { return v.counts[si][gi] }})
		}
	}
	// The same counts over all sources: a tree splits its few training
	// forms by source, and evidence spread over the sources (a "Search"
	// caption here, a "search" placeholder there) would otherwise be too
	// thin in each branch to be learnt.
	for gi, g := range groups {
		fs = append(fs, feature{"any_" + g.name, func(v *view) float64 {
			n := 0.0
			for si := range sources {
				n += v.counts[si][gi]
			}
			return n
		}})
	}
	return fs
}

// sources are the token lists of a view that the group features count in,
// in feature order.
var sources = []struct {
	name string
	toks func(v *view) []string
}{
	{"action", func(v *view) []string { return v.action }},
	{"names", func(v *view) []string { return v.names }},
	{"hidden", func(v *view) []string { return v.hiddenNames }},
	{"attrs", func(v *view) []string { return v.attrs }},
	{"caption", func(v *view) []string { return v.captions }},
	{"hints", func(v *view) []string { return v.hints }},
	{"text", func(v *view) []string { return v.words }},
}

// groupMask returns the bit set of the groups token t belongs to,
// memoised: the same few thousand tokens recur on every page.
func groupMask(t string) uint16 {
	return maskMemo.get(t, func(t string) uint16 {
		var m uint16
		for i, g := range groups {
			if g.match(t) {
				m |= 1 << i
			}
		}
		return m
	})
}

var maskMemo = newMemo[uint16](1 << 17)

// countGroups fills v.counts from the token sources.
func (v *view) countGroups() {
	v.counts = make([][]float64, len(sources))
	for si, s := range sources {
		c := make([]float64, len(groups))
		for _, t := range s.toks(v) {
			m := groupMask(t)
			for m != 0 {
				i := bits.TrailingZeros16(m)
				c[i]++
				m &^= 1 << i
			}
		}
		v.counts[si] = c
	}
}

// StructuralAttrs returns the attributes of [Structural] vectors.
func StructuralAttrs() []learn.Attr {
	out := make([]learn.Attr, len(structural))
	for i, f := range structural {
		out[i] = learn.Attr{Name: f.name, Kind: learn.Continuous}
	}
	return out
}

// Structural returns the structural features of f in [StructuralAttrs]
// order: control counts by type, method, the single-text-box shape, and
// how many tokens of each purpose (search, query-box names, filter, login,
// register, recover, contact, newsletter, order, email) appear in the
// action URL, the field names, the hidden field names, the form's
// id/name/class, the submit captions, the placeholders/labels and the
// form's text, and in all of them together.
func Structural(f *page.Form) []float64 { return analyze(f).structural() }

// analysis caches what the classifiers compute from one form, so HIFI's
// steps share it.
type analysis struct {
	f    *page.Form
	v    *view
	x    []float64
	toks []string
}

func analyze(f *page.Form) *analysis { return &analysis{f: f, v: newView(f)} }

func (a *analysis) structural() []float64 {
	if a.x == nil {
		a.x = make([]float64, len(structural))
		for i, ft := range structural {
			a.x[i] = ft.f(a.v)
		}
	}
	return a.x
}

// Tokens returns the form's prefixed tokens for the token-level models:
// "a:" action path, "n:" field names/ids, "h:" hidden names, "f:" form
// id/name/class, "s:" captions, "p:" placeholders/labels/values,
// "t:" form text (stemmed, stop words dropped), "ty:" field types and
// "m:" method.
func Tokens(f *page.Form) []string { return analyze(f).tokens() }

func (a *analysis) tokens() []string {
	if a.toks == nil {
		a.toks = uniq(a.v.tokens())
	}
	return a.toks
}

func (v *view) tokens() []string {
	f := v.f
	var out []string
	add := func(prefix string, toks []string) {
		for _, t := range toks {
			out = append(out, prefix+t)
		}
	}
	add("a:", v.action)
	add("n:", v.names)
	add("h:", v.hiddenNames)
	add("f:", v.attrs)
	add("s:", v.captions)
	add("p:", v.hints)
	add("t:", without(text.Terms(capText(f.Text)), text.Terms(f.LinkText)))
	for _, fd := range f.Fields {
		typ := strings.ToLower(fd.Type)
		if typ == "" {
			typ = strings.ToLower(fd.Tag)
		}
		out = append(out, "ty:"+typ)
	}
	out = append(out, "m:"+strings.ToLower(f.Method))
	return out
}
