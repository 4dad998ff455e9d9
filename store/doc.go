// Package store is dwcrawl's persistence layer: one Pebble database per crawl
// directory, and the only package that imports Pebble.
//
// It implements the "Store" section of DESIGN.md. Every key starts with a
// one-byte table tag (schema.go) followed by order-preserving key parts
// (keys.go: big-endian integers, sign-flipped signed integers, escaped strings,
// inverted floats for "highest first"), so that a frontier is a plain range
// scan and the next URL to fetch is the first key of its queue.
//
// The typed tables are sites, URL states, frontier entries, forms, models and
// counters; later packages keep their own records in further tables through
// the generic JSON API (PutJSON, GetJSON, ScanJSON, Delete, DeletePrefix).
//
// Writes that belong together go in one Batch and land atomically: the batch
// that records a fetched page also records its forms and its frontier updates,
// so a crash never loses a form or re-fetches a recorded page. A URL's state
// points at its frontier key, and both always change in the same batch;
// frontier changes are applied at commit time under one lock, so concurrent
// workers cannot leave a stale pointer or a wrong queue length behind.
// The URL states a commit reads come from memory when they can (urlcache.go:
// a bounded write-through cache of recent states and a filter of the URLs
// stored, both updated under that lock).
//
// Durability: Batch.Commit(true) returns only after the write-ahead log is
// synced. Frontier churn from DB.PushFrontier and DB.PopFrontier is not synced
// on its own: the log is sequential, so the next synced write (or DB.Sync)
// makes every earlier write durable too.
package store
