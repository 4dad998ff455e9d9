package fetch

import "github.com/dwcrawl/dwcrawl/core/canon"

// canonicalize puts an absolute URL in canonical form (core/canon): the
// fetcher requests, and reports, canonical URLs only, so the crawl's
// dedup by URL sees one spelling of each page.
func canonicalize(raw string) (string, error) { return canon.Canonical(raw) }
