package simweb

import (
	"bytes"
	"fmt"
	"html"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// docForm is one form of a composed page, in document order.
type docForm struct {
	kind   string
	topic  int // topic of the hidden database, -1 for other forms
	db     int // database index on the site, -1 for other forms
	method string
	action string // absolute URL
	fields []FieldInfo
	source string // where the markup came from
}

// docLink is one link of a composed page.
type docLink struct {
	url      string // absolute URL as linked (session ids and faults included)
	site     int32  // target site, -1 for a host that does not exist
	page     int32  // target page index, -1 when not a known page
	external bool
	fault    string // "", "broken", "redirect", "loop"
}

// doc composes one page: its HTML, links and forms come from the same pass,
// so the ground truth always matches what is served.
type doc struct {
	w         *Web
	s         *site
	pid       int32
	p         *page
	r         *rand.Rand
	buf       bytes.Buffer
	links     []docLink
	forms     []docForm
	malformed bool
	linkN     uint64
}

func (w *Web) siteBase(id int32) string { return "http://" + w.sites[id].host }

// pageURL is the canonical absolute URL of a page.
func (w *Web) pageURL(s *site, pid int32) string { return w.siteBase(s.h.id) + s.pages[pid].path }

// compose renders page pid of site s.
func (w *Web) compose(s *site, pid int32, malformed bool) *doc {
	d := &doc{w: w, s: s, pid: pid, p: &s.pages[pid], malformed: malformed,
		r: rngFor(w.cfg.Seed, "body", uint64(s.h.id), uint64(pid))}
	d.buf.Grow(8 << 10)
	w.writePage(d)
	return d
}

func (d *doc) raw(s string)  { d.buf.WriteString(s) }
func (d *doc) text(s string) { d.buf.WriteString(html.EscapeString(s)) }

// end closes a tag, except now and then on a malformed page.
func (d *doc) end(tag string) {
	if d.malformed && d.r.IntN(3) == 0 {
		return
	}
	d.raw("</" + tag + ">")
}

// tag opens an element with attributes given as name, value pairs.
func (d *doc) tag(name string, kv ...string) {
	if d.malformed && d.r.IntN(4) == 0 {
		name = strings.ToUpper(name)
	}
	d.raw("<" + name)
	for i := 0; i+1 < len(kv); i += 2 {
		v := html.EscapeString(kv[i+1])
		if d.malformed && !strings.ContainsAny(v, " \"'=<>`&") && d.r.IntN(2) == 0 {
			d.raw(" " + kv[i] + "=" + v)
		} else {
			d.raw(" " + kv[i] + `="` + v + `"`)
		}
	}
	d.raw(">")
}

// garbage adds the kind of debris broken pages carry.
func (d *doc) garbage() {
	if !d.malformed {
		return
	}
	switch d.r.IntN(5) {
	case 0:
		d.raw("</span></div></td>")
	case 1:
		d.raw("<p><b><i>")
	case 2:
		d.raw("<div class=\"x\" class=\"y\"><font color=red>")
	case 3:
		d.raw("\xe9\xff & < ")
	default:
		d.raw("<table><tr><td>")
	}
}

// word draws one word: topical with probability Text.TopicShare.
func (d *doc) word() string {
	if d.r.Float64() < d.w.cfg.Text.TopicShare {
		t := d.w.topics[d.s.h.topics[d.r.IntN(len(d.s.h.topics))]]
		return t.Vocab.Words[t.Vocab.dist.pick(d.r)]
	}
	g := d.w.data.Generic
	return g.Words[g.dist.pick(d.r)]
}

func (d *doc) sentence() string {
	n := 6 + d.r.IntN(9)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = d.word()
	}
	s := strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// para writes a paragraph of about n words.
func (d *doc) para(n int) {
	if n <= 0 {
		return
	}
	d.tag("p")
	for written := 0; written < n; {
		s := d.sentence()
		written += strings.Count(s, " ") + 1
		d.text(s + " ")
	}
	d.end("p")
	d.raw("\n")
	d.garbage()
}

// pageWords is the page's body length in words.
func (d *doc) pageWords() int {
	n := d.w.cfg.Text.Words
	if n == 0 {
		return 0
	}
	return n/2 + d.r.IntN(n+1)
}

// keywords are the page's index terms for the search engine (also in its
// meta tags and first paragraph), drawn from their own stream.
func (w *Web) keywords(s *site, pid int32) []string {
	r := rngFor(w.cfg.Seed, "kw", uint64(s.h.id), uint64(pid))
	var out []string
	seen := map[string]bool{}
	for i := 0; i < 12 && len(out) < 8; i++ {
		t := w.topics[s.h.topics[r.IntN(len(s.h.topics))]]
		x := t.Vocab.Words[t.Vocab.dist.pick(r)]
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// pageTitle is the <title> of a page.
func (w *Web) pageTitle(s *site, pid int32) string {
	p := &s.pages[pid]
	switch p.kind {
	case pkHome:
		return s.h.name + " – " + titleCase(w.topics[s.h.topic].Label)
	case pkForm:
		db := s.h.dbs[p.aux]
		if db.anchor != "" && db.anchor[0] >= 'A' && !contains(weakAnchors, db.anchor) {
			return db.anchor + " | " + s.h.name
		}
		return p.title + " | " + s.h.name
	}
	return p.title + " | " + s.h.name
}

// link writes an in-site link to page tp, with session ids and link faults.
func (d *doc) link(tp int32, anchor, class string, faults bool) {
	u, l := d.w.internalHref(d.s, d.pid, tp, d.linkN, faults)
	d.linkN++
	d.links = append(d.links, l)
	if class != "" {
		d.tag("a", "href", u, "class", class)
	} else {
		d.tag("a", "href", u)
	}
	d.text(anchor)
	d.raw("</a>")
}

// internalHref is the href of a link from page from to page tp, and its
// ground-truth description.
func (w *Web) internalHref(s *site, from, tp int32, n uint64, faults bool) (string, docLink) {
	base := w.siteBase(s.h.id)
	path := s.pages[tp].path
	l := docLink{site: s.h.id, page: tp}
	if faults {
		k := key(w.cfg.Seed, "lfault", uint64(s.h.id), uint64(from), n)
		fc := w.cfg.Faults
		u := unit(k)
		switch {
		case u < fc.BrokenLink && !s.pages[tp].onPath:
			l.fault, l.page = "broken", -1
			path = dirOf(path) + fmt.Sprintf("missing-%x.html", k&0xffffff)
		case u < fc.BrokenLink+fc.Redirect:
			l.fault = "redirect"
			path = "/r/" + strconv.Itoa(1+int(k>>40)%4) + path
		case u < fc.BrokenLink+fc.Redirect+fc.Loop && !s.pages[tp].onPath:
			l.fault, l.page = "loop", -1
			path = fmt.Sprintf("/loop/%d/a", k>>44)
		}
	}
	if l.fault == "" && s.h.feat.sessionIDs {
		sid := fmt.Sprintf("%016x", key(w.cfg.Seed, "sess", uint64(s.h.id), uint64(from), uint64(tp)))
		path = withSession(path, sid, s.h.feat.sessionStyle)
	}
	l.url = base + path
	// most sites link with root-relative paths, some with absolute URLs
	if key(w.cfg.Seed, "abs", uint64(s.h.id))%4 == 0 {
		return l.url, l
	}
	return path, l
}

// withSession adds a session id the way the site does it.
func withSession(path, sid string, style uint8) string {
	switch style {
	case 0:
		if i := strings.IndexByte(path, '?'); i >= 0 {
			return path[:i] + ";jsessionid=" + sid + path[i:]
		}
		return path + ";jsessionid=" + sid
	case 1:
		if strings.Contains(path, "?") {
			return path + "&sid=" + sid
		}
		return path + "?sid=" + sid
	}
	if strings.Contains(path, "?") {
		return path + "&PHPSESSID=" + sid
	}
	return path + "?PHPSESSID=" + sid
}

// extLink is an out-of-site link of a page.
type extLink struct {
	site   int32
	sec    int // -1: homepage, else section index
	anchor string
	docLink
}

// externalLinks lists the out-of-site links of a page. It depends only on
// the site plan, so the search engine's link index agrees with the pages.
func (w *Web) externalLinks(s *site, pid int32) []extLink {
	p := &s.pages[pid]
	r := rngFor(w.cfg.Seed, "ext", uint64(s.h.id), uint64(pid))
	var targets []int32
	var secs []int
	if p.kind == pkHub {
		for _, t := range w.hubs[p.aux].targets {
			targets = append(targets, t)
			secs = append(secs, -1)
		}
	} else {
		mean := w.cfg.ExternalLinks
		if p.kind == pkHome {
			mean *= 3
		}
		n := poisson(r, mean)
		for i := 0; i < n; i++ {
			var t int32
			if r.Float64() < w.cfg.Homophily {
				tp := s.h.topics[r.IntN(len(s.h.topics))]
				if w.linkDist[tp].empty() {
					continue
				}
				t = w.byTopic[tp][w.linkDist[tp].pick(r)]
			} else {
				t = int32(w.siteDist.pick(r))
			}
			if t == s.h.id {
				continue
			}
			sec := -1
			if r.IntN(4) == 0 {
				sec = r.IntN(len(w.sites[t].sections))
			}
			targets = append(targets, t)
			secs = append(secs, sec)
		}
	}
	out := make([]extLink, 0, len(targets))
	fc := w.cfg.Faults
	for i, t := range targets {
		th := &w.sites[t]
		e := extLink{site: t, sec: secs[i]}
		e.docLink = docLink{site: t, page: -2, external: true}
		path := "/"
		if e.sec >= 0 {
			path = "/" + th.sections[e.sec] + "/"
			e.anchor = th.name + " – " + titleCase(strings.ReplaceAll(th.sections[e.sec], "-", " "))
		} else {
			e.anchor = th.name
		}
		k := key(w.cfg.Seed, "xfault", uint64(s.h.id), uint64(pid), uint64(i))
		u := unit(k)
		host := th.host
		switch {
		case u < fc.BrokenLink:
			e.fault = "broken"
			e.page = -1
			if k&1 == 0 {
				host, e.docLink.site = fmt.Sprintf("%s-%x.com", slugWord(w.topics[th.topic].Noun), k>>40), -1
			} else {
				path = fmt.Sprintf("/gone-%x.html", k>>40)
			}
		case u < fc.BrokenLink+fc.Redirect:
			e.fault = "redirect"
			path = "/r/" + strconv.Itoa(1+int(k>>40)%4) + path
		}
		e.url = "http://" + host + path
		out = append(out, e)
	}
	return out
}

// extTargetURL is the canonical URL an external link ends on (after redirects).
func (w *Web) extTargetURL(e extLink) string {
	if e.sec >= 0 {
		return w.siteBase(e.site) + "/" + w.sites[e.site].sections[e.sec] + "/"
	}
	return w.siteBase(e.site) + "/"
}

// writePage renders the whole page.
func (w *Web) writePage(d *doc) {
	s, p := d.s, d.p
	title := w.pageTitle(s, d.pid)
	kw := w.keywords(s, d.pid)
	d.raw("<!DOCTYPE html>\n")
	if d.malformed {
		d.raw("<HTML><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">")
	} else {
		d.raw("<html lang=\"en\"><head><meta charset=\"utf-8\">")
	}
	d.raw("<title>")
	d.text(title)
	d.raw("</title>\n")
	desc := titleCase(w.topics[s.h.topic].Label) + ": " + strings.Join(kw[:min(4, len(kw))], ", ") + "."
	d.tag("meta", "name", "description", "content", desc)
	d.tag("meta", "name", "keywords", "content", strings.Join(kw, ", "))
	d.raw("</head>\n<body>\n")
	w.writeHeader(d)
	d.raw("<div id=\"main\">\n")
	w.writeBreadcrumbs(d)
	d.tag("h1")
	d.text(strings.TrimSuffix(title, " | "+s.h.name))
	d.end("h1")
	d.raw("\n<p class=\"intro\">")
	d.text(titleCase(w.topics[s.h.topic].Label) + " – " + strings.Join(kw, " ") + ". " + d.sentence())
	d.raw("</p>\n")
	words := d.pageWords()
	switch p.kind {
	case pkHome:
		d.para(words / 2)
		w.writeDBForms(d, 0)
		w.writeChildren(d, "Explore")
		d.para(words / 2)
	case pkSection, pkSub, pkListing:
		d.para(words / 3)
		w.writeChildren(d, "")
		w.writePagination(d)
		w.maybeOtherForm(d)
		d.para(words / 3)
	case pkItem:
		w.writeRecord(d)
		d.para(words / 2)
		w.writeChildren(d, "")
		w.maybeOrderForm(d)
	case pkUtility:
		w.writeUtility(d, words)
	case pkChain:
		d.para(words / 2)
		w.writeChildren(d, "")
	case pkForm:
		d.para(words / 4)
		w.writeDBForms(d, d.pid)
		w.writeChildren(d, "")
		d.para(words / 4)
	case pkHub:
		d.para(words / 4)
	}
	w.writeRelated(d)
	w.writeExternal(d)
	d.raw("</div>\n")
	w.writeFooter(d)
	d.raw("</body>")
	d.end("html")
	d.raw("\n")
}

func (w *Web) writeHeader(d *doc) {
	s := d.s
	d.raw("<div id=\"header\">")
	d.link(0, s.h.name, "logo", false)
	if s.h.feat.searchBox {
		w.writeExternalBox(d)
	}
	if s.h.feat.headerLogin {
		w.writeFormKind(d, KindLogin, s.h.feat.loginForm)
	}
	d.raw("\n<ul class=\"nav\">")
	for _, sec := range s.h.sections {
		d.raw("<li>")
		d.link(s.byPath["/"+sec+"/"], titleCase(strings.ReplaceAll(sec, "-", " ")), "", false)
		d.end("li")
	}
	d.raw("</ul></div>\n")
}

func (w *Web) writeBreadcrumbs(d *doc) {
	if d.p.parent < 0 {
		return
	}
	var chain []int32
	for a := d.p.parent; a >= 0; a = d.s.pages[a].parent {
		chain = append(chain, a)
	}
	d.raw("<div class=\"breadcrumbs\">")
	for i := len(chain) - 1; i >= 0; i-- {
		a := chain[i]
		name := d.s.pages[a].title
		if a == 0 {
			name = "Home"
		}
		d.link(a, name, "", false)
		d.raw(" &rsaquo; ")
	}
	d.text(d.p.title)
	d.raw("</div>\n")
}

// writeChildren lists the page's tree children with a short description.
func (w *Web) writeChildren(d *doc, heading string) {
	kids := d.p.children
	if d.p.kind == pkHome {
		// sections and utility pages are in the navigation already
		var rest []int32
		for _, c := range kids {
			if k := d.s.pages[c].kind; k != pkSection && k != pkUtility {
				rest = append(rest, c)
			}
		}
		kids = rest
	}
	if d.p.kind == pkListing || d.p.kind == pkSub || d.p.kind == pkSection {
		var rest []int32
		for _, c := range kids {
			if d.s.pages[c].kind != pkListing {
				rest = append(rest, c)
			}
		}
		kids = rest
	}
	if len(kids) == 0 {
		return
	}
	if heading != "" {
		d.tag("h2")
		d.text(heading)
		d.end("h2")
	}
	d.raw("\n<ul class=\"list\">")
	for _, c := range kids {
		cp := &d.s.pages[c]
		d.raw("<li>")
		switch cp.kind {
		case pkForm:
			db := d.s.h.dbs[cp.aux]
			t := w.topics[db.topic]
			d.text(pickStr(d.r, []string{"Looking for " + t.Plural + "? ", "", "Use our tools: ", "New: "}))
			d.link(c, db.anchor, "", true)
			d.text(" " + pickStr(d.r, []string{"– search " + t.Label + " by keyword", "– " + d.sentence(), "", "– fast and free " + t.Noun + " search"}))
		case pkItem:
			d.link(c, cp.title, "", true)
			d.text(" – " + w.recordSnippet(d.s, int(cp.aux)))
		default:
			d.link(c, cp.title, "", true)
			d.text(" – " + d.sentence())
		}
		d.end("li")
		d.raw("\n")
	}
	d.raw("</ul>\n")
	d.garbage()
}

// writePagination links a listing page to its neighbours.
func (w *Web) writePagination(d *doc) {
	head := d.p.listing
	if d.p.kind != pkListing && !(d.p.kind == pkSection || d.p.kind == pkSub) {
		return
	}
	if d.p.kind != pkListing {
		head = d.pid
	}
	// the listing chain is the head plus its listing descendants in order
	cur := int32(1)
	if d.p.kind == pkListing {
		cur = d.p.aux
	}
	pages := w.listingPages(d.s, head)
	if len(pages) < 2 {
		return
	}
	d.raw("<div class=\"pagination\">")
	if cur > 1 {
		d.link(pages[cur-2], "« Previous", "prev", false)
		d.raw(" ")
	}
	for k := cur + 1; k <= cur+int32(d.s.h.jump) && int(k) <= len(pages); k++ {
		label := strconv.Itoa(int(k))
		if k == cur+1 {
			label = "Next »"
		}
		d.link(pages[k-1], label, "page", false)
		d.raw(" ")
	}
	d.raw("</div>\n")
}

// listingPages returns the pages of the listing headed by head, in order.
func (w *Web) listingPages(s *site, head int32) []int32 {
	out := []int32{head}
	var walk func(int32)
	var found []int32
	walk = func(p int32) {
		for _, c := range s.pages[p].children {
			if s.pages[c].kind == pkListing && s.pages[c].listing == head {
				found = append(found, c)
				walk(c)
			}
		}
	}
	walk(head)
	sort.Slice(found, func(a, b int) bool { return s.pages[found[a]].aux < s.pages[found[b]].aux })
	return append(out, found...)
}

// writeRelated links a few pages of the same section that are at most one
// level deeper, so that link depth stays the tree depth.
func (w *Web) writeRelated(d *doc) {
	if d.p.sec < 0 || d.p.kind == pkHub {
		return
	}
	sp := d.s.secPages[d.p.sec]
	lim := sort.Search(len(sp), func(i int) bool { return d.s.pages[sp[i]].depth > d.p.depth+1 })
	if lim == 0 {
		return
	}
	n := 2 + d.r.IntN(4)
	var picks []int32
	for i := 0; i < n*2 && len(picks) < n; i++ {
		c := sp[d.r.IntN(lim)]
		k := d.s.pages[c].kind
		if c == d.pid || k == pkForm || k == pkHub || containsI32(picks, c) {
			continue
		}
		picks = append(picks, c)
	}
	if len(picks) == 0 {
		return
	}
	d.raw("<div class=\"related\"><h3>Related</h3><ul>")
	for _, c := range picks {
		d.raw("<li>")
		d.link(c, d.s.pages[c].title, "", true)
		d.end("li")
	}
	d.raw("</ul></div>\n")
}

func containsI32(xs []int32, x int32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (w *Web) writeExternal(d *doc) {
	ext := w.externalLinks(d.s, d.pid)
	if len(ext) == 0 {
		return
	}
	heading := pickStr(d.r, []string{"Links", "Partners", "See also", "Around the web", "Friends of " + d.s.h.name})
	if d.p.kind == pkHub {
		heading = w.hubs[d.p.aux].title
	}
	d.raw("<div class=\"external\"><h3>")
	d.text(heading)
	d.raw("</h3><ul>")
	for _, e := range ext {
		d.links = append(d.links, e.docLink)
		d.raw("<li>")
		d.tag("a", "href", e.url)
		d.text(e.anchor)
		d.raw("</a> – ")
		t := w.topics[w.sites[e.site0()].topic]
		d.text(titleCase(t.Label) + ". " + d.sentence())
		d.end("li")
		d.raw("\n")
	}
	d.raw("</ul></div>\n")
}

func (e extLink) site0() int32 {
	if e.site < 0 {
		return 0
	}
	return e.site
}

// writeRecord shows the record an item page describes.
func (w *Web) writeRecord(d *doc) {
	pool := d.s.pool
	if len(pool) == 0 {
		return
	}
	rec := pool[int(d.p.aux)%len(pool)]
	d.raw("<dl class=\"details\">")
	for _, k := range rec.Order {
		if v := rec.Fields[k]; v != "" {
			d.raw("<dt>")
			d.text(strings.ReplaceAll(k, "_", " "))
			d.raw("</dt><dd>")
			d.text(v)
			d.raw("</dd>")
		}
	}
	d.raw("</dl>\n")
}

// recordSnippet is a one-line summary of a pool record for listings.
func (w *Web) recordSnippet(s *site, i int) string {
	if len(s.pool) == 0 {
		return ""
	}
	rec := s.pool[i%len(s.pool)]
	var parts []string
	for _, k := range rec.Order {
		if v := rec.Fields[k]; v != "" && len(v) < 40 && len(parts) < 3 {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, ", ")
}

func (w *Web) writeUtility(d *doc, words int) {
	f := d.s.h.feat
	d.para(words / 2)
	switch d.p.aux {
	case utContact:
		w.writeFormKind(d, KindContact, f.contactForm)
	case utLogin:
		w.writeFormKind(d, KindLogin, f.loginForm)
	case utRegister:
		w.writeFormKind(d, KindRegistration, f.registerForm)
	case utPassword:
		w.writeFormKind(d, KindPassword, f.passwordForm)
	case utCalendar:
		w.writeCalendarLinks(d, "2024-01")
	}
}

func (w *Web) maybeOrderForm(d *doc) {
	if d.s.h.feat.shop && chance(key(w.cfg.Seed, "order", uint64(d.s.h.id), uint64(d.pid)), w.cfg.Forms.OrderForms) {
		w.writeFormKind(d, KindOrder, int(key(w.cfg.Seed, "orderf", uint64(d.s.h.id))%1e6))
	}
}

func (w *Web) maybeOtherForm(d *doc) {
	if chance(key(w.cfg.Seed, "other", uint64(d.s.h.id), uint64(d.pid)), w.cfg.Forms.OtherForms) {
		w.writeFormKind(d, KindOther, int(key(w.cfg.Seed, "otherf", uint64(d.s.h.id), uint64(d.pid))%1e6))
	}
}

func (w *Web) writeFooter(d *doc) {
	s := d.s
	d.raw("<div id=\"footer\">")
	if s.h.feat.footerNews {
		w.writeFormKind(d, KindNewsletter, s.h.feat.newsForm)
	}
	d.raw("<ul class=\"footer-links\">")
	for _, k := range []int{utAbout, utContact, utLogin, utRegister, utPassword, utCalendar, utPrivacy} {
		if id, ok := s.util[k]; ok {
			d.raw("<li>")
			name := map[int]string{utAbout: "About us", utContact: "Contact", utLogin: "Sign in", utRegister: "Register", utPassword: "Forgot password?", utCalendar: "Events", utPrivacy: "Privacy policy"}[k]
			d.link(id, name, "", false)
			d.end("li")
		}
	}
	d.raw("</ul><p class=\"copyright\">&copy; ")
	d.text(s.h.name)
	d.raw(". All rights reserved.</p></div>\n")
}

// writeFormKind places a real non-searchable form of the given kind.
func (w *Web) writeFormKind(d *doc, kind string, pick int) {
	pool := w.data.Forms[kind]
	if len(pool) == 0 {
		return
	}
	src := pool[pick%len(pool)]
	action := w.siteBase(d.s.h.id) + "/forms/" + kind
	d.emitForm(src.html, "/forms/"+kind, docForm{kind: kind, topic: -1, db: -1, method: src.Method, action: action, fields: src.Fields, source: src.Source})
}

// writeExternalBox places a search box that submits to the search engine.
func (w *Web) writeExternalBox(d *doc) {
	pool := append(append([]*FormSource(nil), w.data.Forms[KindExternal]...), w.data.Forms[KindSearch]...)
	if len(pool) == 0 {
		return
	}
	src := pool[d.s.h.feat.boxForm%len(pool)]
	action := "http://" + SearchEngineHost + "/search"
	h := strings.ReplaceAll(src.html, hostSentinel, d.s.h.host)
	d.emitForm(h, action, docForm{kind: KindExternal, topic: -1, db: -1, method: src.Method, action: action, fields: src.Fields, source: src.Source})
}

func (d *doc) emitForm(markup, action string, f docForm) {
	d.raw("\n")
	d.raw(strings.Replace(markup, actionSentinel, html.EscapeString(action), 1))
	d.raw("\n")
	d.forms = append(d.forms, f)
}

// writeDBForms writes the search interfaces of every database whose entry
// page is pid.
func (w *Web) writeDBForms(d *doc, pid int32) {
	for i, ep := range d.s.dbPage {
		if ep != pid {
			continue
		}
		db := &d.s.h.dbs[i]
		t := w.topics[db.topic]
		action := w.siteBase(d.s.h.id) + db.prefix + "/search"
		d.raw("<div class=\"search-panel\">")
		d.tag("h2")
		d.text(pickStr(d.r, []string{"Search " + t.Plural, "Find " + t.Plural, titleCase(t.Label) + " search", "Search our database"}))
		d.end("h2")
		d.text(fmt.Sprintf("Search %s by keyword. ", t.Label))
		if db.style == "keyword" || db.style == "both" {
			pool := w.data.Forms[KindSearch]
			if len(pool) > 0 {
				src := pool[db.markup%len(pool)]
				d.emitForm(src.html, db.prefix+"/search", docForm{kind: KindSearch, topic: db.topic, db: i, method: src.Method, action: action, fields: src.Fields, source: src.Source})
			}
		}
		if db.style == "advanced" || db.style == "both" || len(w.data.Forms[KindSearch]) == 0 {
			markup, fields := w.advancedForm(d.s, i)
			d.emitForm(markup, db.prefix+"/search", docForm{kind: KindSearch, topic: db.topic, db: i, method: db.method, action: action, fields: fields, source: "generated"})
		}
		d.raw("</div>\n")
	}
}

// advancedForm generates a multi-attribute form whose selects offer the
// most frequent values of the topic's facet fields in this database.
func (w *Web) advancedForm(s *site, i int) (string, []FieldInfo) {
	db := &s.h.dbs[i]
	t := w.topics[db.topic]
	recs := w.dbRecords(db)
	r := rand.New(rand.NewPCG(db.seed, 11))
	var b strings.Builder
	var fields []FieldInfo
	fmt.Fprintf(&b, "<form action=\"%s\" method=\"%s\" class=\"%s\">\n", actionSentinel, strings.ToLower(db.method), pickStr(r, []string{"advanced-search", "search-form", "finder", "query"}))
	table := r.IntN(2) == 0
	if table {
		b.WriteString("<table>\n")
	} else {
		fmt.Fprintf(&b, "<fieldset><legend>Find %s</legend>\n", html.EscapeString(t.Plural))
	}
	row := func(label, control string) {
		if table {
			fmt.Fprintf(&b, "<tr><td><label>%s</label></td><td>%s</td></tr>\n", html.EscapeString(label), control)
		} else {
			fmt.Fprintf(&b, "<label>%s</label> %s<br>\n", html.EscapeString(label), control)
		}
	}
	kwName := pickStr(r, []string{"keywords", "q", "query", "kw", "search", "terms"})
	row(pickStr(r, []string{"Keywords", "Search for", titleCase(t.Noun) + " keywords", "Any words"}),
		fmt.Sprintf(`<input type="text" name="%s" size="30">`, kwName))
	fields = append(fields, FieldInfo{Tag: "input", Type: "text", Name: kwName})
	for _, f := range t.Facets {
		vals := topValues(recs, f, 20)
		if len(vals) < 2 {
			continue
		}
		var o strings.Builder
		fmt.Fprintf(&o, `<select name="%s"><option value="">Any %s</option>`, f, html.EscapeString(strings.ReplaceAll(f, "_", " ")))
		for _, v := range vals {
			fmt.Fprintf(&o, `<option value="%s">%s</option>`, html.EscapeString(v), html.EscapeString(titleCase(v)))
		}
		o.WriteString("</select>")
		row(titleCase(strings.ReplaceAll(f, "_", " ")), o.String())
		fields = append(fields, FieldInfo{Tag: "select", Type: "select", Name: f})
	}
	sub := pickStr(r, []string{"Search", "Find", "Go", "Show results", "Search " + t.Plural})
	if table {
		fmt.Fprintf(&b, "<tr><td></td><td><input type=\"submit\" value=\"%s\"></td></tr>\n</table>\n", html.EscapeString(sub))
	} else {
		fmt.Fprintf(&b, "<input type=\"submit\" value=\"%s\">\n</fieldset>\n", html.EscapeString(sub))
	}
	fields = append(fields, FieldInfo{Tag: "input", Type: "submit"})
	b.WriteString("</form>")
	return b.String(), fields
}

// topValues returns up to n of the most frequent values of a field, sorted.
func topValues(recs []hiddendb.Record, field string, n int) []string {
	cnt := map[string]int{}
	for _, r := range recs {
		if v := strings.TrimSpace(r.Fields[field]); v != "" && len(v) <= 40 {
			cnt[v]++
		}
	}
	vals := sortedKeys(cnt)
	sort.SliceStable(vals, func(a, b int) bool { return cnt[vals[a]] > cnt[vals[b]] })
	if len(vals) > n {
		vals = vals[:n]
	}
	sort.Strings(vals)
	return vals
}
