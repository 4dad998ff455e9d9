package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// Hooks are the cluster's collaborators of an explorer's engine: the
// crawl's shared page budget and the sink its pages go to.
type Hooks struct {
	Budget crawl.Budget
	Sink   crawl.PageSink
	// Probes is the crawl's probe budget; set its limit from the profile.
	Probes *ProbeBudget
}

// OpenExplorer builds a worker's engine for the crawl spec describes, with
// its state in dir, and returns it with the function that closes it.
type OpenExplorer func(ctx context.Context, spec Spec, dir string, h Hooks) (*crawl.SiteExplorer, func() error, error)

// WorkerOptions configure a worker.
type WorkerOptions struct {
	// Dir holds one crawl directory per crawl the worker explores for
	// (Dir/<crawl>): the in-site state of its sites.
	Dir string
	// Sites is the number of sites explored at once (default 4).
	Sites int
	// AckWait is how long a site's message may go without a heartbeat
	// before the site is given to another worker, when this worker creates
	// the shared consumer (default 30s); the worker heartbeats three times
	// per AckWait while it explores.
	AckWait time.Duration
	Open    OpenExplorer
	Logger  *slog.Logger
}

// maxAttempts is how many deliveries a site gets before a failure to
// explore it is recorded as its outcome.
const maxAttempts = 5

// WorkerStatus is a worker's heartbeat entry in BucketWorkers.
type WorkerStatus struct {
	ID       string    `json:"id"`
	Host     string    `json:"host"`
	PID      int       `json:"pid"`
	Started  time.Time `json:"started"`
	Active   int64     `json:"active"`   // sites being explored
	Explored int64     `json:"explored"` // sites explored since it started
	Ready    []string  `json:"ready"`    // crawls it has an engine for
}

type worker struct {
	c       *Conn
	opt     WorkerOptions
	log     *slog.Logger
	ackWait time.Duration
	mu      sync.Mutex
	crawls  map[string]*crawlRun
	active  atomic.Int64
	done    atomic.Int64
	started time.Time
}

// crawlRun is a worker's engine for one crawl.
type crawlRun struct {
	name     string
	ready    chan struct{}
	err      error
	spec     atomic.Pointer[Spec]
	x        *crawl.SiteExplorer
	closeFn  func() error
	budget   *pageBudget
	cancel   context.CancelFunc
	inflight int // guarded by worker.mu
	applied  int // homepages applied, guarded by hmu
	hmu      sync.Mutex
}

// Work explores sites for every crawl of the cluster until ctx ends: it
// pulls sites from the work queue (opening an engine per crawl on first
// use), explores each with the crawl's in-site code, publishes every page
// as it is recorded and the site's outcome when it is done, and only then
// acknowledges the site. A site whose worker dies is redelivered after the
// ack wait; the worker that takes it imports the pages already published
// and replays them.
func (c *Conn) Work(ctx context.Context, opt WorkerOptions) error {
	if opt.Open == nil {
		return errors.New("cluster: worker without an engine builder")
	}
	if opt.Sites <= 0 {
		opt.Sites = 4
	}
	if opt.AckWait <= 0 {
		opt.AckWait = 30 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = c.log
	}
	if opt.Dir == "" {
		opt.Dir = "dwcrawl-worker"
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return fmt.Errorf("cluster: worker directory: %w", err)
	}
	w := &worker{c: c, opt: opt, log: opt.Logger, crawls: map[string]*crawlRun{}, started: time.Now().UTC()}
	var cons jetstream.Consumer
	err := c.do(ctx, func(ctx context.Context) error {
		var err error
		cons, err = c.js.Consumer(ctx, StreamSites, consumerWorkers)
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			cons, err = c.js.CreateConsumer(ctx, StreamSites, jetstream.ConsumerConfig{Durable: consumerWorkers,
				Description: "dwcrawl workers", AckPolicy: jetstream.AckExplicitPolicy, AckWait: opt.AckWait,
				MaxDeliver: -1, MaxAckPending: 100000, FilterSubject: "dwcrawl.site.>"})
			if errors.Is(err, jetstream.ErrConsumerExists) {
				cons, err = c.js.Consumer(ctx, StreamSites, consumerWorkers)
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("cluster: the workers' consumer: %w", err)
	}
	w.ackWait = cons.CachedInfo().Config.AckWait
	w.log.Info("worker started", "id", c.id, "sites", opt.Sites, "dir", opt.Dir, "ack_wait", w.ackWait)

	bg, stopBG := context.WithCancel(ctx)
	var bgWG sync.WaitGroup
	bgWG.Add(2)
	go func() { defer bgWG.Done(); w.heartbeat(bg) }()
	go func() { defer bgWG.Done(); w.watchCrawls(bg) }()

	var tasks sync.WaitGroup
	slots := make(chan struct{}, opt.Sites)
	for ctx.Err() == nil {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			<-slots
			if ctx.Err() == nil {
				w.log.Debug("fetching a site", "err", err)
				sleep(ctx, 250*time.Millisecond)
			}
			continue
		}
		got := false
		for msg := range batch.Messages() {
			got = true
			tasks.Add(1)
			go func() {
				defer tasks.Done()
				defer func() { <-slots }()
				w.handle(ctx, msg)
			}()
		}
		if !got {
			<-slots
		}
	}
	tasks.Wait()
	stopBG()
	bgWG.Wait()
	w.closeAll()
	w.c.do(context.Background(), func(ctx context.Context) error { return w.c.workersKV.Delete(ctx, w.c.id) })
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// handle explores the site of one work-queue message.
func (w *worker) handle(ctx context.Context, msg jetstream.Msg) {
	kind, name, ok := subjectCrawl(msg.Subject())
	meta, merr := msg.Metadata()
	if !ok || kind != "site" || merr != nil {
		w.log.Warn("dropping a message that is no site task", "subject", msg.Subject())
		msg.Term()
		return
	}
	var task crawl.SiteTask
	if err := json.Unmarshal(msg.Data(), &task); err != nil || task.Site == "" {
		w.log.Warn("dropping a bad site task", "subject", msg.Subject(), "err", err)
		msg.Term()
		return
	}
	hctx, stopHB := context.WithCancel(ctx)
	defer stopHB()
	go func() {
		t := time.NewTicker(max(w.ackWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-hctx.Done():
				return
			case <-t.C:
				msg.InProgress()
			}
		}
	}()
	cr, err := w.crawl(ctx, name)
	if errors.Is(err, errNoSpec) {
		w.log.Warn("dropping a site of an unknown crawl", "crawl", name, "site", task.Site)
		msg.TermWithReason("unknown crawl")
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("cannot open the crawl", "crawl", name, "err", err)
		}
		msg.NakWithDelay(10 * time.Second)
		return
	}
	defer w.release(cr)
	w.active.Add(1)
	defer w.active.Add(-1)
	if meta.NumDelivered > 1 || task.Replay {
		if err := w.importSite(ctx, cr, task.Site); err != nil && ctx.Err() == nil {
			w.log.Warn("importing the pages of a redelivered site", "crawl", name, "site", task.Site, "err", err)
		}
	}
	w.log.Debug("exploring", "crawl", name, "site", task.Site, "delivery", meta.NumDelivered)
	o, err := cr.x.Explore(ctx, task)
	if err != nil {
		if ctx.Err() != nil {
			msg.Nak() // another worker takes it now
			return
		}
		if meta.NumDelivered < maxAttempts {
			w.log.Warn("exploring failed; the site will be retried", "crawl", name, "site", task.Site, "delivery", meta.NumDelivered, "err", err)
			msg.NakWithDelay(5 * time.Second)
			return
		}
		w.log.Error("exploring failed for good", "crawl", name, "site", task.Site, "err", err)
		o = crawl.SiteOutcome{Site: task.Site, Status: store.SiteFailed, Err: err.Error()}
	}
	// the lease left goes back before the outcome: once the coordinator has
	// applied every outcome, the counter holds no idle lease
	if err := cr.budget.returnLease(ctx); err != nil && ctx.Err() == nil {
		w.log.Warn("giving back unused pages", "crawl", name, "err", err)
	}
	data, err := encodeOutcome(o, w.c.maxPayload())
	if err == nil {
		err = w.c.publish(ctx, doneSubject(name, task.Site), fmt.Sprintf("%s/done/%d", name, meta.Sequence.Stream), data)
	}
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("publishing a site's outcome", "crawl", name, "site", task.Site, "err", err)
		}
		msg.Nak()
		return
	}
	if err := w.c.do(ctx, func(ctx context.Context) error { return msg.DoubleAck(ctx) }); err != nil && ctx.Err() == nil {
		// the site comes back after the ack wait; its outcome counts once
		w.log.Warn("acknowledging a site", "crawl", name, "site", task.Site, "err", err)
	}
	w.done.Add(1)
}

// errNoSpec is the error of a crawl the cluster does not know.
var errNoSpec = errors.New("cluster: no such crawl")

// crawl returns the worker's engine for crawl name, opening it on first
// use; release it when done.
func (w *worker) crawl(ctx context.Context, name string) (*crawlRun, error) {
	w.mu.Lock()
	cr := w.crawls[name]
	if cr == nil {
		cr = &crawlRun{name: name, ready: make(chan struct{})}
		w.crawls[name] = cr
		w.mu.Unlock()
		cr.err = w.open(ctx, cr)
		close(cr.ready)
		if cr.err != nil {
			w.mu.Lock()
			delete(w.crawls, name)
			w.mu.Unlock()
			return nil, cr.err
		}
		w.log.Info("crawl opened", "crawl", name, "dir", filepath.Join(w.opt.Dir, name))
		w.mu.Lock()
	} else {
		w.mu.Unlock()
		select {
		case <-cr.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if cr.err != nil {
			return nil, cr.err
		}
		w.mu.Lock()
		if w.crawls[name] != cr { // closed meanwhile
			w.mu.Unlock()
			return w.crawl(ctx, name)
		}
	}
	cr.inflight++
	w.mu.Unlock()
	return cr, nil
}

// release ends a use of cr, closing a done crawl's engine when unused.
func (w *worker) release(cr *crawlRun) {
	w.mu.Lock()
	cr.inflight--
	closeIt := cr.inflight == 0 && cr.spec.Load().State == StateDone && w.crawls[cr.name] == cr
	if closeIt {
		delete(w.crawls, cr.name)
	}
	w.mu.Unlock()
	if closeIt {
		w.shut(cr)
	}
}

// open builds the engine of cr and starts following what its coordinator
// learns, returning once the current state is applied.
func (w *worker) open(ctx context.Context, cr *crawlRun) error {
	spec, ok, err := w.c.GetSpec(ctx, cr.name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w %q", errNoSpec, cr.name)
	}
	cr.spec.Store(&spec)
	// the engine lives until the worker stops or the crawl is done, not as
	// long as the task that opened it
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	cr.cancel = cancel
	cr.budget = newPageBudget(rctx, w.c, cr.name, spec.Pages)
	sink := &pageSink{c: w.c, ctx: rctx, crawl: cr.name, log: w.log, budget: cr.budget}
	x, closeFn, err := w.opt.Open(ctx, spec, filepath.Join(w.opt.Dir, cr.name), Hooks{Budget: cr.budget, Sink: sink, Probes: newProbeBudget(rctx, w.c, cr.name)})
	if err != nil {
		cancel()
		return err
	}
	cr.x, cr.closeFn = x, closeFn
	var inits sync.WaitGroup
	inits.Add(2)
	go watchKeyInit(rctx, w.c, w.c.state, "fsl."+cr.name, func(v []byte) {
		var it rank.Iteration
		if err := json.Unmarshal(v, &it); err != nil {
			w.log.Warn("bad FSL round", "crawl", cr.name, "err", err)
			return
		}
		x.SetLinkSpace(it)
		w.log.Debug("FSL round installed", "crawl", cr.name, "round", it.Round)
	}, inits.Done)
	go watchKeyInit(rctx, w.c, w.c.state, "homepages."+cr.name, func(v []byte) {
		var pages []string
		if err := json.Unmarshal(v, &pages); err != nil {
			w.log.Warn("bad learnt homepages", "crawl", cr.name, "err", err)
			return
		}
		cr.hmu.Lock()
		defer cr.hmu.Unlock()
		for ; cr.applied < len(pages); cr.applied++ {
			x.LearnHomepage(pages[cr.applied])
		}
	}, inits.Done)
	go cr.budget.watch(rctx)
	go watchKey(rctx, w.c, w.c.crawls, cr.name, func(v []byte) {
		var s Spec
		if json.Unmarshal(v, &s) == nil {
			cr.spec.Store(&s)
			cr.budget.setLimit(s.Pages)
		}
	})
	waited := make(chan struct{})
	go func() { inits.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		w.shut(cr)
		return ctx.Err()
	}
}

// shut closes a crawl's engine, giving its unused pages back.
func (w *worker) shut(cr *crawlRun) {
	// bounded: a worker stopping while the server is away must still stop
	// (the pages it keeps are pages the crawl does not fetch, never lost ones)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cr.budget.giveBack(ctx); err != nil {
		w.log.Warn("giving back unused pages", "crawl", cr.name, "err", err)
	}
	cr.cancel()
	if err := cr.closeFn(); err != nil {
		w.log.Warn("closing a crawl", "crawl", cr.name, "err", err)
	}
	w.log.Info("crawl closed", "crawl", cr.name)
}

func (w *worker) closeAll() {
	w.mu.Lock()
	var runs []*crawlRun
	for name, cr := range w.crawls {
		select {
		case <-cr.ready:
			if cr.err == nil {
				runs = append(runs, cr)
			}
		default:
		}
		delete(w.crawls, name)
	}
	w.mu.Unlock()
	for _, cr := range runs {
		w.shut(cr)
	}
}

// importSite gives the explorer the pages already published for site (by
// a worker that died while exploring it), so that exploring it again
// replays them instead of fetching them.
func (w *worker) importSite(ctx context.Context, cr *crawlRun, site string) error {
	pages, err := w.c.sitePages(ctx, cr.name, site)
	if err != nil {
		return err
	}
	w.log.Info("importing the pages of a redelivered site", "crawl", cr.name, "site", site, "pages", len(pages))
	return cr.x.Import(pages)
}

// sitePages reads the pages published for site.
func (c *Conn) sitePages(ctx context.Context, name, site string) ([]crawl.PageResult, error) {
	subj := pageSubject(name, site, "*") // the pages of every holder
	var pages []crawl.PageResult
	err := c.do(ctx, func(ctx context.Context) error {
		pages = nil
		return c.readSubject(ctx, c.results, subj, "page", 256, func(data []byte) error {
			var p crawl.PageResult
			if err := json.Unmarshal(data, &p); err != nil {
				return err
			}
			if p.Site == site {
				pages = append(pages, p)
			}
			return nil
		})
	})
	return pages, err
}

// heartbeat keeps the worker's entry in BucketWorkers alive.
func (w *worker) heartbeat(ctx context.Context) {
	host, _ := os.Hostname()
	for {
		st := WorkerStatus{ID: w.c.id, Host: host, PID: os.Getpid(), Started: w.started, Active: w.active.Load(), Explored: w.done.Load()}
		w.mu.Lock()
		for name, cr := range w.crawls {
			select {
			case <-cr.ready:
				if cr.err == nil {
					st.Ready = append(st.Ready, name)
				}
			default:
			}
		}
		w.mu.Unlock()
		sort.Strings(st.Ready)
		if b, err := json.Marshal(st); err == nil {
			actx, cancel := context.WithTimeout(ctx, attemptTimeout)
			if _, err := w.c.workersKV.Put(actx, w.c.id, b); err != nil && ctx.Err() == nil {
				w.log.Debug("worker heartbeat", "err", err)
			}
			cancel()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(workerTTL / 5):
		}
	}
}

// watchCrawls opens the engine of every running crawl as soon as it is
// registered, so that its first sites do not wait for it.
func (w *worker) watchCrawls(ctx context.Context) {
	for ctx.Err() == nil {
		wt, err := w.c.crawls.WatchAll(ctx)
		if err != nil {
			sleep(ctx, time.Second)
			continue
		}
		for e := range wt.Updates() {
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var s Spec
			if json.Unmarshal(e.Value(), &s) != nil || s.State != StateRunning {
				continue
			}
			go func() {
				cr, err := w.crawl(ctx, s.Name)
				if err != nil {
					if ctx.Err() == nil {
						w.log.Warn("cannot open the crawl", "crawl", s.Name, "err", err)
					}
					return
				}
				w.release(cr)
			}()
		}
		wt.Stop()
	}
}

// pageSink publishes an engine's pages to the results stream, where the
// coordinator imports them and explorers of a redelivered site read them.
type pageSink struct {
	c     *Conn
	ctx   context.Context
	crawl string
	log   *slog.Logger
	// budget is the engine's page budget: the page subjects end in its
	// holder id, and it learns which of its pages are published
	budget *pageBudget
	// coordinator: the pages are the coordinator's own (it records them
	// itself; its results consumer only publishes their forms)
	coordinator bool
}

// fromHeader marks the pages a coordinator publishes.
const (
	fromHeader      = "Dwcrawl-From"
	fromCoordinator = "coordinator"
)

func (s *pageSink) RecordPage(p crawl.PageResult) error {
	data, dropped, err := encodePage(p, s.c.maxPayload())
	if err != nil {
		return err
	}
	if dropped > 0 {
		s.log.Warn("page too large for the server: links left out of its record", "url", p.URL, "links", dropped)
	}
	m := &nats.Msg{Subject: pageSubject(s.crawl, p.Site, s.budget.holder), Data: data, Header: nats.Header{}}
	if s.coordinator {
		m.Header.Set(fromHeader, fromCoordinator)
	}
	ack, err := s.c.publishMsg(s.ctx, m, s.crawl+"/page/"+hash16(p.URL))
	if err != nil {
		return err
	}
	if ack.Duplicate && !s.own(ack.Sequence) {
		// another engine recorded the page first: the site was explored
		// twice at once (redelivered while its first explorer, cut off
		// from the server, went on). The crawl counts the page once, so
		// this fetch goes back to the budget.
		s.budget.Release()
		return nil
	}
	s.budget.Published()
	return nil
}

// own reports whether the results stream's message seq is a page of this
// engine (a publication retried after its acknowledgement was lost); when
// the message cannot be read, it is taken for one, counted as recorded.
func (s *pageSink) own(seq uint64) bool {
	var subj string
	err := s.c.do(s.ctx, func(ctx context.Context) error {
		m, err := s.c.results.GetMsg(ctx, seq)
		if err == nil {
			subj = m.Subject
		}
		return err
	})
	return err != nil || strings.HasSuffix(subj, "."+s.budget.holder)
}

// LiveWorkers returns the heartbeat entries of the live workers.
func (c *Conn) LiveWorkers(ctx context.Context) ([]WorkerStatus, error) {
	var out []WorkerStatus
	err := c.do(ctx, func(ctx context.Context) error {
		out = nil
		keys, err := c.workersKV.ListKeys(ctx)
		if err != nil {
			return err
		}
		for k := range keys.Keys() {
			e, err := c.workersKV.Get(ctx, k)
			if errors.Is(err, jetstream.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			var st WorkerStatus
			if json.Unmarshal(e.Value(), &st) == nil && time.Since(e.Created()) < workerTTL {
				out = append(out, st)
			}
		}
		return nil
	})
	return out, err
}
