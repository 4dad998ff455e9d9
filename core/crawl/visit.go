package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// maxStoredText bounds the page text kept in a page record: enough for the
// site and page classifiers on replay.
const maxStoredText = 4000

// pageRecord is what the store keeps of a fetched page (TagPages), enough to
// replay it after a restart without fetching it again.
type pageRecord struct {
	URL     string       `json:"url"`
	Final   string       `json:"final,omitempty"` // after redirects
	Site    string       `json:"site"`
	Parent  string       `json:"parent,omitempty"`
	Depth   int          `json:"depth"`
	Status  int          `json:"status"`
	Err     string       `json:"err,omitempty"`
	Title   string       `json:"title,omitempty"`
	Text    string       `json:"text,omitempty"`
	Links   []linkRecord `json:"links,omitempty"`
	Forms   []formRecord `json:"forms,omitempty"`
	Seq     int64        `json:"seq"` // page number in the crawl
	Fetched time.Time    `json:"fetched"`
	// Refetches counts the fetches of the URL before this one (failed
	// pages retried by later runs): each spent a page of the budget and
	// was counted in crawl.pages.
	Refetches int `json:"refetches,omitempty"`
}

type linkRecord struct {
	U string `json:"u"`
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	F string `json:"f,omitempty"`
}

// formRecord keeps the verdict on every form of the page.
type formRecord struct {
	Index      int     `json:"i"`
	Kind       string  `json:"k"`
	Searchable bool    `json:"s,omitempty"`
	Relevant   bool    `json:"r,omitempty"`
	Dup        bool    `json:"d,omitempty"` // searchable, but recorded already on another page
	P          float64 `json:"p"`
}

// visited is a page as the strategies see it, fetched or replayed.
type visited struct {
	URL      string
	Site     string
	Depth    int
	Page     *page.Page // nil when the fetch failed
	Forms    []formRecord
	Replayed bool
	// Dup marks a URL another worker of this run is fetching or fetched:
	// nothing to do, and it counts for no stop criterion.
	Dup bool
	// formDecisions are HIFI's full verdicts, parallel to Forms (fresh fetches only).
	formDecisions []form.Decision
	// example is the FSL example staged with the page (Deps.Sink publishes it).
	example *rank.Features
	// probes are the probes of the forms, parallel to Forms (nil: none
	// probed); probeQueries counts their queries, reserved from the probe
	// budget until the page is recorded.
	probes       []*store.Probe
	probeQueries int64
	// errText and attempts describe a failed fetch (fresh fetches only);
	// retried marks the fetch of a URL an earlier run failed to fetch.
	errText  string
	attempts int
	retried  bool
	// sites are the site keys of Page.Links (see linkSites).
	sites []string
}

// linkSites returns the site key of each link of the page, computed once
// for the out-of-site and the in-site links.
func (v *visited) linkSites() []string {
	if v.sites == nil {
		v.sites = make([]string, len(v.Page.Links))
		for i, l := range v.Page.Links {
			if !l.NoFollow {
				v.sites[i] = canon.Site(l.URL)
			}
		}
	}
	return v.sites
}

// searchable counts the searchable forms of the page.
func (v *visited) searchable() (n int) {
	for _, f := range v.Forms {
		if f.Searchable {
			n++
		}
	}
	return n
}

// relevant counts the relevant forms of the page.
func (v *visited) relevant() (n int) {
	for _, f := range v.Forms {
		if f.Relevant {
			n++
		}
	}
	return n
}

// stager stages further writes and counts in the batch that records a page.
type stager func(b *store.Batch, v *visited, t *tally) error

// preStager stages writes ahead of a page's own in the batch that records
// it: the frontier writes held back since the last page (its pop among
// them), which must precede the page's URL states.
type preStager func(b *store.Batch) error

// visit fetches u (or replays its stored record) and records the page, its
// forms and the counters in one batch. pre and extra, when not nil, stage
// further writes (and counts) in the same batch, before and after the
// page's; they are not called for a replayed page or a duplicate. visit returns ErrBudget when the budget is spent; fetch
// failures are recorded and returned as a visited with a nil Page, never as
// an error.
func (e *Engine) visit(ctx context.Context, u, parent string, depth int, pre preStager, extra stager) (*visited, error) {
	// pages recorded before the lookup below (see claim)
	recorded := e.recorded.Load()
	v, retried, refetches, err := e.lookup(u)
	if v != nil || err != nil {
		return v, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if v, err := e.claim(u, parent, depth, recorded, retried); v != nil || err != nil {
		return v, err
	}
	rec := pageRecord{URL: u, Site: canon.Site(u), Parent: parent, Depth: depth, Fetched: time.Now()}
	if retried {
		rec.Refetches = refetches
	}
	resp, p, bu, perr, ferr := e.fetchPage(ctx, u)
	if ferr != nil && ctx.Err() != nil {
		// cancelled mid-fetch: the page stays in flight and is fetched on resume
		e.unreserve()
		e.claimed.Delete(hash64(u))
		e.releaseHost(canon.Host(u))
		return nil, ctx.Err()
	}
	v = &visited{URL: u, Site: rec.Site, Depth: depth, retried: retried}
	if resp != nil {
		rec.Status = resp.Status
		v.attempts = resp.Attempts
		if resp.URL != "" && resp.URL != u {
			rec.Final = resp.URL
		}
	}
	switch {
	case ferr != nil:
		rec.Err, v.errText = causeOf(ferr), ferr.Error()
		e.log.Debug("fetch failed", "url", u, "cause", rec.Err, "err", ferr)
	case perr != nil:
		rec.Err, v.errText = "parse", perr.Error()
	default:
		v.Page = p
		e.judgeForms(v)
		e.probeForms(ctx, v, resp.Body, bu)
		fillRecord(&rec, p, v.Forms)
	}
	rec.Seq = e.seq.Add(1)
	err = e.record(&rec, v, pre, extra)
	e.claimed.Delete(hash64(u))
	e.probing.Add(-v.probeQueries) // counted by the batch, or lost with it
	if err != nil {
		var se *sinkError
		if errors.As(err, &se) {
			// the page is neither published nor recorded: a shared
			// budget would otherwise count it for good
			e.unreserve()
		}
		return nil, err
	}
	return v, nil
}

// lookup returns the recorded visit of u (nil: none, or a failure to
// fetch again: retried, its refetches so far).
func (e *Engine) lookup(u string) (v *visited, retried bool, refetches int, err error) {
	rec, ok, err := e.replay(u)
	if err != nil || !ok {
		return nil, false, 0, err
	}
	// a page an earlier run failed to fetch is fetched again, a few
	// runs at most (MaxFailedRuns)
	if failedRecord(rec) {
		if retried, err = e.retryable(u); err != nil {
			return nil, false, 0, err
		}
		refetches = rec.Refetches + 1
	}
	if retried {
		return nil, true, refetches, nil
	}
	e.stats.replayed.Add(1)
	return recordToVisited(rec), false, refetches, nil
}

// claim makes u this worker's to fetch, within the scope and the budget;
// otherwise it returns what the visit is instead (a refusal, a duplicate,
// the record another worker made meanwhile) or the error. recorded is the
// engine's count of recorded pages before the caller's lookup.
func (e *Engine) claim(u, parent string, depth int, recorded int64, retried bool) (*visited, error) {
	site := canon.Site(u)
	if ok, err := e.inScope(u, parent, depth); err != nil || !ok {
		// refused: recorded as a failure, counts for no stop criterion
		return &visited{URL: u, Site: site, Depth: depth, Replayed: true, Dup: true}, err
	}
	// two workers can reach one URL at once (in-site and reverse search,
	// redirects): only the first fetches it
	if _, dup := e.claimed.LoadOrStore(hash64(u), struct{}{}); dup {
		e.releaseHost(canon.Host(u))
		return &visited{URL: u, Site: site, Depth: depth, Replayed: true, Dup: true}, nil
	}
	// a claim lasts until the page is recorded (so the claims do not grow
	// with the crawl): a worker that looked before that and claims after
	// finds the record now. The record is committed and counted before its
	// claim goes, so when no page was recorded since the first lookup there
	// is nothing new to find (one store read less per page).
	if e.recorded.Load() != recorded {
		if rec, ok, err := e.replay(u); err != nil || (ok && !(retried && failedRecord(rec))) {
			e.claimed.Delete(hash64(u))
			e.releaseHost(canon.Host(u))
			if err != nil {
				return nil, err
			}
			e.stats.replayed.Add(1)
			return recordToVisited(rec), nil
		}
	}
	if !e.reserve() {
		e.claimed.Delete(hash64(u))
		e.releaseHost(canon.Host(u))
		return nil, ErrBudget
	}
	return nil, nil
}

// fetchPage fetches u and parses it (bu: the URL its links resolve
// against), paused while the crawl is.
func (e *Engine) fetchPage(ctx context.Context, u string) (resp *fetch.Response, p *page.Page, bu *url.URL, perr, ferr error) {
	e.pause(ctx)
	defer e.resume(ctx)
	resp, ferr = e.deps.Fetcher.Fetch(ctx, u)
	if ferr == nil {
		base := resp.URL
		if base == "" {
			base = u
		}
		bu, _ = url.Parse(base)
		p, perr = page.Parse(resp.Body, "text/html; charset=utf-8", bu)
	}
	return resp, p, bu, perr, ferr
}

// judgeForms runs HIFI on every form of the page. A searchable form already
// recorded on another page of the site (a search box repeated on every result
// page) is kept as a duplicate: it is not a new entry point.
func (e *Engine) judgeForms(v *visited) {
	host := canon.Host(v.URL)
	ec, withEvidence := e.deps.Forms.(evidenceClassifier)
	sc, stepped := e.deps.Forms.(steppedClassifier)
	ev := form.Evidence{PageHost: host, PageTitle: v.Page.Title, PageText: v.Page.Text}
	if p, ok := e.siteP.Load(v.Site); ok {
		ev.SiteP, ev.SiteKnown = p.(float64), true
	}
	if n := len(v.Page.Forms); n > 0 {
		v.Forms, v.formDecisions = make([]formRecord, 0, n), make([]form.Decision, 0, n)
	}
	for i := range v.Page.Forms {
		f := &v.Page.Forms[i]
		var d form.Decision
		var sig uint64
		dup := false
		switch {
		case stepped:
			// a searchable form recorded already needs no domain: it is
			// kept as a duplicate whatever its domain (one DSFC run less
			// for a search box on every page of a site)
			d = sc.SearchStep(f, host)
			if d.Searchable {
				sig = searchSignature(v.Site, f)
				if _, dup = e.formSigs.Load(sig); !dup {
					sc.DomainStep(f, ev, &d)
				}
			}
		case withEvidence:
			d = ec.ClassifyIn(f, ev)
		default:
			d = e.deps.Forms.Classify(f, host)
		}
		fr := formRecord{Index: f.Index, Kind: d.Kind, Searchable: d.Searchable, Relevant: d.Relevant && d.Searchable, P: d.PSearchable}
		if fr.Searchable && !dup {
			if sig == 0 {
				sig = searchSignature(v.Site, f)
			}
			_, dup = e.formSigs.LoadOrStore(sig, struct{}{})
		}
		if dup {
			fr.Searchable, fr.Relevant, fr.Dup = false, false, true
		}
		v.Forms = append(v.Forms, fr)
		v.formDecisions = append(v.formDecisions, d)
	}
}

// searchSignature is the formSignature of a form of site.
func searchSignature(site string, f *page.Form) uint64 {
	names := make([]string, 0, len(f.Fields))
	for _, fl := range f.Fields {
		names = append(names, fl.Name)
	}
	return formSignature(site, f.Action, f.Method, names)
}

// formSignature identifies a form interface: the same action, method and
// controls on one site are one form wherever the page shows it.
func formSignature(site, action, method string, names []string) uint64 {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return hash64(site + "\x00" + action + "\x00" + method + "\x00" + strings.Join(sorted, "\x00"))
}

// restoreFormSignatures rebuilds the signatures of the recorded forms.
func (e *Engine) restoreFormSignatures() error {
	return e.db.ScanForms(func(f store.Form) error {
		var fields []page.Field
		if len(f.Fields) > 0 {
			if err := json.Unmarshal(f.Fields, &fields); err != nil {
				return fmt.Errorf("form %s (%s): fields: %w", f.ID, f.PageURL, err)
			}
		}
		names := make([]string, 0, len(fields))
		for _, fl := range fields {
			names = append(names, fl.Name)
		}
		e.formSigs.Store(formSignature(f.Site, f.Action, f.Method, names), struct{}{})
		return nil
	})
}

func fillRecord(rec *pageRecord, p *page.Page, forms []formRecord) {
	rec.Title = p.Title
	rec.Text = p.Text
	if len(rec.Text) > maxStoredText {
		rec.Text = rec.Text[:maxStoredText]
	}
	rec.Links = make([]linkRecord, 0, len(p.Links))
	for _, l := range p.Links {
		if l.NoFollow {
			continue
		}
		rec.Links = append(rec.Links, linkRecord{U: l.URL, A: l.Anchor, B: l.Before, F: l.After})
	}
	rec.Forms = forms
}

// record writes the page, its forms, its URL state and the counters in one
// batch, synced when it carries forms.
func (e *Engine) record(rec *pageRecord, v *visited, pre preStager, extra stager) error {
	b := e.db.NewBatch()
	defer b.Close()
	if pre != nil {
		if err := pre(b); err != nil {
			return fmt.Errorf("crawl: recording %s: %w", rec.URL, err)
		}
	}
	now := time.Now()
	if err := stagePage(b, rec, v.Page != nil, now); err != nil {
		return err
	}
	fd, err := e.stageFailure(b, rec, v, now)
	if err != nil {
		return fmt.Errorf("crawl: recording %s: %w", rec.URL, err)
	}
	if e.prof.Scope.MaxPagesPerHost > 0 {
		if err := b.AddCounter(hostCounter(canon.Host(rec.URL)), 1); err != nil {
			return err
		}
	}
	var t tally
	t.add(cPages, 1)
	if v.Page == nil {
		t.add(cFailed, 1)
	}
	if v.retried {
		t.add(cFailed, -1) // the earlier failure is replaced by this fetch
	}
	t.add(cForms, int64(len(v.Forms)))
	recorded, err := stageForms(b, rec, v, now, &t)
	if err != nil {
		return err
	}
	t.add(cProbes, v.probeQueries)
	if extra != nil {
		if err := extra(b, v, &t); err != nil {
			return err
		}
	}
	if e.deps.Sink != nil {
		if err := e.sinkPage(rec, recorded, v.example); err != nil {
			return &sinkError{url: rec.URL, err: err}
		}
	}
	if err := e.commit(b, &t, len(recorded) > 0 || fd.now != nil); err != nil {
		return fmt.Errorf("crawl: recording %s: %w", rec.URL, err)
	}
	e.recorded.Add(1)
	e.applyFailures(fd)
	return nil
}

// stagePage stages the page record and the state of its URL and of the URL
// it redirected to (fetched: a page was read, else the fetch failed).
func stagePage(b *store.Batch, rec *pageRecord, fetched bool, now time.Time) error {
	state := store.StateFetched
	if !fetched {
		state = store.StateFailed
	}
	if err := b.SetURL(store.URLState{URL: rec.URL, Site: rec.Site, State: state, Depth: rec.Depth, Fetched: now, Status: rec.Status, Err: rec.Err}); err != nil {
		return err
	}
	if rec.Final != "" && rec.Final != rec.URL {
		if err := b.SetURL(store.URLState{URL: rec.Final, Site: canon.Site(rec.Final), State: state, Depth: rec.Depth, Fetched: now, Status: rec.Status}); err != nil {
			return err
		}
	}
	bp, _ := recordBufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	text, err := rec.encode((*bp)[:0])
	if err != nil {
		return fmt.Errorf("crawl: recording %s: %w", rec.URL, err)
	}
	err = b.PutJSONText(store.TagPages, []byte(rec.URL), text) // copies text
	if cap(text) <= maxPooledRecord {
		*bp = text[:0]
		recordBufs.Put(bp)
	}
	return err
}

// stageForms stages the page's searchable forms, counts them into t and
// returns them.
func stageForms(b *store.Batch, rec *pageRecord, v *visited, now time.Time, t *tally) ([]store.Form, error) {
	nRel := 0
	var recorded []store.Form
	for i, f := range v.Forms {
		if !f.Searchable {
			continue
		}
		d := v.formDecisions[i]
		pf := v.Page.Forms[i]
		fields, err := json.Marshal(pf.Fields)
		if err != nil {
			return nil, fmt.Errorf("crawl: recording %s: form %d: %w", rec.URL, pf.Index, err)
		}
		sf := store.Form{
			Site: rec.Site, PageURL: rec.URL, Depth: rec.Depth, Index: pf.Index,
			Kind: d.Kind, Searchable: d.PSearchable, DomainScore: d.PDomain, Relevant: f.Relevant,
			Action: pf.Action, Method: pf.Method, Fields: fields, FoundAt: now, PagesFetched: int(rec.Seq),
			Reasons: d.Reasons,
		}
		if v.probes != nil && v.probes[i] != nil {
			sf.Probe = v.probes[i]
			sf.Reasons = append(sf.Reasons, "probe: "+v.probes[i].Decision)
			t.add(cProbed, 1)
		}
		if err := b.SetForm(sf); err != nil {
			return nil, err
		}
		recorded = append(recorded, sf)
		if f.Relevant {
			nRel++
		}
	}
	t.add(cSearchable, int64(len(recorded)))
	t.add(cRelevant, int64(nRel))
	return recorded, nil
}

// sinkError is the error of a page Deps.Sink did not take.
type sinkError struct {
	url string
	err error
}

func (e *sinkError) Error() string { return fmt.Sprintf("crawl: publishing %s: %v", e.url, e.err) }
func (e *sinkError) Unwrap() error { return e.err }

// recordBufs recycles the buffers page records are encoded into (grown by
// appends for every page).
var recordBufs sync.Pool

// maxPooledRecord bounds the buffers kept in recordBufs (a page with a
// huge text is not worth keeping one for).
const maxPooledRecord = 256 << 10

// replay returns the stored record of a page fetched by an earlier run.
func (e *Engine) replay(u string) (pageRecord, bool, error) {
	var rec pageRecord
	// A page record is written in the batch that marks its URL fetched
	// (record, stageImported), and a URL keeps its fetch time when it is
	// queued again: a URL without one has no record. Its state is mostly in
	// the store's cache of recent states, where the record lookup it saves
	// was a Pebble read (a miss, searched on every level) per page.
	st, ok, err := e.db.CachedURL(u)
	if err != nil {
		return rec, false, fmt.Errorf("crawl: reading page record %s: %w", u, err)
	}
	if !ok || st.Fetched.IsZero() {
		return rec, false, nil
	}
	ok, err = e.db.GetJSON(store.TagPages, []byte(u), &rec)
	if err != nil {
		return rec, false, fmt.Errorf("crawl: reading page record %s: %w", u, err)
	}
	return rec, ok, nil
}

// failedRecord reports whether rec is of a page whose fetch or parse failed.
func failedRecord(rec pageRecord) bool {
	return rec.Err != "" && rec.Title == "" && len(rec.Links) == 0
}

// recordToVisited rebuilds what the strategies need from a stored record.
func recordToVisited(rec pageRecord) *visited {
	v := &visited{URL: rec.URL, Site: rec.Site, Depth: rec.Depth, Forms: rec.Forms, Replayed: true}
	if failedRecord(rec) {
		return v
	}
	p := &page.Page{URL: rec.URL, Title: rec.Title, Text: rec.Text}
	for _, l := range rec.Links {
		p.Links = append(p.Links, page.Link{URL: l.U, Anchor: l.A, Before: l.B, After: l.F})
	}
	v.Page = p
	return v
}
