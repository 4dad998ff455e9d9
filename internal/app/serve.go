package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/serve"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// ServeOptions configure the service (dwcrawl serve).
type ServeOptions struct {
	// Addr is the listening address; Root holds the job directories.
	Addr string
	Root string
	// Token guards the requests that change something; required unless
	// Addr is a loopback address.
	Token string
	// Allow lists the directories whose files requests may name.
	Allow []string
	// PluginDirs are searched before the bundled plugins.
	PluginDirs []string
	// Web chooses the simulated web of testbed crawls (built on first use).
	Web WebOptions
	// Net are the network settings of the jobs on the real web.
	Net NetOptions
	// Resume restarts the jobs the last server left running.
	Resume bool
	Logger *slog.Logger
	// Ready, when set, is called with the bound address once the server
	// accepts connections.
	Ready func(addr string)
}

// ErrNeedToken is returned (wrapped) by Serve for a non-loopback address
// without a token.
var ErrNeedToken = errors.New("requests that change something need a token when the server listens beyond loopback")

// IsLoopback reports whether a listening address (host:port) binds loopback
// only: 127.0.0.0/8, ::1 or localhost. An empty host binds every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve runs the service on opt.Addr until ctx is cancelled, then stops the
// running jobs (a server started with Resume continues them).
func Serve(ctx context.Context, opt ServeOptions, out io.Writer) error {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	loopback := IsLoopback(opt.Addr)
	if !loopback && opt.Token == "" {
		return &OptionError{Err: fmt.Errorf("address %s: %w", opt.Addr, ErrNeedToken)}
	}
	r := &ServeRunner{Web: opt.Web, Net: opt.Net, PluginDirs: opt.PluginDirs, Logger: opt.Logger}
	defer r.Close()
	srv, err := serve.New(serve.Options{Root: opt.Root, Token: opt.Token, Loopback: loopback, Allow: opt.Allow, Runner: r,
		Resume: opt.Resume, Logger: opt.Logger})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opt.Addr)
	if err != nil {
		srv.Close(context.Background())
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "dwcrawl serve: http://%s/ (jobs in %s)\n", ln.Addr(), opt.Root)
	if opt.Ready != nil {
		opt.Ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	herr := hs.Shutdown(sctx)
	cerr := srv.Close(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, herr, cerr)
}

// ServeRunner assembles the service's jobs (serve.Runner) through NewCrawl,
// Surface and Enrich. Testbed crawls share one simulated web, built on
// first use and served on one loopback listener.
type ServeRunner struct {
	Web        WebOptions
	Net        NetOptions
	PluginDirs []string
	Logger     *slog.Logger

	mu     sync.Mutex
	web    *simweb.Web
	server *simweb.Server
}

// testbed returns the shared simulated web and its address.
func (r *ServeRunner) testbed() (*simweb.Web, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.web == nil {
		w, err := LoadWeb(r.Web)
		if err != nil {
			return nil, "", err
		}
		srv, err := w.Listen("127.0.0.1:0", simweb.ServeOptions{})
		if err != nil {
			return nil, "", fmt.Errorf("serving the simulated web: %w", err)
		}
		r.web, r.server = w, srv
	}
	return r.web, r.server.Addr, nil
}

// Close stops serving the simulated web.
func (r *ServeRunner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.server != nil {
		return r.server.Close()
	}
	return nil
}

// Crawl implements serve.Runner.
func (r *ServeRunner) Crawl(ctx context.Context, req serve.CrawlRequest) (serve.CrawlRun, error) {
	s, err := r.crawlOptions(req)
	if err != nil {
		return nil, err
	}
	c, err := NewCrawl(ctx, s)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// crawlOptions are the options of the crawl req describes: on the shared
// simulated web with req.Testbed (3000 pages unless the request or the
// profile says otherwise), else on the real web with the server's network
// settings.
func (r *ServeRunner) crawlOptions(req serve.CrawlRequest) (CrawlOptions, error) {
	p := req.Profile
	s := CrawlOptions{Profile: p, Dir: req.Dir, DB: req.DB, Strategy: req.Strategy, Workers: req.Workers, Pages: req.Pages,
		Seed: req.Seed, Logger: r.Logger, Progress: req.Progress, OnFetch: req.OnFetch, Net: r.Net}
	if req.Testbed {
		w, addr, err := r.testbed()
		if err != nil {
			return s, err
		}
		s.Web, s.WebAddr = w, addr
		if s.Pages == 0 && p.Budget.Pages == 0 {
			s.Pages = 3000
		}
	}
	s.Reverse = Reverse(p, req.Testbed, r.PluginDirs, r.Logger)
	return s, nil
}

// AddSeeds implements serve.Runner.
func (r *ServeRunner) AddSeeds(db *store.DB, strategy, domain string, seeds []string) (int, error) {
	return AddSeeds(db, strategy, domain, seeds)
}

// Surface implements serve.Runner.
func (r *ServeRunner) Surface(ctx context.Context, req serve.SurfaceRequest) (any, error) {
	return Surface(ctx, SurfaceOptions{Interface: req.Interface, Form: req.Form, Source: req.Source, Dir: req.Dir, DB: req.DB,
		Policy: policyOr(req.Policy), Budget: req.Budget, K: req.K, First: req.First, Seed: req.Seed, PluginDirs: r.PluginDirs,
		OnProgress: req.OnProgress, Net: r.Net})
}

func policyOr(p string) string {
	if p == "" {
		return "adaptive"
	}
	return p
}

// Harvest implements serve.Runner: Harvest over the crawl req describes,
// in the server's store.
func (r *ServeRunner) Harvest(ctx context.Context, req serve.HarvestRequest) (any, error) {
	s, err := r.crawlOptions(serve.CrawlRequest{Profile: req.Profile, Dir: req.Dir, DB: req.DB, Testbed: req.Testbed, Pages: req.Pages,
		Strategy: req.Strategy, Workers: req.Workers, Seed: req.Seed, OnFetch: req.OnFetch})
	if err != nil {
		return nil, err
	}
	o := HarvestOptions{CrawlOptions: s, QueriesPerDB: req.QueriesPerDB, Queries: req.Queries, Parallel: req.Parallel,
		StopAfter: req.StopAfter, OnEvent: req.OnEvent}
	if req.OnStatus != nil {
		o.OnStatus = func(st HarvestStatus) {
			req.OnStatus(serve.HarvestProgress{Crawl: st.Crawl, CrawlDone: st.CrawlDone, Records: st.Records, Queries: st.Queries,
				HarvestStages: serve.HarvestStages{Found: st.Found, Probed: st.Probed, Topic: st.Topic, Surfacing: st.Surfacing, Done: st.Done}})
		}
	}
	sum, err := Harvest(ctx, o)
	if sum == nil {
		return nil, err
	}
	return sum, err
}

// HarvestDatabases implements serve.Runner.
func (r *ServeRunner) HarvestDatabases(db *store.DB) ([]serve.HarvestDatabase, error) {
	return HarvestDatabases(db)
}

// Enrich implements serve.Runner.
func (r *ServeRunner) Enrich(ctx context.Context, req serve.EnrichRequest) (any, error) {
	s, err := OpenInterface(ctx, req.Interface, r.Net)
	if err != nil {
		return nil, err
	}
	if c, ok := s.(io.Closer); ok {
		defer c.Close()
	}
	method := enrich.SmartBiased
	if req.Method != "" {
		ms, err := enrich.ParseMethods(req.Method)
		if err != nil || len(ms) != 1 {
			return nil, fmt.Errorf("enrich: method %q", req.Method)
		}
		method = ms[0]
	}
	res, err := Enrich(ctx, EnrichOptions{Local: req.Local, Columns: req.Columns, HiddenColumns: req.HiddenColumns, Interface: s, K: req.K,
		Budget: req.Budget, Method: method, SamplePath: req.Sample, Theta: req.Theta, SampleQueries: req.SampleQueries,
		Out: req.Out, Dir: req.Dir, DB: req.DB, Seed: req.Seed, OnProgress: req.OnProgress})
	if res == nil {
		return nil, err
	}
	return res.Report, err
}
