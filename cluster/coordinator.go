package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/rank"
)

// CoordinatorHooks are the cluster's collaborators of a coordinator's
// engine (crawl.Deps), and the number of live workers for its status.
type CoordinatorHooks struct {
	Budget     crawl.Budget
	Sink       crawl.PageSink
	Dispatcher crawl.Dispatcher
	Workers    func() int
	// Probes is the crawl's probe budget; set its limit from the profile.
	Probes *ProbeBudget
}

// OpenCoordinator builds the coordinator's engine with the hooks and
// returns it with the function that closes it.
type OpenCoordinator func(ctx context.Context, h CoordinatorHooks) (*crawl.Engine, func() error, error)

// CoordinatorOptions configure the coordinator of a crawl.
type CoordinatorOptions struct {
	Spec   Spec
	Open   OpenCoordinator
	Logger *slog.Logger
}

// leaseTTL is how long a coordinator's lease on a crawl lasts unrenewed.
const leaseTTL = 15 * time.Second

// Lease is a coordinator's claim on a crawl (lease.<crawl> in BucketState).
type Lease struct {
	Owner string    `json:"owner"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Until time.Time `json:"until"`
}

// ErrLeased is the error of a crawl another live coordinator runs.
var ErrLeased = errors.New("cluster: the crawl has a live coordinator")

// Coordinate registers the crawl of opt.Spec and runs its coordinator: the
// engine that keeps the site frontier, reverse search, adaptive learning,
// the counters and the page budget, dispatches sites to the work queue and
// applies the workers' results (pages, forms, site outcomes) as they come.
// Its crawl directory holds the whole crawl as a single-machine crawl
// would; running it again resumes. Only one coordinator runs a crawl at a
// time (a lease in BucketState); its engine's Run result is returned.
func (c *Conn) Coordinate(ctx context.Context, opt CoordinatorOptions) (crawl.Snapshot, error) {
	spec := opt.Spec
	if err := CheckName(spec.Name); err != nil {
		return crawl.Snapshot{}, err
	}
	log := opt.Logger
	if log == nil {
		log = c.log
	}
	name := spec.Name
	if err := c.acquireLease(ctx, name, log); err != nil {
		return crawl.Snapshot{}, err
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	leaseCtx, stopLease := context.WithCancel(runCtx)
	leaseDone := make(chan struct{})
	go func() {
		defer close(leaseDone)
		c.keepLease(leaseCtx, name, cancel)
	}()
	defer func() {
		stopLease()
		<-leaseDone
		c.releaseLease(name)
	}()
	var bg sync.WaitGroup

	spec.State = StateRunning
	if err := c.PutSpec(ctx, spec); err != nil {
		return crawl.Snapshot{}, err
	}
	budget := newPageBudget(runCtx, c, name, spec.Pages)
	budget.single = true
	var workers atomic.Int64
	hooks := CoordinatorHooks{Budget: budget, Sink: &pageSink{c: c, ctx: runCtx, crawl: name, log: log, budget: budget, coordinator: true},
		Dispatcher: &dispatcher{c: c, crawl: name}, Workers: func() int { return int(workers.Load()) }, Probes: newProbeBudget(runCtx, c, name)}
	e, closeEngine, err := opt.Open(ctx, hooks)
	if err != nil {
		return crawl.Snapshot{}, err
	}
	defer func() {
		if err := closeEngine(); err != nil {
			log.Warn("closing the coordinator's engine", "err", err)
		}
	}()
	bgCtx, stopBG := context.WithCancel(runCtx)
	defer stopBG()
	bg.Add(4)
	go func() { defer bg.Done(); budget.watch(bgCtx) }()
	go func() { defer bg.Done(); c.reclaimPages(bgCtx, budget, log) }()
	go func() {
		defer bg.Done()
		c.publishStatus(bgCtx, name, e, &workers, budget)
	}()
	go func() {
		defer bg.Done()
		select {
		case <-e.Ready():
		case <-bgCtx.Done():
			return
		}
		if err := c.afterRestore(bgCtx, name, e, hooks.Probes); err != nil && bgCtx.Err() == nil {
			cancel(err)
			return
		}
		if err := c.consumeResults(bgCtx, name, e, budget, log); err != nil && bgCtx.Err() == nil {
			cancel(err)
		}
	}()
	sn, runErr := e.Run(runCtx)
	if cause := context.Cause(runCtx); runErr != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		runErr = cause
	}
	stopBG()
	bg.Wait()
	// results applied between the end of Run and stopBG (a page a worker
	// published just before its site's outcome) are in the counts
	sn = e.Stats().Snapshot()
	state := StateDone
	if runErr != nil {
		state = StateStopped
	}
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer fcancel()
	if err := c.setState(fctx, name, state); err != nil {
		log.Warn("recording the crawl's state", "err", err)
	}
	if err := c.putJSON(fctx, c.state, "stats."+name, sn); err != nil {
		log.Warn("recording the crawl's counters", "err", err)
	}
	if err := budget.giveBack(fctx); err != nil {
		log.Warn("leaving the page budget", "err", err)
	}
	return sn, runErr
}

// afterRestore brings the cluster's state in line with a restored
// coordinator: the page and probe counters are at least what it holds, and the
// workers get its latest learnt link space.
func (c *Conn) afterRestore(ctx context.Context, name string, e *crawl.Engine, probes *ProbeBudget) error {
	sn := e.Stats().Snapshot()
	if err := probes.atLeast(ctx, sn.ProbeQueries); err != nil {
		return fmt.Errorf("cluster: probe budget of %s: %w", name, err)
	}
	pages := sn.Pages
	_, err := updateJSON(ctx, c, c.budgets, "pages."+name, func(pc *pageCounter) (bool, error) {
		if pc.Used >= pages {
			return false, nil
		}
		pc.Used = pages
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("cluster: page budget of %s: %w", name, err)
	}
	it, ok, err := e.LearningRound(rank.SpaceFSL)
	if err != nil || !ok {
		return err
	}
	return c.putJSON(ctx, c.state, "fsl."+name, it)
}

// coordConsumer names the durable consumer through which the coordinator
// of crawl name applies its results.
func coordConsumer(name string) string { return "coord_" + name }

// consumeResults applies the workers' pages and site outcomes to the
// coordinator's engine in stream order, publishes the forms it records and
// what it learns, and acknowledges each message once applied: a message is
// applied at least once, and applying one twice changes nothing.
func (c *Conn) consumeResults(ctx context.Context, name string, e *crawl.Engine, budget *pageBudget, log *slog.Logger) error {
	var cons jetstream.Consumer
	err := c.do(ctx, func(ctx context.Context) error {
		var err error
		cons, err = c.js.CreateOrUpdateConsumer(ctx, StreamResults, jetstream.ConsumerConfig{Durable: coordConsumer(name),
			Description: "dwcrawl coordinator of " + name, FilterSubject: "dwcrawl.*." + name + ".>",
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: 10 * time.Second, MaxDeliver: -1, MaxAckPending: 4096,
			DeliverPolicy: jetstream.DeliverAllPolicy})
		return err
	})
	if err != nil {
		return fmt.Errorf("cluster: the results consumer of %s: %w", name, err)
	}
	for ctx.Err() == nil {
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			log.Debug("fetching results", "err", err)
			sleep(ctx, 250*time.Millisecond)
			continue
		}
		for msg := range batch.Messages() {
			if err := c.apply(ctx, name, e, budget, msg, log); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			msg.Ack()
		}
		if err := batch.Error(); err != nil && ctx.Err() == nil {
			log.Debug("fetching results", "err", err)
		}
	}
	return nil
}

// apply applies one result message.
func (c *Conn) apply(ctx context.Context, name string, e *crawl.Engine, budget *pageBudget, msg jetstream.Msg, log *slog.Logger) error {
	kind, _, _ := subjectCrawl(msg.Subject())
	switch kind {
	case "page":
		var p crawl.PageResult
		if err := json.Unmarshal(msg.Data(), &p); err != nil {
			log.Warn("dropping a bad page message", "subject", msg.Subject(), "err", err)
			return nil
		}
		if msg.Headers().Get(fromHeader) == fromCoordinator {
			// recorded by the coordinator itself (reverse search), maybe not
			// committed yet: its forms are those it is committing
			return c.publishImported(ctx, name, crawl.Imported{Forms: p.Forms}, log)
		}
		im, err := e.ImportPage(ctx, p)
		if err != nil {
			return err
		}
		return c.publishImported(ctx, name, im, log)
	case "done":
		var o crawl.SiteOutcome
		if err := json.Unmarshal(msg.Data(), &o); err != nil {
			log.Warn("dropping a bad outcome message", "subject", msg.Subject(), "err", err)
			return nil
		}
		if o.Unexplored {
			// the budget is spent: stop dispatching now
			budget.refresh(ctx)
		}
		if !o.Unexplored && o.Pages > 0 {
			// a page message delivered before the outcome may come back
			// after it (a delivery lost while the server restarted): the
			// site's pages are imported first, read from the stream
			if err := c.importSite(ctx, name, e, o.Site, log); err != nil {
				return err
			}
		}
		a, err := e.ApplyOutcome(ctx, o)
		if err != nil {
			return err
		}
		if a.Homepage != "" {
			_, err := updateJSON(ctx, c, c.state, "homepages."+name, func(pages *[]string) (bool, error) {
				for _, p := range *pages {
					if p == a.Homepage {
						return false, nil
					}
				}
				*pages = append(*pages, a.Homepage)
				return true, nil
			})
			if err != nil {
				return fmt.Errorf("cluster: sharing a learnt homepage: %w", err)
			}
		}
	default:
		log.Warn("dropping an unknown result message", "subject", msg.Subject())
	}
	return nil
}

// publishImported publishes the forms of an imported page and the
// learning round it completed. A form published twice (a page delivered
// twice) has the same message id: the stream keeps one within its
// duplicate window, and Forms keeps one per id after it.
func (c *Conn) publishImported(ctx context.Context, name string, im crawl.Imported, log *slog.Logger) error {
	for _, f := range im.Forms {
		if err := c.publishJSON(ctx, formSubject(name, f.ID), name+"/form/"+f.ID, f); err != nil {
			return fmt.Errorf("cluster: publishing form %s: %w", f.ID, err)
		}
	}
	if im.Round != nil {
		if err := c.putJSON(ctx, c.state, "fsl."+name, im.Round); err != nil {
			return err
		}
		log.Info("learning round", "space", im.Round.Space, "round", im.Round.Round, "examples", im.Round.Examples)
	}
	return nil
}

// importSite imports the pages published for site that the coordinator
// has not recorded yet.
func (c *Conn) importSite(ctx context.Context, name string, e *crawl.Engine, site string, log *slog.Logger) error {
	pages, err := c.sitePages(ctx, name, site)
	if err != nil {
		return fmt.Errorf("cluster: reading the pages of %s: %w", site, err)
	}
	for _, p := range pages {
		im, err := e.ImportPage(ctx, p)
		if err != nil {
			return err
		}
		if !im.Recorded {
			continue
		}
		log.Debug("page imported before its site's outcome", "url", p.URL)
		if err := c.publishImported(ctx, name, im, log); err != nil {
			return err
		}
	}
	return nil
}

// reclaimPages gives the page budget back the pages of dead engines (see
// pageBudget) until ctx ends.
func (c *Conn) reclaimPages(ctx context.Context, budget *pageBudget, log *slog.Logger) {
	t := time.NewTicker(holderRenew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := budget.reclaim(ctx)
		if err != nil && ctx.Err() == nil {
			log.Debug("reclaiming the pages of dead engines", "err", err)
		}
		if n > 0 {
			budget.refresh(ctx)
		}
	}
}

// publishStatus keeps stats.<crawl>, the live worker count and the view of
// the page budget current.
func (c *Conn) publishStatus(ctx context.Context, name string, e *crawl.Engine, workers *atomic.Int64, budget *pageBudget) {
	// the counters are read once Run has restored them and started its
	// clock (they are written unguarded before: a data race, and a resumed
	// crawl's counters read as zero)
	select {
	case <-e.Ready():
	case <-ctx.Done():
		return
	}
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		budget.refresh(ctx)
		if ws, err := c.LiveWorkers(ctx); err == nil {
			workers.Store(int64(len(ws)))
		}
		if b, err := json.Marshal(e.Stats().Snapshot()); err == nil {
			actx, cancel := context.WithTimeout(ctx, attemptTimeout)
			c.state.Put(actx, "stats."+name, b)
			cancel()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// acquireLease takes the crawl's lease, waiting for the lease of a
// coordinator that stopped renewing it to expire.
func (c *Conn) acquireLease(ctx context.Context, name string, log *slog.Logger) error {
	host, _ := os.Hostname()
	deadline := time.Now().Add(2 * leaseTTL)
	for {
		var held Lease
		_, err := updateJSON(ctx, c, c.state, "lease."+name, func(l *Lease) (bool, error) {
			if l.Owner != "" && l.Owner != c.id && time.Now().Before(l.Until) {
				held = *l
				return false, nil
			}
			held = Lease{}
			*l = Lease{Owner: c.id, Host: host, PID: os.Getpid(), Until: time.Now().Add(leaseTTL).UTC()}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("cluster: the lease of %s: %w", name, err)
		}
		if held.Owner == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s is coordinated by %s (pid %d on %s) until %s", ErrLeased, name, held.Owner, held.PID, held.Host, held.Until.Local().Format(time.TimeOnly))
		}
		log.Warn("waiting for the lease of the crawl's last coordinator to expire", "crawl", name, "owner", held.Owner, "until", held.Until)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(held.Until) + 100*time.Millisecond):
		}
	}
}

// keepLease renews the lease until ctx ends, and cancels the run when
// another coordinator took it.
func (c *Conn) keepLease(ctx context.Context, name string, cancel context.CancelCauseFunc) {
	t := time.NewTicker(leaseTTL / 5)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, err := updateJSON(ctx, c, c.state, "lease."+name, func(l *Lease) (bool, error) {
			if l.Owner != c.id && time.Now().Before(l.Until) {
				return false, fmt.Errorf("%w: %s took over %s", ErrLeased, l.Owner, name)
			}
			l.Owner, l.Until = c.id, time.Now().Add(leaseTTL).UTC()
			return true, nil
		})
		if errors.Is(err, ErrLeased) {
			cancel(err)
			return
		}
	}
}

// releaseLease gives the lease up.
func (c *Conn) releaseLease(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	updateJSON(ctx, c, c.state, "lease."+name, func(l *Lease) (bool, error) {
		if l.Owner != c.id {
			return false, nil
		}
		l.Until = time.Now().UTC()
		return true, nil
	})
}

// dispatcher queues a coordinator's sites in the work queue.
type dispatcher struct {
	c     *Conn
	crawl string
}

// Dispatch publishes the site task. A site that may have been dispatched
// before (a coordinator's restart) is left alone while its earlier task is
// still in the queue.
func (d *dispatcher) Dispatch(ctx context.Context, t crawl.SiteTask) error {
	subj := siteSubject(d.crawl, t.Site)
	if t.Replay {
		queued := false
		err := d.c.do(ctx, func(ctx context.Context) error {
			_, err := d.c.sites.GetLastMsgForSubject(ctx, subj)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				queued = false
				return nil
			}
			queued = err == nil
			return err
		})
		if err != nil {
			return err
		}
		if queued {
			return nil
		}
	}
	return d.c.publishJSON(ctx, subj, d.crawl+"/site/"+hash16(t.Site)+"/"+nuid.Next(), t)
}

// PagesReserved returns the pages the crawl's engines have reserved so far.
func (c *Conn) PagesReserved(ctx context.Context, name string) (int64, error) {
	var pc pageCounter
	_, _, err := c.getJSON(ctx, c.budgets, "pages."+name, &pc)
	return pc.Used, err
}
