// Package probe implements post-query probing of searchable forms, which
// SmartCrawler (Zhao et al., IEEE TSC 2016) names as future work: a form
// the classifiers call searchable but whose domain they cannot tell (a
// bare "Search" box) is asked a few of the profile's topic terms and a
// nonsense term, and its answers are compared.
//
// Each answer is read with package records: how many records the result
// page lists and which (a signature of their URLs), the total it states,
// whether it says nothing matched, whether it is a login page (a redirect
// to one, or a page asking for a password), its size, and, with a topic
// classifier (the crawl's site classifier), whether the records' text is
// about the topic. The nonsense term is the baseline — what the form shows
// for a query that matches nothing — and a topic term responds when its
// answer lists records the baseline does not. The decision:
//
//   - not a database: no answer depends on the query (the same records, or
//     the same page, whatever is asked), every answer is a login page, or
//     nothing was answered;
//   - database of the topic: at least half of the topic terms respond and
//     the records they list are about the topic;
//   - generic site search: any other search (its answers depend on the
//     query, but few topic terms find anything, or what they find is off
//     topic, or it says it found nothing).
//
// The queries, what each answer showed, the decision and the evidence are
// recorded with the form (store.Probe). A prober only ever submits forms
// classified searchable: Submittable refuses any other kind (login,
// registration, order, contact…) and any form that asks for a password or a
// file, whatever a profile asks. It submits through the crawl's fetcher, so
// robots.txt, per-host politeness and the address policy apply; the crawl
// counts its queries against the profile's probe budget.
package probe
