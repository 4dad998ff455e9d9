package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/probe"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
	"github.com/dwcrawl/dwcrawl/warc"
)

// CrawlOptions describe a crawl to assemble: the profile, where its state
// lives, and either the real web or a simulated one.
type CrawlOptions struct {
	Profile  *profile.Profile
	Dir      string // crawl directory (Pebble); created if missing
	Strategy string
	Workers  int
	Pages    int
	Seed     int64
	// Web, when set, is the simulated web the crawl runs against (testbed
	// mode): served on a loopback listener, seeds taken from its sites of the
	// profile's domain, no politeness delay.
	Web *simweb.Web
	// WebAddr, with Web, is the loopback address where another process
	// already serves that same web (built from the same config): the crawl
	// dials it instead of serving Web itself, so that the crawler's memory
	// can be measured apart from the web's.
	WebAddr string
	// TestbedSeeds is the number of simweb seed sites (default 10).
	TestbedSeeds int
	// Net are the network settings of the real web (address policy,
	// --resolve, proxy, extra headers); testbed mode ignores them.
	Net NetOptions
	// WARC is a directory to archive every HTTP exchange in ("" for none).
	WARC string
	// Reverse builds the search engine for reverse searching over the
	// crawl's fetcher (search plugins send their requests through it); nil
	// disables reverse searching. See ReverseFactory.
	Reverse ReverseFactory
	// PriorDir is an earlier crawl directory whose deep sites initialise the
	// rankers (incremental site prioritizing).
	PriorDir string
	// Reproducible makes the crawl reproducible page for page with several
	// workers (crawl.Options.Reproducible), its randomness seeded by Seed.
	Reproducible bool
	// ContinueAs continues a crawl directory recorded with another
	// profile, strategy or web as this crawl (recording it); without it
	// such a directory is refused (ErrOtherCrawl).
	ContinueAs bool
	// NoSync writes batches without fsync (benchmarks).
	NoSync   bool
	Logger   *slog.Logger
	Progress func(crawl.Snapshot)
	// DB, when set, is the crawl directory's store already open (a server
	// shares one handle between a crawl and its readers): the crawl uses it
	// instead of opening Dir, and Close leaves it open.
	DB *store.DB
	// OnFetch, when set, is told how long each page fetch of the crawl took
	// and how it ended (a server's latency histogram and failure counts).
	// It is called from the crawl's workers and must be quick.
	OnFetch func(took time.Duration, err error)
	// Delay, when positive, is the per-host politeness delay, over the
	// profile's (and over the testbed's none).
	Delay time.Duration
	// Budget, Sink and Dispatcher are the cluster's collaborators of the
	// engine (crawl.Deps); nil for a single-machine crawl.
	Budget     crawl.Budget
	Sink       crawl.PageSink
	Dispatcher crawl.Dispatcher
	// ProbeBudget, when set, is the probe budget the crawl shares.
	ProbeBudget crawl.ProbeBudget
	// ProbeRelevant probes also the forms whose text says they are
	// relevant (crawl.Options.ProbeRelevant; a harvest sets it).
	ProbeRelevant bool
	// ProbeLearned, when set, gives the prober words the topic's records
	// hold (probe.Options.Learned; a harvest's).
	ProbeLearned func() []string
	// WrapProber, when set, wraps the crawl's prober (a harvest judges
	// the records probes list with what it learned as well).
	WrapProber func(crawl.FormProber) crawl.FormProber
}

// Crawl is an assembled engine with the resources it owns.
type Crawl struct {
	*crawl.Engine
	DB      *store.DB
	Fetcher *fetch.Fetcher
	reverse crawl.ReverseSearcher
	// Classifiers are the crawl's form and site classifiers and what they
	// were trained from.
	Classifiers *crawl.Classifiers
	server      *simweb.Server
	prior       *store.DB
	sharedDB    bool // DB came from CrawlOptions.DB: the caller closes it
	// ReverseEngine is the search plugin reverse search uses, "" when it
	// is off; ReverseOff then says why.
	ReverseEngine, ReverseOff string
	warc                      *warc.Writer
	// WARC describes the archive once Close has closed it (nil without).
	WARC *WARCSummary
}

// Close releases the reverse searcher, the store, the fetcher and the
// testbed server.
func (c *Crawl) Close() error {
	var errs []error
	if cl, ok := c.reverse.(interface{ Close() }); ok {
		cl.Close()
	}
	if c.Fetcher != nil {
		c.Fetcher.Close()
	}
	if c.server != nil {
		errs = append(errs, c.server.Close())
	}
	if c.prior != nil {
		errs = append(errs, c.prior.Close())
	}
	if c.warc != nil {
		var n int64
		if c.Fetcher != nil {
			n = c.Fetcher.ArchiveErrors()
		}
		sum, err := closeWARC(c.warc, n)
		c.WARC, c.warc = sum, nil
		errs = append(errs, err)
	}
	if c.DB != nil && !c.sharedDB {
		errs = append(errs, c.DB.Close())
	}
	return errors.Join(errs...)
}

// NewCrawl opens the crawl directory and builds the fetcher, the
// classifiers and the engine described by s.
func NewCrawl(ctx context.Context, s CrawlOptions) (*Crawl, error) {
	p := s.Profile
	if p == nil {
		return nil, errors.New("crawl: no profile")
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	c := &Crawl{}
	var db *store.DB
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	var err error
	db, c.sharedDB = s.DB, s.DB != nil
	if db == nil {
		if db, err = openCrawlDir(s); err != nil {
			return nil, err
		}
	} else if err = recordCrawlIdentity(db, s, s.Logger); err != nil {
		return nil, err
	}
	c.DB = db
	fo := crawl.FetchOptions(p)
	if s.Web == nil {
		if err := s.Net.apply(&fo); err != nil {
			return nil, err
		}
	}
	fo.Seed = uint64(s.Seed)
	fo.Logger = s.Logger
	if fo.Jar, err = cookieJar(db, s.Logger); err != nil {
		return nil, err
	}
	strategy := s.Strategy
	if strategy == "" {
		strategy = p.Strategy
	}
	if c.warc, err = openWARC(WARCOptions{Dir: s.WARC, Profile: p.Path, Strategy: strategy}, fo.UserAgent); err != nil {
		return nil, err
	}
	if c.warc != nil {
		fo.Archiver = c.warc
	}
	seeds := p.Seeds
	if s.Web != nil {
		addr := s.WebAddr
		if addr == "" {
			srv, err := s.Web.Listen("127.0.0.1:0", simweb.ServeOptions{})
			if err != nil {
				return nil, fmt.Errorf("crawl: serving the simulated web: %w", err)
			}
			c.server = srv
			addr = srv.Addr
			// the search engine's index (read from the cache, ~0.2 s)
			// loads while the classifiers do, not at the first reverse search
			go s.Web.Prepare()
		}
		fo = simweb.FetchOptions(fo, s.Web, addr)
		if err := db.SetTestbed(s.Web.Config().JSON()); err != nil {
			return nil, err
		}
		n := s.TestbedSeeds
		if n <= 0 {
			n = 10
		}
		seeds = s.Web.Seeds(p.Domain, n)
		if len(seeds) == 0 {
			return nil, fmt.Errorf("crawl: the simulated web has no sites of domain %q (profile %s)", p.Domain, p.Path)
		}
	}
	if s.Delay > 0 {
		fo.Delay = s.Delay
	}
	if err := recordCrawlProfile(db, p, s.Delay); err != nil {
		return nil, err
	}
	f, err := fetch.New(fo)
	if err != nil {
		return nil, err
	}
	c.Fetcher = f
	// A custom domain's classifiers are trained from the profile and its
	// seeds' homepages (cached in the crawl directory).
	cls, err := crawl.NewClassifiers(ctx, p, f, crawl.TopicURLs(p, seeds), db, uint64(s.Seed))
	if err != nil {
		return nil, err
	}
	c.Classifiers = cls
	deps := crawl.Deps{Store: db, Fetcher: f, Forms: cls.Forms, Pages: cls.Sites, Budget: s.Budget, Sink: s.Sink, Dispatcher: s.Dispatcher, ProbeBudget: s.ProbeBudget}
	if p.Probe.Queries > 0 {
		pr, err := probe.New(f, probe.Options{Queries: p.Probe.Queries, Terms: p.Keywords, Learned: s.ProbeLearned})
		if err != nil {
			return nil, fmt.Errorf("crawl: probing: %w", err)
		}
		deps.Prober = pr
		if s.WrapProber != nil {
			deps.Prober = s.WrapProber(pr)
		}
	}
	if s.OnFetch != nil {
		deps.Fetcher = timedFetcher{f: f, on: s.OnFetch}
	}
	c.ReverseOff = "the profile names no search engine (reverse.plugins)"
	if s.Reverse != nil {
		rs, err := s.Reverse(ctx, f)
		var off *ReverseOffError
		switch {
		case errors.As(err, &off):
			c.ReverseOff = off.Why
		case err != nil:
			return nil, fmt.Errorf("crawl: reverse search: %w", err)
		case rs != nil:
			c.reverse, deps.Reverse, c.ReverseOff = rs, rs, ""
			c.ReverseEngine = "on"
			if n, ok := rs.(interface{ Name() string }); ok {
				c.ReverseEngine = n.Name()
			}
		}
	}
	if s.PriorDir != "" {
		prior, err := store.OpenReadOnly(s.PriorDir, store.Options{Logger: s.Logger})
		if err != nil {
			return nil, fmt.Errorf("crawl: opening prior crawl: %w", err)
		}
		c.prior = prior
		deps.Prior = prior
	}
	e, err := crawl.New(crawl.Options{Profile: p, Strategy: s.Strategy, Workers: s.Workers, Pages: s.Pages, Seeds: seeds, Logger: s.Logger, Progress: s.Progress, Seed: s.Seed, Reproducible: s.Reproducible, ProbeRelevant: s.ProbeRelevant}, deps)
	if err != nil {
		return nil, err
	}
	c.Engine = e
	ok = true
	return c, nil
}

// timedFetcher tells OnFetch the duration and outcome of every fetch.
type timedFetcher struct {
	f  crawl.Fetcher
	on func(time.Duration, error)
}

func (t timedFetcher) Fetch(ctx context.Context, url string) (*fetch.Response, error) {
	start := time.Now()
	r, err := t.f.Fetch(ctx, url)
	t.on(time.Since(start), err)
	return r, err
}

// DescribeWeb names the web a crawl of s runs against.
func (s CrawlOptions) DescribeWeb() string {
	if s.Web != nil {
		return fmt.Sprintf("simulated web, seed %d", s.Web.Config().Seed)
	}
	return "real web"
}
