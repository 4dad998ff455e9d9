package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/dwcrawl/dwcrawl/core/retry"
)

// The streams, consumers and key-value buckets of the cluster.
const (
	// StreamSites is the work queue of sites to explore, one message per
	// dispatched site: subject dwcrawl.site.<crawl>.<site hash>.
	StreamSites = "DWCRAWL_SITES"
	// StreamResults holds what explorers found: dwcrawl.page.<crawl>.<site
	// hash>.<holder> (one message per recorded page; holder is the id of
	// the recording engine's page budget) and dwcrawl.done.<crawl>.<site
	// hash> (one per explored site).
	StreamResults = "DWCRAWL_RESULTS"
	// StreamForms holds the forms each crawl's coordinator recorded:
	// dwcrawl.form.<crawl>.<form id>.
	StreamForms = "DWCRAWL_FORMS"

	// BucketCrawls maps a crawl name to its Spec.
	BucketCrawls = "dwcrawl_crawls"
	// BucketState holds what a coordinator shares with its explorers and
	// tools: lease.<crawl>, fsl.<crawl>, homepages.<crawl>, stats.<crawl>.
	BucketState = "dwcrawl_state"
	// BucketBudgets holds shared budgets: pages.<crawl> (pages reserved by a
	// crawl) and queries.<name> (a query budget of surfacing and enrichment).
	BucketBudgets = "dwcrawl_budgets"
	// BucketWorkers holds one heartbeat entry per live worker (they expire).
	BucketWorkers = "dwcrawl_workers"

	// consumerWorkers is the durable consumer all workers pull sites from.
	consumerWorkers = "workers"
)

// workerTTL is how long a worker's heartbeat entry lives.
const workerTTL = 15 * time.Second

// Options configure a connection.
type Options struct {
	// Name identifies the client to the server (default: dwcrawl-host-pid).
	Name   string
	Logger *slog.Logger
	// Patience bounds how long an operation is retried while the server is
	// unreachable (default 5 minutes).
	Patience time.Duration
	// Wait is how long Connect waits for a server that is not up yet,
	// retrying with backoff and logging every few seconds what it waits
	// for: 0 fails at once, a negative Wait waits until ctx ends (a worker
	// started together with its server).
	Wait time.Duration
}

// Conn is a connection to a NATS server with JetStream, and dwcrawl's
// streams and buckets (created on first use).
type Conn struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	url string
	log *slog.Logger
	bo  *retry.Backoff
	id  string
	// reconnected is when the client last reconnected (UnixNano, 0: never)
	reconnected *atomic.Int64
	// clock reads the time of the page budget's leases (tests advance a
	// fake one instead of sleeping)
	clock retry.Clock

	sites, results, forms             jetstream.Stream
	crawls, state, budgets, workersKV jetstream.KeyValue
}

// Connect connects to the NATS server(s) at url (comma-separated) and
// makes sure the streams and buckets exist. The client reconnects forever;
// operations retry while the server is away (Options.Patience).
func Connect(ctx context.Context, url string, opt Options) (*Conn, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	host, _ := os.Hostname()
	id := fmt.Sprintf("%s-%d", host, os.Getpid())
	if opt.Name == "" {
		opt.Name = "dwcrawl-" + id
	}
	if opt.Patience <= 0 {
		opt.Patience = 5 * time.Minute
	}
	log := opt.Logger
	reconnected := new(atomic.Int64)
	nc, err := dial(ctx, url, opt.Wait, log, nats.Name(opt.Name), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats: disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			reconnected.Store(time.Now().UnixNano())
			log.Info("nats: reconnected", "server", nc.ConnectedUrlRedacted(), "version", nc.ConnectedServerVersion())
			if err := CheckServerVersion(nc.ConnectedServerVersion()); err != nil {
				// one server of a cluster older than the others: what the
				// cluster asks of it fails, and is retried elsewhere
				log.Error("nats: reconnected to a server too old for dwcrawl", "server", nc.ConnectedUrlRedacted(), "err", err)
			}
		}))
	if err != nil {
		return nil, fmt.Errorf("cluster: connecting to %s: %w", redactURL(url), err)
	}
	if err := CheckServerVersion(nc.ConnectedServerVersion()); err != nil {
		srv := nc.ConnectedUrlRedacted()
		nc.Close()
		return nil, fmt.Errorf("cluster: %s: %w", srv, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: %s: %w", url, err)
	}
	c := &Conn{nc: nc, js: js, url: url, log: log, id: id, reconnected: reconnected, clock: retry.SystemClock{},
		bo: retry.New(retry.Policy{Retries: 1 << 30, Base: 100 * time.Millisecond, Max: 2 * time.Second, MaxElapsed: opt.Patience})}
	if err := c.setup(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: %s: %w", url, err)
	}
	return c, nil
}

// Close closes the connection, flushing what it sent.
func (c *Conn) Close() {
	c.nc.Flush()
	c.nc.Close()
}

// sinceReconnect is how long ago the client last reconnected (its whole
// life when it never did).
func (c *Conn) sinceReconnect() time.Duration {
	if t := c.reconnected.Load(); t != 0 {
		return c.clock.Now().Sub(time.Unix(0, t))
	}
	return time.Duration(1<<63 - 1)
}

// URL is the server URL the connection was made to.
func (c *Conn) URL() string { return c.url }

// replicas is the replication of the streams and buckets: 3 on a cluster
// of at least three servers, else 1.
func (c *Conn) replicas() int {
	if c.nc.ConnectedClusterName() != "" && len(c.nc.Servers()) >= 3 {
		return 3
	}
	return 1
}

func (c *Conn) setup(ctx context.Context) error {
	r := c.replicas()
	streams := []struct {
		s   *jetstream.Stream
		cfg jetstream.StreamConfig
	}{
		{&c.sites, jetstream.StreamConfig{Name: StreamSites, Description: "dwcrawl: sites to explore (work queue)",
			Subjects: []string{"dwcrawl.site.*.*"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
			Replicas: r, Duplicates: 10 * time.Minute}},
		{&c.results, jetstream.StreamConfig{Name: StreamResults, Description: "dwcrawl: pages and site outcomes from explorers",
			Subjects: []string{"dwcrawl.page.*.*.*", "dwcrawl.done.*.*"}, Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage,
			Replicas: r, Duplicates: 10 * time.Minute, Compression: jetstream.S2Compression}},
		{&c.forms, jetstream.StreamConfig{Name: StreamForms, Description: "dwcrawl: forms recorded by coordinators",
			Subjects: []string{"dwcrawl.form.*.*"}, Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage,
			Replicas: r, Duplicates: 10 * time.Minute}},
	}
	for _, s := range streams {
		err := c.do(ctx, func(ctx context.Context) error {
			st, err := c.js.Stream(ctx, s.cfg.Name)
			if err == nil && !slices.Equal(st.CachedInfo().Config.Subjects, s.cfg.Subjects) {
				// a stream made by an earlier version takes today's subjects
				cfg := st.CachedInfo().Config
				cfg.Subjects = s.cfg.Subjects
				st, err = c.js.UpdateStream(ctx, cfg)
			}
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				st, err = c.js.CreateStream(ctx, s.cfg)
				if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
					st, err = c.js.Stream(ctx, s.cfg.Name)
				}
			}
			*s.s = st
			return noJetStream(err)
		})
		if err != nil {
			return fmt.Errorf("stream %s: %w", s.cfg.Name, err)
		}
	}
	buckets := []struct {
		kv  *jetstream.KeyValue
		cfg jetstream.KeyValueConfig
	}{
		{&c.crawls, jetstream.KeyValueConfig{Bucket: BucketCrawls, Description: "dwcrawl: crawl specs", Storage: jetstream.FileStorage, Replicas: r}},
		{&c.state, jetstream.KeyValueConfig{Bucket: BucketState, Description: "dwcrawl: coordinator leases, learnt spaces and models, counters", Storage: jetstream.FileStorage, Replicas: r}},
		{&c.budgets, jetstream.KeyValueConfig{Bucket: BucketBudgets, Description: "dwcrawl: page and query budgets", Storage: jetstream.FileStorage, Replicas: r}},
		{&c.workersKV, jetstream.KeyValueConfig{Bucket: BucketWorkers, Description: "dwcrawl: live workers", Storage: jetstream.FileStorage, Replicas: r, TTL: workerTTL}},
	}
	for _, b := range buckets {
		err := c.do(ctx, func(ctx context.Context) error {
			kv, err := c.js.KeyValue(ctx, b.cfg.Bucket)
			if errors.Is(err, jetstream.ErrBucketNotFound) {
				kv, err = c.js.CreateKeyValue(ctx, b.cfg)
				if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
					kv, err = c.js.KeyValue(ctx, b.cfg.Bucket)
				}
			}
			*b.kv = kv
			return err
		})
		if err != nil {
			return fmt.Errorf("bucket %s: %w", b.cfg.Bucket, err)
		}
	}
	return nil
}

// noJetStream makes the error of a server without JetStream permanent:
// no wait cures it. (Nobody answers the JetStream API of a server without
// it; while the server restarts, the client is not connected and its
// requests fail otherwise.)
func noJetStream(err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) || errors.Is(err, nats.ErrNoResponders) {
		return retry.Permanent(fmt.Errorf("JetStream is not enabled on the server (start nats-server with -js, or jetstream {} in its config): %w", err))
	}
	return err
}

// attemptTimeout bounds one attempt of an operation.
const attemptTimeout = 10 * time.Second

// do runs op until it succeeds, fails for good (retry.Permanent) or the
// server stays away longer than the connection's patience.
func (c *Conn) do(ctx context.Context, op func(ctx context.Context) error) error {
	return c.bo.Do(ctx, func(ctx context.Context) error {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		defer cancel()
		err := op(actx)
		if err != nil && ctx.Err() == nil {
			c.log.Debug("nats: retrying", "err", err)
		}
		return err
	})
}

// publish publishes data on subj with message id id (the stream drops a
// second message with the same id within its duplicate window) and waits
// for the stream's acknowledgement, retrying while the server is away.
func (c *Conn) publish(ctx context.Context, subj, id string, data []byte) error {
	return c.do(ctx, func(ctx context.Context) error {
		_, err := c.js.Publish(ctx, subj, data, jetstream.WithMsgID(id))
		if errors.Is(err, nats.ErrMaxPayload) {
			return retry.Permanent(err)
		}
		return err
	})
}

// publishMsg is publish for a message with headers; it returns the
// stream's acknowledgement (Duplicate: a message with the same id was
// stored before, at Sequence).
func (c *Conn) publishMsg(ctx context.Context, m *nats.Msg, id string) (*jetstream.PubAck, error) {
	var ack *jetstream.PubAck
	err := c.do(ctx, func(ctx context.Context) error {
		var err error
		ack, err = c.js.PublishMsg(ctx, m, jetstream.WithMsgID(id))
		if errors.Is(err, nats.ErrMaxPayload) {
			return retry.Permanent(err)
		}
		return err
	})
	return ack, err
}

// publishJSON publishes v as JSON.
func (c *Conn) publishJSON(ctx context.Context, subj, id string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.publish(ctx, subj, id, b)
}

// maxPayload is the largest message the server takes.
func (c *Conn) maxPayload() int { return int(c.nc.MaxPayload()) }

// crawlName is what a crawl name may hold: it is a subject token and a key.
var crawlName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckName reports whether name can name a crawl (or a budget).
func CheckName(name string) error {
	if !crawlName.MatchString(name) {
		return fmt.Errorf("cluster: %q cannot name a crawl: use 1 to 64 letters, digits, '-' or '_'", name)
	}
	return nil
}

// hash16 is a 16-hex-digit hash of s: site and URL keys in subjects and
// message ids.
func hash16(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

func siteSubject(crawl, site string) string { return "dwcrawl.site." + crawl + "." + hash16(site) }

// pageSubject is the subject of the pages holder (a page budget's id)
// recorded on site.
func pageSubject(crawl, site, holder string) string {
	return "dwcrawl.page." + crawl + "." + hash16(site) + "." + holder
}
func doneSubject(crawl, site string) string { return "dwcrawl.done." + crawl + "." + hash16(site) }
func formSubject(crawl, id string) string   { return "dwcrawl.form." + crawl + "." + id }

// subjectCrawl returns the crawl token of a dwcrawl subject.
func subjectCrawl(subj string) (kind, crawl string, ok bool) {
	parts := strings.Split(subj, ".")
	if len(parts) < 4 || len(parts) > 5 || parts[0] != "dwcrawl" {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// getJSON reads key from kv into v; ok is false when the key is missing.
func (c *Conn) getJSON(ctx context.Context, kv jetstream.KeyValue, key string, v any) (rev uint64, ok bool, err error) {
	err = c.do(ctx, func(ctx context.Context) error {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			ok = false
			return nil
		}
		if err != nil {
			return err
		}
		ok, rev = true, e.Revision()
		return json.Unmarshal(e.Value(), v)
	})
	if err != nil {
		return 0, false, fmt.Errorf("cluster: reading %s %s: %w", kv.Bucket(), key, err)
	}
	return rev, ok, nil
}

// putJSON writes v under key.
func (c *Conn) putJSON(ctx context.Context, kv jetstream.KeyValue, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	err = c.do(ctx, func(ctx context.Context) error {
		_, err := kv.Put(ctx, key, b)
		return err
	})
	if err != nil {
		return fmt.Errorf("cluster: writing %s %s: %w", kv.Bucket(), key, err)
	}
	return nil
}

// casConflict reports a lost compare-and-set race on a key.
func casConflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// updateJSON applies change to the value of key (zero when missing) with
// compare-and-set, retrying lost races. change returns false to leave the
// value as it is.
func updateJSON[T any](ctx context.Context, c *Conn, kv jetstream.KeyValue, key string, change func(v *T) (bool, error)) (T, error) {
	var out T
	err := c.do(ctx, func(ctx context.Context) error {
		for {
			var v T
			var rev uint64
			e, err := kv.Get(ctx, key)
			switch {
			case errors.Is(err, jetstream.ErrKeyNotFound):
			case err != nil:
				return err
			default:
				rev = e.Revision()
				if err := json.Unmarshal(e.Value(), &v); err != nil {
					return retry.Permanent(fmt.Errorf("%s %s: %w", kv.Bucket(), key, err))
				}
			}
			ok, err := change(&v)
			if err != nil {
				return retry.Permanent(err)
			}
			out = v
			if !ok {
				return nil
			}
			b, err := json.Marshal(v)
			if err != nil {
				return retry.Permanent(err)
			}
			if rev == 0 {
				_, err = kv.Create(ctx, key, b)
			} else {
				_, err = kv.Update(ctx, key, b, rev)
			}
			if casConflict(err) {
				continue
			}
			return err
		}
	})
	return out, err
}
