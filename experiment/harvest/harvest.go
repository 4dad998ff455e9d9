package harvest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// ReverseFactory builds the reverse searcher of a crawl over its fetcher
// (app.CrawlOptions.Reverse).
type ReverseFactory = app.ReverseFactory

// Options configure a harvest benchmark.
type Options struct {
	// Web is the simulated web. Every run crawls a fresh copy built from
	// its config (identical pages and truth, reset fault state); scoring
	// uses the truth of the copy.
	Web *simweb.Web
	// Domains to crawl, in order (default: the built-in domains, domain.BuiltIn).
	Domains []string
	// Strategies to compare, in order (default: crawl.Strategies).
	Strategies []string
	// Pages is the page budget of every run (required, > 0).
	Pages int
	// Workers is the number of crawl workers (default 2).
	Workers int
	// Seed seeds the crawl engine (default: the web's seed).
	Seed int64
	// ProfileDir holds the domain profiles <domain>.lua (default
	// "domains"); a domain without a file gets FallbackProfile.
	ProfileDir string
	// Reverse returns the reverse-search factory for a profile's crawls;
	// nil, or a nil factory, disables reverse searching.
	Reverse func(p *profile.Profile) ReverseFactory
	// WorkDir is where the temporary crawl directories go (default the
	// system temporary directory); they are removed after scoring.
	WorkDir string
	// KeepDir, when set, keeps every crawl directory as
	// KeepDir/<domain>-<strategy> (which must not exist yet).
	KeepDir string
	// OutDir, when set, receives the CSV files (see WriteCSV).
	OutDir string
	// CurveStep is the page step of the harvest curves (default Pages/100).
	CurveStep int64
	// Totals adds the web's totals per domain (web_relevant_forms,
	// web_deep_sites) to the results; it generates the whole web once.
	Totals bool
	// Logger receives the crawls' logs (default: discarded).
	Logger *slog.Logger
	// Progress, when set, is told when a run starts, about once a second
	// while it crawls, and when it is scored.
	Progress func(Event)
}

// Event reports the progress of a benchmark.
type Event struct {
	Domain, Strategy string
	Run, Runs        int // this run's number (from 1) and the number of runs
	// Snapshot is the crawl's live counters (zero at the start).
	Snapshot crawl.Snapshot
	// Fallback reports that the domain has no profile file (see
	// FallbackProfile); set on the start event.
	Fallback bool
	// Result is set when the run is scored.
	Result *Result
}

// Result is the score of one domain × strategy run.
type Result struct {
	Domain   string `json:"domain"`
	Strategy string `json:"strategy"`
	Score
	HarvestRate    float64 `json:"harvest_rate"`
	Seconds        float64 `json:"seconds"`
	PagesPerSecond float64 `json:"pages_per_second"`
	// Budget is the page budget of the run.
	Budget int `json:"budget"`
	// Sites is the number of sites the crawl visited (its own count).
	Sites int64 `json:"sites"`
	// ReverseTriggers counts the crawl's reverse-search rounds.
	ReverseTriggers int64 `json:"reverse_triggers"`
	// WebRelevantForms and WebDeepSites are the truth's totals for the
	// domain over the whole web (with Options.Totals).
	WebRelevantForms int `json:"web_relevant_forms,omitempty"`
	WebDeepSites     int `json:"web_deep_sites,omitempty"`
	// FallbackProfile reports a profile built by FallbackProfile.
	FallbackProfile bool `json:"fallback_profile,omitempty"`
	// Dir is the kept crawl directory (Options.KeepDir).
	Dir string `json:"dir,omitempty"`
	// Error is why the run failed; the other runs go on.
	Error string `json:"error,omitempty"`

	curve []Point
}

// Curve returns the run's harvest curve.
func (r *Result) Curve() []Point { return r.curve }

// Bench runs every domain × strategy pair, domains one after the other,
// and scores each run against the truth. A run that fails is reported in
// its Result's Error and the others go on; a cancelled ctx stops the
// benchmark and returns the results of the finished runs with ctx's error.
func Bench(ctx context.Context, opt Options) ([]Result, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	var totals map[string]simweb.DomainStats
	if opt.Totals {
		totals = map[string]simweb.DomainStats{}
		for _, d := range opt.Web.Stats().Domains {
			totals[d.Domain] = d
		}
	}
	var out []Result
	runs := len(opt.Domains) * len(opt.Strategies)
	for _, d := range opt.Domains {
		for _, s := range opt.Strategies {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			ev := Event{Domain: d, Strategy: s, Run: len(out) + 1, Runs: runs}
			r, err := opt.run(ctx, ev)
			if err != nil {
				return out, err
			}
			if t, ok := totals[d]; ok {
				r.WebRelevantForms, r.WebDeepSites = t.Searchable, t.DeepSites
			}
			out = append(out, r)
			if opt.OutDir != "" {
				if err := writeCurve(opt.OutDir, &r); err != nil {
					return out, err
				}
			}
			if opt.Progress != nil {
				ev.Result = &out[len(out)-1]
				opt.Progress(ev)
			}
		}
	}
	if opt.OutDir != "" {
		if err := WriteCSV(opt.OutDir, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// fill checks the options and sets the defaults.
func (o *Options) fill() error {
	if o.Web == nil {
		return errors.New("harvest: no simulated web")
	}
	if o.Pages <= 0 {
		return fmt.Errorf("harvest: the page budget must be positive, got %d", o.Pages)
	}
	if len(o.Domains) == 0 {
		o.Domains = domain.BuiltIn
	}
	if len(o.Strategies) == 0 {
		o.Strategies = crawl.Strategies
	}
	for _, s := range o.Strategies {
		if !slices.Contains(crawl.Strategies, s) {
			return fmt.Errorf("harvest: unknown strategy %q (want some of %v)", s, crawl.Strategies)
		}
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Seed == 0 {
		o.Seed = o.Web.Config().Seed
	}
	if o.ProfileDir == "" {
		o.ProfileDir = "domains"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.OutDir != "" {
		if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
			return fmt.Errorf("harvest: output directory: %w", err)
		}
	}
	return nil
}

// run crawls and scores one domain × strategy pair. Only a cancelled ctx is
// returned as an error; other failures land in Result.Error.
func (o *Options) run(ctx context.Context, ev Event) (Result, error) {
	r := Result{Domain: ev.Domain, Strategy: ev.Strategy, Budget: o.Pages}
	err := o.crawl(ctx, ev, &r)
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r.Error = err.Error()
	}
	return r, nil
}

func (o *Options) crawl(ctx context.Context, ev Event, r *Result) error {
	p, fallback, err := LoadProfile(ctx, o.ProfileDir, ev.Domain, o.Web)
	if err != nil {
		return err
	}
	r.FallbackProfile = fallback
	web, err := simweb.New(o.Web.Config())
	if err != nil {
		return fmt.Errorf("harvest: copying the simulated web: %w", err)
	}
	dir, cleanup, err := o.crawlDir(ev.Domain, ev.Strategy)
	if err != nil {
		return err
	}
	defer cleanup()
	if o.KeepDir != "" {
		r.Dir = dir
	}
	var rev ReverseFactory
	if o.Reverse != nil {
		rev = o.Reverse(p)
	}
	setup := app.CrawlOptions{Profile: p, Dir: dir, Strategy: ev.Strategy, Workers: o.Workers, Pages: o.Pages, Seed: o.Seed,
		Web: web, Reverse: rev, NoSync: true, Logger: o.Logger}
	if o.Progress != nil {
		ev.Fallback = fallback
		o.Progress(ev)
		ev.Fallback = false
		setup.Progress = func(sn crawl.Snapshot) {
			e := ev
			e.Snapshot = sn
			o.Progress(e)
		}
	}
	c, err := app.NewCrawl(ctx, setup)
	if err != nil {
		return fmt.Errorf("harvest: %s/%s: %w", ev.Domain, ev.Strategy, err)
	}
	start := time.Now()
	sn, runErr := c.Run(ctx)
	secs := time.Since(start).Seconds()
	if runErr != nil {
		c.Close()
		return fmt.Errorf("harvest: %s/%s: %w", ev.Domain, ev.Strategy, runErr)
	}
	sc, err := ScoreCrawl(c.DB, web, ev.Domain)
	if cerr := c.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("harvest: closing the crawl: %w", cerr)
	}
	if err != nil {
		return err
	}
	r.Score = *sc
	r.HarvestRate = sc.HarvestRate()
	r.Seconds = secs
	if secs > 0 {
		r.PagesPerSecond = float64(sc.Pages) / secs
	}
	r.Sites = sn.Sites
	r.ReverseTriggers = sn.ReverseTriggers
	r.curve = sc.Curve(o.CurveStep)
	return nil
}

// crawlDir makes the crawl directory of a run and returns how to clean it up.
func (o *Options) crawlDir(domain, strategy string) (string, func(), error) {
	if o.KeepDir != "" {
		dir := filepath.Join(o.KeepDir, domain+"-"+strategy)
		if _, err := os.Stat(dir); err == nil {
			return "", nil, fmt.Errorf("harvest: crawl directory %s already exists", dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("harvest: %w", err)
		}
		return dir, func() {}, nil
	}
	dir, err := os.MkdirTemp(o.WorkDir, "dwcrawl-harvest-"+domain+"-"+strategy+"-")
	if err != nil {
		return "", nil, fmt.Errorf("harvest: crawl directory: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
