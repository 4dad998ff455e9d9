package simweb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// SearchEngineHost is the host of the simulated web search engine.
const SearchEngineHost = "search.simweb"

// Web is a generated web. It is safe for concurrent use. Sites are fixed at
// New from the seed; their pages are generated on demand and cached.
type Web struct {
	cfg  Config
	data *Data

	topics  []*Topic
	topicID map[string]int
	sites   []siteHeader
	hostIdx map[string]int32

	byTopic   [][]int32  // sites whose primary topic is t
	dbsOf     [][]int32  // deep sites with a database of topic t
	linkDist  []weighted // per topic: out-of-site link target distribution over byTopic[t]
	siteDist  weighted   // all sites, by popularity
	hubs      []hub
	dirSites  []int32
	topicDist weighted // topic of a new site

	cache  *siteCache
	dbs    *dbCache
	engOne sync.Once
	eng    *engineIndex
	faults sync.Map // URL → *int32 request count, for first-request faults
	lim    *limiter

	pipeOnce sync.Once
	pipeLn   *pipeListener
}

// siteHeader is what New decides about a site; its pages come later.
type siteHeader struct {
	id        int32
	host      string
	name      string // display name
	topic     int    // primary topic
	topics    []int  // topics of its text (travel portals have three)
	kind      uint8  // siteRegular, siteDirectory, siteTravel
	items     int    // content pages
	pop       float64
	sections  []string
	dbs       []dbSpec
	hubs      []int32 // hubs hosted here
	feat      siteFeatures
	slugStyle uint8 // 0 words, 1 numeric ids, 2 mixed
	jump      int   // pagination links ahead
}

const (
	siteRegular uint8 = iota
	siteDirectory
	siteTravel
)

type siteFeatures struct {
	headerLogin, footerNews, searchBox        bool
	loginPage, registerPage, passwordPage     bool
	contactPage, shop, calendar, sessionIDs   bool
	crawlDelay                                int
	disallow                                  []string
	loginForm, newsForm, boxForm, contactForm int // indices into form pools
	registerForm, passwordForm                int
	sessionStyle                              uint8
}

// dbSpec is one hidden database of a deep site and the page in front of it.
type dbSpec struct {
	topic     int
	depth     int // target link depth of the entry page
	style     string
	size      int
	showTotal bool
	api       bool   // the JSON keyword API is offered
	method    string // of the generated (advanced) form
	markup    int    // keyword form: index into the search-form pool
	prefix    string // URL prefix of the database (results, records, API)
	slug      string // entry page slug
	anchor    string // anchor text of the link to the entry page
	seed      uint64
}

// hub is a page listing many sites of one topic.
type hub struct {
	site    int32
	topic   int
	targets []int32
	title   string
}

// New generates the web described by cfg (sites, hubs, databases); pages
// are rendered on demand.
func New(cfg Config) (*Web, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("simweb: %w", err)
	}
	d, err := LoadData(cfg.Data)
	if err != nil {
		return nil, err
	}
	w := &Web{cfg: cfg, data: d, topicID: map[string]int{}, hostIdx: map[string]int32{}}
	for _, n := range d.TopicNames {
		w.topicID[n] = len(w.topics)
		w.topics = append(w.topics, d.Topics[n])
	}
	if err := w.planSites(); err != nil {
		return nil, err
	}
	w.planHubs()
	w.cache = newSiteCache(w, 1<<17)
	w.dbs = newDBCache(64)
	w.lim = newLimiter(cfg.Search.Rate, cfg.Search.Burst)
	return w, nil
}

// MustNew is New for tests and examples: it panics on error.
func MustNew(cfg Config) *Web {
	w, err := New(cfg)
	if err != nil {
		panic(err)
	}
	return w
}

// Config returns the configuration the web was built from.
func (w *Web) Config() Config { return w.cfg }

// Data returns the data the web was generated from.
func (w *Web) Data() *Data { return w.data }

func (w *Web) planSites() error {
	cfg := w.cfg
	var tw []float64
	for _, t := range w.topics {
		x := 0.0
		switch {
		case t.Directory:
		case t.Target:
			x = cfg.TopicShare * cfg.Domains[t.Name] / sumMap(cfg.Domains)
		default:
			x = (1 - cfg.TopicShare - cfg.DirectoryShare) * w.categoryWeight(t.Name)
		}
		if x < 0 {
			x = 0
		}
		tw = append(tw, x)
	}
	w.topicDist = newWeighted(tw)
	if w.topicDist.empty() {
		return fmt.Errorf("simweb: no topic has a positive weight")
	}
	var dirTopic = -1
	for i, t := range w.topics {
		if t.Directory {
			dirTopic = i
		}
	}
	w.byTopic = make([][]int32, len(w.topics))
	w.dbsOf = make([][]int32, len(w.topics))
	w.sites = make([]siteHeader, cfg.Sites)
	for i := range w.sites {
		r := rngFor(cfg.Seed, "site", uint64(i))
		h := &w.sites[i]
		h.id = int32(i)
		if dirTopic >= 0 && r.Float64() < cfg.DirectoryShare {
			h.topic, h.kind = dirTopic, siteDirectory
		} else {
			h.topic = w.topicDist.pick(r)
		}
		h.topics = []int{h.topic}
		w.planSite(h, r)
		w.byTopic[h.topic] = append(w.byTopic[h.topic], h.id)
		for _, db := range h.dbs {
			if !contains32(w.dbsOf[db.topic], h.id) {
				w.dbsOf[db.topic] = append(w.dbsOf[db.topic], h.id)
			}
		}
		if h.kind == siteDirectory {
			w.dirSites = append(w.dirSites, h.id)
		}
	}
	// out-of-site link targets: popular sites (Zipf over a random order) and deep sites
	w.linkDist = make([]weighted, len(w.topics))
	all := make([]float64, len(w.sites))
	for t, ids := range w.byTopic {
		ws := make([]float64, len(ids))
		for k, id := range ids {
			h := &w.sites[id]
			ws[k] = h.pop
			if len(h.dbs) > 0 {
				ws[k] *= cfg.DeepPopularity
			}
			all[id] = ws[k]
		}
		w.linkDist[t] = newWeighted(ws)
	}
	w.siteDist = newWeighted(all)
	return nil
}

func (w *Web) categoryWeight(name string) float64 {
	if w.cfg.Categories == nil {
		n := 0
		for _, t := range w.topics {
			if !t.Target && !t.Directory {
				n++
			}
		}
		return 1 / float64(n)
	}
	s := sumMap(w.cfg.Categories)
	if s == 0 {
		return 0
	}
	return w.cfg.Categories[name] / s
}

func sumMap(m map[string]float64) float64 {
	s := 0.0
	for _, k := range sortedKeys(m) {
		s += m[k]
	}
	return s
}

func contains32(xs []int32, x int32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

var travelDomains = []string{"airfare", "hotel", "rental"}

// planSite draws everything about a site that other sites or the ground
// truth need without generating its pages.
func (w *Web) planSite(h *siteHeader, r *rand.Rand) {
	cfg := w.cfg
	t := w.topics[h.topic]
	if t.Target && contains(travelDomains, t.Name) && r.Float64() < cfg.TravelShare {
		h.kind = siteTravel
		for _, dn := range travelDomains {
			if id, ok := w.topicID[dn]; ok && id != h.topic {
				h.topics = append(h.topics, id)
			}
		}
	}
	h.items = lognormalInt(r, cfg.Pages.Median, cfg.Pages.Sigma, cfg.Pages.Min, cfg.Pages.Max)
	h.pop = 1 / math.Pow(1+r.Float64()*40, 1.1)
	w.nameSite(h, r)
	// sections: the first is the topic's catalogue directory
	k := cfg.Sections.Min + r.IntN(cfg.Sections.Max-cfg.Sections.Min+1)
	if lim := 1 + h.items/4; k > lim {
		k = lim
	}
	h.sections = w.sectionNames(h, r, k)
	h.slugStyle = uint8(r.IntN(10) / 4 % 3) // 0: 40%, 1: 40%, 2: 20%
	h.jump = 1 + r.IntN(4)
	f := &h.feat
	fc := cfg.Forms
	f.headerLogin = r.Float64() < fc.HeaderLogin
	f.footerNews = r.Float64() < fc.FooterNewsletter
	f.searchBox = r.Float64() < fc.SiteSearchBox
	f.loginPage = r.Float64() < fc.LoginPage || f.headerLogin
	f.registerPage = r.Float64() < fc.RegisterPage
	f.passwordPage = r.Float64() < fc.PasswordPage
	f.contactPage = r.Float64() < fc.ContactPage
	f.shop = t.Target && (t.Name == "product" || t.Name == "book" || t.Name == "music" || t.Name == "movie") && r.Float64() < 0.6
	f.calendar = r.Float64() < cfg.Faults.Calendar
	f.sessionIDs = r.Float64() < cfg.Faults.SessionID
	f.sessionStyle = uint8(r.IntN(3))
	for _, x := range []*int{&f.loginForm, &f.newsForm, &f.boxForm, &f.contactForm, &f.registerForm, &f.passwordForm} {
		*x = r.IntN(1 << 20)
	}
	if r.Float64() < cfg.Robots.CrawlDelayShare {
		f.crawlDelay = cfg.Robots.CrawlDelay
	}
	if r.Float64() < cfg.Robots.DisallowShare {
		pool := []string{"/cgi-bin/", "/admin/", "/private/", "/tmp/", "/cart/", "/account/", "/print/"}
		for _, j := range r.Perm(len(pool))[:1+r.IntN(3)] {
			f.disallow = append(f.disallow, pool[j])
		}
		if f.calendar && r.IntN(2) == 0 {
			f.disallow = append(f.disallow, "/events/")
		}
		if len(h.sections) > 1 && r.Float64() < 0.15 {
			f.disallow = append(f.disallow, "/"+h.sections[len(h.sections)-1]+"/")
		}
	}
	// hidden databases
	switch {
	case h.kind == siteDirectory:
	case h.kind == siteTravel:
		if r.Float64() < w.deepFraction(t) {
			for _, tp := range h.topics {
				h.dbs = append(h.dbs, w.planDB(h, tp, r))
			}
		}
	case t.Target:
		if r.Float64() < w.deepFraction(t) {
			h.dbs = append(h.dbs, w.planDB(h, h.topic, r))
			if r.Float64() < cfg.ExtraDBShare {
				h.dbs = append(h.dbs, w.planDB(h, h.topic, r))
			}
		}
	default:
		if r.Float64() < cfg.OffTopicDeepFraction {
			h.dbs = append(h.dbs, w.planDB(h, h.topic, r))
		}
	}
	w.uniquePrefixes(h)
}

func (w *Web) deepFraction(t *Topic) float64 {
	if v, ok := w.cfg.DeepFraction[t.Name]; ok {
		return v
	}
	return w.cfg.DeepFraction["*"]
}

var (
	dbRoots    = []string{"db", "search", "find", "app", "cgi-bin", "query", "lookup", "data", "catalog", "results"}
	entrySlugs = []string{"search/", "advanced-search.html", "find-a-%s/", "%s-search/", "%s-finder.html", "search.php", "query.html",
		"lookup/", "browse-%ss/", "%s-database/", "tools/finder.aspx", "index.php?page=search", "page-%d.html", "tools.html", "start.html", "%ss.html"}
	goodAnchors = []string{"Search %ss", "Find a %s", "Advanced %s search", "%s finder", "Search our %s database", "Browse all %ss", "Start your %s search", "Look up %ss"}
	weakAnchors = []string{"Click here", "Tools", "More", "Go", "Start here", "Continue", "Next", "See more"}
)

func (w *Web) planDB(h *siteHeader, tp int, r *rand.Rand) dbSpec {
	cfg := w.cfg
	t := w.topics[tp]
	db := dbSpec{topic: tp, seed: r.Uint64()}
	db.depth = newWeighted(cfg.FormDepth).pick(r)
	st := sortedKeys(cfg.FormStyle)
	sw := make([]float64, len(st))
	for i, k := range st {
		sw[i] = cfg.FormStyle[k]
	}
	db.style = st[newWeighted(sw).pick(r)]
	lo, hi := math.Log(float64(cfg.DB.MinSize)), math.Log(float64(cfg.DB.MaxSize))
	db.size = int(math.Round(math.Exp(lo + r.Float64()*(hi-lo))))
	db.showTotal = r.Float64() < cfg.DB.ShowTotal
	db.api = r.Float64() < cfg.DB.API
	db.method = "GET"
	if r.Float64() < cfg.DB.Post {
		db.method = "POST"
	}
	db.markup = r.IntN(1 << 20)
	noun := slugWord(t.Noun)
	root := dbRoots[r.IntN(len(dbRoots))]
	switch r.IntN(3) {
	case 0:
		db.prefix = "/" + root + "/" + slugWord(t.Plural)
	case 1:
		db.prefix = "/" + root + "-" + noun
	default:
		db.prefix = "/" + noun + "db"
	}
	s := entrySlugs[r.IntN(len(entrySlugs))]
	switch strings.Count(s, "%") {
	case 1:
		if strings.Contains(s, "%d") {
			s = fmt.Sprintf(s, 1+r.IntN(400))
		} else {
			s = fmt.Sprintf(s, noun)
		}
	}
	db.slug = s
	if r.Float64() < 0.75 {
		db.anchor = fmt.Sprintf(goodAnchors[r.IntN(len(goodAnchors))], t.Noun)
		db.anchor = strings.ToUpper(db.anchor[:1]) + db.anchor[1:]
	} else {
		db.anchor = weakAnchors[r.IntN(len(weakAnchors))]
	}
	return db
}

// uniquePrefixes keeps database prefixes and section directories apart.
func (w *Web) uniquePrefixes(h *siteHeader) {
	used := map[string]bool{}
	for _, s := range h.sections {
		used["/"+s] = true
	}
	for _, u := range []string{"/events", "/account", "/r", "/loop", "/api", "/search", "/record"} {
		used[u] = true
	}
	for i := range h.dbs {
		p := h.dbs[i].prefix
		for n := 2; used[p] || used[firstSeg(p)] && !strings.Contains(p[1:], "/"); n++ {
			p = h.dbs[i].prefix + strconv.Itoa(n)
		}
		used[p] = true
		h.dbs[i].prefix = p
	}
}

func firstSeg(p string) string {
	if i := strings.IndexByte(p[1:], '/'); i >= 0 {
		return p[:i+1]
	}
	return p
}

var (
	namePrefix = []string{"best", "cheap", "top", "my", "the", "e", "go", "all", "one", "smart", "easy", "quick", "prime", "first", "true", "metro", "national", "american", "us", "discount", "value", "direct", "super", "great", "big", "total"}
	nameSuffix = []string{"hub", "depot", "world", "zone", "online", "direct", "express", "mart", "point", "spot", "place", "center", "central", "source", "finder", "guide", "land", "planet", "pro", "plus", "now", "today", "connect", "link", "base", "list", "search", "deals", "hq", "usa", "4u", "net", "city", "corner", "spot", "shack"}
	travelName = []string{"travel", "trip", "trips", "vacation", "getaway", "journey", "tour", "voyage", "holiday", "go", "escape", "roam"}
	syllables  = []string{"ka", "zen", "tri", "vo", "lux", "mi", "ra", "tor", "qui", "bel", "nex", "ori", "sa", "vi", "do", "ly", "xo", "fa", "pel", "ru"}
	tlds       = []string{"com", "com", "com", "com", "com", "com", "com", "com", "com", "com", "com", "com", "net", "net", "net", "org", "org", "info", "us", "biz"}
)

// nameSite gives a site a unique host name built from topic words
// ("cheap-autos-depot.com"), or occasionally a brand name with no topic
// signal, as on the real web.
func (w *Web) nameSite(h *siteHeader, r *rand.Rand) {
	t := w.topics[h.topic]
	words := t.Names
	if h.kind == siteTravel {
		words = travelName
	}
	nw := func() string { return slugWord(pickStr(r, words)) }
	var parts []string
	switch x := r.IntN(20); {
	case x < 4:
		parts = []string{pickStr(r, namePrefix), nw()}
	case x < 9:
		parts = []string{nw(), pickStr(r, nameSuffix)}
	case x < 12:
		parts = []string{pickStr(r, namePrefix), nw(), pickStr(r, nameSuffix)}
	case x < 14:
		parts = []string{nw(), nw()}
	case x < 16:
		c := w.data.Cities[r.IntN(len(w.data.Cities))]
		parts = []string{slugWord(c.Name), nw()}
	case x < 18:
		parts = []string{nw(), slugWord(pickStr(r, t.Words))}
	default:
		s := ""
		for j := 0; j < 2+r.IntN(2); j++ {
			s += pickStr(r, syllables)
		}
		parts = []string{s}
	}
	for i, p := range parts {
		if p == "" {
			parts[i] = "web"
		}
	}
	sep := ""
	if r.IntN(3) == 0 {
		sep = "-"
	}
	base := strings.Join(parts, sep)
	tld := pickStr(r, tlds)
	www := r.IntN(5) < 2
	host := ""
	for n := 1; ; n++ {
		b := base
		if n > 1 {
			b += strconv.Itoa(n)
		}
		host = b + "." + tld
		if www {
			host = "www." + host
		}
		if _, dup := w.hostIdx[host]; !dup && host != SearchEngineHost {
			break
		}
	}
	w.hostIdx[host] = h.id
	h.host = host
	var title []string
	for _, p := range parts {
		title = append(title, strings.ToUpper(p[:1])+p[1:])
	}
	h.name = strings.Join(title, " ")
}

// slugWord lower-cases and keeps [a-z0-9] only.
func slugWord(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// slug turns a phrase into a URL slug ("Ford Mustang 1995" → "ford-mustang-1995").
func slug(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(c)
			if b.Len() >= max {
				break
			}
		} else {
			dash = true
		}
	}
	return b.String()
}

var genericSections = []string{"about", "news", "blog", "articles", "resources", "help", "faq", "guides", "community", "reviews", "features", "gallery", "archive", "support", "services", "tips"}

func (w *Web) sectionNames(h *siteHeader, r *rand.Rand, k int) []string {
	var pool []string
	for _, tp := range h.topics {
		pool = append(pool, w.topics[tp].Sections...)
	}
	out := []string{}
	seen := map[string]bool{}
	add := func(s string) {
		s = slug(s, 30)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, j := range r.Perm(len(pool)) {
		if len(out) >= (k+1)/2 {
			break
		}
		add(pool[j])
	}
	for _, j := range r.Perm(len(genericSections)) {
		if len(out) >= k {
			break
		}
		add(genericSections[j])
	}
	return out
}

// planHubs places hub pages: on web directories or on "links" pages of
// sites of the hub's topic, each listing many sites of that topic, most of
// them deep.
func (w *Web) planHubs() {
	cfg := w.cfg
	if cfg.Hubs.Count == 0 {
		return
	}
	var tw []float64
	for i, t := range w.topics {
		x := 0.0
		if !t.Directory && len(w.byTopic[i]) > 0 {
			x = 1
			if t.Target {
				x = 3 // hubs are mostly about the domains people search
			}
		}
		tw = append(tw, x)
	}
	td := newWeighted(tw)
	if td.empty() {
		return
	}
	for i := 0; i < cfg.Hubs.Count; i++ {
		r := rngFor(cfg.Seed, "hub", uint64(i))
		hb := hub{topic: td.pick(r)}
		t := w.topics[hb.topic]
		if len(w.dirSites) > 0 && r.Float64() < cfg.Hubs.OnDirectories {
			hb.site = w.dirSites[r.IntN(len(w.dirSites))]
		} else {
			ids := w.byTopic[hb.topic]
			hb.site = ids[r.IntN(len(ids))]
		}
		n := poisson(r, float64(cfg.Hubs.Size))
		if n < 3 {
			n = 3
		}
		seen := map[int32]bool{hb.site: true}
		deep := w.dbsOf[hb.topic]
		for tries := 0; len(hb.targets) < n && tries < 4*n; tries++ {
			var id int32
			if len(deep) > 0 && r.Float64() < cfg.Hubs.DeepShare {
				id = deep[r.IntN(len(deep))]
			} else {
				id = w.byTopic[hb.topic][w.linkDist[hb.topic].pick(r)]
			}
			if !seen[id] {
				seen[id] = true
				hb.targets = append(hb.targets, id)
			}
		}
		sort.Slice(hb.targets, func(a, b int) bool { return hb.targets[a] < hb.targets[b] })
		hb.title = fmt.Sprintf(pickStr(r, []string{"Top %d %s sites", "Best %[2]s websites", "%[2]s links", "Useful %[2]s resources", "The %[1]d best %[2]s sites on the web", "%[2]s directory"}), len(hb.targets), t.Label)
		hb.title = strings.ToUpper(hb.title[:1]) + hb.title[1:]
		w.sites[hb.site].hubs = append(w.sites[hb.site].hubs, int32(len(w.hubs)))
		w.hubs = append(w.hubs, hb)
	}
}

// dbRecords returns the records of a site's database: a deterministic
// sample of its topic's pool.
func (w *Web) dbRecords(db *dbSpec) []hiddendb.Record {
	pool := w.topics[db.topic].RecordPool()
	n := db.size
	if n >= len(pool) {
		return pool
	}
	r := rand.New(rand.NewPCG(db.seed, 7))
	// Floyd's algorithm: n distinct indices, then keep pool order
	chosen := make(map[int]bool, n)
	for j := len(pool) - n; j < len(pool); j++ {
		t := r.IntN(j + 1)
		if chosen[t] {
			chosen[j] = true
		} else {
			chosen[t] = true
		}
	}
	idx := make([]int, 0, n)
	for i := range chosen {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]hiddendb.Record, n)
	for k, i := range idx {
		out[k] = pool[i]
	}
	return out
}
