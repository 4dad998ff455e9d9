// Package profile loads a domain profile: the Lua file (domains/*.lua) that
// tells the crawl what to look for and how far to go.
//
// A profile carries what SmartCrawler (Zhao et al., "SmartCrawler: A Two-stage
// Crawler for Efficiently Harvesting Deep-Web Interfaces", IEEE TSC 2016)
// needs from a user: the seed sites and topic keywords that bootstrap the site
// classifier and rankers (§3.1–3.2), the reverse-searching plugin and the
// frontier threshold that triggers it (Algorithm 1), the stop-early criteria
// SC1–SC5 of in-site exploring (§3.3), the ranking weight α of
// `α·ST + (1−α)·log(1+SF)`, the adaptive-learning thresholds (FSS rebuilt every
// N deep sites, FSL every M forms, §3.4), and crawl budgets and politeness.
//
// A profile file returns a table or calls dw.domain{...}; it runs in the
// sandbox of package script, so unknown keys, wrong types and invalid values
// are reported as "domains/x.lua:12: stop.max_depth: expected integer, got
// string". Every default is documented on its field and applied by Load.
package profile
