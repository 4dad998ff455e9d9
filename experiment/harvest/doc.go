// Package harvest measures discovery strategies against the simulated web's
// ground truth: the harvest comparison of the SmartCrawler paper (Zhao et
// al., "SmartCrawler: A Two-stage Crawler for Efficiently Harvesting
// Deep-Web Interfaces", IEEE TSC 2016, §4, Figures 5–8 and Table 4) and of
// ACHE (Barbosa & Freire, WWW 2007, §5), run offline.
//
// Bench crawls every domain × strategy pair with the same page budget on
// the same simulated web (a fresh, identical copy per run, so that the
// web's per-URL fault state — "fail the first request" faults, the search
// engine's rate limit — never favours the strategy that runs later), each in
// its own temporary crawl directory, assembled by internal/app exactly as
// `dwcrawl run --testbed` assembles it, and scores what the crawl recorded
// with Score:
//
//   - relevant forms: distinct forms the crawler reported as relevant that
//     the simulated web says are searchable forms in front of a hidden
//     database of the domain (true positives only; the classifier's own
//     count and its false positives are reported beside it);
//   - deep sites: distinct sites with at least one such true relevant form;
//   - searchable forms: distinct forms the crawler recorded as searchable
//     that are truly searchable (any domain);
//   - pages: page records in the crawl directory (fetched or failed);
//   - harvest rate: relevant forms per page, and the harvest curve (relevant
//     forms and deep sites after every step of pages).
//
// Forms are identified by the truth, not by the URL the crawler used: a
// page reached through a redirect is judged by its final URL, session-id
// duplicates of one page count once, and the search form repeated on a
// hidden database's result pages counts once per database.
//
// Profiles come from <dir>/<domain>.lua. When a domain has no profile file,
// FallbackProfile builds one in Go from profile.Defaults(), with the
// domain's name and keywords taken from the simulated web's own vocabulary
// of the domain (its label, nouns, topic words, section names and facets);
// Bench reports which runs used it.
package harvest
