package serve

import (
	"context"
	"fmt"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

// Runner assembles and runs the server's jobs; internal/app implements it.
// Every job works in a store the server opened and shares with its readers.
type Runner interface {
	// Crawl assembles the crawl req describes; the server runs it.
	Crawl(ctx context.Context, req CrawlRequest) (CrawlRun, error)
	// AddSeeds queues seeds in the store of a crawl that is not running and
	// returns how many were new.
	AddSeeds(db *store.DB, strategy, domain string, seeds []string) (int, error)
	// Surface runs a surfacing job to its end (budget, policy exhausted or
	// ctx cancelled) and returns its summary (JSON-encodable).
	Surface(ctx context.Context, req SurfaceRequest) (any, error)
	// Enrich runs an enrichment job likewise.
	Enrich(ctx context.Context, req EnrichRequest) (any, error)
	// Harvest runs a harvest (discover, probe, surface each database of
	// the topic) to its end or until ctx is cancelled, and returns its
	// summary (JSON-encodable). Run again on the same directory it
	// resumes.
	Harvest(ctx context.Context, req HarvestRequest) (any, error)
	// HarvestDatabases reads the databases of a harvest from its store: the
	// relevant or probed searchable forms in the order found, with the
	// probe's verdict, the recorded surfacing state, and the queries,
	// records and last coverage estimate of each one's journal.
	HarvestDatabases(db *store.DB) ([]HarvestDatabase, error)
}

// CrawlRun is an assembled crawl.
type CrawlRun interface {
	// Run crawls until the budget is spent, the frontiers are empty or ctx
	// is cancelled (then it returns ctx's error).
	Run(ctx context.Context) (crawl.Snapshot, error)
	// Strategy is the strategy in force.
	Strategy() string
	// Close releases what the crawl holds (not the shared store).
	Close() error
}

// CrawlRequest is a crawl for the Runner to assemble.
type CrawlRequest struct {
	Profile  *profile.Profile
	Dir      string
	DB       *store.DB
	Testbed  bool
	Pages    int
	Strategy string
	Workers  int
	Seed     int64
	// Progress receives the live counts every second, from the crawl's own
	// goroutine (the server reads no engine state while the engine starts);
	// OnFetch is told every fetch's duration and outcome.
	Progress func(crawl.Snapshot)
	OnFetch  func(took time.Duration, err error)
}

// SurfaceRequest is a surfacing job: the keyword Interface (a JSON search
// API URL or a keyword plugin spec), or the searchable Form of the crawl
// whose store DB is.
type SurfaceRequest struct {
	Interface string
	Form      string
	// Source names the harvest in the store (its journal's key).
	Source     string
	Dir        string
	DB         *store.DB
	Policy     string
	Budget     int
	K          int
	First      string
	Seed       int64
	OnProgress func(surface.Progress)
}

// EnrichRequest is an enrichment job over files the server has checked.
type EnrichRequest struct {
	Local         string
	Columns       []string
	HiddenColumns []string
	Interface     string
	Budget        int
	Method        string
	K             int
	Sample        string
	Theta         float64
	SampleQueries int
	Seed          int64
	Out           string
	Dir           string
	DB            *store.DB
	OnProgress    func(enrich.Progress)
}

// HarvestRequest is a harvest for the Runner to run: the crawl's options
// as in CrawlRequest, and the budgets of dwcrawl harvest (0: the
// profile's; Queries negative: unbounded; StopAfter negative: never).
type HarvestRequest struct {
	Profile      *profile.Profile
	Dir          string
	DB           *store.DB
	Testbed      bool
	Pages        int
	Strategy     string
	Workers      int
	Seed         int64
	QueriesPerDB int
	Queries      int
	Parallel     int
	StopAfter    int
	// OnStatus receives the harvest's counts about once a second and when
	// it ends; OnEvent a line for each database queued, started or ended;
	// OnFetch every page fetch's duration and outcome.
	OnStatus func(HarvestProgress)
	OnEvent  func(string)
	OnFetch  func(took time.Duration, err error)
}

// HarvestProgress is a harvest's counts at one moment: the discovery's
// snapshot, and the databases per stage.
type HarvestProgress struct {
	Crawl     crawl.Snapshot `json:"crawl"`
	CrawlDone bool           `json:"discovery_done"`
	HarvestStages
	Records int `json:"records"`
	Queries int `json:"queries"`
}

// HarvestStages counts a harvest's databases per stage: relevant or
// probed searchable forms found, probed, judged a database of the topic,
// being surfaced, and surfaced to their end (done or failed).
type HarvestStages struct {
	Found     int `json:"found"`
	Probed    int `json:"probed"`
	Topic     int `json:"topic"`
	Surfacing int `json:"surfacing"`
	Done      int `json:"done"`
}

// HarvestDatabase is one database of a harvest as the API lists it (the
// fields of dwcrawl harvest --json).
type HarvestDatabase struct {
	ID      string `json:"id"`
	Site    string `json:"site"`
	PageURL string `json:"page_url"`
	// Verdict is the probe's (topic-database, site-search, not-database,
	// or unprobed).
	Verdict string `json:"verdict"`
	// State is queued, surfacing, done, failed or skipped (no query
	// beyond the probe's).
	State            string   `json:"state"`
	Queries          int      `json:"queries"`
	Records          int      `json:"records"`
	CoverageEstimate *float64 `json:"coverage_estimate"`
	CoverageLow      *float64 `json:"coverage_low"`
	CoverageHigh     *float64 `json:"coverage_high"`
	Estimator        string   `json:"estimator,omitempty"`
	// Stopped says why surfacing ended (budget, queries, converged,
	// duplicate).
	Stopped string `json:"stopped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// CoverageText is the database's coverage estimate as the dashboard shows
// it: "57.1% [40.2–70.0%]" ("–" before there is one).
func (d HarvestDatabase) CoverageText() string {
	if d.CoverageEstimate == nil {
		return "–"
	}
	t := fmt.Sprintf("%.1f%%", 100**d.CoverageEstimate)
	if d.CoverageLow != nil && d.CoverageHigh != nil {
		t += fmt.Sprintf(" [%.1f–%.1f%%]", 100**d.CoverageLow, 100**d.CoverageHigh)
	}
	return t
}
