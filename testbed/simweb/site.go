package simweb

import (
	"container/list"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// page kinds
const (
	pkHome uint8 = iota
	pkSection
	pkSub
	pkListing
	pkItem
	pkUtility
	pkChain
	pkForm
	pkHub
)

var pageKindName = []string{"home", "section", "category", "listing", "item", "utility", "path", "form", "hub"}

// utility page kinds (page.aux)
const (
	utAbout = iota
	utContact
	utLogin
	utRegister
	utPassword
	utPrivacy
	utCalendar
)

var utilName = []string{"about", "contact", "login", "register", "password", "privacy", "calendar"}

// page is one static page of a site.
type page struct {
	path     string // path with sorted query, e.g. "/cars/?page=2"
	title    string
	parent   int32
	depth    uint8
	kind     uint8
	onPath   bool // on the tree path to a searchable form: no permanent faults
	sec      int16
	aux      int32 // item record / listing number / db index / hub id / utility kind
	listing  int32 // for listing heads: first page index of the listing chain
	children []int32
}

// site is the generated structure of one site.
type site struct {
	h        *siteHeader
	pages    []page
	byPath   map[string]int32
	secPages [][]int32 // pages of each section, by depth
	dbPage   []int32   // entry page of each database
	util     map[int]int32
	pool     []hiddendb.Record // records the item pages describe
}

// siteCache keeps recently used site structures, bounded by page count.
type siteCache struct {
	w     *Web
	mu    sync.Mutex
	max   int
	n     int
	lru   *list.List
	items map[int32]*list.Element
	build map[int32]*sync.WaitGroup
}

type cacheEntry struct {
	id int32
	s  *site
}

func newSiteCache(w *Web, maxPages int) *siteCache {
	return &siteCache{w: w, max: maxPages, lru: list.New(), items: map[int32]*list.Element{}, build: map[int32]*sync.WaitGroup{}}
}

// get returns site id's structure, generating it at most once at a time.
func (c *siteCache) get(id int32) *site {
	for {
		c.mu.Lock()
		if e, ok := c.items[id]; ok {
			c.lru.MoveToFront(e)
			c.mu.Unlock()
			return e.Value.(*cacheEntry).s
		}
		if wg, ok := c.build[id]; ok {
			c.mu.Unlock()
			wg.Wait()
			continue
		}
		wg := &sync.WaitGroup{}
		wg.Add(1)
		c.build[id] = wg
		c.mu.Unlock()

		s := c.w.buildSite(id)

		c.mu.Lock()
		delete(c.build, id)
		c.items[id] = c.lru.PushFront(&cacheEntry{id, s})
		c.n += len(s.pages)
		for c.n > c.max && c.lru.Len() > 1 {
			old := c.lru.Back()
			e := old.Value.(*cacheEntry)
			c.lru.Remove(old)
			delete(c.items, e.id)
			c.n -= len(e.s.pages)
		}
		c.mu.Unlock()
		wg.Done()
		return s
	}
}

// site returns the structure of site id (cached).
func (w *Web) site(id int32) *site { return w.cache.get(id) }

// buildSite generates a site's pages from its own random stream.
func (w *Web) buildSite(id int32) *site {
	h := &w.sites[id]
	r := rngFor(w.cfg.Seed, "pages", uint64(id))
	s := &site{h: h, byPath: map[string]int32{}, util: map[int]int32{}, secPages: make([][]int32, len(h.sections))}
	s.pool = w.topics[h.topic].RecordPool()
	s.add(page{path: "/", parent: -1, kind: pkHome, sec: -1, title: h.name})
	// utility pages hang off the homepage
	f := h.feat
	utils := []struct {
		on   bool
		kind int
		path string
	}{
		{true, utAbout, pickStr(r, []string{"/about.html", "/about-us/", "/company/about.html"})},
		{f.contactPage, utContact, pickStr(r, []string{"/contact.html", "/contact-us/", "/company/contact.html"})},
		{f.loginPage, utLogin, pickStr(r, []string{"/account/login", "/login.php", "/signin/"})},
		{f.registerPage, utRegister, pickStr(r, []string{"/account/register", "/register.php", "/signup/"})},
		{f.passwordPage, utPassword, pickStr(r, []string{"/account/forgot-password", "/lostpassword.php", "/password/reset/"})},
		{true, utPrivacy, "/privacy.html"},
		{f.calendar, utCalendar, "/events/calendar"},
	}
	for _, u := range utils {
		if u.on {
			s.util[u.kind] = s.add(page{path: u.path, parent: 0, depth: 1, kind: pkUtility, sec: -1, aux: int32(u.kind), title: strings.ToUpper(utilName[u.kind][:1]) + utilName[u.kind][1:]})
		}
	}
	w.buildSections(s, r)
	w.placeHubs(s, r)
	for i := range h.dbs {
		s.dbPage = append(s.dbPage, w.placeDB(s, i, r))
	}
	for i := range s.pages {
		p := &s.pages[i]
		if p.sec >= 0 {
			s.secPages[p.sec] = append(s.secPages[p.sec], int32(i))
		}
	}
	for _, sp := range s.secPages {
		sort.SliceStable(sp, func(a, b int) bool { return s.pages[sp[a]].depth < s.pages[sp[b]].depth })
	}
	return s
}

// add appends a page, making its path unique, and links it from its parent.
func (s *site) add(p page) int32 {
	base := p.path
	for n := 2; ; n++ {
		if _, dup := s.byPath[p.path]; !dup {
			break
		}
		p.path = uniquePath(base, n)
	}
	id := int32(len(s.pages))
	s.pages = append(s.pages, p)
	s.byPath[p.path] = id
	if p.parent >= 0 {
		s.pages[p.parent].children = append(s.pages[p.parent].children, id)
	}
	return id
}

// uniquePath inserts a counter before the extension or trailing slash.
func uniquePath(p string, n int) string {
	q := ""
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p, q = p[:i], p[i:]
	}
	suffix := "-" + strconv.Itoa(n)
	switch {
	case strings.HasSuffix(p, "/"):
		return strings.TrimSuffix(p, "/") + suffix + "/" + q
	case strings.Contains(p[strings.LastIndexByte(p, '/')+1:], "."):
		i := strings.LastIndexByte(p, '.')
		return p[:i] + suffix + p[i:] + q
	}
	return p + suffix + q
}

// dirOf is the directory part of a page path ("/a/b.html?x" → "/a/").
func dirOf(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p[:strings.LastIndexByte(p, '/')+1]
}

func (w *Web) buildSections(s *site, r *rand.Rand) {
	h := s.h
	L := w.cfg.Sections.Listing
	k := len(h.sections)
	// one directory holds most items (Zipf sizes)
	sizes := make([]int, k)
	dist := newWeighted(zipfWeights(k, w.cfg.Sections.Skew))
	for i := 0; i < h.items; i++ {
		sizes[dist.pick(r)]++
	}
	for si, name := range h.sections {
		idx := s.add(page{path: "/" + name + "/", parent: 0, depth: 1, kind: pkSection, sec: int16(si), title: titleCase(strings.ReplaceAll(name, "-", " "))})
		m := sizes[si]
		switch {
		case m <= 3*L:
			w.buildListing(s, r, idx, m)
		default:
			c := (m + 2*L - 1) / (2 * L)
			if c > 12 {
				c = 12
			}
			subSizes := make([]int, c)
			sd := newWeighted(zipfWeights(c, 0.8))
			for i := 0; i < m; i++ {
				subSizes[sd.pick(r)]++
			}
			for j := 0; j < c; j++ {
				nm := w.subName(s, r)
				sub := s.add(page{path: "/" + name + "/" + nm + "/", parent: idx, depth: 2, kind: pkSub, sec: int16(si), title: titleCase(strings.ReplaceAll(nm, "-", " "))})
				w.buildListing(s, r, sub, subSizes[j])
			}
		}
	}
}

// buildListing hangs m items off head, paginated by the listing size; page
// k links ahead to the next `jump` pages, so deep pages of a large listing
// are deep in link distance too.
func (w *Web) buildListing(s *site, r *rand.Rand, head int32, m int) {
	L := w.cfg.Sections.Listing
	hp := s.pages[head]
	npages := (m + L - 1) / L
	lp := []int32{head}
	for k := 2; k <= npages; k++ {
		parent := lp[max(0, k-1-s.h.jump)]
		if k-1-s.h.jump < 0 {
			parent = head
		}
		path := pagePath(dirOf(hp.path), k, s.h.slugStyle)
		id := s.add(page{path: path, parent: parent, depth: s.pages[parent].depth + 1, kind: pkListing, sec: hp.sec, aux: int32(k), listing: head, title: fmt.Sprintf("%s – page %d", hp.title, k)})
		lp = append(lp, id)
	}
	s.pages[head].listing = head
	for i := 0; i < m; i++ {
		parent := lp[i/L]
		ri := 0
		if len(s.pool) > 0 {
			ri = r.IntN(len(s.pool))
		}
		title := recordTitle(s.pool, ri)
		path := itemPath(dirOf(hp.path), title, ri, s.h.slugStyle, r)
		s.add(page{path: path, parent: parent, depth: s.pages[parent].depth + 1, kind: pkItem, sec: hp.sec, aux: int32(ri), title: titleCase(title)})
	}
}

func pagePath(dir string, k int, style uint8) string {
	if style == 1 {
		return dir + "?page=" + strconv.Itoa(k)
	}
	return dir + "page/" + strconv.Itoa(k) + "/"
}

func itemPath(dir, title string, ri int, style uint8, r *rand.Rand) string {
	id := strconv.Itoa(1000 + ri)
	if style == 1 || style == 2 && r.IntN(2) == 0 {
		if r.IntN(2) == 0 {
			return dir + "item.php?id=" + id
		}
		return dir + id + ".html"
	}
	sl := slug(title, 48)
	if sl == "" {
		sl = "item"
	}
	return dir + sl + "-" + id + ".html"
}

// recordTitle is a short display title for a pool record.
func recordTitle(pool []hiddendb.Record, i int) string {
	if len(pool) == 0 {
		return "item " + strconv.Itoa(i)
	}
	f := pool[i].Fields
	for _, k := range []string{"title", "name", "term", "car"} {
		if v := f[k]; v != "" {
			if k == "name" && f["year"] != "" {
				return f["year"] + " " + v
			}
			return v
		}
	}
	if f["origin"] != "" && f["destination"] != "" {
		return firstNonEmpty(f["origin_city"], f["origin"]) + " to " + firstNonEmpty(f["destination_city"], f["destination"])
	}
	for _, k := range pool[i].Order {
		if f[k] != "" {
			return f[k]
		}
	}
	return "item " + strconv.Itoa(i)
}

func (w *Web) subName(s *site, r *rand.Rand) string {
	t := w.topics[s.h.topic]
	if len(t.Facets) > 0 && len(s.pool) > 0 && r.IntN(3) > 0 {
		fk := t.Facets[r.IntN(len(t.Facets))]
		if v := s.pool[r.IntN(len(s.pool))].Fields[fk]; v != "" {
			if sl := slug(v, 24); sl != "" {
				return sl
			}
		}
	}
	v := t.Vocab.Words[t.Vocab.dist.pick(r)]
	return slug(v, 24)
}

func titleCase(s string) string {
	f := strings.Fields(s)
	for i, x := range f {
		f[i] = strings.ToUpper(x[:1]) + x[1:]
	}
	return strings.Join(f, " ")
}

// placeHubs adds the hub pages hosted by the site.
func (w *Web) placeHubs(s *site, r *rand.Rand) {
	for n, hid := range s.h.hubs {
		hb := &w.hubs[hid]
		parent, path := int32(0), "/links.html"
		if s.h.kind == siteDirectory {
			sec := n % len(s.h.sections)
			parent = s.byPath["/"+s.h.sections[sec]+"/"]
			path = "/" + s.h.sections[sec] + "/" + slug(hb.title, 40) + ".html"
		} else if n > 0 {
			sec := r.IntN(len(s.h.sections))
			parent = s.byPath["/"+s.h.sections[sec]+"/"]
			path = "/" + s.h.sections[sec] + "/" + slug(hb.title, 40) + ".html"
		}
		p := s.pages[parent]
		s.add(page{path: path, parent: parent, depth: p.depth + 1, kind: pkHub, sec: p.sec, aux: hid, title: hb.title})
	}
}

var chainWords = []string{"tools", "services", "research", "advanced", "options", "more", "resources", "database", "center", "online", "members", "start"}

// placeDB puts database i's entry page at its planned link depth, in the
// site's main directory with probability FormDirBias, adding intermediate
// pages when the site is too shallow.
func (w *Web) placeDB(s *site, i int, r *rand.Rand) int32 {
	db := &s.h.dbs[i]
	if db.depth == 0 {
		s.pages[0].onPath = true
		return 0
	}
	sec := 0
	if r.Float64() >= w.cfg.FormDirBias {
		sec = r.IntN(len(s.h.sections))
	}
	want := uint8(db.depth - 1)
	var cands []int32
	var best int32 = -1
	for id := range s.pages {
		p := &s.pages[id]
		if p.kind == pkHub || p.kind == pkUtility || p.kind == pkForm {
			continue
		}
		if p.kind != pkHome && int(p.sec) != sec {
			continue
		}
		if p.depth == want {
			cands = append(cands, int32(id))
		}
		if p.depth < want && (best < 0 || p.depth > s.pages[best].depth) {
			best = int32(id)
		}
	}
	parent := best
	if len(cands) > 0 {
		parent = cands[r.IntN(len(cands))]
	}
	for s.pages[parent].depth < want {
		pp := s.pages[parent]
		word := chainWords[r.IntN(len(chainWords))]
		parent = s.add(page{path: dirOf(pp.path) + word + "/", parent: parent, depth: pp.depth + 1, kind: pkChain, sec: int16(sec), title: titleCase(word)})
	}
	if s.pages[parent].kind == pkHome {
		sec = -1
	}
	t := w.topics[db.topic]
	id := s.add(page{path: dirOf(s.pages[parent].path) + db.slug, parent: parent, depth: s.pages[parent].depth + 1, kind: pkForm,
		sec: int16(sec), aux: int32(i), title: "Search " + t.Plural})
	for p := id; p >= 0; p = s.pages[p].parent {
		s.pages[p].onPath = true
	}
	return id
}
