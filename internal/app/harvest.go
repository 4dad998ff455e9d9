package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/probe"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/core/text"
	"github.com/dwcrawl/dwcrawl/serve"
	"github.com/dwcrawl/dwcrawl/store"
)

// HarvestOptions describe a harvest: a crawl that discovers the searchable
// forms of a topic (CrawlOptions), probes each relevant one, and surfaces
// every form the probes judge a database of the topic into the same
// directory while discovery goes on.
type HarvestOptions struct {
	CrawlOptions
	// QueriesPerDB bounds the queries of one database (0: the profile's
	// harvest.queries_per_db); Queries those of all databases together
	// (0: the profile's harvest.queries; negative: unbounded).
	QueriesPerDB int
	Queries      int
	// Parallel is the number of databases surfaced at once (0: the
	// profile's harvest.parallel); never two on one host.
	Parallel int
	// StopAfter ends a database after this many queries in a row found no
	// new record (0: the profile's harvest.stop_after; negative: never).
	StopAfter int
	// Policy is the query policy (default adaptive).
	Policy string
	// Poll is how often the recorded forms are read for new databases
	// (default 1s).
	Poll time.Duration
	// OnStatus receives the harvest's status about once a second and when
	// it ends; OnEvent a line for each database queued, started or ended.
	// Both are called from the harvest's own goroutine.
	OnStatus func(HarvestStatus)
	OnEvent  func(string)
}

// HarvestDatabase is one relevant searchable form of a harvest: what its
// probe judged it, and what surfacing it got. It is the service's type, so
// that `harvest --json` and the API list the same fields.
type HarvestDatabase = serve.HarvestDatabase

// HarvestSummary is what a harvest reports when it ends.
type HarvestSummary struct {
	Dir       string            `json:"dir"`
	Pages     int64             `json:"pages"`
	Databases []HarvestDatabase `json:"databases"`
	Records   int               `json:"records"`
	Queries   int               `json:"queries"`
	// Crawl is the discovery's summary.
	Crawl crawl.Snapshot `json:"crawl"`
	// WARC describes the archive written with CrawlOptions.WARC.
	WARC *WARCSummary `json:"warc,omitempty"`
}

// HarvestStatus is a harvest's progress at one moment.
type HarvestStatus struct {
	Crawl                                 crawl.Snapshot
	CrawlDone                             bool
	Found, Probed, Topic, Surfacing, Done int
	Records, Queries                      int
}

// Line renders the status as one line, a part per stage.
func (s HarvestStatus) Line() string {
	disc := fmt.Sprintf("pages %d", s.Crawl.Pages)
	if s.CrawlDone {
		disc += " (discovery done)"
	}
	return fmt.Sprintf("harvest: %s · databases %d found / %d probed / %d of the topic / %d surfacing / %d done · records %d in %d queries",
		disc, s.Found, s.Probed, s.Topic, s.Surfacing, s.Done, s.Records, s.Queries)
}

// harvestState is a database's harvest record in the store (TagHarvest).
type harvestState struct {
	Form    string `json:"form"`
	State   string `json:"state"`
	Stopped string `json:"stopped,omitempty"`
	Error   string `json:"error,omitempty"`
	Budget  int    `json:"budget"` // the per-database budget it ended under
	Tries   int    `json:"tries"`  // surfacings that failed
	// Reprobed: the form was probed again with the learned words
	Reprobed bool      `json:"reprobed,omitempty"`
	At       time.Time `json:"at"`
}

// maxHarvestTries is how many failed surfacings of a database a harvest
// directory allows (one per run) before it gives up on it.
const maxHarvestTries = 3

// Harvest crawls as `run` does, with every relevant searchable form
// probed, and surfaces each database of the topic with the adaptive policy
// through the crawl's fetcher (one request at a time per host). Run again
// on the same directory it resumes the crawl, the probes and every
// surfacing where they stopped.
func Harvest(ctx context.Context, o HarvestOptions) (*HarvestSummary, error) {
	p := o.Profile
	if p == nil {
		return nil, errors.New("harvest: no profile")
	}
	// the crawl probes every relevant form (probe.budget does not bound a
	// harvest), with 4 queries unless the profile says otherwise
	pc := *p
	if pc.Probe.Queries == 0 {
		pc.Probe.Queries = 4
	}
	pc.Probe.Budget = 0
	o.Profile = &pc
	h := pc.Harvest
	if o.QueriesPerDB == 0 {
		o.QueriesPerDB = h.QueriesPerDB
	}
	if o.QueriesPerDB <= 0 {
		o.QueriesPerDB = 200
	}
	switch {
	case o.Queries == 0:
		o.Queries = h.Queries
	case o.Queries < 0:
		o.Queries = 0
	}
	if o.Parallel <= 0 {
		o.Parallel = max(h.Parallel, 1)
	}
	switch {
	case o.StopAfter == 0:
		o.StopAfter = h.StopAfter
	case o.StopAfter < 0:
		o.StopAfter = 0
	}
	if o.Policy == "" {
		o.Policy = "adaptive"
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	hv := &harvester{o: o, dbs: map[string]*HarvestDatabase{}, busy: map[string]bool{}, ended: make(chan string, 64)}
	hv.learned.Store(&learnedWords{})
	o.ProbeLearned = hv.learnedTerms
	o.WrapProber = func(p crawl.FormProber) crawl.FormProber { return harvestProber{p, hv} }
	var snap atomic.Pointer[crawl.Snapshot]
	userProgress := o.Progress
	o.CrawlOptions.Progress = func(sn crawl.Snapshot) {
		snap.Store(&sn)
		if userProgress != nil {
			userProgress(sn)
		}
	}
	o.ProbeRelevant = true
	cr, err := NewCrawl(ctx, o.CrawlOptions)
	if err != nil {
		return nil, err
	}
	hv.cr = cr
	if err := hv.load(); err != nil {
		cr.Close()
		return nil, err
	}
	if err := hv.learn(); err != nil {
		cr.Close()
		return nil, err
	}
	hv.prober, err = probe.New(cr.Fetcher, probe.Options{Queries: pc.Probe.Queries, Learned: hv.learnedTerms})
	if err != nil {
		cr.Close()
		return nil, err
	}
	crawlDone := make(chan error, 1)
	var crawlSnap crawl.Snapshot
	go func() {
		sn, err := cr.Run(ctx)
		crawlSnap = sn
		crawlDone <- err
	}()
	var crawlErr error
	discovering := true
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	lastStatus := time.Time{}
	status := func(force bool) {
		if o.OnStatus == nil || !force && time.Since(lastStatus) < time.Second {
			return
		}
		lastStatus = time.Now()
		st := hv.status()
		if sn := snap.Load(); sn != nil {
			st.Crawl = *sn
		}
		if !discovering {
			st.Crawl, st.CrawlDone = crawlSnap, true
		}
		o.OnStatus(st)
	}
	var scanErr error
	for {
		if err := hv.scan(); err != nil && scanErr == nil {
			scanErr = err // a store error: no new database is started
		}
		if scanErr == nil && ctx.Err() == nil {
			hv.dispatch(ctx)
		}
		status(false)
		if !discovering && hv.idle() && (scanErr != nil || ctx.Err() != nil || !hv.pending()) {
			break
		}
		select {
		case err := <-crawlDone:
			discovering, crawlErr = false, err
		case id := <-hv.ended:
			hv.finish(id)
			if err := hv.learn(); err != nil && scanErr == nil {
				scanErr = err
			}
		case <-tick.C:
			if time.Since(hv.learnedAt) >= learnEvery {
				if err := hv.learn(); err != nil && scanErr == nil {
					scanErr = err
				}
			}
		}
	}
	status(true)
	sum := hv.summary(crawlSnap)
	closeErr := cr.Close()
	sum.WARC = cr.WARC
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	return sum, errors.Join(crawlErr, scanErr, closeErr)
}

// harvester schedules the surfacing of a harvest's databases.
type harvester struct {
	o  HarvestOptions
	cr *Crawl
	// dbs are the relevant searchable forms by id, in the order found
	dbs   map[string]*HarvestDatabase
	order []string
	// states are the stored harvest records by form id
	states map[string]harvestState
	queue  []string
	// busy holds the hosts with a database being surfaced
	busy    map[string]bool
	hostOf  map[string]string
	running int
	// used counts the queries of every database (the total budget's)
	used  atomic.Int64
	ended chan string
	mu    sync.Mutex // guards the progress fields of dbs
	// learned are the words the topic's records hold, for probes
	learned   atomic.Pointer[learnedWords]
	learnedAt time.Time
	learnedN  int // records the words were counted over
	prober    *probe.Prober
	// offTopic holds the forms a probe judged a site search, with the
	// probe's time; reprobe those queued to be probed again with what the
	// harvest learned
	offTopic map[string]time.Time
	reprobe  map[string]bool
}

func sourceOf(id string) string { return "form:" + id }

// vocabKey is the harvest state recording when the harvest first had a
// vocabulary of the topic's records (its At).
const vocabKey = "*vocabulary"

// load reads what earlier runs recorded: the harvest states and the
// queries and records of every database already surfaced.
func (h *harvester) load() error {
	h.states, h.hostOf = map[string]harvestState{}, map[string]string{}
	h.offTopic, h.reprobe = map[string]time.Time{}, map[string]bool{}
	db := h.cr.DB
	err := db.ScanJSON(store.TagHarvest, nil, func(_, v []byte) error {
		var st harvestState
		if err := json.Unmarshal(v, &st); err != nil {
			return fmt.Errorf("harvest: %s: a stored harvest state: %w", db.Dir(), err)
		}
		h.states[st.Form] = st
		return nil
	})
	if err != nil {
		return err
	}
	if st, ok := h.states[vocabKey]; ok {
		h.learned.Store(&learnedWords{since: st.At})
	}
	srcs, err := surface.Sources(db)
	if err != nil {
		return err
	}
	var used int64
	for s, c := range srcs {
		if strings.HasPrefix(s, "form:") {
			used += int64(c[1])
		}
	}
	h.used.Store(used)
	return nil
}

// scan reads the recorded forms and adds the new relevant searchable ones;
// a database of the topic is queued unless an earlier run finished it.
func (h *harvester) scan() error {
	db := h.cr.DB
	var fresh []store.Form
	err := db.ScanForms(func(f store.Form) error {
		if _, ok := h.dbs[f.ID]; ok {
			if d := h.dbs[f.ID]; d.Verdict == "unprobed" && f.Probe != nil {
				fresh = append(fresh, f) // probed since
			}
			return nil
		}
		if f.Probe != nil || f.Relevant && f.Searchable > 0 {
			fresh = append(fresh, f)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(fresh, func(a, b int) bool { return fresh[a].PagesFetched < fresh[b].PagesFetched })
	h.mu.Lock()
	defer h.mu.Unlock()
	var counts journalCounts
	for _, f := range fresh {
		if err := h.consider(f, &counts); err != nil {
			return err
		}
	}
	h.queueReprobes()
	return nil
}

// consider lists a relevant or probed form and queues it when its probe
// judged it a database of the topic that no earlier run finished. The
// caller holds h.mu.
func (h *harvester) consider(f store.Form, counts *journalCounts) error {
	d := h.dbs[f.ID]
	if d == nil {
		d = &HarvestDatabase{ID: f.ID, Site: f.Site, PageURL: f.PageURL}
		h.dbs[f.ID] = d
		h.order = append(h.order, f.ID)
		h.hostOf[f.ID] = formHost(f)
	}
	d.Verdict, d.State = "unprobed", "skipped"
	if f.Probe == nil {
		return nil
	}
	d.Verdict = f.Probe.Decision
	if d.Verdict == store.ProbeSiteSearch {
		h.offTopic[f.ID] = f.Probe.At
	}
	if d.Verdict != store.ProbeTopicDatabase {
		return nil
	}
	delete(h.offTopic, f.ID)
	if err := counts.restore(h.cr.DB, d); err != nil {
		return err
	}
	st, ok := h.states[f.ID]
	switch {
	case !ok || st.State == "surfacing" || st.State == "reprobed":
		d.State = "queued"
	case st.State == "failed" && st.Tries < maxHarvestTries:
		d.State, d.Error = "queued", st.Error
	case st.State == "done" && st.Stopped == "budget" && st.Budget < h.o.QueriesPerDB:
		d.State = "queued" // a larger budget than the run that ended it
	case st.State == "done" && st.Stopped == "queries" && h.o.Queries > 0 && h.used.Load() < int64(h.o.Queries):
		d.State = "queued"
	default:
		d.State, d.Stopped, d.Error = st.State, st.Stopped, st.Error
	}
	if d.State == "queued" {
		h.queue = append(h.queue, f.ID)
		h.event(fmt.Sprintf("database %s (%s) queued: its probe judged it a database of the topic", d.ID, d.PageURL))
	}
	return nil
}

// queueReprobes queues, once per form, a second probe of the forms judged
// a site search before the harvest had learned the topic's records: the
// words their records hold are asked, and their records judged by them as
// well. The caller holds h.mu.
func (h *harvester) queueReprobes() {
	lw := h.learned.Load()
	if len(lw.vocab) < minVocabulary {
		return
	}
	for _, id := range h.order {
		at, ok := h.offTopic[id]
		if !ok || h.reprobe[id] || h.states[id].Reprobed || at.After(lw.since) {
			continue
		}
		h.reprobe[id] = true
		h.queue = append(h.queue, id)
		h.dbs[id].State = "queued"
	}
}

// journalCounts reads the journals' counts once for a scan.
type journalCounts struct {
	srcs map[string][2]int
	ests map[string]surface.QueryLog
}

// restore fills a database's counts from its journal.
func (c *journalCounts) restore(db *store.DB, d *HarvestDatabase) error {
	if c.srcs == nil {
		var err error
		if c.srcs, err = surface.Sources(db); err != nil {
			return err
		}
		if c.ests, err = surface.Estimates(db); err != nil {
			return err
		}
	}
	n := c.srcs[sourceOf(d.ID)]
	d.Records, d.Queries = n[0], n[1]
	if l, ok := c.ests[sourceOf(d.ID)]; ok {
		d.CoverageEstimate, d.CoverageLow, d.CoverageHigh, d.Estimator = l.CoverageEstimate, l.CoverageLow, l.CoverageHigh, l.Estimator
	}
	return nil
}

// formHost is the host a form's queries go to.
func formHost(f store.Form) string {
	for _, raw := range []string{f.Action, f.PageURL} {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			return strings.ToLower(u.Host)
		}
	}
	return f.Site
}

func (h *harvester) event(s string) {
	if h.o.OnEvent != nil {
		h.o.OnEvent(s)
	}
}

// pending reports whether a database waits to be surfaced and the total
// budget allows it.
func (h *harvester) pending() bool {
	return len(h.queue) > 0 && !h.totalSpent()
}

func (h *harvester) totalSpent() bool {
	return h.o.Queries > 0 && h.used.Load() >= int64(h.o.Queries)
}

func (h *harvester) idle() bool { return h.running == 0 }

// dispatch starts the queued databases, up to Parallel at once and one
// per host.
func (h *harvester) dispatch(ctx context.Context) {
	for i := 0; i < len(h.queue) && h.running < h.o.Parallel && !h.totalSpent(); {
		id := h.queue[i]
		host := h.hostOf[id]
		if h.busy[host] {
			i++
			continue
		}
		h.queue = append(h.queue[:i], h.queue[i+1:]...)
		h.busy[host] = true
		h.running++
		h.mu.Lock()
		d := h.dbs[id]
		again := h.reprobe[id]
		if again {
			d.State = "probing"
		} else {
			d.State, d.Error = "surfacing", ""
		}
		h.mu.Unlock()
		if again {
			go func() {
				h.probeAgain(ctx, id)
				h.ended <- id
			}()
			continue
		}
		h.event(fmt.Sprintf("surfacing database %s (%s)", id, d.PageURL))
		go func() {
			h.surface(ctx, id)
			h.ended <- id
		}()
	}
}

// finish releases an ended database's host; a form probed again is
// considered anew.
func (h *harvester) finish(id string) {
	h.running--
	delete(h.busy, h.hostOf[id])
	h.mu.Lock()
	if h.reprobe[id] {
		delete(h.reprobe, id)
		delete(h.offTopic, id)
		f, ok, err := h.cr.DB.GetForm(id)
		if err == nil && ok {
			err = h.consider(f, &journalCounts{})
		}
		if err != nil {
			h.dbs[id].Error = err.Error()
		}
		h.mu.Unlock()
		return
	}
	d := *h.dbs[id]
	h.mu.Unlock()
	switch d.State {
	case "done":
		cov := "no coverage estimate yet"
		if d.CoverageEstimate != nil {
			cov = fmt.Sprintf("est. coverage %.1f%%", 100**d.CoverageEstimate)
		}
		h.event(fmt.Sprintf("database %s done (%s): %d records in %d queries, %s", id, d.Stopped, d.Records, d.Queries, cov))
	case "failed":
		h.event(fmt.Sprintf("database %s failed: %s", id, d.Error))
	}
}

// putState records a database's harvest state (synced).
func (h *harvester) putState(st harvestState) error {
	st.At = time.Now().UTC()
	h.mu.Lock()
	h.states[st.Form] = st
	h.mu.Unlock()
	b := h.cr.DB.NewBatch()
	defer b.Close()
	if err := b.PutJSON(store.TagHarvest, store.AppendString(nil, sourceOf(st.Form)), st); err != nil {
		return err
	}
	return b.Commit(true)
}

// surface harvests one database to its end and records how it ended.
func (h *harvester) surface(ctx context.Context, id string) {
	h.mu.Lock()
	prev := h.states[id]
	d := h.dbs[id]
	h.mu.Unlock()
	set := func(fn func(d *HarvestDatabase)) {
		h.mu.Lock()
		fn(d)
		h.mu.Unlock()
	}
	st := harvestState{Form: id, State: "surfacing", Budget: h.o.QueriesPerDB, Tries: prev.Tries, Reprobed: prev.Reprobed}
	if err := h.putState(st); err != nil {
		set(func(d *HarvestDatabase) { d.State, d.Error = "failed", err.Error() })
		return
	}
	p := h.o.Profile
	base := int64(d.Queries)
	gate := &totalGate{h: h}
	if known, other, err := h.sameHostDocs(id); err != nil {
		set(func(d *HarvestDatabase) { d.State, d.Error = "failed", err.Error() })
		return
	} else if len(known) > 0 {
		gate.known, gate.other = known, other
	}
	opt := SurfaceOptions{Form: id, DB: h.cr.DB, Fetcher: h.cr.Fetcher, Policy: h.o.Policy, Budget: h.o.QueriesPerDB,
		StopAfter: h.o.StopAfter, Profile: p, Seeds: p.Keywords, Sites: ProfileSites(p),
		Gate: gate.wrap,
		OnProgress: func(pr surface.Progress) {
			set(func(d *HarvestDatabase) {
				d.Queries, d.Records = pr.Queries, pr.Docs
				if e := pr.Estimate; e.Valid() {
					c, l, hi := e.Coverage, e.Low, e.High
					d.CoverageEstimate, d.CoverageLow, d.CoverageHigh, d.Estimator = &c, &l, &hi, e.Estimator
				}
			})
		}}
	sum, err := Surface(ctx, opt)
	if sum != nil {
		// the total counts the journal's queries, whatever the gate saw
		h.used.Add(int64(sum.Queries) - base - gate.n.Load())
		set(func(d *HarvestDatabase) {
			d.Queries, d.Records = sum.Queries, sum.Docs
			if sum.CoverageEstimate != nil {
				d.CoverageEstimate, d.CoverageLow, d.CoverageHigh, d.Estimator = sum.CoverageEstimate, sum.CoverageLow, sum.CoverageHigh, sum.Estimator
			}
		})
	}
	if ctx.Err() != nil {
		set(func(d *HarvestDatabase) { d.State = "queued" }) // resumed by the next run
		return
	}
	if err != nil {
		st.State, st.Error, st.Tries = "failed", err.Error(), st.Tries+1
	} else {
		st.State = "done"
		switch {
		case gate.refused.Load():
			st.Stopped = "queries"
		case gate.duplicate.Load():
			st.Stopped, st.Error = "duplicate", fmt.Sprintf("lists the records of %s, a database of the same site already surfaced", strings.Join(gate.other, ", "))
		case sum != nil && sum.Queries >= h.o.QueriesPerDB:
			st.Stopped = "budget"
		default:
			st.Stopped = "converged"
		}
	}
	if perr := h.putState(st); perr != nil && st.Error == "" {
		st.State, st.Error = "failed", perr.Error()
	}
	set(func(d *HarvestDatabase) { d.State, d.Stopped, d.Error = st.State, st.Stopped, st.Error })
}

// probeAgain probes form id again, with the words the topic's records
// are now known to hold: the form's page is fetched again, the form found
// at its index (the same action and method) and probed; the new probe
// replaces the old in the form's record, and the harvest state records
// that the form had its second probe.
func (h *harvester) probeAgain(ctx context.Context, id string) {
	err := h.reprobeForm(ctx, id)
	if ctx.Err() != nil {
		return
	}
	h.mu.Lock()
	st := h.states[id]
	h.mu.Unlock()
	st.Form, st.Reprobed = id, true
	if st.State == "" {
		st.State = "reprobed"
	}
	if err != nil {
		st.Error = "probing again: " + err.Error()
		h.event(fmt.Sprintf("form %s: %s", id, st.Error))
	}
	if perr := h.putState(st); perr != nil {
		h.event(fmt.Sprintf("form %s: %v", id, perr))
	}
}

func (h *harvester) reprobeForm(ctx context.Context, id string) error {
	db := h.cr.DB
	f, ok, err := db.GetForm(id)
	if err != nil || !ok {
		return fmt.Errorf("form %s: not in the store (%v)", id, err)
	}
	resp, err := h.cr.Fetcher.Fetch(ctx, f.PageURL)
	if err != nil {
		return err
	}
	base, err := url.Parse(resp.URL)
	if err != nil {
		return err
	}
	pg, err := page.Parse(resp.Body, resp.ContentType, base)
	if err != nil {
		return fmt.Errorf("%s: %w", f.PageURL, err)
	}
	if f.Index >= len(pg.Forms) || pg.Forms[f.Index].Action != f.Action || !strings.EqualFold(pg.Forms[f.Index].Method, f.Method) {
		return fmt.Errorf("%s: form %d is not the one recorded any more", f.PageURL, f.Index)
	}
	tmpl, _ := records.TemplateOf(resp.Body, base)
	d := form.Decision{Kind: f.Kind, Searchable: true, PSearchable: f.Searchable}
	pr, err := h.prober.Probe(ctx, &pg.Forms[f.Index], d, pg.Text, tmpl, h.topic(h.cr.Classifiers.Sites))
	if err != nil {
		return err
	}
	h.event(fmt.Sprintf("form %s (%s) probed again with words of the topic's records: %s", id, f.PageURL, pr.Decision))
	f.Probe = pr
	f.Relevant = pr.Decision == store.ProbeTopicDatabase
	f.Reasons = append(f.Reasons, "probe again: "+pr.Decision)
	return db.PutForm(f)
}

// learnEvery is how often the words of the topic's records are counted
// again while databases are surfaced.
const learnEvery = 10 * time.Second

// probeWords is the number of words of the topic's records a probe may
// ask; vocabularyWords the most words of the topic's records a record is
// judged by.
const (
	probeWords      = 10
	vocabularyWords = 5000
)

// learnedWords is what a harvest learned from the records of the
// databases of the topic: the words to ask first, and the vocabulary
// that tells a record of the topic.
type learnedWords struct {
	terms []string
	vocab map[string]bool
	// since is when the vocabulary was first large enough to judge by
	since time.Time
}

// learnedTerms returns the words the topic's records hold, most common
// first.
func (h *harvester) learnedTerms() []string { return h.learned.Load().terms }

// learn counts the words of the records harvested from the databases of
// the topic: a word's score is its mean share of each database's records
// (a word every database's records hold comes first; one site's template
// word does not). Stop words, numbers and words under 3 letters are left
// out; the vocabulary keeps the words of at least two records.
func (h *harvester) learn() error {
	h.learnedAt = time.Now()
	h.mu.Lock()
	topic := map[string]bool{}
	n := 0
	for id, d := range h.dbs {
		if d.Verdict == store.ProbeTopicDatabase {
			topic[sourceOf(id)] = true
			n += d.Records
		}
	}
	h.mu.Unlock()
	if n == h.learnedN {
		return nil
	}
	h.learnedN = n
	df := map[string]map[string]int{}
	docs := map[string]int{}
	err := h.cr.DB.ScanJSON(store.TagDocs, nil, func(k, v []byte) error {
		src, _, err := store.DecodeString(k)
		if err != nil || !topic[src] {
			return err
		}
		var sd surface.StoredDoc
		if err := json.Unmarshal(v, &sd); err != nil {
			return fmt.Errorf("harvest: a stored record of %s: %w", src, err)
		}
		if df[src] == nil {
			df[src] = map[string]int{}
		}
		docs[src]++
		for w := range recordWords(sd.Text) {
			df[src][w]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	score := map[string]float64{}
	total := map[string]int{}
	for src, ws := range df {
		for w, c := range ws {
			score[w] += float64(c) / float64(docs[src])
			total[w] += c
		}
	}
	words := make([]string, 0, len(score))
	for w := range score {
		if total[w] >= 2 {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(a, b int) bool {
		if score[words[a]] != score[words[b]] {
			return score[words[a]] > score[words[b]]
		}
		return words[a] < words[b]
	})
	lw := &learnedWords{terms: words[:min(probeWords, len(words))], vocab: map[string]bool{}, since: h.learned.Load().since}
	for _, w := range words[:min(vocabularyWords, len(words))] {
		lw.vocab[w] = true
	}
	if lw.since.IsZero() && len(lw.vocab) >= minVocabulary {
		// recorded, so that a resumed harvest knows which probes judged
		// with a vocabulary already
		lw.since = time.Now().UTC()
		if err := h.putState(harvestState{Form: vocabKey, State: "learned"}); err != nil {
			return err
		}
	}
	h.learned.Store(lw)
	return nil
}

// recordWords are the distinct words of a record's text a vocabulary
// counts: no stop words, numbers or words under 3 letters.
func recordWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range text.Tokenize(s) {
		if len(w) >= 3 && !text.IsStop(w) && strings.Trim(w, "0123456789") != "" {
			out[w] = true
		}
	}
	return out
}

// minVocabulary is the vocabulary a harvest must have learned before it
// judges records by it.
const minVocabulary = 50

// vocabTopic judges a text on the topic when the crawl's topic model does,
// or when most of its words are words of the topic's records: the topic
// model learned the topic from home pages, and a database's records (makes,
// models, prices) read unlike them.
type vocabTopic struct {
	base  probe.Topic
	vocab map[string]bool
}

func (t vocabTopic) Relevant(s string) (bool, float64) {
	ok, p := t.base.Relevant(s)
	if ok || len(t.vocab) < minVocabulary {
		return ok, p
	}
	ws := recordWords(s)
	if len(ws) == 0 {
		return ok, p
	}
	in := 0
	for w := range ws {
		if t.vocab[w] {
			in++
		}
	}
	share := float64(in) / float64(len(ws))
	return share > 0.5, max(p, share)
}

// topic is the crawl's topic model with what the harvest learned.
func (h *harvester) topic(base probe.Topic) probe.Topic {
	return vocabTopic{base: base, vocab: h.learned.Load().vocab}
}

// harvestProber probes with the harvest's topic.
type harvestProber struct {
	p crawl.FormProber
	h *harvester
}

func (hp harvestProber) Probe(ctx context.Context, f *page.Form, d form.Decision, pageText string, tmpl *records.Template, topic probe.Topic) (*store.Probe, error) {
	return hp.p.Probe(ctx, f, d, pageText, tmpl, hp.h.topic(topic))
}

// totalGate holds a database's queries to the harvest's total budget: a
// query takes one unit when its first result page is asked for. With
// known, it also ends a database whose answers list the records another
// form of its host already harvested (two forms in front of one
// database).
type totalGate struct {
	h       *harvester
	n       atomic.Int64 // queries this database took
	refused atomic.Bool
	// known are the record keys of the other forms of the host (other
	// names them); seen and old count the records answers listed and
	// those among them known
	known     map[string]bool
	other     []string
	seen, old atomic.Int64
	duplicate atomic.Bool
}

// Duplicates: after dupRecords records listed by at least dupQueries
// queries, a database whose answers hold at least dupShare of records
// another form of its host harvested is that form's database.
const (
	dupRecords = 30
	dupQueries = 3
	dupShare   = 0.9
)

func (g *totalGate) wrap(s keyword.Searcher) keyword.Searcher { return gatedSearcher{s, g} }

type gatedSearcher struct {
	keyword.Searcher
	g *totalGate
}

func (s gatedSearcher) Search(ctx context.Context, q string, page int) (keyword.Page, error) {
	g := s.g
	if g.duplicate.Load() {
		return keyword.Page{}, keyword.Permanent{Err: keyword.ErrBudget}
	}
	if page <= 1 {
		h := g.h
		if n := h.used.Add(1); h.o.Queries > 0 && n > int64(h.o.Queries) {
			h.used.Add(-1)
			g.refused.Store(true)
			return keyword.Page{}, keyword.Permanent{Err: keyword.ErrBudget}
		}
		g.n.Add(1)
	}
	pg, err := s.Searcher.Search(ctx, q, page)
	if err == nil && g.known != nil {
		old := 0
		for _, d := range pg.Docs {
			if g.known[d.Key()] {
				old++
			}
		}
		seen, known := g.seen.Add(int64(len(pg.Docs))), g.old.Add(int64(old))
		if seen >= dupRecords && g.n.Load() >= dupQueries && float64(known) >= dupShare*float64(seen) {
			g.duplicate.Store(true)
		}
	}
	return pg, err
}

// sameHostDocs returns the record keys harvested from the other forms of
// form id's host, and those forms' sources.
func (h *harvester) sameHostDocs(id string) (map[string]bool, []string, error) {
	h.mu.Lock()
	host := h.hostOf[id]
	srcs := map[string]bool{}
	var names []string
	for other, hh := range h.hostOf {
		if other != id && hh == host && h.dbs[other].Records > 0 {
			srcs[sourceOf(other)] = true
			names = append(names, sourceOf(other))
		}
	}
	h.mu.Unlock()
	if len(srcs) == 0 {
		return nil, nil, nil
	}
	sort.Strings(names)
	known := map[string]bool{}
	for _, src := range names {
		err := h.cr.DB.ScanJSON(store.TagDocs, store.AppendString(nil, src), func(k, _ []byte) error {
			_, rest, err := store.DecodeString(k)
			if err != nil {
				return err
			}
			key, _, err := store.DecodeString(rest)
			if err != nil {
				return err
			}
			known[key] = true
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return known, names, nil
}

// status counts the databases by stage.
func (h *harvester) status() HarvestStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := HarvestStatus{Found: len(h.dbs)}
	for _, d := range h.dbs {
		if d.Verdict != "unprobed" {
			st.Probed++
		}
		if d.Verdict == store.ProbeTopicDatabase {
			st.Topic++
		}
		switch d.State {
		case "surfacing":
			st.Surfacing++
		case "done", "failed":
			st.Done++
		}
		st.Records += d.Records
		st.Queries += d.Queries
	}
	return st
}

// summary lists the databases in the order found.
func (h *harvester) summary(sn crawl.Snapshot) *HarvestSummary {
	h.mu.Lock()
	defer h.mu.Unlock()
	sum := &HarvestSummary{Dir: h.cr.DB.Dir(), Pages: sn.Pages, Crawl: sn, Databases: []HarvestDatabase{}}
	for _, id := range h.order {
		d := *h.dbs[id]
		sum.Databases = append(sum.Databases, d)
		sum.Records += d.Records
		sum.Queries += d.Queries
	}
	return sum
}

// ProfileSites returns the result-page selectors a profile's sites table
// gives a host (nil when it has none).
func ProfileSites(p *profile.Profile) func(host string) (records.Selectors, bool) {
	if p == nil || len(p.Sites) == 0 {
		return nil
	}
	return func(host string) (records.Selectors, bool) {
		s, ok := p.SiteFor(host)
		return s.Selectors("profile " + p.Path), ok
	}
}
