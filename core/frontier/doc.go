// Package frontier holds the crawl frontiers of every discovery strategy:
//
//   - SiteFrontier: SmartCrawler's site frontier (Zhao et al., IEEE TSC 2016,
//     §3.2, Algorithm 2 "incremental site prioritizing"): a high-priority
//     queue for sites linked from sites with relevant searchable forms and
//     a low-priority queue for the rest, both ordered by site rank; when the
//     high queue runs dry the low queue is moved into it.
//   - LinkTree and LinkFrontier: SmartCrawler's in-site exploring (§3.3):
//     links of a site explored breadth-first by depth; within a depth the
//     links form a tree whose internal nodes are directory paths (URLs that
//     differ only in their query string are one leaf); with a budget of V
//     visits for N leaves, γ = V/N and a node with M leaves gets C = M·γ
//     visits, siblings with C < 1 are merged, the most relevant links of each
//     directory go first and visits are spread evenly ("balanced link
//     prioritizing").
//   - LevelFrontier: ACHE's frontier (Barbosa & Freire, WWW 2007, §3): one
//     queue per level predicted by the multi-level link classifier (level 1
//     first), each bounded in memory, backed by a persistent frontier that
//     is re-classified and reloaded when the queues run dry.
//   - Queue: a best-first priority queue (the bestfirst baseline and the
//     building block of the others).
//
// Every frontier writes through to a Store (store.DB implements it; MemStore
// is an in-memory one for tests and benchmarks) so that a crawl resumes after
// a crash: Push persists the entry, Pop deletes it (the store then counts the
// URL as in flight until the engine records its fetch), and Load rebuilds
// the in-memory structures from the store. The link and site frontiers can
// instead leave their writes to a batch the engine commits with a page's or
// a site's record (LinkOptions.Deferred and Stage; PopKeep, PushAllIn,
// RescoreIn), so that a fetched page costs one commit: until that batch
// lands the store lags memory just as after a crash (a popped entry is
// still stored, a pushed one not yet). An item's Evidence (what the
// links to it say) is persisted with it as JSON; one that does not decode
// fails Load with the queue and URL named. Ordering and selection happen in
// memory (package pqueue), in O(log n) per operation.
package frontier
