package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// Setup describes a test crawl against a simulated web. The tests assemble
// it themselves, as internal/app does for `dwcrawl run --testbed`, because
// a core package's tests cannot import app (which imports this package).
type Setup struct {
	Profile  *profile.Profile
	Dir      string
	Strategy string
	Workers  int
	Pages    int
	Seed     int64
	// Web is the simulated web; WebAddr, when set, is where another process
	// already serves it (so the crawler's memory is measured apart).
	Web     *simweb.Web
	WebAddr string
	// Remote, without Web, is a web only another process holds: the
	// crawler knows its address, seeds and configuration, not its sites.
	Remote *RemoteWeb
	// TestbedSeeds is the number of seed sites (default 10).
	TestbedSeeds int
	Logger       *slog.Logger
	Reproducible bool
	// Transport, when set, wraps the transport that reaches the web (a
	// test's delays or faults).
	Transport func(http.RoundTripper) http.RoundTripper
}

// RemoteWeb is what a crawler knows of a simulated web another process
// builds and serves.
type RemoteWeb struct {
	Addr   string
	Seeds  map[string][]string // by domain, most popular first
	Config []byte              // the web's simweb.Config JSON
	Hosts  map[string]bool     // the web's hosts: the crawl's scope
}

// HasHost reports whether host (with or without a port) is one of the web's.
func (w *RemoteWeb) HasHost(host string) bool {
	host = strings.ToLower(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return host == simweb.SearchEngineHost || w.Hosts[host]
}

// Crawl is an assembled test crawl with the resources it owns.
type Crawl struct {
	*Engine
	DB          *store.DB
	Fetcher     *fetch.Fetcher
	Classifiers *Classifiers
	server      *simweb.Server
}

// Close releases the fetcher, the web's listener and the store.
func (c *Crawl) Close() error {
	var errs []error
	if c.Fetcher != nil {
		c.Fetcher.Close()
	}
	if c.server != nil {
		errs = append(errs, c.server.Close())
	}
	if c.DB != nil {
		errs = append(errs, c.DB.Close())
	}
	return errors.Join(errs...)
}

// Assemble opens the crawl directory, serves the web on loopback (unless
// WebAddr is set) and builds the engine with the profile's classifiers.
func Assemble(ctx context.Context, s Setup) (*Crawl, error) {
	c := &Crawl{}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	db, err := store.Open(s.Dir, store.Options{Logger: s.Logger})
	if err != nil {
		return nil, err
	}
	c.DB = db
	addr, config := s.WebAddr, []byte(nil)
	if s.Web == nil && s.Remote != nil {
		addr, config = s.Remote.Addr, s.Remote.Config
	} else {
		config = s.Web.Config().JSON()
	}
	if addr == "" {
		srv, err := s.Web.Listen("127.0.0.1:0", simweb.ServeOptions{})
		if err != nil {
			return nil, err
		}
		c.server, addr = srv, srv.Addr
	}
	fo := FetchOptions(s.Profile)
	fo.Seed, fo.Logger = uint64(s.Seed), s.Logger
	fo = simweb.FetchOptions(fo, s.Web, addr)
	if s.Web == nil && s.Remote != nil {
		fo.AllowHost = s.Remote.HasHost
	}
	if s.Transport != nil {
		fo.Transport = s.Transport(fo.Transport)
	}
	if c.Fetcher, err = fetch.New(fo); err != nil {
		return nil, err
	}
	if err := db.SetTestbed(config); err != nil {
		return nil, err
	}
	n := s.TestbedSeeds
	if n <= 0 {
		n = 10
	}
	var seeds []string
	if s.Web != nil {
		seeds = s.Web.Seeds(s.Profile.Domain, n)
	} else {
		seeds = s.Remote.Seeds[s.Profile.Domain][:min(n, len(s.Remote.Seeds[s.Profile.Domain]))]
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no sites of domain %q", s.Profile.Domain)
	}
	cls, err := NewClassifiers(ctx, s.Profile, c.Fetcher, TopicURLs(s.Profile, seeds), db, uint64(s.Seed))
	if err != nil {
		return nil, err
	}
	c.Classifiers = cls
	e, err := New(Options{Profile: s.Profile, Strategy: s.Strategy, Workers: s.Workers, Pages: s.Pages, Seeds: seeds, Logger: s.Logger, Seed: s.Seed, Reproducible: s.Reproducible},
		Deps{Store: db, Fetcher: c.Fetcher, Forms: cls.Forms, Pages: cls.Sites})
	if err != nil {
		return nil, err
	}
	c.Engine = e
	ok = true
	return c, nil
}
