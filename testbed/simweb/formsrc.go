package simweb

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Form kinds used in the ground truth. Formasaurus letters map onto them:
// s → search (or external when it submits to a web search engine), l → login,
// r → registration, p → password, c → contact, m → newsletter, b → order,
// o/P/V/N/C → other.
const (
	KindSearch       = "search"       // a searchable form in front of a hidden database
	KindExternal     = "external"     // a search box that submits to the search engine (site search)
	KindLogin        = "login"        // log in
	KindRegistration = "registration" // sign up
	KindPassword     = "password"     // password / login recovery
	KindContact      = "contact"      // contact or comment
	KindNewsletter   = "newsletter"   // join a mailing list
	KindOrder        = "order"        // order / add to cart
	KindOther        = "other"        // poll, display options, navigation, captcha, other
)

var letterKind = map[string]string{"s": KindSearch, "l": KindLogin, "r": KindRegistration, "p": KindPassword,
	"c": KindContact, "m": KindNewsletter, "b": KindOrder, "o": KindOther, "P": KindOther, "V": KindOther,
	"N": KindOther, "C": KindOther}

// Sentinels replaced when a form is placed on a page.
const (
	actionSentinel = "{{SIMWEB_ACTION}}"
	hostSentinel   = "{{SIMWEB_HOST}}"
)

// FormSource is one real form cut out of a labeled page, ready to be placed
// on a simulated page.
type FormSource struct {
	Kind    string // one of the Kind constants
	Letter  string // the Formasaurus label
	Source  string // "formasaurus:html/page.html#2" (page and form index)
	URL     string // the page's original URL
	Method  string // GET or POST
	Fields  []FieldInfo
	html    string // outer HTML with the action replaced by actionSentinel
	english bool   // most of its words are English
}

// FieldInfo summarises one control of a form for the ground truth.
type FieldInfo struct {
	Tag  string `json:"tag"`
	Type string `json:"type,omitempty"`
	Name string `json:"name,omitempty"`
}

type fsIndexEntry struct {
	Forms []string `json:"forms"`
	URL   string   `json:"url"`
}

// loadFormasaurus reads a Formasaurus-layout folder (index.json + html/) and
// returns the usable forms grouped by kind, with warnings for pages whose
// form count disagrees with their labels.
func loadFormasaurus(dir string, readFile func(string) ([]byte, error), english map[string]bool) (map[string][]*FormSource, []string, error) {
	b, err := readFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("formasaurus index: %w", err)
	}
	var idx map[string]fsIndexEntry
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, nil, fmt.Errorf("formasaurus index %s: %w", dir, err)
	}
	pages := make([]string, 0, len(idx))
	for p := range idx {
		pages = append(pages, p)
	}
	sort.Strings(pages)
	out := map[string][]*FormSource{}
	var warn []string
	for _, p := range pages {
		ent := idx[p]
		body, err := readFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			warn = append(warn, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		doc, err := html.Parse(strings.NewReader(string(body)))
		if err != nil {
			warn = append(warn, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		forms := findForms(doc)
		if len(forms) != len(ent.Forms) {
			warn = append(warn, fmt.Sprintf("%s: %d forms, %d labels", p, len(forms), len(ent.Forms)))
			continue
		}
		for i, f := range forms {
			kind, ok := letterKind[ent.Forms[i]]
			if !ok {
				continue
			}
			if fs := cutForm(f, kind); fs != nil {
				fs.english = isEnglish(f, english)
				fs.Letter = ent.Forms[i]
				fs.Source = fmt.Sprintf("formasaurus:%s#%d", p, i)
				fs.URL = ent.URL
				out[fs.Kind] = append(out[fs.Kind], fs)
			}
		}
	}
	return out, warn, nil
}

// findForms lists <form> elements in document order, as an HTML5 parser
// builds them (nested form tags are dropped by the parser itself).
func findForms(n *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Form {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

var dropTags = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Svg: true, atom.Link: true, atom.Meta: true, atom.Template: true}

var engineHosts = []string{"google.", "bing.", "yahoo.", "yandex.", "duckduckgo.", "baidu.", "ask.com", "search.msn.", "startpage.", "freefind.", "picosearch.", "searchblox.", "swiftype.", "addsearch."}

const maxFormHTML = 12 << 10

// cutForm cleans one form and turns it into a FormSource, or returns nil
// when the form is unusable (too large, mostly non-Latin text, a search
// form without a text box).
func cutForm(f *html.Node, kind string) *FormSource {
	f = cloneNode(f)
	clean(f)
	origAction := strings.ToLower(attr(f, "action"))
	method := strings.ToUpper(strings.TrimSpace(attr(f, "method")))
	if method != "POST" {
		method = "GET"
	}
	if !latinText(f) {
		return nil
	}
	fs := &FormSource{Kind: kind, Method: method}
	if kind == KindSearch {
		ext := false
		for _, h := range engineHosts {
			if strings.Contains(origAction, h) {
				ext = true
			}
		}
		eachControl(f, func(c *html.Node, tag, typ string) {
			if typ == "hidden" {
				switch strings.ToLower(attr(c, "name")) {
				case "cx", "sitesearch", "as_sitesearch", "domains", "sitesearch2":
					ext = true
				}
			}
		})
		main := mainTextBox(f)
		if main == nil {
			return nil
		}
		if ext {
			fs.Kind = KindExternal
			prepareExternal(f, main)
		} else {
			prepareSearch(f, main)
		}
	}
	setAttr(f, "action", actionSentinel)
	eachControl(f, func(c *html.Node, tag, typ string) {
		fs.Fields = append(fs.Fields, FieldInfo{Tag: tag, Type: typ, Name: attr(c, "name")})
	})
	if len(fs.Fields) == 0 {
		return nil // the parser moved the controls out (forms inside tables)
	}
	var b strings.Builder
	if err := html.Render(&b, f); err != nil {
		return nil
	}
	if b.Len() > maxFormHTML {
		return nil
	}
	fs.html = b.String()
	return fs
}

// prepareSearch makes a real search form drive a hidden database: the
// database builds its conjunctive query from every submitted value, so
// controls that are not query boxes (hidden fields, category and sort
// selects, checkboxes, named buttons) are renamed with a leading "_", which
// the database ignores, as a real site ignores display options.
func prepareSearch(f, main *html.Node) {
	removeAttr(f, "enctype")
	eachControl(f, func(c *html.Node, tag, typ string) {
		name := attr(c, "name")
		if name == "" || c == main || strings.HasPrefix(name, "_") {
			return
		}
		if tag == "input" && (typ == "text" || typ == "search") || tag == "textarea" {
			removeAttr(c, "value") // a pre-filled second box would filter every query
			return
		}
		setAttr(c, "name", "_"+name)
	})
}

// prepareExternal turns a search-engine box into a box for the simulated
// engine: the query box is "q" and a sitesearch field names the host.
func prepareExternal(f, main *html.Node) {
	removeAttr(f, "enctype")
	setAttr(main, "name", "q")
	eachControl(f, func(c *html.Node, tag, typ string) {
		if typ != "hidden" {
			return
		}
		switch strings.ToLower(attr(c, "name")) {
		case "sitesearch", "as_sitesearch", "domains":
			setAttr(c, "name", "sitesearch")
			setAttr(c, "value", hostSentinel)
		}
	})
}

// mainTextBox is the first text-like input (the query box of a search form).
func mainTextBox(f *html.Node) *html.Node {
	var found *html.Node
	eachControl(f, func(c *html.Node, tag, typ string) {
		if found == nil && tag == "input" && (typ == "text" || typ == "search") && attr(c, "name") != "" {
			found = c
		}
	})
	return found
}

// eachControl visits input, select, textarea and button elements; typ is
// the lower-cased input type ("text" when missing), or the tag for others.
func eachControl(n *html.Node, fn func(c *html.Node, tag, typ string)) {
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Input:
				t := strings.ToLower(strings.TrimSpace(attr(n, "type")))
				if t == "" {
					t = "text"
				}
				fn(n, "input", t)
			case atom.Select, atom.Textarea:
				fn(n, n.Data, n.Data)
			case atom.Button:
				t := strings.ToLower(attr(n, "type"))
				if t == "" {
					t = "submit"
				}
				fn(n, "button", t)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
}

// clean drops scripts and embedded objects, event handlers and styles, and
// points links and images inside the form at nothing external.
func clean(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && dropTags[c.DataAtom] || c.Type == html.CommentNode {
			n.RemoveChild(c)
		} else {
			clean(c)
		}
		c = next
	}
	if n.Type != html.ElementNode {
		return
	}
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		k := strings.ToLower(a.Key)
		switch {
		case strings.HasPrefix(k, "on"), k == "style", k == "target", k == "srcset", k == "formaction", strings.HasPrefix(k, "data-"):
			continue
		case k == "src" || k == "background":
			continue
		case k == "href":
			a.Val = "/"
		}
		kept = append(kept, a)
	}
	n.Attr = kept
}

// latinText reports whether most letters of the form's text and labels are
// Latin, so the simulated (English) web does not carry Cyrillic or CJK forms.
func latinText(n *html.Node) bool {
	latin, other := 0, 0
	var walk func(*html.Node)
	count := func(s string) {
		for _, r := range s {
			if unicode.IsLetter(r) {
				if r < 0x250 {
					latin++
				} else {
					other++
				}
			}
		}
	}
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			count(n.Data)
		case html.ElementNode:
			count(attr(n, "placeholder"))
			if n.DataAtom == atom.Input {
				count(attr(n, "value"))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return other*10 <= latin+other
}

// isEnglish reports whether at least 60% of the words of a form's text,
// placeholders, values and options are English (true for a form without
// words).
func isEnglish(n *html.Node, english map[string]bool) bool {
	total, en := 0, 0
	var walk func(*html.Node)
	count := func(s string) {
		for _, t := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len([]rune(t)) < 3 {
				continue
			}
			total++
			if english[t] {
				en++
			}
		}
	}
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			if p := n.Parent; p == nil || p.DataAtom != atom.Script && p.DataAtom != atom.Style {
				count(n.Data)
			}
		case html.ElementNode:
			count(attr(n, "placeholder"))
			count(attr(n, "title"))
			if n.DataAtom == atom.Input {
				count(attr(n, "value"))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return total == 0 || en*10 >= total*6
}

func cloneNode(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace}
	c.Attr = append([]html.Attribute(nil), n.Attr...)
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		c.AppendChild(cloneNode(k))
	}
	return c
}

func attr(n *html.Node, k string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, k) {
			return a.Val
		}
	}
	return ""
}

func setAttr(n *html.Node, k, v string) {
	for i, a := range n.Attr {
		if strings.EqualFold(a.Key, k) {
			n.Attr[i].Val = v
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: k, Val: v})
}

func removeAttr(n *html.Node, k string) {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		if !strings.EqualFold(a.Key, k) {
			kept = append(kept, a)
		}
	}
	n.Attr = kept
}

// osReadFile is the default file reader (tests may substitute an fs.FS).
func osReadFile(p string) ([]byte, error) { return os.ReadFile(p) }
