// Package cluster is dwcrawl's distributed mode on NATS JetStream: one
// crawl explored by many worker processes on many machines. The
// single-machine mode on Pebble stays the default and is unchanged; a
// cluster crawl runs the same engine (core/crawl) split in two.
//
// # Site locating: one coordinator, state in JetStream
//
// `dwcrawl run --nats URL PROFILE` coordinates a crawl (Conn.Coordinate).
// It runs stage one of the two-stage crawl: the site frontier and site
// ranker, the site and form classifiers, the learned feature spaces (FSS,
// FSL), reverse search and its quota, the counters. Its engine keeps all of
// it in its own crawl directory, as a single-machine crawl would, so
// `dwcrawl run` again resumes it and every single-machine tool reads it.
// What the workers need of it is shared through JetStream key-value
// buckets:
//
//   - BucketCrawls: the crawl's Spec (profile source, strategy, budget,
//     network options, testbed config): a worker needs nothing else to
//     build the same engine.
//   - BucketState: the coordinator's lease (one coordinator per crawl),
//     fsl.<crawl> (the link space of the latest learning round),
//     homepages.<crawl> (the deep-site homepages the site classifier
//     learnt), stats.<crawl> (the live counters).
//   - BucketBudgets: pages.<crawl>, the pages reserved against the crawl's
//     budget and, per engine, the pages it took (updated with
//     compare-and-set; engines lease small blocks and give back what they
//     do not use), and queries.<name>, a query budget that surfacing and
//     enrichment jobs share (QueryBudget): one query per query sent, its
//     further result pages free, as their single-machine budgets count.
//
// The page budget is exact, as on one machine. An engine publishes its
// pages on subjects ending in its own id and renews its entry in
// pages.<crawl> every second; the coordinator reclaims the entry of an
// engine that stopped renewing it and no longer answers on
// dwcrawl.holder.<crawl>.<id> (a process killed: its connection is gone),
// or whose entry expired: the pages it took minus the pages it published
// go back to the budget (its entry stays a while as a tombstone, so that
// an engine only thought dead counts its pages exactly when it comes
// back). An engine writes the pages it holds (published, being fetched,
// leased) rather than adding to the counter, so a compare-and-set retried
// after its answer was lost (a server restart) is not counted twice. A
// worker gives its unused lease back before it reports a site's outcome,
// and the coordinator takes the budget for spent only once every site it
// handed out has come back, the counter, read afresh, is at the limit,
// and no page another engine took is still on its way: the engines'
// entries hold no page being fetched or leased (an explorer of a site
// that was redelivered after a server restart may still be at work) and
// its results consumer has applied every page published.
// A page whose publication the results stream drops as a duplicate of
// another engine's (a site redelivered while its first worker, cut off
// from the server, went on exploring it) goes back to the budget too.
//   - BucketWorkers: one heartbeat entry per live worker (with a TTL).
//
// Adaptive learning happens once per cluster: only the coordinator learns.
// Workers publish the FSL examples of their pages with the pages; the
// coordinator's engine learns from them in stream order and publishes each
// round in fsl.<crawl>, which the workers install. Workers never learn.
//
// # In-site exploring: by site, through a work queue
//
// The coordinator hands each site it picks to the cluster as one message on
// the work-queue stream StreamSites, subject dwcrawl.site.<crawl>.<site
// hash>: the stream is partitioned by a hash of the site. The coordinator
// dispatches a site once (a message id per dispatch makes a retried publish
// queue it once); a resumed coordinator dispatches a site it had handed out
// again only when the queue no longer holds it. All workers pull from one
// durable consumer; a message is out with one worker at a time, so a site
// (one host) is crawled by one worker at a time and per-host politeness
// holds across the cluster. The worker explores the site with the crawl's
// in-site code (core/crawl.SiteExplorer), keeping its in-site state in its
// own Pebble directory, D/<crawl>, and heartbeats the message (InProgress)
// while it works.
//
// Archives: `dwcrawl worker --warc DIR` archives every HTTP exchange of
// the worker in DIR/<crawl>; `dwcrawl run --nats --warc DIR` the
// coordinator's own (seeds, reverse search).
//
// # Results: pages, outcomes, forms
//
// A worker publishes each page it records to StreamResults
// (dwcrawl.page.<crawl>.<site hash>.<engine id>, with its record,
// searchable forms, their probes and FSL example) before committing it locally, and when the site is done its
// outcome (dwcrawl.done.<crawl>.<site hash>: status, counts, homepage text,
// out-of-site links); then it acknowledges the site. The coordinator
// consumes the results stream in order: it imports each page into its own
// store (numbered in the crawl's page order, counted, learnt from) and
// applies each outcome (site record, site frontier, site classifier). Each
// form the coordinator records is published to StreamForms
// (dwcrawl.form.<crawl>.<form id>); `dwcrawl forms --nats URL --crawl NAME`
// (Conn.Forms) materialises them, and the coordinator's directory holds
// the same forms.
//
// # Delivery and duplicates
//
// Every stream is at-least-once, and every consumer is idempotent:
//
//   - A site is delivered at least once. A worker that dies (kill -9, a
//     lost machine) stops heartbeating; after the ack wait the site goes to
//     another worker. That worker reads the pages already published for
//     the site and replays them into its engine instead of fetching them
//     again (they are counted once), then explores the rest.
//   - Pages and outcomes are published at least once: a publish is retried
//     until the stream acknowledges it, with a message id (crawl, kind and
//     URL or site delivery) so that the stream drops a repeat within its
//     ten-minute duplicate window. The coordinator drops what it recorded
//     before: a page already in its store is not recorded again (its forms
//     are those it recorded), a form whose interface (action, method,
//     fields) the crawl recorded on the site is a duplicate, an outcome of
//     a site already explored changes nothing.
//   - Results are applied at least once: the coordinator acknowledges a
//     result after applying it; a result redelivered after a coordinator
//     restart is dropped as above. An outcome first imports the site's
//     published pages, so a page delivery lost (a server restart) and
//     delivered again after the outcome is not missed.
//   - Forms are published at least once, with the form id as message id;
//     Conn.Forms keeps one form per id.
//
// Clients reconnect and retry with backoff while the server is away
// (Options.Patience); streams and buckets are file-backed, replicated
// three times on a cluster of three or more servers, so a server restart
// loses nothing.
//
// # Connecting
//
// Connect waits for a server that is not up yet when Options.Wait says so
// (workers and coordinators wait until their context ends: they are
// started together with their server), retrying with backoff and logging
// every few seconds the URL and how long it has waited; errors no wait
// cures (credentials, a bad URL, a certificate) end the wait at once. It
// then checks the server: nats-server MinServerVersion (2.10.0) or later,
// since older servers refuse the coordinator's results consumer, whose
// filter dwcrawl.*.<crawl>.> spans the stream's page and done subjects
// (CheckServerVersion), and JetStream enabled. Supporting 2.9 would take
// another subject layout for the results stream (a crawl's subjects under
// one prefix) and no compression, for a release NATS no longer maintains;
// a clear refusal at connect costs an operator one binary.
//
// The operator's guide is docs/cluster.md.
package cluster
