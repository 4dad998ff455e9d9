package simweb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// SiteInfo describes a site (a "site" line of the ground truth).
type SiteInfo struct {
	Type string `json:"type"` // "site"
	Host string `json:"host"`
	URL  string `json:"url"` // homepage
	Name string `json:"name"`
	// Topic is the site's topic: a target domain or an off-topic category.
	Topic string `json:"topic"`
	// Kind is "regular", "travel" (a multi-domain portal) or "directory".
	Kind string `json:"kind"`
	// Domains are the domains of the site's hidden databases.
	Domains []string `json:"domains"`
	// Deep reports whether the site has at least one hidden database.
	Deep       bool     `json:"deep"`
	Pages      int      `json:"pages,omitempty"`
	Hubs       int      `json:"hubs,omitempty"`
	Disallow   []string `json:"disallow,omitempty"`
	CrawlDelay int      `json:"crawl_delay,omitempty"`
	SessionIDs bool     `json:"session_ids,omitempty"`
	Calendar   bool     `json:"calendar,omitempty"`
}

// PageInfo describes a static page (a "page" line).
type PageInfo struct {
	Type  string `json:"type"` // "page"
	URL   string `json:"url"`
	Site  string `json:"site"`
	Depth int    `json:"depth"` // link distance from the homepage
	Kind  string `json:"kind"`  // home, section, category, listing, item, utility, path, form, hub
	// Fault is the page's configured fault (error, flaky, slow, reset,
	// oversize, malformed) or empty.
	Fault      string `json:"fault,omitempty"`
	Disallowed bool   `json:"disallowed,omitempty"` // robots.txt forbids it
	Trap       bool   `json:"trap,omitempty"`       // the root of an infinite calendar
}

// FormInfo describes one form on a page (a "form" line).
type FormInfo struct {
	Type  string `json:"type"` // "form"
	ID    string `json:"id"`   // page URL + "#" + index
	Page  string `json:"page"`
	Index int    `json:"index"` // position among the page's <form> elements
	Depth int    `json:"depth"`
	Kind  string `json:"kind"`
	// Domain is the topic of the hidden database behind a searchable form.
	Domain string `json:"domain,omitempty"`
	// Searchable reports a form in front of a hidden database (external
	// search-engine boxes are not).
	Searchable bool `json:"searchable"`
	// Relevant is Searchable with a target domain.
	Relevant   bool        `json:"relevant"`
	Method     string      `json:"method"`
	Action     string      `json:"action"`
	Fields     []FieldInfo `json:"fields"`
	Database   string      `json:"database,omitempty"`
	Source     string      `json:"source"`
	Disallowed bool        `json:"disallowed,omitempty"`
}

// DatabaseInfo describes a hidden database (a "database" line).
type DatabaseInfo struct {
	Type   string `json:"type"` // "database"
	ID     string `json:"id"`   // host + prefix
	Site   string `json:"site"`
	Domain string `json:"domain"`
	Size   int    `json:"size"`
	K      int    `json:"k"`
	// PageSize is the number of results per page.
	PageSize int `json:"page_size"`
	// Interface is "form" or "form+api"; Interfaces lists the methods
	// ("get", "post") of its forms and "api" when the JSON API is offered.
	Interface  string   `json:"interface"`
	Interfaces []string `json:"interfaces"`
	EntryPage  string   `json:"entry_page"`
	EntryDepth int      `json:"entry_depth"`
	SearchURL  string   `json:"search_url"`
	APIURL     string   `json:"api_url,omitempty"`
	ShowTotal  bool     `json:"show_total"`
}

// HubInfo describes a hub page (a "hub" line).
type HubInfo struct {
	Type    string   `json:"type"` // "hub"
	URL     string   `json:"url"`
	Topic   string   `json:"topic"`
	Targets []string `json:"targets"` // homepage URLs listed
}

var siteKindName = []string{"regular", "directory", "travel"}

// SearchEngineHost returns the host of the search engine.
func (w *Web) SearchEngineHost() string { return SearchEngineHost }

func (w *Web) siteInfo(h *siteHeader) SiteInfo {
	si := SiteInfo{Type: "site", Host: h.host, URL: "http://" + h.host + "/", Name: h.name, Topic: w.topics[h.topic].Name,
		Kind: siteKindName[h.kind], Deep: len(h.dbs) > 0, Domains: []string{}, Hubs: len(h.hubs), Disallow: h.feat.disallow,
		CrawlDelay: h.feat.crawlDelay, SessionIDs: h.feat.sessionIDs, Calendar: h.feat.calendar}
	for _, db := range h.dbs {
		if n := w.topics[db.topic].Name; !contains(si.Domains, n) {
			si.Domains = append(si.Domains, n)
		}
	}
	return si
}

// Sites lists every site (without page counts, which need generation).
func (w *Web) Sites() []SiteInfo {
	out := make([]SiteInfo, len(w.sites))
	for i := range w.sites {
		out[i] = w.siteInfo(&w.sites[i])
	}
	return out
}

// SitesOfDomain lists the sites whose topic is d or that have a hidden
// database of domain d.
func (w *Web) SitesOfDomain(d string) []SiteInfo {
	var out []SiteInfo
	for i := range w.sites {
		si := w.siteInfo(&w.sites[i])
		if si.Topic == d || contains(si.Domains, d) {
			out = append(out, si)
		}
	}
	return out
}

// Seeds returns up to n homepage URLs of deep sites with a database of the
// domain (a profile's seed sites in testbed mode), the most popular first.
func (w *Web) Seeds(domain string, n int) []string {
	t, ok := w.topicID[domain]
	if !ok {
		return nil
	}
	ids := append([]int32(nil), w.dbsOf[t]...)
	sort.SliceStable(ids, func(a, b int) bool { return w.sites[ids[a]].pop > w.sites[ids[b]].pop })
	var out []string
	for _, id := range ids {
		if len(out) >= n {
			break
		}
		out = append(out, "http://"+w.sites[id].host+"/")
	}
	return out
}

// Domains lists the target domains that have at least one site.
func (w *Web) Domains() []string {
	var out []string
	for i, t := range w.topics {
		if t.Target && len(w.byTopic[i])+len(w.dbsOf[i]) > 0 {
			out = append(out, t.Name)
		}
	}
	return out
}

// locate finds the site and static page of a URL (session ids and redirect
// prefixes ignored). pid is -1 for a known site but unknown page.
func (w *Web) locate(raw string) (*site, int32, string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, -1, "", false
	}
	id, ok := w.hostIdx[strings.ToLower(u.Hostname())]
	if !ok {
		return nil, -1, "", false
	}
	s := w.site(id)
	path := u.Path
	if i := strings.Index(path, ";"); i >= 0 {
		path = path[:i]
	}
	for strings.HasPrefix(path, "/r/") {
		rest := path[3:]
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			break
		}
		path = rest[i:]
	}
	if path == "" {
		path = "/"
	}
	q := u.Query()
	for k := range q {
		if contains(sessionParams, strings.ToLower(k)) {
			q.Del(k)
		}
	}
	k := path
	if len(q) > 0 {
		k += "?" + q.Encode()
	}
	if pid, ok := s.byPath[k]; ok {
		return s, pid, path, true
	}
	return s, -1, path, true
}

// FormsAt returns the forms of the page at url, in document order, as a
// parser enumerates its <form> elements. Result pages of a hidden database
// have its search form; unknown pages have none.
func (w *Web) FormsAt(raw string) []FormInfo {
	s, pid, path, ok := w.locate(raw)
	if !ok {
		return nil
	}
	if pid < 0 {
		for i, db := range s.h.dbs {
			if path == db.prefix+"/search" {
				return []FormInfo{w.resultForm(s, i, raw)}
			}
		}
		return nil
	}
	return w.formInfos(s, pid, w.compose(s, pid, false))
}

// FormAt returns form index i of the page at url.
func (w *Web) FormAt(raw string, i int) (FormInfo, bool) {
	fs := w.FormsAt(raw)
	if i < 0 || i >= len(fs) {
		return FormInfo{}, false
	}
	return fs[i], true
}

// IsRelevantForm reports whether form index i of the page at url is a
// searchable form in front of a hidden database of the domain.
func (w *Web) IsRelevantForm(raw string, i int, domain string) bool {
	f, ok := w.FormAt(raw, i)
	return ok && f.Searchable && f.Domain == domain
}

// resultForm is the search form on a database's result pages.
func (w *Web) resultForm(s *site, i int, page string) FormInfo {
	db := &s.h.dbs[i]
	t := w.topics[db.topic]
	return FormInfo{Type: "form", ID: page + "#0", Page: page, Kind: KindSearch, Domain: t.Name, Searchable: true, Relevant: t.Target,
		Method: "GET", Action: w.siteBase(s.h.id) + db.prefix + "/search", Depth: int(s.pages[s.dbPage[i]].depth) + 1,
		Fields: []FieldInfo{{Tag: "input", Type: "text", Name: "q"}, {Tag: "input", Type: "submit"}}, Database: s.h.host + db.prefix, Source: "hiddendb"}
}

func (w *Web) formInfos(s *site, pid int32, d *doc) []FormInfo {
	p := &s.pages[pid]
	u := w.pageURL(s, pid)
	out := make([]FormInfo, len(d.forms))
	for i, f := range d.forms {
		fi := FormInfo{Type: "form", ID: u + "#" + strconv.Itoa(i), Page: u, Index: i, Depth: int(p.depth), Kind: f.kind,
			Method: f.method, Action: f.action, Fields: f.fields, Source: f.source, Disallowed: s.h.disallowed(p.path)}
		if f.db >= 0 {
			t := w.topics[f.topic]
			fi.Domain, fi.Searchable, fi.Relevant = t.Name, true, t.Target
			fi.Database = s.h.host + s.h.dbs[f.db].prefix
		}
		if fi.Fields == nil {
			fi.Fields = []FieldInfo{}
		}
		out[i] = fi
	}
	return out
}

// Databases lists every hidden database.
func (w *Web) Databases() []DatabaseInfo {
	var out []DatabaseInfo
	for id := range w.sites {
		if len(w.sites[id].dbs) == 0 {
			continue
		}
		s := w.site(int32(id))
		for i := range s.h.dbs {
			out = append(out, w.databaseInfo(s, i))
		}
	}
	return out
}

func (w *Web) databaseInfo(s *site, i int) DatabaseInfo {
	db := &s.h.dbs[i]
	base := w.siteBase(s.h.id)
	n := len(w.dbRecords(db))
	di := DatabaseInfo{Type: "database", ID: s.h.host + db.prefix, Site: s.h.host, Domain: w.topics[db.topic].Name, Size: n,
		K: w.cfg.DB.K, PageSize: w.cfg.DB.PageSize, Interface: "form", EntryPage: w.pageURL(s, s.dbPage[i]),
		EntryDepth: int(s.pages[s.dbPage[i]].depth), SearchURL: base + db.prefix + "/search", ShowTotal: db.showTotal}
	d := w.compose(s, s.dbPage[i], false)
	for _, f := range d.forms {
		if f.db == i && !contains(di.Interfaces, strings.ToLower(f.method)) {
			di.Interfaces = append(di.Interfaces, strings.ToLower(f.method))
		}
	}
	if db.api {
		di.Interface = "form+api"
		di.Interfaces = append(di.Interfaces, "api")
		di.APIURL = base + db.prefix + "/api/search"
	}
	return di
}

// Database returns the hidden database with the given id (host + prefix)
// and its description: the ground truth for surfacing and enrichment.
func (w *Web) Database(id string) (*hiddendb.DB, DatabaseInfo, bool) {
	i := strings.IndexByte(id, '/')
	if i < 0 {
		return nil, DatabaseInfo{}, false
	}
	sid, ok := w.hostIdx[id[:i]]
	if !ok {
		return nil, DatabaseInfo{}, false
	}
	for k, db := range w.sites[sid].dbs {
		if db.prefix == id[i:] {
			s := w.site(sid)
			return w.db(sid, k), w.databaseInfo(s, k), true
		}
	}
	return nil, DatabaseInfo{}, false
}

// Hubs lists the hub pages.
func (w *Web) Hubs() []HubInfo {
	var out []HubInfo
	for id := range w.sites {
		if len(w.sites[id].hubs) == 0 {
			continue
		}
		s := w.site(int32(id))
		for pid := range s.pages {
			if s.pages[pid].kind == pkHub {
				out = append(out, w.hubInfo(s, int32(pid)))
			}
		}
	}
	return out
}

func (w *Web) hubInfo(s *site, pid int32) HubInfo {
	hb := &w.hubs[s.pages[pid].aux]
	hi := HubInfo{Type: "hub", URL: w.pageURL(s, pid), Topic: w.topics[hb.topic].Name}
	for _, t := range hb.targets {
		hi.Targets = append(hi.Targets, "http://"+w.sites[t].host+"/")
	}
	return hi
}

// eachSite generates every site in order (without filling the cache).
func (w *Web) eachSite(fn func(s *site) error) error {
	for id := range w.sites {
		if err := fn(w.buildSite(int32(id))); err != nil {
			return err
		}
	}
	return nil
}

func (w *Web) pageInfo(s *site, pid int32) PageInfo {
	p := &s.pages[pid]
	return PageInfo{Type: "page", URL: w.pageURL(s, pid), Site: s.h.host, Depth: int(p.depth), Kind: pageKindName[p.kind],
		Fault: w.pageFault(s, pid), Disallowed: s.h.disallowed(p.path), Trap: p.kind == pkUtility && p.aux == utCalendar}
}

// Truth writes the ground truth as JSON lines: for each site a "site" line,
// its "database" lines, its "page" lines and its "form" lines; then the
// "hub" lines.
func (w *Web) Truth(out io.Writer) error {
	bw := bufio.NewWriterSize(out, 1<<16)
	enc := json.NewEncoder(bw)
	err := w.eachSite(func(s *site) error {
		si := w.siteInfo(s.h)
		si.Pages = len(s.pages)
		if err := enc.Encode(si); err != nil {
			return err
		}
		for i := range s.h.dbs {
			if err := enc.Encode(w.databaseInfo(s, i)); err != nil {
				return err
			}
		}
		for pid := range s.pages {
			if err := enc.Encode(w.pageInfo(s, int32(pid))); err != nil {
				return err
			}
		}
		for pid := range s.pages {
			for _, f := range w.formInfos(s, int32(pid), w.compose(s, int32(pid), false)) {
				if err := enc.Encode(f); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("simweb: truth: %w", err)
	}
	for _, h := range w.Hubs() {
		if err := enc.Encode(h); err != nil {
			return fmt.Errorf("simweb: truth: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("simweb: truth: %w", err)
	}
	return nil
}

// Stats summarises a web.
type Stats struct {
	Seed      int64          `json:"seed"`
	Sites     int            `json:"sites"`
	DeepSites int            `json:"deep_sites"`
	Pages     int            `json:"pages"`
	Hubs      int            `json:"hubs"`
	Databases int            `json:"databases"`
	Forms     map[string]int `json:"forms"` // by kind
	// PageDepth and FormDepth are histograms by link depth (FormDepth over
	// relevant searchable forms).
	PageDepth []int `json:"page_depth"`
	FormDepth []int `json:"form_depth"`
	// Domains has one row per topic with sites.
	Domains []DomainStats  `json:"domains"`
	Faults  map[string]int `json:"faults"`
}

// DomainStats is one topic's row of Stats.
type DomainStats struct {
	Domain     string `json:"domain"`
	Target     bool   `json:"target"`
	Sites      int    `json:"sites"`      // sites of this topic
	DeepSites  int    `json:"deep_sites"` // sites with a database of this domain
	Databases  int    `json:"databases"`
	Searchable int    `json:"searchable_forms"` // searchable forms of this domain
	// Density is Searchable / all pages of the web, in percent: the share
	// of pages a crawler sees that hold a relevant form of the domain.
	Density float64 `json:"density_pct"`
}

// Stats generates every page and counts.
func (w *Web) Stats() Stats {
	st := Stats{Seed: w.cfg.Seed, Sites: len(w.sites), Forms: map[string]int{}, Faults: map[string]int{}, Hubs: len(w.hubs)}
	rows := make([]DomainStats, len(w.topics))
	for i, t := range w.topics {
		rows[i] = DomainStats{Domain: t.Name, Target: t.Target, Sites: len(w.byTopic[i]), DeepSites: len(w.dbsOf[i])}
	}
	grow := func(h []int, d int) []int {
		for len(h) <= d {
			h = append(h, 0)
		}
		h[d]++
		return h
	}
	w.eachSite(func(s *site) error {
		if len(s.h.dbs) > 0 {
			st.DeepSites++
		}
		st.Databases += len(s.h.dbs)
		for _, db := range s.h.dbs {
			rows[db.topic].Databases++
		}
		for pid := range s.pages {
			p := &s.pages[pid]
			st.Pages++
			st.PageDepth = grow(st.PageDepth, int(p.depth))
			if f := w.pageFault(s, int32(pid)); f != "" {
				st.Faults[f]++
			}
			d := w.compose(s, int32(pid), false)
			for _, f := range d.forms {
				st.Forms[f.kind]++
				if f.db >= 0 {
					rows[f.topic].Searchable++
					if w.topics[f.topic].Target {
						st.FormDepth = grow(st.FormDepth, int(p.depth))
					}
				}
			}
		}
		return nil
	})
	for i := range rows {
		if rows[i].Sites+rows[i].DeepSites == 0 {
			continue
		}
		if st.Pages > 0 {
			rows[i].Density = 100 * float64(rows[i].Searchable) / float64(st.Pages)
		}
		st.Domains = append(st.Domains, rows[i])
	}
	return st
}

// WriteTable prints the stats as aligned text tables.
func (st Stats) WriteTable(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "simweb seed %d: %d sites (%d deep), %d pages, %d hidden databases, %d hub pages\n\n", st.Seed, st.Sites, st.DeepSites, st.Pages, st.Databases, st.Hubs)
	fmt.Fprintln(tw, "domain\ttarget\tsites\tdeep sites\tdatabases\tsearchable forms\tdensity (% of pages)")
	tot := DomainStats{}
	for _, r := range st.Domains {
		tg := ""
		if r.Target {
			tg = "yes"
			tot.Searchable += r.Searchable
			tot.Sites += r.Sites
			tot.DeepSites += r.DeepSites
			tot.Databases += r.Databases
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.3f\n", r.Domain, tg, r.Sites, r.DeepSites, r.Databases, r.Searchable, r.Density)
	}
	if st.Pages > 0 {
		fmt.Fprintf(tw, "all target domains\t\t%d\t%d\t%d\t%d\t%.3f\n", tot.Sites, tot.DeepSites, tot.Databases, tot.Searchable, 100*float64(tot.Searchable)/float64(st.Pages))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "form kind\tforms")
	for _, k := range sortedKeys(st.Forms) {
		fmt.Fprintf(tw, "%s\t%d\n", k, st.Forms[k])
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "depth\tpages\trelevant searchable forms\tcumulative share of forms")
	nf := 0
	for _, c := range st.FormDepth {
		nf += c
	}
	cum := 0
	for dpt := 0; dpt < max(len(st.PageDepth), len(st.FormDepth)); dpt++ {
		p, f := 0, 0
		if dpt < len(st.PageDepth) {
			p = st.PageDepth[dpt]
		}
		if dpt < len(st.FormDepth) {
			f = st.FormDepth[dpt]
		}
		cum += f
		share := 0.0
		if nf > 0 {
			share = 100 * float64(cum) / float64(nf)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.1f%%\n", dpt, p, f, share)
	}
	if len(st.Faults) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "page fault\tpages")
		for _, k := range sortedKeys(st.Faults) {
			fmt.Fprintf(tw, "%s\t%d\n", k, st.Faults[k])
		}
	}
	return tw.Flush()
}
