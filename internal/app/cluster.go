package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dwcrawl/dwcrawl/cluster"
	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/report"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// ClusterWindow is the default number of sites a cluster crawl has out
// with its workers at once.
const ClusterWindow = 16

// ClusterRunOptions describe a crawl run on a cluster: the crawl as `run`
// assembles it (its directory is the coordinator's), where the cluster is,
// and the crawl's name there.
type ClusterRunOptions struct {
	CrawlOptions
	// NATS is the server URL (comma-separated for several).
	NATS string
	// Name names the crawl on the cluster (default: the profile's name).
	Name string
	// Progress, when set, gets the coordinator's counters and the number
	// of live workers about once a second.
	Progress func(sn crawl.Snapshot, workers int)
	// OnStart, when set, is told the crawl's spec once it is registered.
	OnStart func(cluster.Spec)
	// OnWARC, when set, is told what the coordinator archived (with
	// CrawlOptions.WARC: its own fetches; workers archive theirs with
	// WorkOptions.WARC) once the archive is closed.
	OnWARC func(*WARCSummary)
}

// ClusterSpec is the spec a cluster crawl of o registers: what every worker
// needs to build the same engine.
func ClusterSpec(o ClusterRunOptions) (cluster.Spec, error) {
	p := o.Profile
	if p == nil {
		return cluster.Spec{}, errors.New("cluster: no profile")
	}
	name := o.Name
	if name == "" {
		name = p.Name
	}
	if err := cluster.CheckName(name); err != nil {
		return cluster.Spec{}, err
	}
	src, err := os.ReadFile(p.Path)
	if err != nil {
		return cluster.Spec{}, fmt.Errorf("cluster: the profile's text: %w", err)
	}
	strategy := o.Strategy
	if strategy == "" {
		strategy = p.Strategy
	}
	if strategy == "" {
		strategy = crawl.SmartCrawler
	}
	if strategy != crawl.SmartCrawler && strategy != crawl.SCDI {
		return cluster.Spec{}, fmt.Errorf("cluster: strategy %q explores no site by site: a cluster runs smartcrawler or scdi", strategy)
	}
	pages := o.Pages
	if pages == 0 {
		pages = p.Budget.Pages
	}
	path := p.Path
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	s := cluster.Spec{Name: name, Profile: path, ProfileSource: src, Strategy: strategy, Pages: pages, Seed: o.Seed,
		Delay: o.Delay, AllowPrivate: o.Net.AllowPrivate, Resolve: o.Net.Resolve, Proxy: o.Net.Proxy, Headers: o.Net.Headers, PolitePerIP: o.Net.PolitePerIP,
		TestbedSeeds: o.TestbedSeeds}
	if o.Web != nil {
		s.Testbed = o.Web.Config().JSON()
	}
	return s, nil
}

// ClusterRun registers a crawl on the cluster at o.NATS and coordinates it
// from o.Dir until its budget is spent, its frontier is empty or ctx ends;
// workers (`dwcrawl worker`) explore its sites. Running it again resumes.
func ClusterRun(ctx context.Context, o ClusterRunOptions) (crawl.Snapshot, error) {
	spec, err := ClusterSpec(o)
	if err != nil {
		return crawl.Snapshot{}, err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Workers <= 0 {
		o.Workers = ClusterWindow
	}
	// a coordinator started with its server waits for it (until ^C)
	conn, err := cluster.Connect(ctx, o.NATS, cluster.Options{Logger: o.Logger, Wait: -1})
	if err != nil {
		return crawl.Snapshot{}, err
	}
	defer conn.Close()
	open := func(ctx context.Context, h cluster.CoordinatorHooks) (*crawl.Engine, func() error, error) {
		s := o.CrawlOptions
		s.Strategy = spec.Strategy
		s.Budget, s.Sink, s.Dispatcher = h.Budget, h.Sink, h.Dispatcher
		h.Probes.SetLimit(o.Profile.Probe.Budget)
		s.ProbeBudget = h.Probes
		if o.Progress != nil {
			s.Progress = func(sn crawl.Snapshot) { o.Progress(sn, h.Workers()) }
		}
		c, err := NewCrawl(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		if o.OnStart != nil {
			o.OnStart(spec)
		}
		closeFn := func() error {
			err := c.Close()
			if c.WARC != nil && o.OnWARC != nil {
				o.OnWARC(c.WARC)
			}
			return err
		}
		return c.Engine, closeFn, nil
	}
	return conn.Coordinate(ctx, cluster.CoordinatorOptions{Spec: spec, Open: open, Logger: o.Logger})
}

// WorkOptions configure a cluster worker.
type WorkOptions struct {
	NATS    string
	Dir     string
	Sites   int
	AckWait time.Duration
	// WARC, when set, archives every HTTP exchange of the worker's engines
	// in WARC/<crawl> (one directory per worker).
	WARC   string
	Logger *slog.Logger
}

// Work joins the cluster at o.NATS and explores sites of any of its crawls
// until ctx ends.
func Work(ctx context.Context, o WorkOptions) error {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	// a worker started with its server waits for it (until ^C)
	conn, err := cluster.Connect(ctx, o.NATS, cluster.Options{Logger: o.Logger, Wait: -1})
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Work(ctx, cluster.WorkerOptions{Dir: o.Dir, Sites: o.Sites, AckWait: o.AckWait, Logger: o.Logger, Open: openExplorer(o.Logger, o.WARC)})
}

// OpenExplorer builds a worker's engine for a crawl spec: the same profile,
// strategy, classifiers and (on the testbed) simulated web as the
// coordinator's, its state in dir.
func OpenExplorer(log *slog.Logger) cluster.OpenExplorer { return openExplorer(log, "") }

// openExplorer is OpenExplorer archiving every HTTP exchange of a crawl in
// warcDir/<crawl> (none when warcDir is "").
func openExplorer(log *slog.Logger, warcDir string) cluster.OpenExplorer {
	return func(ctx context.Context, spec cluster.Spec, dir string, h cluster.Hooks) (*crawl.SiteExplorer, func() error, error) {
		p, err := profile.LoadSource(ctx, spec.Profile, spec.ProfileSource)
		if err != nil {
			return nil, nil, fmt.Errorf("crawl %s: %w", spec.Name, err)
		}
		s := CrawlOptions{Profile: p, Dir: dir, Strategy: spec.Strategy, Workers: 1, Pages: spec.Pages, Seed: spec.Seed,
			Net: NetOptions{AllowPrivate: spec.AllowPrivate, Resolve: spec.Resolve, Proxy: spec.Proxy, Headers: spec.Headers, PolitePerIP: spec.PolitePerIP}, Delay: spec.Delay, TestbedSeeds: spec.TestbedSeeds, Logger: log,
			Budget: h.Budget, Sink: h.Sink, ProbeBudget: h.Probes}
		h.Probes.SetLimit(p.Probe.Budget)
		if warcDir != "" {
			s.WARC = filepath.Join(warcDir, spec.Name)
		}
		if len(spec.Testbed) > 0 {
			cfg, err := simweb.ParseConfig(spec.Testbed)
			if err != nil {
				return nil, nil, fmt.Errorf("crawl %s: the simulated web's config: %w", spec.Name, err)
			}
			if s.Web, err = simweb.New(cfg); err != nil {
				return nil, nil, fmt.Errorf("crawl %s: simulated web: %w", spec.Name, err)
			}
		}
		c, err := NewCrawl(ctx, s)
		if err != nil {
			return nil, nil, fmt.Errorf("crawl %s: %w", spec.Name, err)
		}
		x, err := c.SiteExplorer()
		if err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("crawl %s: %w", spec.Name, err)
		}
		return x, c.Close, nil
	}
}

// ClusterForms returns the searchable forms a cluster crawl recorded
// (only the relevant ones with relevantOnly), as `dwcrawl forms` exports
// them.
func ClusterForms(ctx context.Context, url, name string, relevantOnly bool) ([]report.FormRow, error) {
	conn, err := cluster.Connect(ctx, url, cluster.Options{})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	forms, err := conn.Forms(ctx, name)
	if err != nil {
		return nil, err
	}
	rows := []report.FormRow{}
	for _, f := range forms {
		if !relevantOnly || f.Relevant {
			rows = append(rows, report.ExportForm(f))
		}
	}
	report.SortForms(rows)
	return rows, nil
}

// QueryBudget opens the shared query budget name of the cluster at url;
// close the connection when done.
func QueryBudget(ctx context.Context, url, name string) (*cluster.QueryBudget, func(), error) {
	conn, err := cluster.Connect(ctx, url, cluster.Options{})
	if err != nil {
		return nil, nil, err
	}
	qb, err := conn.QueryBudget(name)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return qb, conn.Close, nil
}

// ClusterCrawls lists the crawls of the cluster at url, by name.
func ClusterCrawls(ctx context.Context, url string) ([]cluster.Spec, error) {
	conn, err := cluster.Connect(ctx, url, cluster.Options{})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	specs, err := conn.Crawls(ctx)
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs, err
}
