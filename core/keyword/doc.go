// Package keyword holds the keyword interfaces of hidden databases — the
// types and clients that surfacing (package surface) and enrichment
// (package enrich) share.
//
// A keyword interface answers conjunctive keyword queries with at most k
// records, a page at a time (Searcher). APISearcher is the client of the
// JSON search API (APIResult is its wire format, which the testbed's hidden
// databases serve). Retrying and Limited wrap any Searcher with retries and
// a request budget. The Lua keyword plugins are adapted to Searcher in
// internal/app.
package keyword
