package crawl

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/store"
)

// counter names one of the counts a crawl keeps in the store.
type counter int

// The crawl's counters. Every one is a store counter (its name in
// counterNames), changed only by the batch that records what it counts, so
// that the summary of a crawl that was killed and resumed is what the store
// holds.
const (
	cPages       counter = iota // pages fetched (recorded), failed ones included
	cFailed                     // pages whose fetch or parse failed
	cSites                      // sites whose exploration began (two-stage) or with a recorded page (links)
	cRelSites                   // explored sites the site classifier (or a seed, or a relevant form) accepted
	cDeep                       // sites with a relevant searchable form
	cForms                      // forms seen on fetched pages
	cSearchable                 // searchable forms recorded
	cRelevant                   // relevant searchable forms recorded
	cReverse                    // reverse-search rounds
	cRevQueries                 // reverse-search engine queries
	cCentre                     // centre pages found by reverse search
	cFSS                        // adaptive-learning rounds of FSS
	cFSL                        // adaptive-learning rounds of FSL (ACHE: of its link classifier)
	cSitemapURLs                // URLs queued from sitemaps
	cProbes                     // probe queries submitted to searchable forms
	cProbed                     // searchable forms probed
	numCounters
)

// counterNames are the counters' names in the store.
var counterNames = [numCounters]string{
	cPages:      "crawl.pages",
	cFailed:     "crawl.failed",
	cSites:      "crawl.sites",
	cRelSites:   "crawl.sites.relevant",
	cDeep:       "crawl.sites.deep",
	cForms:      "crawl.forms",
	cSearchable: "crawl.forms.searchable",
	cRelevant:   "crawl.forms.relevant",
	cReverse:    "crawl.reverse.triggers",
	cRevQueries: "crawl.reverse.queries",
	cCentre:     "crawl.reverse.centre",
	cFSS:        "crawl.learn.fss",
	cFSL:        "crawl.learn.fsl",

	cSitemapURLs: "crawl.sitemap.urls",
	cProbes:      "crawl.probe.queries",
	cProbed:      "crawl.probe.forms",
}

// ctrPages is the store counter of the pages fetched.
var ctrPages = counterNames[cPages]

// tally is a set of counter increments that go into the store in one batch
// with the records they count, and into the live Stats only once that batch
// is committed.
type tally [numCounters]int64

func (t *tally) add(c counter, n int64) { t[c] += n }

// stage adds the increments to b.
func (t *tally) stage(b *store.Batch) error {
	for c, n := range t {
		if n == 0 {
			continue
		}
		if err := b.AddCounter(counterNames[c], n); err != nil {
			return fmt.Errorf("crawl: counting %s: %w", counterNames[c], err)
		}
	}
	return nil
}

// commit stages t in b, commits b (synced when sync is set) and then applies
// t to the live counters: a count the summary shows is a count the store
// holds.
func (e *Engine) commit(b *store.Batch, t *tally, sync bool) error {
	if t != nil {
		if err := t.stage(b); err != nil {
			return err
		}
	}
	if err := b.Commit(sync); err != nil {
		return err
	}
	if t != nil {
		e.stats.apply(t)
	}
	return nil
}

// count commits the increments of t in a batch of their own, as durably as
// the store's single-record writes.
func (e *Engine) count(t tally) error {
	b := e.db.NewBatch()
	defer b.Close()
	if err := e.commit(b, &t, e.db.SyncsWrites()); err != nil {
		return fmt.Errorf("crawl: recording counters: %w", err)
	}
	return nil
}

// Stats are the live counts of a crawl: the store's counters as committed
// (restored when a crawl resumes), the pages this run replayed from the
// store and the frontier sizes. Read them through Snapshot.
type Stats struct {
	counts                       [numCounters]atomic.Int64
	replayed                     atomic.Int64 // this run only: pages replayed, not fetched
	frontierSites, frontierLinks atomic.Int64 // gauges, set from the frontiers
	fails                        failures     // failure records by cause, as committed
	start                        time.Time
	basePages                    int64 // pages recorded before this run
}

func (s *Stats) apply(t *tally) {
	for c, n := range t {
		if n != 0 {
			s.counts[c].Add(n)
		}
	}
}

func (s *Stats) get(c counter) int64 { return s.counts[c].Load() }

// restore sets the counts to the store's.
func (s *Stats) restore(db *store.DB) error {
	cs, err := db.Counters("crawl.")
	if err != nil {
		return fmt.Errorf("crawl: reading counters: %w", err)
	}
	for c, name := range counterNames {
		s.counts[c].Store(cs[name])
	}
	s.basePages = cs[ctrPages]
	return nil
}

// Snapshot is a consistent-enough copy of the counters, for progress lines,
// summaries and JSON output.
type Snapshot struct {
	Pages           int64   `json:"pages"`
	Failed          int64   `json:"failed"`
	Replayed        int64   `json:"replayed"`
	Sites           int64   `json:"sites"`
	RelevantSites   int64   `json:"relevant_sites"`
	DeepSites       int64   `json:"deep_sites"`
	Forms           int64   `json:"forms"`
	SearchableForms int64   `json:"searchable_forms"`
	RelevantForms   int64   `json:"relevant_forms"`
	HarvestRate     float64 `json:"harvest_rate"`
	ReverseTriggers int64   `json:"reverse_triggers"`
	ReverseQueries  int64   `json:"reverse_queries"`
	CentrePages     int64   `json:"centre_pages"`
	LearnSites      int64   `json:"fss_rebuilds"`
	LearnForms      int64   `json:"fsl_rebuilds"`
	// ProbingOff says the profile turned probing off (the summary says
	// so instead of counting zero probes); set by the caller.
	ProbingOff     bool          `json:"-"`
	ProbedForms    int64         `json:"probed_forms"`
	ProbeQueries   int64         `json:"probe_queries"`
	FrontierSites  int64         `json:"frontier_sites"`
	FrontierLinks  int64         `json:"frontier_links"`
	Elapsed        time.Duration `json:"elapsed_ns"`
	PagesPerSecond float64       `json:"pages_per_second"`
	// Failures counts the URLs whose latest fetch failed (or that the
	// scope refused), by cause (fetch.Cause labels and "scope").
	Failures map[string]int64 `json:"failures"`
	// SitemapURLs counts the URLs sitemaps added to in-site frontiers.
	SitemapURLs int64 `json:"sitemap_urls"`
}

// Snapshot copies the counters.
func (s *Stats) Snapshot() Snapshot {
	sn := Snapshot{
		Pages: s.get(cPages), Failed: s.get(cFailed), Replayed: s.replayed.Load(),
		Sites: s.get(cSites), RelevantSites: s.get(cRelSites), DeepSites: s.get(cDeep),
		Forms: s.get(cForms), SearchableForms: s.get(cSearchable), RelevantForms: s.get(cRelevant),
		ReverseTriggers: s.get(cReverse), ReverseQueries: s.get(cRevQueries), CentrePages: s.get(cCentre),
		LearnSites: s.get(cFSS), LearnForms: s.get(cFSL), ProbedForms: s.get(cProbed), ProbeQueries: s.get(cProbes),
		FrontierSites: s.frontierSites.Load(), FrontierLinks: s.frontierLinks.Load(),
		Failures: s.fails.snapshot(), SitemapURLs: s.get(cSitemapURLs),
	}
	if sn.Pages > 0 {
		sn.HarvestRate = float64(sn.RelevantForms) / float64(sn.Pages)
	}
	if !s.start.IsZero() {
		sn.Elapsed = time.Since(s.start)
		if d := sn.Elapsed.Seconds(); d > 0 {
			sn.PagesPerSecond = float64(sn.Pages-s.basePages) / d
		}
	}
	return sn
}

// StatusLine renders the snapshot as one terminal line.
func (sn Snapshot) StatusLine() string {
	return fmt.Sprintf("pages %d (%.0f/s) · sites %d · deep %d · forms %d searchable / %d relevant · frontier %d sites %d links",
		sn.Pages, sn.PagesPerSecond, sn.Sites, sn.DeepSites, sn.SearchableForms, sn.RelevantForms, sn.FrontierSites, sn.FrontierLinks)
}

// FailureLine renders the failures by cause, most frequent first
// ("dns 3, robots 1"); "none" without failures.
func (sn Snapshot) FailureLine() string {
	if len(sn.Failures) == 0 {
		return "none"
	}
	causes := make([]string, 0, len(sn.Failures))
	for c := range sn.Failures {
		causes = append(causes, c)
	}
	sort.Slice(causes, func(i, j int) bool {
		if a, b := sn.Failures[causes[i]], sn.Failures[causes[j]]; a != b {
			return a > b
		}
		return causes[i] < causes[j]
	})
	parts := make([]string, len(causes))
	for i, c := range causes {
		parts[i] = fmt.Sprintf("%s %d", c, sn.Failures[c])
	}
	return strings.Join(parts, ", ")
}

// Summary renders the final report of a crawl.
func (sn Snapshot) Summary() string {
	return fmt.Sprintf(`pages fetched        %d (%d failed, %d replayed from the store)
failures by cause    %s
sites visited        %d (%d relevant)
deep sites           %d
forms                %d (%d searchable, %d relevant)
harvest rate         %.4f relevant forms per page
reverse searches     %d triggers, %d engine queries, %d centre pages
adaptive learning    %d FSS rebuilds, %d FSL rebuilds
probing              %s
elapsed              %s (%.0f pages/s)
`, sn.Pages, sn.Failed, sn.Replayed, sn.FailureLine(), sn.Sites, sn.RelevantSites, sn.DeepSites,
		sn.Forms, sn.SearchableForms, sn.RelevantForms, sn.HarvestRate,
		sn.ReverseTriggers, sn.ReverseQueries, sn.CentrePages, sn.LearnSites, sn.LearnForms,
		sn.probingLine(),
		sn.Elapsed.Round(time.Millisecond), sn.PagesPerSecond)
}

func (sn Snapshot) probingLine() string {
	if sn.ProbingOff && sn.ProbeQueries == 0 {
		return "off (the profile sets no probe = {queries = N})"
	}
	return fmt.Sprintf("%d forms, %d probe queries", sn.ProbedForms, sn.ProbeQueries)
}
