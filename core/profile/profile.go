package profile

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/script"
)

// Strategies are the crawl strategies a profile may select.
var Strategies = []string{"smartcrawler", "scdi", "ache", "bestfirst"}

// Profile is a resolved domain profile. Field tags are the keys of the Lua
// table; a key left out keeps the documented default (see Defaults).
type Profile struct {
	// Name identifies the profile and names its crawl directory
	// (./dwcrawl-data/<name>). Default: the file name without ".lua".
	Name string `lua:"name"`
	// Description is free text for people.
	Description string `lua:"description"`
	// Domain is a built-in domain (domain.BuiltIn) or a custom lower-case name; it selects the
	// simulated web's sites in testbed mode. Default: Name.
	Domain string `lua:"domain"`
	// Strategy is the default crawl strategy (a run may override it).
	// Default "smartcrawler".
	Strategy string `lua:"strategy"`
	// Seeds are the sites the crawl starts from: absolute http(s) URLs or bare
	// host names (https:// is assumed). A seed below its site's homepage
	// (a search page) is fetched too when the site is explored.
	Seeds []string `lua:"seeds"`
	// Keywords describe the topic; they seed the site classifier and the
	// feature spaces before anything is learned. At least one is required.
	Keywords []string `lua:"keywords"`
	// Site holds hints for the site classifier and ranker (stage one).
	Site Hints `lua:"site"`
	// Link holds hints for the in-site link ranker (stage two).
	Link Hints `lua:"link"`
	// Forms holds examples and words of the searchable forms wanted.
	Forms Forms `lua:"forms"`
	// Examples are pages of sites of the topic: saved HTML files (paths
	// relative to the profile) or http(s) URLs. With Forms.Examples and
	// Keywords they train the classifiers of a custom domain (one not in
	// domain.BuiltIn); the homepages of the seeds are added at crawl start.
	Examples []string `lua:"examples"`
	// Reverse configures reverse searching (Algorithm 1).
	Reverse Reverse `lua:"reverse"`
	// Stop holds the stop-early criteria SC1–SC5 of in-site exploring.
	Stop Stop `lua:"stop"`
	// Rank holds the site- and link-ranking settings.
	Rank Rank `lua:"rank"`
	// Learn holds the adaptive-learning thresholds.
	Learn Learn `lua:"learn"`
	// Budget bounds the whole crawl (0 = unbounded).
	Budget Budget `lua:"budget"`
	// Politeness holds the fetcher's per-host manners.
	Politeness Politeness `lua:"politeness"`
	// Probe turns on post-query probing of searchable forms whose domain
	// the classifiers cannot tell (off unless queries is set).
	Probe Probe `lua:"probe"`
	// Harvest holds the query budgets of dwcrawl harvest.
	Harvest Harvest `lua:"harvest"`
	// Scope limits the URLs the crawl may fetch.
	Scope Scope `lua:"scope"`
	// Sitemaps configures the reading of sitemaps during in-site exploring.
	Sitemaps Sitemaps `lua:"sitemaps"`
	// Sites are a person's rules for the result pages of single sites,
	// keyed by host name ("archive.example.org", "*.example.org", or
	// "host:port"): CSS selectors that replace the inference of the
	// records and the pager when a form of that host is surfaced.
	Sites map[string]Site `lua:"sites"`

	// Path is the file the profile was loaded from.
	Path string `lua:"-"`
}

// Hints are words that raise (Keywords) or lower (Negative) the score of a
// site or link, used before the rankers have learned their own features.
type Hints struct {
	Keywords []string `lua:"keywords"`
	Negative []string `lua:"negative"`
}

// Forms describes the searchable forms wanted.
type Forms struct {
	// Examples are HTML files (paths relative to the profile) or inline HTML
	// snippets of relevant forms; a snippet is recognised by its "<".
	Examples []string `lua:"examples"`
	// Keywords are words expected in a relevant form's fields, labels or
	// surrounding text.
	Keywords []string `lua:"keywords"`
}

// Reverse configures reverse searching: when the site frontier runs low, ask
// a search engine for pages linking to known deep sites ("centre pages") and
// mine them for new sites.
type Reverse struct {
	// Plugin is the search-engine plugin, "search/<name>" (see plugins/).
	// In testbed mode the simulated engine is always used.
	Plugin string `lua:"plugin"`
	// Plugins are candidate engines, tried in order when Plugin is empty:
	// the first whose configuration (its environment variables) is in
	// place is used, e.g. {"search/searxng", "search/brave",
	// "search/google"}. With neither, reverse searching is off.
	Plugins []string `lua:"plugins"`
	// Threshold: reverse search runs when fewer unvisited sites than this
	// remain in the site frontier. Default 50.
	Threshold int `lua:"threshold"`
	// MinLinks: a result page is a centre page when it links to at least
	// this many known deep or seed sites (the N of Algorithm 1). Default 3.
	MinLinks int `lua:"min_links"`
	// MaxQueries bounds the engine queries of one reverse-search round.
	// Default 20.
	MaxQueries int `lua:"max_queries"`
}

// Stop holds the stop-early criteria of in-site exploring (SmartCrawler
// §3.3). A site's exploring ends at the first criterion met.
type Stop struct {
	// MaxDepth (SC1): deepest link depth explored from a site's home page
	// (0: home pages only). Default 5: a quarter of the forms of the
	// simulated web lie at depths 4–5, and SC4 keeps deep levels cheap.
	MaxDepth int `lua:"max_depth"`
	// MaxPagesPerDepth (SC2): pages fetched at one depth. Default 100.
	MaxPagesPerDepth int `lua:"max_pages_per_depth"`
	// MaxFormsPerDepth (SC3): searchable forms found at one depth after
	// which the next depth is not needed. Default 5.
	MaxFormsPerDepth int `lua:"max_forms_per_depth"`
	// MaxPagesNoFormPerDepth (SC4): pages without a searchable form at one
	// depth before moving to the next depth. Default 6: the path to a form
	// is found among the best-ranked links of a depth or not at all, so a
	// small value buys depth cheaply (measured in bench harvest).
	MaxPagesNoFormPerDepth int `lua:"max_pages_no_form_per_depth"`
	// MaxPagesNoForm (SC5): pages of a site without any searchable form
	// before leaving the site. Default 50.
	MaxPagesNoForm int `lua:"max_pages_no_form"`
	// MaxPagesPerSite caps the pages fetched from one site. Default 300.
	MaxPagesPerSite int `lua:"max_pages_per_site"`
}

// Rank holds ranking settings.
type Rank struct {
	// Alpha weighs site similarity against site frequency in the site
	// ranker: α·ST + (1−α)·log(1+SF). Must be in [0,1]. Default 0.5.
	Alpha float64 `lua:"alpha"`
	// TopK is the number of top terms kept per feature space. Default 20.
	TopK int `lua:"top_k"`
}

// Learn holds the adaptive-learning thresholds (SmartCrawler §3.4).
type Learn struct {
	// SitesEvery: the site feature space FSS is rebuilt after this many new
	// deep sites (N). Default 50.
	SitesEvery int `lua:"sites_every"`
	// FormsEvery: the link feature space FSL is rebuilt after this many new
	// searchable forms (M). Default 100.
	FormsEvery int `lua:"forms_every"`
}

// Budget bounds a crawl; 0 means unbounded (the command line may set one).
type Budget struct {
	Pages    int           `lua:"pages"`    // pages fetched
	Sites    int           `lua:"sites"`    // sites explored
	Duration time.Duration `lua:"duration"` // wall time, "2h" or seconds
}

// Probe configures post-query probing: a searchable form whose domain is
// uncertain is asked a few of the profile's keywords and a nonsense term,
// and its answers decide whether it fronts a database of the topic, a
// generic site search or no database. Only forms classified searchable are
// ever submitted, through the crawl's polite fetcher.
type Probe struct {
	// Queries is the number of probe queries per form, the nonsense term
	// included: 0 turns probing off; else at least 2 and at most 20.
	Queries int `lua:"queries"`
	// Budget bounds the probe queries of the whole crawl (resumed runs
	// included). Default 200.
	Budget int `lua:"budget"`
}

// Harvest holds the budgets of `dwcrawl harvest`, which surfaces the
// databases of the topic a crawl finds (its pages are budget.pages).
type Harvest struct {
	// QueriesPerDB bounds the queries sent to one database, the analysis
	// of its form included. Default 200.
	QueriesPerDB int `lua:"queries_per_db"`
	// Queries bounds the queries sent to all the databases together
	// (resumed runs included); 0 means no bound.
	Queries int `lua:"queries"`
	// Parallel is the number of databases surfaced at once, each on a
	// host of its own. Default 4.
	Parallel int `lua:"parallel"`
	// StopAfter ends a database's surfacing after this many queries in a
	// row that found no new record (0: only the budget ends it). Default 20.
	StopAfter int `lua:"stop_after"`
}

// Politeness holds the fetcher's manners toward each host.
type Politeness struct {
	// Delay between two requests to one host. Default 1s (a robots.txt
	// crawl-delay may raise it). Testbed runs set it to 0.
	Delay time.Duration `lua:"delay"`
	// PerIP keeps the delay per IP address as well as per host: host
	// names on one server (virtual hosts) are paced as one. Off by default:
	// a CDN puts unrelated sites on one address. See docs/politeness.md.
	PerIP bool `lua:"per_ip"`
	// Timeout of one request. Default 30s.
	Timeout time.Duration `lua:"timeout"`
	// MaxBodyBytes bounds a fetched page. Default 2 MiB.
	MaxBodyBytes int64 `lua:"max_body_bytes"`
	// UserAgent sent with every request. Default DefaultUserAgent.
	UserAgent string `lua:"user_agent"`
	// Headers are extra request headers sent to the crawled sites (not to
	// search engines), e.g. { ["Accept-Language"] = "de, en;q=0.5" }.
	// User-Agent is set with user_agent, not here.
	Headers map[string]string `lua:"headers"`
}

// Scope limits what a crawl fetches. A URL is in scope when its host
// matches one of AllowHosts (or AllowHosts is empty) and none of DenyHosts,
// and the URL matches one of Allow (or Allow is empty) and none of Deny.
// AllowHosts and DenyHosts are globs on the host name (lower-case, without
// port) in which "*" matches any run of characters, dots included
// ("*.example.com" matches the subdomains of example.com, not example.com
// itself). Allow and Deny are regular expressions (Go RE2 syntax) searched
// in the whole canonical URL ("scheme://host[:port]/path?query"); anchor
// them with ^ and $ as needed. A URL out of scope is not fetched and is
// recorded as a failure with cause "scope".
type Scope struct {
	AllowHosts []string `lua:"allow_hosts"`
	DenyHosts  []string `lua:"deny_hosts"`
	Allow      []string `lua:"allow"`
	Deny       []string `lua:"deny"`
	// MaxPagesPerHost caps the pages fetched from one host over the whole
	// crawl, whatever the strategy (0: no cap); pages beyond it are
	// recorded with cause "scope".
	MaxPagesPerHost int `lua:"max_pages_per_host"`

	allowHosts, denyHosts, allow, deny []*regexp.Regexp
}

// Sitemaps configures the sitemaps read when a site is explored (the
// two-stage strategies): the robots.txt Sitemap: files and /sitemap.xml,
// sitemap index files followed, gzip allowed. The URLs of the site they
// list join its in-site frontier at depth 1.
type Sitemaps struct {
	// Enabled turns sitemap reading on. Default true.
	Enabled bool `lua:"enabled"`
	// MaxFiles bounds the sitemap files fetched per site. Default 5.
	MaxFiles int `lua:"max_files"`
	// MaxURLs bounds the URLs taken from a site's sitemaps. Default 500.
	MaxURLs int `lua:"max_urls"`
}

// DefaultUserAgent identifies dwcrawl to web sites.
const DefaultUserAgent = "dwcrawl/0.1 (+https://github.com/dwcrawl/dwcrawl)"

// Defaults returns the default settings of every field that has one.
func Defaults() Profile {
	return Profile{
		Strategy:   "smartcrawler",
		Reverse:    Reverse{Threshold: 50, MinLinks: 3, MaxQueries: 20},
		Stop:       Stop{MaxDepth: 5, MaxPagesPerDepth: 100, MaxFormsPerDepth: 5, MaxPagesNoFormPerDepth: 6, MaxPagesNoForm: 50, MaxPagesPerSite: 300},
		Rank:       Rank{Alpha: 0.5, TopK: 20},
		Learn:      Learn{SitesEvery: 50, FormsEvery: 100},
		Politeness: Politeness{Delay: time.Second, Timeout: 30 * time.Second, MaxBodyBytes: 2 << 20, UserAgent: DefaultUserAgent},
		Probe:      Probe{Budget: 200},
		Harvest:    Harvest{QueriesPerDB: 200, Parallel: 4, StopAfter: 20},
		Sitemaps:   Sitemaps{Enabled: true, MaxFiles: 5, MaxURLs: 500},
	}
}

// Load runs the profile file in the sandbox and returns the resolved,
// validated profile. Errors are *script.Error with the file and line.
func Load(ctx context.Context, path string) (*Profile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load profile: %w", err)
	}
	return LoadSource(ctx, path, src)
}

// LoadSource is Load for a profile already in memory; path names it in
// errors and anchors relative form-example paths.
func LoadSource(ctx context.Context, path string, src []byte) (*Profile, error) {
	c, err := script.Compile(path, src)
	if err != nil {
		return nil, err
	}
	pool := script.NewPool(script.Options{CallTimeout: 10 * time.Second})
	defer pool.Close()
	v, err := pool.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	d := Defaults()
	p := &d
	if err := c.Decode(v, p); err != nil {
		return nil, err
	}
	p.Path = path
	p.resolve()
	if err := p.validate(c); err != nil {
		return nil, err
	}
	return p, nil
}

// Custom reports whether the profile's domain is not one of domain.BuiltIn: its
// classifiers are trained from the profile itself.
func (p *Profile) Custom() bool { return !domain.IsBuiltIn(p.Domain) }

// resolve fills the settings derived from others and normalises words.
func (p *Profile) resolve() {
	if p.Name == "" && p.Path != "" {
		p.Name = strings.TrimSuffix(filepath.Base(p.Path), filepath.Ext(p.Path))
	}
	if p.Domain == "" {
		p.Domain = p.Name
	}
	p.Keywords = cleanWords(p.Keywords)
	p.Site.Keywords = cleanWords(p.Site.Keywords)
	p.Site.Negative = cleanWords(p.Site.Negative)
	p.Link.Keywords = cleanWords(p.Link.Keywords)
	p.Link.Negative = cleanWords(p.Link.Negative)
	p.Forms.Keywords = cleanWords(p.Forms.Keywords)
}

// cleanWords lower-cases, trims and de-duplicates words, keeping order.
func cleanWords(ws []string) []string {
	var out []string
	for _, w := range ws {
		w = strings.ToLower(strings.Join(strings.Fields(w), " "))
		if w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

var (
	nameRe   = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)
	pluginRe = regexp.MustCompile(`^search/[a-z0-9][a-z0-9_-]*$`)
)

// validate checks every setting, reporting the first problem at its key.
func (p *Profile) validate(c *script.Chunk) error {
	for _, step := range []func(*script.Chunk) error{p.validateTopic, p.validateSeeds, p.validateExamples,
		p.validateReverse, p.validateNet, p.validateSites, p.validateLimits, p.validateRun} {
		if err := step(c); err != nil {
			return err
		}
	}
	return nil
}

// validateTopic checks the name, domain, strategy and keywords.
func (p *Profile) validateTopic(c *script.Chunk) error {
	if p.Name == "" || !nameRe.MatchString(p.Name) {
		return c.Errorf("name", "must be a lower-case name of letters, digits, '_', '-' or '.' (it names the crawl directory), got %q", p.Name)
	}
	if !nameRe.MatchString(p.Domain) {
		return c.Errorf("domain", "must be one of %s or a custom lower-case name, got %q", strings.Join(domain.BuiltIn, ", "), p.Domain)
	}
	if !slices.Contains(Strategies, p.Strategy) {
		return c.Errorf("strategy", "must be one of %s, got %q", strings.Join(Strategies, ", "), p.Strategy)
	}
	if len(p.Keywords) == 0 {
		return c.Errorf("keywords", "must list at least one topic keyword")
	}
	return nil
}

// validateSeeds normalizes the seeds, without duplicates, and requires
// seeds or a reverse-search plugin.
func (p *Profile) validateSeeds(c *script.Chunk) error {
	seen := map[string]bool{}
	var seeds []string
	for i, s := range p.Seeds {
		key := fmt.Sprintf("seeds[%d]", i+1)
		u, err := normalizeSeed(s)
		if err != nil {
			return c.Errorf(key, "%v", err)
		}
		if !seen[u] {
			seen[u] = true
			seeds = append(seeds, u)
		}
	}
	p.Seeds = seeds
	if len(p.Seeds) == 0 && p.Reverse.Plugin == "" && len(p.Reverse.Plugins) == 0 {
		return c.Errorf("seeds", "give at least one seed site, or a reverse.plugin to find sites with")
	}
	return nil
}

// validateExamples checks the form and page examples: inline or a URL, or
// a file, resolved against the profile's directory.
func (p *Profile) validateExamples(c *script.Chunk) error {
	for i, ex := range p.Forms.Examples {
		key := fmt.Sprintf("forms.examples[%d]", i+1)
		if strings.Contains(ex, "<") {
			if !strings.Contains(strings.ToLower(ex), "<form") {
				return c.Errorf(key, "inline example must contain a <form> element")
			}
			continue
		}
		file, err := p.localFile(ex)
		if err != nil {
			return c.Errorf(key, "form example file: %v", err)
		}
		p.Forms.Examples[i] = file
	}
	for i, ex := range p.Examples {
		key := fmt.Sprintf("examples[%d]", i+1)
		if strings.HasPrefix(ex, "http://") || strings.HasPrefix(ex, "https://") {
			if u, err := url.Parse(ex); err != nil || u.Host == "" {
				return c.Errorf(key, "example page URL %q: not an absolute http(s) URL", ex)
			}
			continue
		}
		file, err := p.localFile(ex)
		if err != nil {
			return c.Errorf(key, "example page file: %v", err)
		}
		p.Examples[i] = file
	}
	return nil
}

// localFile resolves a file named by the profile against its directory
// and checks that it exists.
func (p *Profile) localFile(name string) (string, error) {
	file := name
	if !filepath.IsAbs(file) && p.Path != "" {
		file = filepath.Join(filepath.Dir(p.Path), file)
	}
	_, err := os.Stat(file)
	return file, err
}

// validateReverse checks the search plugins' names.
func (p *Profile) validateReverse(c *script.Chunk) error {
	if p.Reverse.Plugin != "" && !pluginRe.MatchString(p.Reverse.Plugin) {
		return c.Errorf("reverse.plugin", "must name a search plugin as \"search/<name>\", got %q", p.Reverse.Plugin)
	}
	for i, ref := range p.Reverse.Plugins {
		if !pluginRe.MatchString(ref) {
			return c.Errorf(fmt.Sprintf("reverse.plugins[%d]", i+1), "must name a search plugin as \"search/<name>\", got %q", ref)
		}
	}
	return nil
}

// validateLimits checks the crawl's counts, depths, weights and budgets.
func (p *Profile) validateLimits(c *script.Chunk) error {
	positive := []struct {
		key string
		v   int
	}{
		{"reverse.threshold", p.Reverse.Threshold},
		{"reverse.min_links", p.Reverse.MinLinks},
		{"reverse.max_queries", p.Reverse.MaxQueries},
		{"stop.max_pages_per_depth", p.Stop.MaxPagesPerDepth},
		{"stop.max_forms_per_depth", p.Stop.MaxFormsPerDepth},
		{"stop.max_pages_no_form_per_depth", p.Stop.MaxPagesNoFormPerDepth},
		{"stop.max_pages_no_form", p.Stop.MaxPagesNoForm},
		{"stop.max_pages_per_site", p.Stop.MaxPagesPerSite},
		{"rank.top_k", p.Rank.TopK},
		{"learn.sites_every", p.Learn.SitesEvery},
		{"learn.forms_every", p.Learn.FormsEvery},
	}
	for _, f := range positive {
		if f.v < 1 {
			return c.Errorf(f.key, "must be at least 1, got %d", f.v)
		}
	}
	if p.Stop.MaxDepth < 0 {
		return c.Errorf("stop.max_depth", "must not be negative (0 explores home pages only), got %d", p.Stop.MaxDepth)
	}
	if p.Stop.MaxDepth > 20 {
		return c.Errorf("stop.max_depth", "must be at most 20, got %d (searchable forms lie within depth 5 on most sites)", p.Stop.MaxDepth)
	}
	if p.Rank.Alpha < 0 || p.Rank.Alpha > 1 {
		return c.Errorf("rank.alpha", "must be in [0,1], got %v", p.Rank.Alpha)
	}
	nonNeg := []struct {
		key string
		v   int64
	}{
		{"budget.pages", int64(p.Budget.Pages)},
		{"budget.sites", int64(p.Budget.Sites)},
		{"budget.duration", int64(p.Budget.Duration)},
		{"politeness.delay", int64(p.Politeness.Delay)},
	}
	for _, f := range nonNeg {
		if f.v < 0 {
			return c.Errorf(f.key, "must not be negative")
		}
	}
	return nil
}

// validateRun checks the politeness, probing and harvest settings.
func (p *Profile) validateRun(c *script.Chunk) error {
	if p.Politeness.Timeout <= 0 {
		return c.Errorf("politeness.timeout", "must be positive, got %v", p.Politeness.Timeout)
	}
	if p.Politeness.MaxBodyBytes <= 0 {
		return c.Errorf("politeness.max_body_bytes", "must be positive, got %d", p.Politeness.MaxBodyBytes)
	}
	if strings.ContainsAny(p.Politeness.UserAgent, "\r\n") {
		return c.Errorf("politeness.user_agent", "must be one line")
	}
	if q := p.Probe.Queries; q != 0 && (q < 2 || q > 20) {
		return c.Errorf("probe.queries", "must be 0 (no probing) or from 2 to 20 (topic terms and one nonsense term per form), got %d", q)
	}
	if p.Probe.Budget < 0 {
		return c.Errorf("probe.budget", "must not be negative, got %d", p.Probe.Budget)
	}
	if p.Probe.Queries > 0 && p.Probe.Budget < p.Probe.Queries {
		return c.Errorf("probe.budget", "must allow one form's probe (%d queries), got %d", p.Probe.Queries, p.Probe.Budget)
	}
	for _, k := range []struct {
		key string
		v   int
		min int
	}{{"harvest.queries_per_db", p.Harvest.QueriesPerDB, 1}, {"harvest.queries", p.Harvest.Queries, 0}, {"harvest.parallel", p.Harvest.Parallel, 1}, {"harvest.stop_after", p.Harvest.StopAfter, 0}} {
		if k.v < k.min {
			return c.Errorf(k.key, "must be at least %d, got %d", k.min, k.v)
		}
	}
	return nil
}

// normalizeSeed turns a seed into an absolute http(s) URL; a bare host name
// gets https:// and a "/" path.
func normalizeSeed(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("empty seed")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("invalid seed URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("seed must be an http or https URL, got %q", s)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("seed %q has no host", s)
	}
	u.Host = strings.ToLower(u.Host)
	if u.Path == "" {
		u.Path = "/"
	}
	u.Fragment = ""
	return u.String(), nil
}
