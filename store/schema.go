package store

// Table tags. Every key in the database starts with exactly one of these
// bytes; the rest of the key is built with the encoders in keys.go. A tag is
// never reused for a different record type: bump SchemaVersion and write a
// migration instead. Later issues add their tables here, inside the reserved
// ranges below.
const (
	// TagMeta holds store bookkeeping: the schema version, the frontier
	// sequence counter and the per-queue frontier lengths. Managed by the
	// store; the generic API refuses to write it.
	TagMeta byte = 0x01

	// TagSites maps a site key (canon.Site form, "scheme://host[:port]") to a
	// Site record (JSON).
	TagSites byte = 0x10

	// TagURLs maps a canonical URL to its URLState (compact binary): seen,
	// queued (pointing at its frontier key), fetched, failed or skipped.
	// Managed by the store; written only through MarkURL/SetURL and the
	// frontier operations.
	TagURLs byte = 0x11

	// TagFrontier holds the frontier queues. Key: AppendString(queue),
	// AppendDescFloat(score), AppendUint64(seq); value: the rest of the
	// FrontierEntry (compact binary). The first key of a queue is its best
	// entry, ties broken first-in first-out. Managed by the store.
	TagFrontier byte = 0x12

	// TagForms maps a form ID (FormID) to a Form record (JSON).
	TagForms byte = 0x13

	// TagModels maps AppendString(name), AppendUint64(version) to a
	// serialised model (classifier or ranker) blob.
	TagModels byte = 0x14

	// TagCounters maps a counter name to an int64 maintained with Pebble
	// merges, so batches can add to it without reading it. Managed by the
	// store; use AddCounter.
	TagCounters byte = 0x15

	// TagPages holds one record per fetched page (written by the crawl
	// engine through PutJSON, keyed by the canonical URL).
	TagPages byte = 0x16

	// TagFeatures holds the learning iterations: the feature spaces (FSS,
	// FSL) and classifier statistics of each adaptive-learning round, keyed
	// by AppendString(learner), AppendUint64(round).
	TagFeatures byte = 0x17

	// TagCrawl holds the crawl engine's progress that a resumed crawl needs
	// besides pages, sites, forms and frontiers (JSON; the engine owns the
	// keys): reverse-search rounds and the sites searched for, the examples
	// of the adaptive learner.
	TagCrawl byte = 0x18

	// TagDocs is reserved for documents surfaced from hidden databases
	// (surface issue), keyed by AppendString(source), AppendString(doc id).
	TagDocs byte = 0x20

	// TagQueries is reserved for the surfacing query log: one record per
	// query sent, keyed by AppendString(source), AppendUint64(query number).
	TagQueries byte = 0x21

	// TagHarvest holds the state of each database a harvest surfaces (dwcrawl
	// harvest), keyed by AppendString(source) (JSON; internal/app owns it).
	TagHarvest byte = 0x22

	// TagEnrichFirst .. TagEnrichLast is the range reserved for the
	// enrichment tables (local table, query pool, hidden-database sample,
	// coverage log). The enrich issue declares the individual tags.
	TagEnrichFirst byte = 0x30
	// TagEnrichLast is the last tag of the enrichment range.
	TagEnrichLast byte = 0x3F
)

// SchemaVersion is the version of the key schema and record encodings written
// by this build. Open refuses a database written by a newer version, and
// records this one in an older database it opens for writing.
//
// Version 2 packs large JSON records (pack.go); it reads version 1's.
const SchemaVersion = 2

// Keys inside TagMeta.
var (
	metaVersionKey = []byte{TagMeta, 'v'} // SchemaVersion, AppendUint64
	metaSeqKey     = []byte{TagMeta, 's'} // last frontier seq, AppendUint64
	metaFLenPrefix = []byte{TagMeta, 'q'} // + AppendString(queue): queue length (counter merge)
	metaTestbedKey = []byte{TagMeta, 't'} // config JSON of the simulated web a testbed crawl ran on
)

// managedTag reports whether tag is maintained by typed accessors whose
// invariants the generic API would break.
func managedTag(tag byte) bool {
	switch tag {
	case TagMeta, TagURLs, TagFrontier, TagCounters:
		return true
	}
	return false
}
