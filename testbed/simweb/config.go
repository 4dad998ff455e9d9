package simweb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/domain"
)

// Config describes a simulated web. Build one with DefaultConfig or
// SmallConfig and change fields, or load a JSON file with LoadConfig: JSON
// keys override the defaults, map keys merge into the default maps (set a
// weight to 0 to remove an entry), unknown keys are errors.
type Config struct {
	// Seed fixes every random choice: the same seed and config give a
	// byte-identical web.
	Seed int64 `json:"seed"`
	// Data is the data directory (layout in the package doc). Empty means
	// the small built-in data set only.
	Data string `json:"data,omitempty"`

	// Sites is the number of generated web sites (default 10000).
	Sites int `json:"sites"`
	// TopicShare is the share of sites whose topic is one of the target
	// domains (default 0.55); the rest are off-topic categories and web
	// directories.
	TopicShare float64 `json:"topic_share"`
	// Domains weights the target domains among on-topic sites (default 1
	// each). A domain missing from the map gets no sites.
	Domains map[string]float64 `json:"domains"`
	// Categories weights the off-topic categories (names from topics.json;
	// default 1 each).
	Categories map[string]float64 `json:"categories"`
	// DirectoryShare is the share of sites that are web directories: link
	// lists organised by topic that host most hub pages (default 0.01).
	DirectoryShare float64 `json:"directory_share"`
	// DeepFraction is the share of a domain's sites that have searchable
	// forms (hidden databases); key "*" is the default for domains not
	// listed (default 0.45).
	DeepFraction map[string]float64 `json:"deep_fraction"`
	// OffTopicDeepFraction is the share of off-topic sites with a hidden
	// database of their own category (default 0.15): searchable but
	// irrelevant forms.
	OffTopicDeepFraction float64 `json:"off_topic_deep_fraction"`
	// ExtraDBShare is the chance that a deep site has a second database of
	// its domain (default 0.25), e.g. "used" and "new" inventories.
	ExtraDBShare float64 `json:"extra_db_share"`
	// TravelShare is the share of airfare, hotel and rental sites that are
	// travel portals co-locating all three (default 0.35).
	TravelShare float64 `json:"travel_share"`

	// Pages is the heavy-tailed distribution of content pages per site.
	Pages PagesConfig `json:"pages"`
	// Sections shapes each site's directory tree.
	Sections SectionsConfig `json:"sections"`
	// FormDepth weights the link depth (0 = homepage) of the pages that hold
	// searchable forms; the default [0.04,0.2,0.26,0.22,0.17,0.11] puts 72%
	// within depth 3 and a tail to depth 5.
	FormDepth []float64 `json:"form_depth"`
	// FormDirBias is the chance that a searchable form's page lies inside
	// the site's main catalogue directory rather than a random section
	// (default 0.7).
	FormDirBias float64 `json:"form_dir_bias"`
	// FormStyle weights the interfaces of a hidden database's entry page:
	// "keyword" (a real single-box search form), "advanced" (a generated
	// multi-attribute form with selects), "both".
	FormStyle map[string]float64 `json:"form_style"`

	// Homophily is the chance that an out-of-site link points to a site of
	// the same topic (default 0.8).
	Homophily float64 `json:"homophily"`
	// ExternalLinks is the mean number of out-of-site links per page
	// (default 1.2; homepages get three times as many).
	ExternalLinks float64 `json:"external_links"`
	// DeepPopularity multiplies the chance that an out-of-site link targets
	// a deep site rather than a non-deep one of the same topic (default 2).
	DeepPopularity float64 `json:"deep_popularity"`
	// Hubs configures hub pages: pages listing many sites of one topic.
	Hubs HubsConfig `json:"hubs"`
	// Text shapes page text.
	Text TextConfig `json:"text"`
	// Forms sets how common the non-searchable forms are.
	Forms FormsConfig `json:"forms"`
	// Robots sets robots.txt rules.
	Robots RobotsConfig `json:"robots"`
	// Faults sets fault rates; NoFaults() turns them all off.
	Faults FaultConfig `json:"faults"`
	// DB configures the hidden databases behind searchable forms.
	DB DBConfig `json:"db"`
	// Search configures the search engine host.
	Search SearchConfig `json:"search"`
}

// PagesConfig is a log-normal page-count distribution.
type PagesConfig struct {
	Median float64 `json:"median"` // default 12
	Sigma  float64 `json:"sigma"`  // default 1.2 (heavy tail)
	Min    int     `json:"min"`    // default 4
	Max    int     `json:"max"`    // default 4000
}

// SectionsConfig shapes the directory tree of a site.
type SectionsConfig struct {
	Min int `json:"min"` // default 2 top-level directories
	Max int `json:"max"` // default 8
	// Skew is the Zipf exponent of directory sizes; with the default 1.8 the
	// first ("catalogue") directory holds most pages.
	Skew float64 `json:"skew"`
	// Listing is the number of items per listing page (default 20); larger
	// directories paginate, which makes their items deep.
	Listing int `json:"listing"`
}

// HubsConfig configures hub pages.
type HubsConfig struct {
	Count int `json:"count"` // default 160
	Size  int `json:"size"`  // mean links per hub, default 30
	// DeepShare is the share of a hub's links that go to deep sites (default 0.6).
	DeepShare float64 `json:"deep_share"`
	// OnDirectories is the share of hubs placed on web-directory sites; the
	// rest are "links" pages of sites of the hub's topic (default 0.6).
	OnDirectories float64 `json:"on_directories"`
}

// TextConfig shapes page text.
type TextConfig struct {
	Words int `json:"words"` // mean words of body text per page, default 180
	// TopicShare is the share of body words drawn from the site's topic
	// vocabulary, the rest being generic words (default 0.3).
	TopicShare float64 `json:"topic_share"`
}

// FormsConfig sets how common non-searchable forms are.
type FormsConfig struct {
	HeaderLogin      float64 `json:"header_login"`      // sites with a login box on every page (0.25)
	FooterNewsletter float64 `json:"footer_newsletter"` // sites with a newsletter box on every page (0.3)
	SiteSearchBox    float64 `json:"site_search_box"`   // sites with an external search-engine box on every page (0.45)
	LoginPage        float64 `json:"login_page"`        // sites with a login page (0.5)
	RegisterPage     float64 `json:"register_page"`     // sites with a registration page (0.3)
	PasswordPage     float64 `json:"password_page"`     // sites with a password-recovery page (0.2)
	ContactPage      float64 `json:"contact_page"`      // sites with a contact form (0.6)
	OrderForms       float64 `json:"order_forms"`       // item pages with an order/add-to-cart form on shop sites (0.5)
	OtherForms       float64 `json:"other_forms"`       // listing pages with a poll or display-options form (0.1)
}

// RobotsConfig sets robots.txt rules.
type RobotsConfig struct {
	DisallowShare   float64 `json:"disallow_share"`    // sites disallowing some directories (0.3)
	CrawlDelayShare float64 `json:"crawl_delay_share"` // sites with a Crawl-delay (0.02)
	CrawlDelay      int     `json:"crawl_delay"`       // seconds (1)
}

// FaultConfig sets fault rates, per page unless stated otherwise. Permanent
// faults never hit a homepage, a form page or a page on the tree path to a
// form, so every form stays reachable for a robust crawler.
type FaultConfig struct {
	Error     float64  `json:"error"`      // permanent 500 (0.004)
	Flaky     float64  `json:"flaky"`      // 503 + Retry-After on the first request of the URL (0.01)
	Slow      float64  `json:"slow"`       // response delayed by SlowDelay (0.003)
	SlowDelay Duration `json:"slow_delay"` // default 800ms
	Reset     float64  `json:"reset"`      // connection reset on the first request of the URL (0.002)
	Oversize  float64  `json:"oversize"`   // body padded past OversizeBytes (0.001)
	// OversizeBytes is the size of oversized bodies (default 6 MiB).
	OversizeBytes int     `json:"oversize_bytes"`
	Malformed     float64 `json:"malformed"` // badly broken (but parseable) HTML (0.03)
	// Per link: a link to a missing page (404) or to a host that does not
	// exist (0.01), through a redirect chain of 1–4 hops (0.03), into a
	// redirect loop (0.002).
	BrokenLink float64 `json:"broken_link"`
	Redirect   float64 `json:"redirect"`
	Loop       float64 `json:"loop"`
	// Per site: an infinite event calendar (0.03), session ids in internal
	// links that duplicate every page (0.04).
	Calendar  float64 `json:"calendar"`
	SessionID float64 `json:"session_id"`
}

// DBConfig configures hidden databases.
type DBConfig struct {
	K        int `json:"k"`         // result limit per query (default 100)
	PageSize int `json:"page_size"` // results per page (default 10)
	MinSize  int `json:"min_size"`  // records per database, at least (default 150)
	MaxSize  int `json:"max_size"`  // at most (default 3000; log-uniform between)
	// ShowTotal is the share of databases whose pages show the match count (0.4).
	ShowTotal float64 `json:"show_total"`
	// API is the share of deep sites that also offer the JSON keyword API (0.2).
	API float64 `json:"api"`
	// Post is the share of generated forms that use POST (0.25); real
	// markup keeps its own method.
	Post float64 `json:"post"`
}

// SearchConfig configures the search engine host.
type SearchConfig struct {
	ResultCap int     `json:"result_cap"` // results reachable per query (default 100)
	PageSize  int     `json:"page_size"`  // results per page (default 10)
	Rate      float64 `json:"rate"`       // queries per second allowed, 0 = unlimited (default 20)
	Burst     int     `json:"burst"`      // token-bucket burst (default 40)
}

// Duration is a time.Duration that reads and writes JSON as "800ms".
type Duration time.Duration

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON accepts a Go duration string ("1.5s") or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want a string like \"800ms\": %w", err)
	}
	*d = Duration(n)
	return nil
}

// DefaultConfig is the default web: about 350,000 pages on 10,000 sites, with
// relevant searchable forms well under 2% of pages for every domain. It is
// large enough that a 10,000-page crawl of one domain does not exhaust the
// domain's deep sites: on a smaller web every strategy ends up finding the
// same few forms and the benchmark measures the web, not the crawler.
func DefaultConfig() Config {
	dom := map[string]float64{}
	for _, d := range domain.BuiltIn {
		dom[d] = 1
	}
	return Config{
		Seed:                 1,
		Sites:                10000,
		TopicShare:           0.55,
		Domains:              dom,
		Categories:           nil, // nil: every category of topics.json, weight 1
		DirectoryShare:       0.01,
		DeepFraction:         map[string]float64{"*": 0.45},
		OffTopicDeepFraction: 0.15,
		ExtraDBShare:         0.25,
		TravelShare:          0.35,
		Pages:                PagesConfig{Median: 12, Sigma: 1.2, Min: 4, Max: 4000},
		Sections:             SectionsConfig{Min: 2, Max: 8, Skew: 1.8, Listing: 20},
		FormDepth:            []float64{0.04, 0.20, 0.26, 0.22, 0.17, 0.11},
		FormDirBias:          0.7,
		FormStyle:            map[string]float64{"keyword": 0.45, "advanced": 0.3, "both": 0.25},
		Homophily:            0.8,
		ExternalLinks:        1.2,
		DeepPopularity:       2,
		Hubs:                 HubsConfig{Count: 160, Size: 30, DeepShare: 0.6, OnDirectories: 0.6},
		Text:                 TextConfig{Words: 180, TopicShare: 0.3},
		Forms: FormsConfig{HeaderLogin: 0.25, FooterNewsletter: 0.3, SiteSearchBox: 0.45, LoginPage: 0.5,
			RegisterPage: 0.3, PasswordPage: 0.2, ContactPage: 0.6, OrderForms: 0.5, OtherForms: 0.1},
		Robots: RobotsConfig{DisallowShare: 0.3, CrawlDelayShare: 0.02, CrawlDelay: 1},
		Faults: FaultConfig{Error: 0.004, Flaky: 0.01, Slow: 0.003, SlowDelay: Duration(800 * time.Millisecond),
			Reset: 0.002, Oversize: 0.001, OversizeBytes: 6 << 20, Malformed: 0.03,
			BrokenLink: 0.01, Redirect: 0.03, Loop: 0.002, Calendar: 0.03, SessionID: 0.04},
		DB:     DBConfig{K: 100, PageSize: 10, MinSize: 150, MaxSize: 3000, ShowTotal: 0.4, API: 0.2, Post: 0.25},
		Search: SearchConfig{ResultCap: 100, PageSize: 10, Rate: 20, Burst: 40},
	}
}

// SmallConfig is a web of about 60 sites and a few hundred pages with no
// faults, no robots rules and no search rate limit: the size unit tests use.
func SmallConfig() Config {
	c := DefaultConfig()
	c.Sites = 60
	c.TopicShare = 0.7
	c.DeepFraction = map[string]float64{"*": 0.6}
	c.Pages = PagesConfig{Median: 6, Sigma: 0.8, Min: 3, Max: 60}
	c.Hubs = HubsConfig{Count: 4, Size: 8, DeepShare: 0.6, OnDirectories: 0.5}
	c.DirectoryShare = 0.03
	c.Text.Words = 60
	c.Faults = NoFaults()
	c.Robots = RobotsConfig{}
	c.DB.MinSize, c.DB.MaxSize = 30, 200
	c.Search.Rate = 0
	return c
}

// NoFaults is a FaultConfig with every fault off.
func NoFaults() FaultConfig { return FaultConfig{OversizeBytes: 6 << 20} }

// LoadConfig reads a JSON config file over DefaultConfig.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("simweb: load config: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return Config{}, fmt.Errorf("simweb: config %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig reads JSON over DefaultConfig and validates the result.
func ParseConfig(b []byte) (Config, error) {
	c := DefaultConfig()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// JSON returns the config as indented JSON (the format LoadConfig reads).
func (c Config) JSON() []byte {
	b, _ := json.MarshalIndent(c, "", "  ")
	return b
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	var errs []string
	bad := func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }
	if c.Sites < 1 {
		bad("sites must be ≥ 1 (got %d)", c.Sites)
	}
	rates := map[string]float64{
		"topic_share": c.TopicShare, "directory_share": c.DirectoryShare, "off_topic_deep_fraction": c.OffTopicDeepFraction,
		"extra_db_share": c.ExtraDBShare, "travel_share": c.TravelShare, "form_dir_bias": c.FormDirBias, "homophily": c.Homophily,
		"hubs.deep_share": c.Hubs.DeepShare, "hubs.on_directories": c.Hubs.OnDirectories, "text.topic_share": c.Text.TopicShare,
		"forms.header_login": c.Forms.HeaderLogin, "forms.footer_newsletter": c.Forms.FooterNewsletter, "forms.site_search_box": c.Forms.SiteSearchBox,
		"forms.login_page": c.Forms.LoginPage, "forms.register_page": c.Forms.RegisterPage, "forms.password_page": c.Forms.PasswordPage,
		"forms.contact_page": c.Forms.ContactPage, "forms.order_forms": c.Forms.OrderForms, "forms.other_forms": c.Forms.OtherForms,
		"robots.disallow_share": c.Robots.DisallowShare, "robots.crawl_delay_share": c.Robots.CrawlDelayShare,
		"faults.error": c.Faults.Error, "faults.flaky": c.Faults.Flaky, "faults.slow": c.Faults.Slow, "faults.reset": c.Faults.Reset,
		"faults.oversize": c.Faults.Oversize, "faults.malformed": c.Faults.Malformed, "faults.broken_link": c.Faults.BrokenLink,
		"faults.redirect": c.Faults.Redirect, "faults.loop": c.Faults.Loop, "faults.calendar": c.Faults.Calendar, "faults.session_id": c.Faults.SessionID,
		"db.show_total": c.DB.ShowTotal, "db.api": c.DB.API, "db.post": c.DB.Post,
	}
	for k, v := range c.DeepFraction {
		rates["deep_fraction."+k] = v
	}
	names := make([]string, 0, len(rates))
	for k := range rates {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if v := rates[k]; v < 0 || v > 1 {
			bad("%s must be in [0,1] (got %g)", k, v)
		}
	}
	if s := c.Faults.Error + c.Faults.Flaky + c.Faults.Slow + c.Faults.Reset + c.Faults.Oversize + c.Faults.Malformed; s > 1 {
		bad("page fault rates sum to %g > 1", s)
	}
	if s := c.Faults.BrokenLink + c.Faults.Redirect + c.Faults.Loop; s > 1 {
		bad("link fault rates sum to %g > 1", s)
	}
	if c.Pages.Min < 1 || c.Pages.Median <= 0 || c.Pages.Sigma < 0 || (c.Pages.Max > 0 && c.Pages.Max < c.Pages.Min) {
		bad("pages: need min ≥ 1, median > 0, sigma ≥ 0, max ≥ min (got %+v)", c.Pages)
	}
	if c.Sections.Min < 1 || c.Sections.Max < c.Sections.Min || c.Sections.Listing < 2 || c.Sections.Skew < 0 {
		bad("sections: need 1 ≤ min ≤ max, listing ≥ 2, skew ≥ 0 (got %+v)", c.Sections)
	}
	if !positiveSum(c.FormDepth) {
		bad("form_depth needs non-negative weights with a positive sum")
	}
	if len(c.FormDepth) > 12 {
		bad("form_depth: at most 12 depths")
	}
	if !positiveMapSum(c.FormStyle) {
		bad("form_style needs non-negative weights with a positive sum")
	}
	for k := range c.FormStyle {
		if k != "keyword" && k != "advanced" && k != "both" {
			bad("form_style: unknown style %q (keyword, advanced, both)", k)
		}
	}
	if !positiveMapSum(c.Domains) && c.TopicShare > 0 {
		bad("domains needs a positive weight when topic_share > 0")
	}
	for k, v := range c.Domains {
		if v < 0 {
			bad("domains.%s is negative", k)
		}
	}
	if c.ExternalLinks < 0 || c.DeepPopularity < 0 || c.Hubs.Count < 0 || c.Hubs.Size < 0 || c.Text.Words < 0 {
		bad("external_links, deep_popularity, hubs and text.words must be ≥ 0")
	}
	if c.DB.K < 1 || c.DB.PageSize < 1 || c.DB.MinSize < 1 || c.DB.MaxSize < c.DB.MinSize {
		bad("db: need k ≥ 1, page_size ≥ 1, 1 ≤ min_size ≤ max_size (got %+v)", c.DB)
	}
	if c.Search.ResultCap < 1 || c.Search.PageSize < 1 || c.Search.Rate < 0 || c.Search.Burst < 0 {
		bad("search: need result_cap ≥ 1, page_size ≥ 1, rate ≥ 0, burst ≥ 0 (got %+v)", c.Search)
	}
	if c.Faults.SlowDelay < 0 || c.Faults.OversizeBytes < 0 || c.Robots.CrawlDelay < 0 {
		bad("durations and sizes must be ≥ 0")
	}
	if len(errs) > 0 {
		return errors.New("invalid config: " + strings.Join(errs, "; "))
	}
	return nil
}

func positiveSum(w []float64) bool {
	s := 0.0
	for _, x := range w {
		if x < 0 {
			return false
		}
		s += x
	}
	return s > 0
}

func positiveMapSum(m map[string]float64) bool {
	s := 0.0
	for _, x := range m {
		if x < 0 {
			return false
		}
		s += x
	}
	return s > 0
}
