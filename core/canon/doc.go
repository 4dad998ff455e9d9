// Package canon canonicalises URLs so that one resource has one key in the
// crawler's seen-set, frontiers and link tree.
//
// A canonical URL is http or https, has a lower-case ASCII (IDNA) host
// without a trailing dot, no default port, no user-visible fragment, a path
// with dot segments removed ("/a/../b" → "/b", empty → "/") and normalised
// percent-escapes, and a query whose session-id parameters are removed and
// whose remaining parameters are sorted. Session ids matter because the same
// page reached twice in one crawl otherwise counts as two pages; SmartCrawler
// (Zhao et al., §4.2, in-site exploring) and every link-tree or frontier
// structure in this project rely on URL dedup.
//
// Percent-escapes of unreserved characters are decoded, the others are
// upper-cased, and bytes that are not allowed in a component are escaped, so
// that Canonical(Canonical(x)) == Canonical(x) (checked by FuzzCanonical).
package canon
