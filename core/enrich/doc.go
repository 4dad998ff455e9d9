// Package enrich covers a user's local table from a top-k keyword-search
// hidden database under a query budget. It implements SmartCrawl from Wang,
// Shea, Wang & Wu, "Progressive Deep Web Crawling Through Keyword Queries
// For Data Enrichment" (SIGMOD 2019):
//
//   - the query pool (Section 3): one specific query per local record
//     (NaiveCrawl's query) plus every keyword set whose support in the local
//     table D is at least t, mined with FP-growth (package fpgrowth); a query
//     is dominated when a proper superset matches the same local records, and
//     dominated queries are replaced by that superset (the pool holds closed
//     keyword sets only);
//   - query selection: QSel-Simple (benefit |q(D)|), QSel-Bound (benefit
//     min(|q(D)|, k)) and QSel-Est with the biased and unbiased estimators of
//     Table 1 for solid (|q(H)| ≤ k) and overflowing queries, the query type
//     predicted from a hidden-database sample Hs with ratio θ, and the local
//     table used as a sample with ratio α when q(Hs) is empty (Section 5);
//   - removal of the local records that cannot be covered: after a solid
//     query every record of q(D) the results did not cover is not in the
//     hidden database (Section 4.2);
//   - the inverted index (term → local records), the forward index (local
//     record → pool queries) and the lazy delta-update priority queue of
//     Section 6.3, so selection stays fast on large pools;
//   - the baselines NaiveCrawl, FullCrawl and IdealCrawl (an oracle that
//     knows the true benefits, for evaluation only).
//
// Matching a returned hidden record to local records is pluggable (Matcher);
// the default is a Jaccard similarity join on the record documents with
// threshold 0.9 using prefix filtering. The hidden-database sample is built
// through the same keyword interface by query-based sampling (BuildSample),
// or loaded from a JSONL file with a user-given θ.
//
// A run is resumable through a store directory (Journal); internal/app
// assembles the `dwcrawl enrich` run and experiment/enrichbench measures the
// methods (`dwcrawl bench enrich`).
package enrich
