package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/plugins"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// SurfaceOptions configure a surfacing run: which keyword interface, where
// the harvest is stored and resumed, and the query policy.
type SurfaceOptions struct {
	// Interface is a Lua keyword plugin spec (keyword/NAME?var=value) or the
	// http(s) URL of a JSON search API; Form is instead the id of a
	// searchable form the crawl in Dir discovered (exactly one is set).
	Interface string
	Form      string
	// Dir is the crawl directory the harvest is stored in.
	Dir string
	// Source names the harvest in Dir (default: the plugin, URL or form:ID).
	Source string
	// Policy is adaptive, generic or random.
	Policy string
	// Budget counts all the queries of the source (resumed ones included);
	// 0 runs until the policy runs out. CostBudget stops once the spent
	// cost reaches it (0: no limit).
	Budget     int
	CostBudget float64
	// Select is the adaptive policy's estimator and cost model.
	Select surface.SelectOptions
	// Words is the word list of generic and random and of the first
	// queries (nil: the bundled list).
	Words []string
	// First is the first query ("": a frequent generic word).
	First string
	// K is the interface's result limit (0: declared by the plugin or
	// inferred).
	K int
	// MaxPages bounds the result pages read per query (0: all);
	// MaxRequests the search requests the plugin may send (0: unlimited).
	MaxPages    int
	MaxRequests int
	// KeepStopWords issues stop words too (also when the plugin declares
	// that the site does not ignore them).
	KeepStopWords bool
	// Seed seeds the random policy.
	Seed int64
	// Seeds are the first keywords a form harvest tries (nil: Profile's
	// keywords), before the form's own option texts and the words of its
	// page.
	Seeds []string
	// Profile is the domain profile of a form harvest: its keywords are
	// the first queries (unless Seeds) and its politeness (delay, timeout,
	// user agent, body limit, headers) the fetcher's on the real web. nil:
	// the profile the crawl in Dir recorded, if any.
	Profile *profile.Profile
	// StopAfter ends the harvest after this many consecutive queries that
	// downloaded nothing new (0: never).
	StopAfter int
	// Details fetches the page of every new record of a form harvest.
	Details bool
	// Browse reads every result page of a form's empty query when the form
	// lists records for it (see surface.FormOptions).
	Browse bool
	// Fetch, when set, replaces the fetcher settings of a form harvest on
	// the real web (tests reach the lab's hosts through its transport).
	Fetch *fetch.Options
	// Fetcher, when set, is the fetcher a form harvest sends its requests
	// through instead of one of its own (a harvest shares its crawl's, so
	// that each host gets one request at a time); Surface leaves it open.
	Fetcher *fetch.Fetcher
	// NoProbe turns off the size probes (surface.Options.NoProbe).
	NoProbe bool
	// PluginDirs are searched before the bundled plugins.
	PluginDirs []string
	// Progress receives a progress line at most once a second (nil: none).
	Progress io.Writer
	// OnProgress, when set, receives the progress after every query.
	OnProgress func(surface.Progress)
	// DB, when set, is the store of Dir already open (a server shares one
	// handle between a job and its readers); Surface leaves it open.
	DB *store.DB
	// Gate, when set, wraps the keyword interface (a cluster's shared query
	// budget: cluster.QueryBudget.Searcher).
	Gate func(keyword.Searcher) keyword.Searcher
	// Net are the network settings of the interface's requests.
	Net NetOptions
	// WARC is a directory to archive every HTTP exchange in ("" for none).
	WARC string
	// Explain reports, for a form harvest, how the first result page of
	// the run was read (SurfaceSummary.Explain).
	Explain bool
	// Sites, when set, returns the site's own result-page selectors for a
	// host (a profile's sites table); a form harvest reads its result
	// pages with those of the form's host.
	Sites func(host string) (records.Selectors, bool)
}

// SurfaceSummary is what a surfacing run reports.
type SurfaceSummary struct {
	Source   string   `json:"source"`
	Policy   string   `json:"policy"`
	Queries  int      `json:"queries"`
	Docs     int      `json:"docs"`
	Cost     float64  `json:"cost"`
	EstSize  *float64 `json:"est_size"`
	Coverage *float64 `json:"est_coverage"`
	// The coverage estimate (the same as est_coverage) with its
	// coverage_level interval and the estimator that produced it ("none"
	// before enough data, the numbers then null).
	CoverageEstimate *float64 `json:"coverage_estimate"`
	CoverageLow      *float64 `json:"coverage_low"`
	CoverageHigh     *float64 `json:"coverage_high"`
	CoverageLevel    float64  `json:"coverage_level"`
	SizeLow          *float64 `json:"est_size_low"`
	SizeHigh         *float64 `json:"est_size_high"`
	Estimator        string   `json:"estimator"`
	K                int      `json:"k,omitempty"`
	Dir              string   `json:"dir"`
	// WARC describes the archive written with SurfaceOptions.WARC.
	WARC *WARCSummary `json:"warc,omitempty"`
	// Form is what the analysis of a form's inputs found (form harvests).
	Form *surface.FormReport `json:"form,omitempty"`
	// Requests counts the HTTP requests of a form harvest (result pages,
	// the form's page, record pages).
	Requests int64 `json:"requests,omitempty"`
	// Explain is how the first result page of a form harvest was read
	// (SurfaceOptions.Explain; nil when no page was read).
	Explain *surface.Explain `json:"explain,omitempty"`
}

// Surface downloads the hidden database behind a keyword interface with
// the chosen policy, journaling every query in opt.Dir so that a run with
// the same options continues. The summary is returned with the harvest's
// error (nil when it was not even started).
func Surface(ctx context.Context, opt SurfaceOptions) (*SurfaceSummary, error) {
	if (opt.Interface == "") == (opt.Form == "") {
		return nil, &OptionError{Err: errors.New("give exactly one keyword interface or form")}
	}
	db := opt.DB
	if db == nil {
		// a form a crawl found is surfaced into the crawl's directory
		var err error
		if db, err = store.Open(opt.Dir, store.Options{Kind: store.KindSurface, AlsoKinds: []string{store.KindCrawl}}); err != nil {
			return nil, err
		}
		defer db.Close()
	}
	opt, err := formProfile(opt, db)
	if err != nil {
		return nil, err
	}
	ua := fetch.DefaultUserAgent()
	if opt.Profile != nil && opt.Profile.Politeness.UserAgent != "" {
		ua = opt.Profile.Politeness.UserAgent
	}
	w, err := openWARC(WARCOptions{Dir: opt.WARC, Profile: "surface " + firstNonEmpty(opt.Interface, "form:"+opt.Form), Strategy: opt.Policy}, ua)
	if err != nil {
		return nil, err
	}
	var arch fetch.Archiver
	if w != nil {
		arch = w
	}
	src, err := openSurfaceInterface(ctx, opt, db, arch)
	if err != nil {
		closeWARC(w, 0)
		return nil, err
	}
	closed := false
	closeSrc := func() {
		if !closed {
			closed = true
			src.close()
		}
	}
	defer closeSrc()
	if opt.Gate != nil {
		src.searcher = opt.Gate(src.searcher)
	}
	k := opt.K
	if k == 0 {
		k = src.k
	}
	terms := surface.TermOptions{KeepStopWords: opt.KeepStopWords || src.keepStops}
	sel := opt.Select
	sel.K = k
	policy, err := surface.NewPolicy(opt.Policy, surface.PolicyOptions{Words: opt.Words, Seed: opt.Seed, Select: sel})
	if err != nil {
		return nil, &OptionError{Err: err}
	}
	var fp *surface.FormPolicy
	if src.form != nil {
		fp = surface.NewFormPolicy(src.form, policy, surface.FormPlanOptions{Seeds: opt.Seeds, Budget: opt.Budget})
		policy = fp
	}
	source := opt.Source
	if source == "" {
		source = src.name
	}
	// A form's result pages are a site's web pages, slow and often deep
	// (a MediaWiki search pages by 20): a query whose pages only list
	// records already downloaded stops after 3 of them when the site
	// states its total.
	stale := 0
	if src.form != nil {
		stale = 3
	}
	prog := &surfaceProgress{w: opt.Progress, on: opt.OnProgress}
	st, herr := surface.Harvest(ctx, src.searcher, policy, surface.Options{
		Source: source, Budget: opt.Budget, CostBudget: opt.CostBudget, Cost: sel.Cost,
		K: k, MaxPages: opt.MaxPages, First: opt.First, Terms: terms, StopAfter: opt.StopAfter, StalePages: stale,
		Journal: &surface.StoreJournal{DB: db, Source: source}, NoProbe: opt.NoProbe,
		Progress: prog.report,
	})
	prog.done()
	sum := &SurfaceSummary{Source: source, Policy: policy.Name(), Dir: db.Dir(), CoverageLevel: surface.CoverageLevel, Estimator: surface.EstimatorNone}
	if fp != nil {
		r := fp.Report()
		sum.Form = &r
	}
	if src.requests != nil {
		sum.Requests = src.requests.n.Load()
	}
	if opt.Explain && src.form != nil {
		sum.Explain = src.form.Explain()
	}
	closeSrc() // the fetcher stops before the archive closes
	if ws, err := closeWARC(w, src.archiveErrors()); err != nil && herr == nil {
		herr = err
	} else {
		sum.WARC = ws
	}
	if st != nil {
		sum.Queries, sum.Docs, sum.Cost, sum.K = len(st.Log()), st.Docs(), st.Cost(), st.K()
		sum.setEstimate(st.Coverage())
	}
	return sum, herr
}

// setEstimate fills the estimate fields (rounded: sizes to records,
// fractions to 4 decimals).
func (sum *SurfaceSummary) setEstimate(e surface.CoverageEstimate) {
	sum.Estimator = e.Estimator
	if !e.Valid() {
		return
	}
	frac := func(x float64) *float64 { v := math.Round(x*1e4) / 1e4; return &v }
	size := func(x float64) *float64 {
		if math.IsInf(x, 0) {
			return nil // an interval open above (few recaptures)
		}
		v := math.Round(x)
		return &v
	}
	sum.EstSize, sum.SizeLow, sum.SizeHigh = size(e.Size), size(e.SizeLow), size(e.SizeHigh)
	sum.Coverage, sum.CoverageLow, sum.CoverageHigh = frac(e.Coverage), frac(e.Low), frac(e.High)
	sum.CoverageEstimate = sum.Coverage
}

// surfaceInterface is the opened keyword interface of a surface run.
type surfaceInterface struct {
	searcher  surface.Searcher
	name      string
	k         int
	keepStops bool
	close     func()
	fetcher   *fetch.Fetcher
	// form is the searcher of a form harvest (nil otherwise).
	form     *surface.FormSearcher
	requests *countingFetcher
}

// archiveErrors counts the exchanges the interface's fetcher could not
// archive.
func (s *surfaceInterface) archiveErrors() int64 {
	if s.fetcher == nil {
		return 0
	}
	return s.fetcher.ArchiveErrors()
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func openSurfaceInterface(ctx context.Context, opt SurfaceOptions, db *store.DB, arch fetch.Archiver) (*surfaceInterface, error) {
	spec := opt.Interface
	name := spec
	if opt.Form != "" {
		return openFormInterface(ctx, opt, db, arch)
	}
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		base := strings.TrimSuffix(strings.TrimRight(spec, "/"), "/api/search")
		s, err := keyword.NewAPISearcher(base)
		if err != nil {
			return nil, &OptionError{Err: err}
		}
		f, err := interfaceFetcher(map[string]string{"url": base}, opt.Net, arch)
		if err != nil {
			return nil, err
		}
		s.Client = fetcherDoer{f}
		return &surfaceInterface{searcher: keyword.Limited(keyword.Retrying(s, keyword.RetryOptions{}), opt.MaxRequests), name: base,
			close: f.Close, fetcher: f}, nil
	}
	kp, err := openKeywordPluginFetch(ctx, spec, plugins.KeywordOptions{Budget: opt.MaxRequests}, nil, opt.Net, arch, opt.PluginDirs...)
	if err != nil {
		return nil, err
	}
	info := kp.Info()
	if opt.Form == "" {
		name, _, _ = strings.Cut(spec, "?")
	}
	return &surfaceInterface{searcher: pluginSearcher{kp}, name: name, k: info.K, keepStops: !info.StopWords,
		close: func() { kp.Close() }, fetcher: kp.fetcher}, nil
}

// openFormInterface opens a searchable form the crawl in db recorded as a
// keyword interface: surface.FormSearcher over the crawl's kind of fetcher
// (the simulated web a testbed crawl ran on, else the real web with its
// politeness, robots.txt and address policy).
func openFormInterface(ctx context.Context, opt SurfaceOptions, db *store.DB, arch fetch.Archiver) (*surfaceInterface, error) {
	id := opt.Form
	f, ok, err := db.GetForm(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &OptionError{Option: "form", Err: fmt.Errorf("%s: no such form in %s (see `dwcrawl forms --dir %s`)", id, db.Dir(), db.Dir())}
	}
	f.ID = id
	if opt.Fetcher != nil {
		return formInterface(f, opt, opt.Fetcher, func() {}, false)
	}
	fo, stop, testbed, err := testbedFetch(db)
	if err != nil {
		return nil, err
	}
	if !testbed {
		stop = func() {}
		fo = fetch.DefaultOptions()
		if opt.Profile != nil {
			// as the crawl that found the form fetched
			fo = crawl.FetchOptions(opt.Profile)
		}
		if loopbackOnly(map[string]string{"page": f.PageURL, "action": f.Action}) {
			// a form on this machine, as keyword plugins with loopback URLs
			fo.AllowPrivate, fo.AllowHost = true, isLoopbackHost
		}
		if err := opt.Net.apply(&fo); err != nil {
			return nil, err
		}
		if opt.Fetch != nil {
			fo = *opt.Fetch
		}
	}
	fo.Archiver = arch
	fr, err := fetch.New(fo)
	if err != nil {
		stop()
		return nil, err
	}
	return formInterface(f, opt, fr, stop, true)
}

// formInterface is the searcher of form f over fetcher fr; close calls
// stop, and closes fr when the interface owns it.
func formInterface(f store.Form, opt SurfaceOptions, fr *fetch.Fetcher, stop func(), owns bool) (*surfaceInterface, error) {
	closeAll := func() {
		if owns {
			fr.Close()
		}
		stop()
	}
	cf := &countingFetcher{f: fr, max: int64(opt.MaxRequests)}
	fs, err := surface.NewFormSearcher(f, cf, surface.FormOptions{Details: opt.Details, Browse: opt.Browse, Selectors: formSelectors(opt.Sites, f)})
	if err != nil {
		closeAll()
		return nil, &OptionError{Option: "form", Err: err}
	}
	si := &surfaceInterface{searcher: fs, name: "form:" + f.ID, form: fs, requests: cf, close: closeAll}
	if owns {
		si.fetcher = fr // its archive errors are this run's
	}
	return si, nil
}

// countingFetcher counts the requests of a form harvest and refuses those
// beyond max (0: no limit) with keyword.ErrBudget, which ends the harvest.
type countingFetcher struct {
	f   *fetch.Fetcher
	n   atomic.Int64
	max int64
}

func (c *countingFetcher) take() error {
	if n := c.n.Add(1); c.max > 0 && n > c.max {
		c.n.Add(-1)
		return keyword.Permanent{Err: keyword.ErrBudget}
	}
	return nil
}

func (c *countingFetcher) Fetch(ctx context.Context, u string) (*fetch.Response, error) {
	if err := c.take(); err != nil {
		return &fetch.Response{URL: u}, err
	}
	return c.f.Fetch(ctx, u)
}

func (c *countingFetcher) Post(ctx context.Context, u string, v url.Values) (*fetch.Response, error) {
	if err := c.take(); err != nil {
		return &fetch.Response{URL: u}, err
	}
	return c.f.Post(ctx, u, v)
}

// testbedFetch serves again the simulated web a testbed crawl of db ran on
// (recorded by the crawl) and returns fetcher options that reach it; ok is
// false for a crawl of the real web.
func testbedFetch(db *store.DB) (fo fetch.Options, stop func(), ok bool, err error) {
	raw, ok, err := db.Testbed()
	if err != nil || !ok {
		return fo, nil, false, err
	}
	cfg, err := simweb.ParseConfig(raw)
	if err != nil {
		return fo, nil, false, fmt.Errorf("%s: the recorded simulated web config: %w", db.Dir(), err)
	}
	w, err := simweb.New(cfg)
	if err != nil {
		return fo, nil, false, fmt.Errorf("simulated web: %w", err)
	}
	srv, err := w.Listen("127.0.0.1:0", simweb.ServeOptions{})
	if err != nil {
		return fo, nil, false, fmt.Errorf("serving the simulated web: %w", err)
	}
	fo = simweb.FetchOptions(fetch.DefaultOptions(), w, srv.Addr)
	return fo, func() { srv.Close() }, true, nil
}

// surfaceProgress prints a progress line at most once a second.
type surfaceProgress struct {
	w    io.Writer
	on   func(surface.Progress)
	last time.Time
	pend *surface.Progress
}

func (p *surfaceProgress) report(pr surface.Progress) {
	if p.on != nil {
		p.on(pr)
	}
	if p.w == nil {
		return
	}
	if time.Since(p.last) < time.Second {
		p.pend = &pr
		return
	}
	p.print(pr)
}

func (p *surfaceProgress) print(pr surface.Progress) {
	p.last, p.pend = time.Now(), nil
	cov := "?"
	if e := pr.Estimate; e.Valid() {
		cov = fmt.Sprintf("%.1f%% [%.1f–%.1f%%] of ~%.0f", 100*e.Coverage, 100*e.Low, 100*e.High, e.Size)
	}
	total := "?"
	if pr.Last.Total >= 0 {
		total = fmt.Sprint(pr.Last.Total)
	}
	line := fmt.Sprintf("surface: %d queries, %d records (est. coverage %s); last %q: %d of %s results, %d new",
		pr.Queries, pr.Docs, cov, pr.Last.Query, pr.Last.Returned, total, pr.Last.New)
	if pr.Last.Error != "" {
		line += " (error: " + pr.Last.Error + ")"
	}
	fmt.Fprintln(p.w, line)
}

func (p *surfaceProgress) done() {
	if p.pend != nil && p.w != nil {
		p.print(*p.pend)
	}
}

// formSelectors are the selectors sites gives for the host of a form's
// action, else of its page (none without sites).
func formSelectors(sites func(string) (records.Selectors, bool), f store.Form) records.Selectors {
	if sites == nil {
		return records.Selectors{}
	}
	for _, raw := range []string{f.Action, f.PageURL} {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			if sel, ok := sites(u.Host); ok {
				return sel
			}
		}
	}
	return records.Selectors{}
}
