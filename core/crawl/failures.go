package crawl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/store"
)

// MaxFailedRuns is how many runs may fail to fetch a URL: a URL that
// failed in fewer runs is fetched again when the crawl is resumed (the
// same command run again), so an outage does not leave a crawl finished
// for good; after that many its failure is kept.
const MaxFailedRuns = 3

// CauseScope is the failure cause of a URL the profile's scope rules (or
// its per-host page cap) refused; it is never fetched.
const CauseScope = "scope"

// failCounter is the store counter of the failures of a cause.
func failCounter(cause string) string { return "crawl.fail." + cause }

// hostCounter is the store counter of the pages fetched from a host, kept
// when the profile caps them.
func hostCounter(host string) string { return "hostpages." + host }

// failures tracks the failure records of this engine.
type failures struct {
	// counts are the live failures by cause (*atomic.Int64), as committed.
	counts sync.Map
	// hosts holds the pages reserved per host (*atomic.Int64) under a
	// per-host cap, restored lazily from the store.
	hosts   sync.Map
	hostsMu sync.Mutex
	// urls holds the hashes of the URLs with a failure record, once
	// urlsKnown (restored at start, added as they are staged; a hash stays
	// when its record is cleared): a page whose hash is absent has none to
	// read.
	urls      sync.Map
	urlsKnown atomic.Bool
}

func (fs *failures) add(cause string, n int64) {
	v, _ := fs.counts.LoadOrStore(cause, new(atomic.Int64))
	v.(*atomic.Int64).Add(n)
}

// snapshot copies the non-zero counts.
func (fs *failures) snapshot() map[string]int64 {
	out := map[string]int64{}
	fs.counts.Range(func(k, v any) bool {
		if n := v.(*atomic.Int64).Load(); n != 0 {
			out[k.(string)] = n
		}
		return true
	})
	return out
}

// restoreFailures loads the failure counts of an earlier run.
func (e *Engine) restoreFailures() error {
	cs, err := e.db.Counters("crawl.fail.")
	if err != nil {
		return fmt.Errorf("crawl: reading failure counters: %w", err)
	}
	for name, n := range cs {
		e.stats.fails.add(name[len("crawl.fail."):], n)
	}
	if err := e.db.ScanFailures("", func(f store.Failure) error {
		e.stats.fails.urls.Store(hash64(f.URL), struct{}{})
		return nil
	}); err != nil {
		return fmt.Errorf("crawl: reading failure records: %w", err)
	}
	e.stats.fails.urlsKnown.Store(true)
	return nil
}

// failDelta is how a recorded page changes the failure records: the new
// failure (nil when the page was fetched) and the one it replaces.
type failDelta struct {
	now  *store.Failure
	prev *store.Failure
}

// stageFailure records (or clears) rec's failure in b and returns the
// change, which commitFailures applies to the live counts once b is
// committed.
func (e *Engine) stageFailure(b *store.Batch, rec *pageRecord, v *visited, now time.Time) (failDelta, error) {
	var d failDelta
	var prev store.Failure
	had := false
	if _, maybe := e.stats.fails.urls.Load(hash64(rec.URL)); maybe || !e.stats.fails.urlsKnown.Load() {
		var err error
		if prev, had, err = e.db.GetFailure(rec.URL); err != nil {
			return d, err
		}
	}
	if had {
		d.prev = &prev
		if err := b.AddCounter(failCounter(prev.Cause), -1); err != nil {
			return d, err
		}
	}
	if v.Page != nil {
		if had {
			return d, b.DeleteFailure(rec.URL)
		}
		return d, nil
	}
	f := store.Failure{URL: rec.URL, Site: rec.Site, Depth: rec.Depth, Seed: e.seedPages[rec.URL], Cause: rec.Err,
		Error: v.errText, Status: rec.Status, Attempts: v.attempts, Runs: 1, First: now, Time: now}
	if had {
		f.Attempts += prev.Attempts
		f.Runs = prev.Runs + 1
		f.First = prev.First
	}
	d.now = &f
	// noted before the commit: a hash without a record costs one read
	e.stats.fails.urls.Store(hash64(f.URL), struct{}{})
	if err := b.AddCounter(failCounter(f.Cause), 1); err != nil {
		return d, err
	}
	return d, b.SetFailure(f)
}

// applyFailures applies a committed failDelta to the live counts.
func (e *Engine) applyFailures(d failDelta) {
	if d.prev != nil {
		e.stats.fails.add(d.prev.Cause, -1)
	}
	if d.now != nil {
		e.stats.fails.add(d.now.Cause, 1)
	}
}

// retryable reports whether a URL recorded as failed by an earlier run is
// to be fetched again: it failed in fewer than MaxFailedRuns runs and this
// run has not tried it yet.
func (e *Engine) retryable(u string) (bool, error) {
	if _, tried := e.claimed.Load(hash64(u)); tried {
		return false, nil
	}
	f, ok, err := e.db.GetFailure(u)
	if err != nil || !ok {
		return false, err
	}
	return f.Runs < MaxFailedRuns && f.Cause != CauseScope, nil
}

// inScope applies the profile's scope rules and per-host page cap to u;
// a refused URL is recorded with cause "scope" and not fetched.
func (e *Engine) inScope(u, parent string, depth int) (bool, error) {
	sc := &e.prof.Scope
	ok, why := sc.Check(u)
	if ok && sc.MaxPagesPerHost > 0 {
		if ok = e.reserveHost(canon.Host(u)); !ok {
			why = fmt.Sprintf("the host's page cap (scope.max_pages_per_host = %d) is reached", sc.MaxPagesPerHost)
		}
	}
	if ok {
		return true, nil
	}
	e.log.Debug("out of scope", "url", u, "why", why)
	b := e.db.NewBatch()
	defer b.Close()
	now := time.Now()
	site := canon.Site(u)
	if err := b.SetURL(store.URLState{URL: u, Site: site, State: store.StateSkipped, Depth: depth, Err: CauseScope}); err != nil {
		return false, err
	}
	rec := &pageRecord{URL: u, Site: site, Parent: parent, Depth: depth, Err: CauseScope}
	d, err := e.stageFailure(b, rec, &visited{errText: "out of scope: " + why}, now)
	if err != nil {
		return false, err
	}
	// not synced: a refusal lost to a crash is made again on resume
	if err := b.Commit(false); err != nil {
		return false, fmt.Errorf("crawl: recording %s out of scope: %w", u, err)
	}
	e.applyFailures(d)
	return false, nil
}

// reserveHost takes one page of host's cap; false when it is spent.
func (e *Engine) reserveHost(host string) bool {
	limit := int64(e.prof.Scope.MaxPagesPerHost)
	v, ok := e.stats.fails.hosts.Load(host)
	if !ok {
		e.stats.fails.hostsMu.Lock()
		if v, ok = e.stats.fails.hosts.Load(host); !ok {
			n := new(atomic.Int64)
			if c, err := e.db.Counter(hostCounter(host)); err == nil {
				n.Store(c)
			}
			v, _ = e.stats.fails.hosts.LoadOrStore(host, n)
		}
		e.stats.fails.hostsMu.Unlock()
	}
	n := v.(*atomic.Int64)
	if n.Add(1) > limit {
		n.Add(-1)
		return false
	}
	return true
}

// releaseHost gives back a page reserved by reserveHost and not fetched.
func (e *Engine) releaseHost(host string) {
	if e.prof.Scope.MaxPagesPerHost <= 0 {
		return
	}
	if v, ok := e.stats.fails.hosts.Load(host); ok {
		v.(*atomic.Int64).Add(-1)
	}
}

// SeedError says that no seed of a crawl could be fetched.
type SeedError struct {
	// Failures are the seeds' failure records.
	Failures []store.Failure
}

// Error lists each seed with its cause.
func (e *SeedError) Error() string {
	s := "no seed could be fetched:"
	for _, f := range e.Failures {
		s += fmt.Sprintf("\n  %s: %s: %s", f.URL, f.Cause, f.Error)
	}
	return s
}

// Causes returns the distinct causes of the seeds' failures.
func (e *SeedError) Causes() []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range e.Failures {
		if !seen[f.Cause] {
			seen[f.Cause] = true
			out = append(out, f.Cause)
		}
	}
	return out
}

// ErrNoSeed is what a *SeedError matches with errors.Is.
var ErrNoSeed = errors.New("crawl: no seed could be fetched")

// Is makes errors.Is(err, ErrNoSeed) true.
func (e *SeedError) Is(target error) bool { return target == ErrNoSeed }

// SeedFailures returns the failure records of the seeds' pages that failed,
// and a *SeedError when every seed failed (none was fetched, by this run
// or an earlier one). A seed neither fetched nor failed (the budget ended
// first) counts as not failed.
func (e *Engine) SeedFailures() ([]store.Failure, error) {
	var out []store.Failure
	fetched := 0
	seen := map[string]bool{}
	for _, raw := range e.opt.Seeds {
		u, err := canon.Canonical(raw)
		if err != nil {
			continue
		}
		if e.opt.Strategy == SmartCrawler || e.opt.Strategy == SCDI {
			u = canon.Site(u) + "/"
		}
		if seen[u] {
			continue
		}
		seen[u] = true
		f, ok, err := e.db.GetFailure(u)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
			continue
		}
		fetched++
	}
	if len(out) > 0 && fetched == 0 {
		return out, &SeedError{Failures: out}
	}
	return out, nil
}

// seedPageSet lists the pages a seed stands for: the URL and its site's
// homepage (what the two-stage strategies fetch).
func seedPageSet(seeds []string) map[string]bool {
	m := map[string]bool{}
	for _, raw := range seeds {
		if u, err := canon.Canonical(raw); err == nil {
			m[u] = true
			m[canon.Site(u)+"/"] = true
		}
	}
	return m
}

// causeOf is the failure cause of a fetch error.
func causeOf(err error) string {
	if c := fetch.Cause(err); c != "" {
		return c
	}
	return "network"
}
