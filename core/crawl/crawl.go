package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/store"
)

// Strategy names, as profiles and the command line give them.
const (
	SmartCrawler = "smartcrawler"
	SCDI         = "scdi"
	ACHE         = "ache"
	BestFirst    = "bestfirst"
)

// Strategies lists the strategy names in the order of the SmartCrawler
// paper's comparison.
var Strategies = []string{SmartCrawler, SCDI, ACHE, BestFirst}

// ErrBudget is returned (wrapped) by a fetch that the page budget refuses.
var ErrBudget = errors.New("crawl: page budget exhausted")

// Fetcher fetches one page (fetch.Fetcher implements it).
type Fetcher interface {
	Fetch(ctx context.Context, url string) (*fetch.Response, error)
}

// FormClassifier judges one form (form.HIFI implements it).
type FormClassifier interface {
	Classify(f *page.Form, pageHost string) form.Decision
}

// evidenceClassifier is a FormClassifier that also reads the form's page
// and its site's verdict (form.HIFI implements it): a bare search box takes
// its domain from them.
type evidenceClassifier interface {
	ClassifyIn(f *page.Form, ev form.Evidence) form.Decision
}

// steppedClassifier is an evidenceClassifier whose two steps can run
// apart (form.HIFI implements it): the domain step is skipped for a form
// that needs no domain.
type steppedClassifier interface {
	SearchStep(f *page.Form, pageHost string) form.Decision
	DomainStep(f *page.Form, ev form.Evidence, d *form.Decision)
}

// PageClassifier judges whether a page's text is on the domain's topic
// (siteclass.Classifier implements it): the site classifier of stage one and
// the page classifier of ACHE and best-first.
type PageClassifier interface {
	Relevant(text string) (bool, float64)
}

// homepageLearner is a page classifier that can learn the homepage of a
// site found deep (smartcrawler's adaptive learning of the site classifier).
// Its learning must not overlap its classifying: the engine guards it.
type homepageLearner interface {
	PageClassifier
	Learn(text string, relevant bool)
}

// learningPages serialises a homepageLearner's updates with its reads.
type learningPages struct {
	mu      sync.RWMutex
	c       homepageLearner
	learned int
}

func (l *learningPages) Relevant(text string) (bool, float64) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.c.Relevant(text)
}

// maxLearnedHomepages bounds the homepages a crawl teaches its site
// classifier. The first deep sites carry the vocabulary the profile lacks
// (travel portals for a hotel crawl), but a homepage also teaches its filler
// words, and the classifier drifts: on hotel at 10k pages 3 homepages gave
// 323 relevant forms, 10 gave 311 and no bound 298.
const maxLearnedHomepages = 3

// learnDeep teaches the classifier the homepage of a deep site, up to
// maxLearnedHomepages, and reports whether it did.
func (l *learningPages) learnDeep(text string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.learned >= maxLearnedHomepages {
		return false
	}
	l.learned++
	l.c.Learn(text, true)
	return true
}

// ReverseSearcher returns pages that link to url, through a search engine.
type ReverseSearcher interface {
	Links(ctx context.Context, url string) ([]string, error)
}

// Deps are the collaborators of an engine.
type Deps struct {
	Store   *store.DB
	Fetcher Fetcher
	Forms   FormClassifier
	Pages   PageClassifier
	// Reverse is the search engine for reverse searching; nil disables it.
	Reverse ReverseSearcher
	// Prior is the store of an earlier crawl whose deep sites and forms
	// initialise the rankers (incremental site prioritizing); may be nil.
	Prior *store.DB
	// Prober probes the searchable forms whose domain the classifiers
	// cannot tell (the profile's probe.queries > 0); nil disables probing.
	Prober FormProber
	// Cluster mode (see remote.go). Budget, when set, replaces the
	// engine's own count of Options.Pages; Sink receives every page the
	// engine records; Dispatcher makes the engine a coordinator that hands
	// its sites to explorers elsewhere.
	Budget     Budget
	Sink       PageSink
	Dispatcher Dispatcher
	// ProbeBudget, when set, replaces the engine's own count of the
	// profile's probe budget (a cluster's engines share one).
	ProbeBudget ProbeBudget
}

// ProbeBudget is a budget of probe queries shared with other engines.
type ProbeBudget interface {
	// ReserveProbes takes n probe queries; false when fewer are left.
	ReserveProbes(n int64) bool
	// ReleaseProbes gives back n reserved queries that were not sent.
	ReleaseProbes(n int64)
}

// FormProber submits probe queries to a searchable form and says what it
// fronts, judging the records it lists with topic (probe.Prober implements
// it). It must refuse, sending nothing, any form d does not classify
// searchable.
type FormProber interface {
	Probe(ctx context.Context, f *page.Form, d form.Decision, pageText string, tmpl *records.Template, topic probeTopic) (*store.Probe, error)
}

// probeTopic judges whether a text is on the crawl's topic: the crawl's
// page classifier, behind its learning lock.
type probeTopic = interface {
	Relevant(text string) (bool, float64)
}

// Options configure a crawl.
type Options struct {
	Profile  *profile.Profile
	Strategy string // default: the profile's
	Workers  int    // sites (or links) explored in parallel; default 4
	// Pages is the page budget of this run, counted over the whole crawl
	// directory (a resumed crawl continues the count). Default: the
	// profile's budget; 0 in both means unbounded.
	Pages int
	// Seeds replace the profile's seeds (testbed mode supplies simweb's).
	Seeds []string
	// Logger receives structured events; default slog.Default().
	Logger *slog.Logger
	// Progress is called every ProgressInterval (default 1s) and at the end.
	Progress         func(Snapshot)
	ProgressInterval time.Duration
	// Seed seeds the engine's tie-breaking randomness.
	Seed int64
	// Reproducible makes a crawl with several workers reproducible page for
	// page: the same pages fetched and recorded in the same order, the same
	// forms, whatever the timing (see turns). Slower; for debugging and for
	// fair comparisons.
	Reproducible bool
	// ProbeRelevant probes also the searchable forms whose own text says
	// they are of the topic (a harvest surfaces only the forms a probe
	// judged a database of the topic); by default only the forms whose
	// domain their text leaves open are probed.
	ProbeRelevant bool
}

// Engine runs one crawl.
type Engine struct {
	opt   Options
	prof  *profile.Profile
	deps  Deps
	db    *store.DB
	log   *slog.Logger
	stats Stats
	// budget counts page fetches reserved by this engine over the crawl.
	budget atomic.Int64
	limit  int64
	// seq numbers the recorded pages over the crawl (pageRecord.Seq).
	seq atomic.Int64
	// claimed holds the hashes of the URLs being fetched, until recorded.
	claimed sync.Map
	// recorded counts the page records this engine committed (each before
	// its claim is released): visit reads a record again after claiming
	// only when one was committed since its first read.
	recorded atomic.Int64
	// formSigs holds the signatures of the searchable forms recorded.
	formSigs sync.Map
	// siteP holds the site classifier's verdict (float64) on each explored
	// site's homepage, the site evidence of the forms found inside it.
	siteP sync.Map
	// turns orders the workers of a reproducible crawl (nil otherwise).
	turns *turns
	// coord is set on a coordinator (Deps.Dispatcher).
	coord *coordination
	// probing counts the probe queries reserved by probes not yet recorded.
	probing atomic.Int64
	// seedPages are the URLs that stand for the seeds (failure records).
	seedPages map[string]bool
	// deepSeeds are the seeds below their site's homepage, by site.
	deepSeeds map[string][]string
}

// New checks the options and prepares an engine over deps.Store.
func New(opt Options, deps Deps) (*Engine, error) {
	if opt.Profile == nil {
		return nil, errors.New("crawl: no profile")
	}
	if deps.Store == nil || deps.Fetcher == nil || deps.Forms == nil || deps.Pages == nil {
		return nil, errors.New("crawl: store, fetcher, form classifier and page classifier are required")
	}
	if hl, ok := deps.Pages.(homepageLearner); ok {
		deps.Pages = &learningPages{c: hl}
	}
	if opt.Strategy == "" {
		opt.Strategy = opt.Profile.Strategy
	}
	if opt.Strategy == "" {
		opt.Strategy = SmartCrawler
	}
	known := false
	for _, s := range Strategies {
		known = known || s == opt.Strategy
	}
	if !known {
		return nil, fmt.Errorf("crawl: unknown strategy %q (want one of %v)", opt.Strategy, Strategies)
	}
	if opt.Workers <= 0 {
		opt.Workers = 4
	}
	if opt.Pages == 0 {
		opt.Pages = opt.Profile.Budget.Pages
	}
	if opt.Seeds == nil {
		opt.Seeds = opt.Profile.Seeds
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.ProgressInterval <= 0 {
		opt.ProgressInterval = time.Second
	}
	e := &Engine{opt: opt, prof: opt.Profile, deps: deps, db: deps.Store, log: opt.Logger, limit: int64(opt.Pages),
		seedPages: seedPageSet(opt.Seeds), deepSeeds: deepSeedPages(opt.Seeds)}
	if opt.Reproducible {
		e.turns = newTurns(opt.Workers)
	}
	if deps.Dispatcher != nil {
		if opt.Strategy != SmartCrawler && opt.Strategy != SCDI {
			return nil, fmt.Errorf("crawl: strategy %q cannot hand its sites to other processes (two-stage strategies only)", opt.Strategy)
		}
		e.coord = newCoordination()
	}
	return e, nil
}

// Strategy returns the strategy in force.
func (e *Engine) Strategy() string { return e.opt.Strategy }

// Stats returns the live counters.
func (e *Engine) Stats() *Stats { return &e.stats }

// Run crawls until the budget is spent, the frontiers are empty or ctx is
// cancelled. A cancelled crawl returns ctx's error with the snapshot so far;
// everything recorded stays in the store for a resume.
func (e *Engine) Run(ctx context.Context) (Snapshot, error) {
	if err := e.restoreCounters(); err != nil {
		return Snapshot{}, err
	}
	if err := e.restoreFormSignatures(); err != nil {
		return Snapshot{}, fmt.Errorf("crawl: restoring forms: %w", err)
	}
	if err := e.restoreFailures(); err != nil {
		return Snapshot{}, err
	}
	e.stats.start = time.Now()
	done := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		if e.opt.Progress == nil {
			return
		}
		t := time.NewTicker(e.opt.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				e.opt.Progress(e.stats.Snapshot())
			}
		}
	}()
	var err error
	switch e.opt.Strategy {
	case SmartCrawler, SCDI:
		err = e.runTwoStage(ctx)
	case ACHE, BestFirst:
		err = e.runLinks(ctx)
	}
	close(done)
	<-progressDone
	sn := e.stats.Snapshot()
	if e.opt.Progress != nil {
		e.opt.Progress(sn)
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return sn, err
}

// restoreCounters continues a resumed crawl's counts, page numbers and
// budget.
func (e *Engine) restoreCounters() error {
	if err := e.stats.restore(e.db); err != nil {
		return err
	}
	pages := e.stats.get(cPages)
	e.seq.Store(pages)
	e.budget.Store(pages)
	return nil
}

// reserve takes one page from the budget.
func (e *Engine) reserve() bool {
	if e.deps.Budget != nil {
		return e.deps.Budget.Reserve()
	}
	if e.limit <= 0 {
		e.budget.Add(1)
		return true
	}
	if e.budget.Add(1) > e.limit {
		e.budget.Add(-1)
		return false
	}
	return true
}

// unreserve returns a page reserved but not fetched.
func (e *Engine) unreserve() {
	if e.deps.Budget != nil {
		e.deps.Budget.Release()
		return
	}
	e.budget.Add(-1)
}

// exhausted reports whether the budget is spent.
func (e *Engine) exhausted() bool {
	if e.deps.Budget != nil {
		return e.deps.Budget.Exhausted()
	}
	return e.limit > 0 && e.budget.Load() >= e.limit
}
