package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/simweb"
	"github.com/dwcrawl/dwcrawl/store"
)

// Setup describes a crawl to assemble: the profile, where its state lives,
// and either the real web or a simulated one.
type Setup struct {
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
	// AllowPrivate lets the fetcher reach loopback and private addresses on
	// the real web (refused by default).
	AllowPrivate bool
	// Reverse builds the search engine for reverse searching over the
	// crawl's fetcher (search plugins send their requests through it); nil
	// disables reverse searching.
	Reverse func(ctx context.Context, f *fetch.Fetcher) (ReverseSearcher, error)
	// PriorDir is an earlier crawl directory whose deep sites initialise the
	// rankers (incremental site prioritizing).
	PriorDir string
	// NoSync writes batches without fsync (benchmarks).
	NoSync   bool
	Logger   *slog.Logger
	Progress func(Snapshot)
}

// Crawl is an assembled engine with the resources it owns.
type Crawl struct {
	*Engine
	DB      *store.DB
	Fetcher *fetch.Fetcher
	// Classifiers are the crawl's form and site classifiers and what they
	// were trained from.
	Classifiers *Classifiers
	server      *simweb.Server
	prior       *store.DB
}

// Close releases the store, the fetcher and the testbed server.
func (c *Crawl) Close() error {
	var errs []error
	if c.Engine != nil {
		if cl, ok := c.deps.Reverse.(interface{ Close() }); ok {
			cl.Close()
		}
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
	if c.DB != nil {
		errs = append(errs, c.DB.Close())
	}
	return errors.Join(errs...)
}

// Assemble opens the crawl directory and builds the fetcher, the classifiers
// and the engine described by s.
func Assemble(ctx context.Context, s Setup) (*Crawl, error) {
	p := s.Profile
	if p == nil {
		return nil, errors.New("crawl: no profile")
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	c := &Crawl{}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	db, err := store.Open(s.Dir, store.Options{NoSync: s.NoSync, Logger: s.Logger})
	if err != nil {
		return nil, err
	}
	c.DB = db
	fo := fetch.DefaultOptions()
	fo.UserAgent = p.Politeness.UserAgent
	fo.Delay = p.Politeness.Delay
	if p.Politeness.Timeout > 0 {
		fo.Timeout = p.Politeness.Timeout
	}
	if p.Politeness.MaxBodyBytes > 0 {
		fo.MaxBody = p.Politeness.MaxBodyBytes
	}
	fo.AllowPrivate = s.AllowPrivate
	fo.Seed = uint64(s.Seed)
	fo.Logger = s.Logger
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
		}
		fo = TestbedFetch(fo, s.Web, addr)
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
	f, err := fetch.New(fo)
	if err != nil {
		return nil, err
	}
	c.Fetcher = f
	// A custom domain's classifiers are trained from the profile and its
	// seeds' homepages (cached in the crawl directory); see classifiers.go.
	cls, err := NewClassifiers(ctx, p, f, TopicURLs(p, seeds), db, uint64(s.Seed))
	if err != nil {
		return nil, err
	}
	c.Classifiers = cls
	deps := Deps{Store: db, Fetcher: f, Forms: cls.Forms, Pages: cls.Sites}
	if s.Reverse != nil {
		if deps.Reverse, err = s.Reverse(ctx, f); err != nil {
			return nil, fmt.Errorf("crawl: reverse search: %w", err)
		}
	}
	if s.PriorDir != "" {
		prior, err := store.Open(s.PriorDir, store.Options{Logger: s.Logger})
		if err != nil {
			return nil, fmt.Errorf("crawl: opening prior crawl: %w", err)
		}
		c.prior = prior
		deps.Prior = prior
	}
	e, err := New(Options{Profile: p, Strategy: s.Strategy, Workers: s.Workers, Pages: s.Pages, Seeds: seeds, Logger: s.Logger, Progress: s.Progress, Seed: s.Seed}, deps)
	if err != nil {
		return nil, err
	}
	c.Engine = e
	ok = true
	return c, nil
}

// TestbedFetch adapts fetcher options to the simulated web w served at the
// loopback address addr: every request goes there, only w's hosts are
// allowed, no politeness delay and short retries.
func TestbedFetch(fo fetch.Options, w *simweb.Web, addr string) fetch.Options {
	// Every simulated host is a pool of its own to the Transport and a
	// crawl rarely returns to a host once its site is done: a small total
	// of idle connections keeps thousands of them (8 KiB of buffers each,
	// on both ends) from piling up.
	fo.Transport = &http.Transport{DialContext: simweb.LoopbackDialer(addr), MaxIdleConns: 64, MaxIdleConnsPerHost: 4, IdleConnTimeout: 10 * time.Second}
	fo.AllowHost = w.HasHost
	fo.Delay = 0
	fo.BackoffBase = 20 * time.Millisecond
	fo.BackoffMax = 200 * time.Millisecond
	fo.MaxRetryAfter = 2 * time.Second
	fo.Timeout = 10 * time.Second
	return fo
}
