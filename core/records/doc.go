// Package records reads the result page of a search form as a person does:
// which part of the page lists the records the query found, where the next
// page of them is, and how many there are in all.
//
// The records are found by their repetition, the observation behind MDR
// (Liu, Grossman & Zhai, KDD 2003) and DEPTA (Zhai & Liu, WWW 2005): a result
// list is a run of sibling subtrees built alike (the same tag, the same
// child tags, mostly the same classes), and the same template repeats in
// every result list the site serves. Extract groups the siblings of every
// element by that signature, merges groups whose parents sit at the same
// tag path (a site may split its results into several lists, as MediaWiki's
// "title matches" and "text matches"), and scores each region: how many
// items, how much text each holds, whether each links to a page of its own
// and to a different one, with regions inside navigation, headers, footers,
// sidebars and pagers, and regions whose links the form's own page already
// shows (a "recent posts" box), set aside. The best region's path and item
// signature form a Wrapper; later pages of the same site are read with it,
// so a page that lists a single record, which repeats nothing, still yields
// it. Secondary regions whose records link to pages of the same URL pattern
// as the best one's are kept too (DokuWiki lists "matching page names"
// before its full-text results).
//
// The next page is whatever control the page offers: a link with rel=next,
// a link or button whose text says next (next, more, older posts, ›, »,
// [next]), a link numbered with the following page, or a submit button of a
// form on the page (Omega's result pages are one form whose page buttons
// carry the page number and the query in hidden fields): then the next page
// is that form's submission with that button, as a browser would send it.
// The total is read from the text around the records ("1–20 of 2,917",
// "About 599 results", "Results 1 - 10 of 3881", "We found 1788 results"),
// and a page that says nothing matched ("No results", "Nothing found") is
// flagged, which probing uses to tell a database from a page that ignores
// its query.
//
// Where the inference reads a site wrong, a person gives that site's CSS
// selectors (Selectors: records, record_link, next; a profile's sites
// table), each replacing the inference of its part; Candidates and
// NoNextReason say what the inference weighed, for reports.
package records
