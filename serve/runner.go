package serve

import (
	"context"
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
