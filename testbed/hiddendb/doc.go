// Package hiddendb is an in-memory hidden database with a keyword-search
// interface, the kind that sits behind a deep-web search form or API.
//
// It answers conjunctive keyword queries (every non-stop-word term must
// occur in one of the indexed fields; case-insensitive; no stemming, as most
// sites do), ranks matches by a fixed, query-independent order, returns only
// the top k, and pages through them. Match exposes the full answer for
// ground truth. Handler serves the database over HTTP as a JSON API (the
// wire format of keyword.APIResult), an HTML result list with "next" links,
// and record detail pages; Searcher searches it in process as a
// keyword.Searcher. Synthetic makes reproducible bibliographic records.
//
// The surfacing (Ntoulas et al.) and enrichment (SmartCrawl, Wang et al.)
// benchmarks and the simulated web (package simweb) all serve their hidden
// databases through this package, so the semantics they measure against are
// the same.
package hiddendb
