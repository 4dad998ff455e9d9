// Package crawl is dwcrawl's discovery engine: it finds the searchable forms
// of a domain while fetching as few pages as possible.
//
// Four strategies share the fetcher, the form classifier (HIFI), the page
// and site classifier, the stop-early criteria and the page budget, so that
// their harvest rates can be compared fairly:
//
//   - smartcrawler: the two-stage crawler of Zhao et al., "SmartCrawler: A
//     Two-stage Crawler for Efficiently Harvesting Deep-Web Interfaces" (IEEE
//     TSC 2016). Stage one (site locating, §3.2, Algorithms 1–2) keeps a site
//     frontier with high- and low-priority queues ranked by the site ranker
//     α·ST + (1−α)·log(1+SF), classifies home pages with a Naive Bayes site
//     classifier and, when the frontier runs low, reverse-searches known deep
//     sites for centre pages. Stage two (in-site exploring, §3.3) visits a
//     relevant site breadth-first by depth through a link tree with the
//     balanced merge rule and the link ranker, under the stop-early criteria
//     SC1–SC5, and hands out-of-site links back to stage one. Adaptive
//     learning (§3.4) rebuilds the feature spaces FSS and FSL every N deep
//     sites and M forms and re-ranks the frontiers.
//   - scdi: the same two stages without reverse searching, incremental site
//     prioritizing or adaptive learning.
//   - ache: Barbosa & Freire, "An Adaptive Crawler for Locating Hidden-Web
//     Entry Points" (WWW 2007): one link frontier with a queue per level of a
//     multi-level Naive Bayes link classifier that estimates how many steps a
//     link is from a searchable form, a persistent frontier reloaded when the
//     queues run dry, and online relearning of the link classifier after
//     every M forms.
//   - bestfirst: a focused crawler with a page classifier only; it follows
//     every link of a relevant page, best page score first.
//
// All crawl state lives in the store: a crawl stopped by ^C or killed resumes
// where it was, losing no recorded form and refetching only pages that were in
// flight (fetched pages are replayed from their stored records).
//
// Every URL that fails is recorded with its cause (store.Failure, causes from
// fetch.Cause, "scope" for a URL the profile's scope rules or per-host page
// cap refuse) and counted by cause in the snapshot; a resumed crawl fetches
// again the URLs that failed in fewer than MaxFailedRuns runs (the two-stage
// strategies explore their sites again, replaying what was recorded), and
// SeedFailures says when no seed could be fetched at all. The two-stage
// strategies also feed the URLs of a site's sitemaps (robots.txt Sitemap:
// lines and /sitemap.xml) to its in-site frontier.
package crawl
