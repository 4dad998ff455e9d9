// Package simweb is a simulated deep web: a deterministic generator of web
// sites, pages, forms and hidden databases with known ground truth, served
// over HTTP in-process or on a loopback listener. Tests, benchmarks and the
// offline demo of dwcrawl run against it, because the real web is not
// reachable there and its truth is not known anywhere.
//
// It is built so that the crawl strategies of SmartCrawler (Zhao et al.,
// "SmartCrawler: A Two-stage Crawler for Efficiently Harvesting Deep-Web
// Interfaces", sections 3–4) and ACHE (Barbosa & Freire, "An Adaptive
// Crawler for Locating Hidden-Web Entry Points") differ on it for the
// reasons they differ on the real web: searchable forms are sparse (well
// under 2% of pages per domain, the range ACHE reports), most lie within
// depth 3 with a tail to depth 5 (Chang et al., as cited by SmartCrawler),
// often inside a site's big catalogue directory; out-of-site links are
// mostly but not only topical (homophily); hub pages list many sites of a
// topic, so reverse searching (SmartCrawler Algorithm 1) through the
// search engine's link: operator finds them; travel portals co-locate
// airfare, hotel and rental forms; host names, directories and item slugs
// carry topic words, so URL features matter; and non-searchable forms
// (login, registration, password, contact, newsletter, order, polls) and
// search-engine boxes are on many pages, so form classification matters.
//
// # Generation
//
// New(cfg) plans every site from its own random stream (seed, site
// number): topic, host name, page count (log-normal), directories (Zipf
// sizes: the first, catalogue directory holds most pages), features (login
// box, newsletter, robots rules, faults) and its hidden databases with the
// link depth of their entry pages. Hubs are planned likewise. A site's pages
// are generated from the stream (seed, "pages", site) only when the site is
// first requested, and kept in a bounded cache; a page's HTML is composed
// from (seed, "body", site, page) on every request. The same seed and config
// therefore give byte-identical responses in any request order, and a web of
// 100,000 pages needs memory for its data and its cache, not its pages.
//
// Link depth is the tree depth: a page links only to pages at most one
// level deeper than itself (children, pagination ahead, same-section
// related pages within one level) and to shallower pages (navigation,
// breadcrumbs, footer), so breadth-first depth from the homepage is the
// depth the ground truth reports.
//
// # Hosts and serving
//
// Sites have plausible host names made of topic words and common name
// parts with ordinary top-level domains ("cheap-autos-depot.com",
// "www.carhub.net"); a few have brand names without topic signal. The
// search engine is SearchEngineHost ("search.simweb"). No host name is
// resolved by DNS: Web.Transport serves requests in-process, Web.DialContext
// gives an http.Transport in-memory connections to the full HTTP server,
// Web.Listen serves on a TCP address with LoopbackDialer or a forward proxy
// (ServeOptions.Proxy, so curl -x and browsers work) to reach every host.
// Hosts the web does not have fail like a failed DNS lookup.
//
// Per site: robots.txt (some Disallow rules, some Crawl-delay), the static
// pages, "/r/N/PATH" redirect chains (N hops), "/loop/N/a" redirect loops,
// "/events/calendar?month=YYYY-MM" (an infinite calendar on some sites),
// "/forms/KIND" (answers non-searchable form submissions), and per hidden
// database with URL prefix P: P/search (GET or POST; HTML results with a
// rel="next" link; hiddendb semantics: conjunctive keywords, stop words
// ignored, fixed ranking, top-k, pagination), P/record/ID (record pages),
// P/api/search?q=&page= (JSON, on API sites; also /api/search), and P/ (a
// redirect to the entry page). Session ids (";jsessionid=", "sid=",
// "PHPSESSID=") in URLs are ignored when serving, so they duplicate pages.
//
// The search engine answers /search?q=…&page=N (HTML, or JSON with
// format=json) and /api/search (JSON): keyword queries (conjunctive over
// titles, URL words and page keywords), site:HOST and link:URL (pages with
// out-of-site links to URL), capped at Search.ResultCap results and limited
// to Search.Rate queries per second (429 with Retry-After beyond).
//
// # Faults
//
// Config.Faults sets rates (all zero with NoFaults): permanent 500s,
// 503-once ("flaky"), slow responses, a connection reset on the first
// request of a URL (a TCP reset over a socket, ECONNRESET in-process),
// oversized bodies, malformed but parseable HTML, links to missing pages and
// missing hosts, redirect chains and loops, calendars and session ids.
// Permanent faults never hit a homepage, a form page or a page on the tree
// path to one, and broken links never point there, so every form stays
// reachable by a crawler that retries and follows redirects.
//
// # Ground truth
//
// Web.Truth writes JSON lines with a "type": "site", "database", "page",
// "form" (kind, domain, searchable, relevant, depth, method, action, fields,
// database) and "hub". Web.Stats summarises density of relevant forms per
// domain and the depth histogram. Go accessors serve tests and benchmarks:
// Sites, SitesOfDomain, Seeds, FormsAt, FormAt, IsRelevantForm, Databases,
// Database (the *hiddendb.DB itself), Hubs, EngineSearch.
//
// Form kinds follow Formasaurus: search (a form in front of a hidden
// database: searchable), external (a search box submitting to the search
// engine: not searchable), login, registration, password, contact,
// newsletter, order, other.
//
// # Data directory
//
// Content comes from a data directory (Config.Data; the command line's
// default is ../shared/data beside the repository). Files are found by name
// anywhere below it, so a new directory with the same layout drives the
// generator unchanged; every source is optional and missing ones fall back
// to the small built-in data embedded in the package (builtin/):
//
//	formasaurus/index.json, formasaurus/html/*.html
//	    Labeled pages (Formasaurus layout). Forms are enumerated in document
//	    order as an HTML5 parser does, cut out with their markup, cleaned
//	    (scripts, handlers, external URLs removed) and re-used: "s" forms as
//	    hidden-database forms (non-query controls renamed with a leading "_",
//	    which the database ignores) or, when they submit to a web search
//	    engine, as search-engine boxes; the other labels as login,
//	    registration, password, contact, newsletter, order and other forms.
//	topics.json
//	    Topic definitions, merged by key over builtin/topics.json: target
//	    domains and off-topic categories with core words, directory names,
//	    host-name words, facets and WordNet selectors.
//	corpora/vega/movies.json → movie; cars.json → auto (used-car listings
//	    over real models and cities) and rental; flights*.json with
//	    airports*.csv → airfare (fares) and route (city pairs); airports give
//	    the cities of hotel, apartment, rental and job listings.
//	dblp/dblp*.csv → book (publications).
//	corpora/*glosses*.jsonl (WordNet: id, pos, lexfile, lemmas,
//	    topic_domains, gloss) → per-topic vocabulary; people (person
//	    instances), job (occupations), music, product (artifacts) and the
//	    glossary databases of off-topic categories.
//	wordfreq/subtlex*.json → generic filler words.
//	*.jsonl whose records have a "domain" field → records of that domain.
//
// Record pools are fixed per data directory (synthesized attributes use a
// fixed data seed); each database is a seeded sample of its domain's pool.
package simweb
