package enrich

import (
	"context"
	"fmt"
	"time"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// Doc is one record returned by a keyword interface.
type Doc = keyword.Doc

// Page is one result page of a keyword query.
type Page = keyword.Page

// Searcher is a keyword interface: conjunctive keyword search answering
// page (1-based) of a query's top-k results. The HTTP client of a hidden
// database's JSON API (NewHTTPSearcher) and the Lua keyword-plugin adapter
// implement it.
type Searcher = keyword.Searcher

// TopKer is implemented by searchers that know their result limit k.
type TopKer = keyword.TopKer

// NewHTTPSearcher returns the client of the JSON search API at base, a
// hidden database's URL ("http://host/db") or the endpoint itself
// (".../api/search"): a keyword.APISearcher that retries transport errors,
// 429 and 5xx twice, waiting up to 200 then 400 ms (half of it random, see
// package retry) or the server's Retry-After.
// It is a TopKer.
func NewHTTPSearcher(base string) (Searcher, error) {
	s, err := keyword.NewAPISearcher(base)
	if err != nil {
		return nil, fmt.Errorf("enrich: %w", err)
	}
	return keyword.Retrying(s, keyword.RetryOptions{Attempts: 3, Backoff: 200 * time.Millisecond}), nil
}

// maxPages bounds the pages fetched for one query, against an interface
// whose Next never turns false.
const maxPages = 1000

// Result is the whole answer to one query: every page up to k records.
type Result struct {
	Docs []Doc
	// Total is the reported match count, -1 when the interface hides it.
	Total int
}

// Solid reports whether the query returned every matching record: fewer
// than k records, or a reported total of at most k.
func (r Result) Solid(k int) bool {
	if r.Total >= 0 {
		return r.Total <= k
	}
	return len(r.Docs) < k
}

// FetchAll issues query and collects its pages until the interface reports
// no next page or k records were returned (k ≤ 0: no limit).
func FetchAll(ctx context.Context, s Searcher, query string, k int) (Result, error) {
	res := Result{Total: -1}
	for page := 1; page <= maxPages; page++ {
		p, err := s.Search(ctx, query, page)
		if err != nil {
			return res, fmt.Errorf("search %q page %d: %w", query, page, err)
		}
		if page == 1 {
			res.Total = p.Total
		}
		res.Docs = append(res.Docs, p.Docs...)
		if !p.Next || len(p.Docs) == 0 || (k > 0 && len(res.Docs) >= k) {
			break
		}
	}
	if k > 0 && len(res.Docs) > k {
		res.Docs = res.Docs[:k]
	}
	return res, nil
}
