-- domains/auto.lua — used-car search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable forms
-- of used-car marketplaces and dealers (search by make, model, year, price,
-- mileage, location). It is a Lua file that returns dw.domain{...}; keys you
-- leave out keep their defaults, and `dwcrawl profile check domains/auto.lua`
-- prints every resolved setting. Unknown keys and wrong types are errors that
-- name the key and its line.
--
-- With --testbed the seeds come from the simulated web's "auto" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "auto",
  description = "Searchable used-car forms: marketplaces, dealer networks and classifieds",
  domain      = "auto", -- one of the 12 built-in domains (or a custom name)

  -- Where the crawl starts. Bare host names mean https://host/. These are
  -- well-known US used-car sites; each has a vehicle search form within a
  -- few clicks of its home page.
  seeds = {
    "www.autotrader.com",
    "www.cars.com",
    "www.carmax.com",
    "www.cargurus.com",
    "www.carvana.com",
    "www.truecar.com",
    "www.edmunds.com",
    "www.autolist.com",
    "www.iseecars.com",
    "www.carsforsale.com",
  },

  -- Topic words. They seed the site classifier and the feature spaces of
  -- the rankers until the crawl has learned its own (see `learn`).
  keywords = {
    "used car", "used cars", "car", "vehicle", "auto", "make", "model", "year",
    "mileage", "price", "dealer", "inventory", "for sale", "sedan", "suv",
    "truck", "certified pre-owned",
  },

  -- Hints for stage one (site locating): words on a home page or in a host
  -- name that make a site more (keywords) or less (negative) likely to host
  -- a used-car search form.
  site = {
    keywords = { "used cars", "cars for sale", "dealer", "pre-owned", "autos" },
    negative = { "car rental", "rent a car", "auto parts", "insurance", "car wash", "repair shop" },
  },

  -- Hints for stage two (in-site exploring): anchor, path and nearby words
  -- of links that tend to lead to the search form, and of links to avoid.
  link = {
    keywords = { "search", "advanced search", "inventory", "used", "shop", "browse", "find", "cars for sale" },
    negative = { "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help" },
  },

  -- What a relevant form looks like: words of its fields and labels, and
  -- examples (HTML files next to this profile, or inline HTML like below).
  forms = {
    keywords = { "make", "model", "year", "min price", "max price", "mileage", "zip", "radius", "body style" },
    examples = {
      [[<form action="/search" method="get">
          <select name="make"><option>Any make</option><option>Ford</option><option>Toyota</option></select>
          <select name="model"><option>Any model</option></select>
          <input name="zip" placeholder="ZIP code">
          <select name="maxPrice"><option>No max price</option><option>10000</option></select>
          <button type="submit">Search used cars</button>
        </form>]],
    },
  },

  -- A domain outside the twelve built in (say "recipes") has no trained
  -- model: its form and site classifiers learn from the keywords, the form
  -- examples and `examples`, pages of sites of the topic (saved HTML files
  -- next to this profile, or URLs), plus the homepages of the seeds at crawl
  -- start; `dwcrawl profile check` says what they learned from. For a
  -- built-in domain `examples` may stay empty.
  examples = {},

  -- Reverse searching (SmartCrawler Algorithm 1): when the site frontier has
  -- fewer than `threshold` unvisited sites, ask a search engine for pages
  -- that link to known deep sites and harvest new sites from them. A result
  -- page counts as a centre page when it links to at least `min_links` known
  -- sites. `plugins` are the candidate engines, tried in order: the first
  -- whose environment is set is used, and `dwcrawl run` says at start which
  -- one (or why reverse search is off): "search/searxng" (your own instance,
  -- SEARXNG_URL), "search/brave" (BRAVE_API_KEY), "search/google"
  -- (GOOGLE_API_KEY and GOOGLE_CSE_ID). API keys are read from the
  -- environment by the plugin, never written here. `plugin = "search/NAME"`
  -- names one engine instead. With --testbed the simulated engine
  -- (search/simweb) is used whatever this says. `dwcrawl seeds --profile
  -- domains/auto.lua` asks the same engine for the keywords below and lists
  -- candidate seed sites.
  reverse = {
    plugins     = { "search/searxng", "search/brave", "search/google" },
    threshold   = 50,
    min_links   = 3,
    max_queries = 20,
  },

  -- Stop-early criteria of in-site exploring (SmartCrawler §3.3). Most
  -- searchable forms lie within depth 3 of a home page.
  stop = {
    max_depth                   = 5,   -- SC1: deepest link depth explored
    max_pages_per_depth         = 100, -- SC2: pages fetched at one depth
    max_forms_per_depth         = 5,   -- SC3: searchable forms that end a depth
    max_pages_no_form_per_depth = 6,   -- SC4: form-less pages before the next depth
    max_pages_no_form           = 50,  -- SC5: form-less pages before leaving the site
    max_pages_per_site          = 300, -- hard cap per site
  },

  -- Site ranking: alpha weighs topic similarity (ST) against how often a
  -- site is linked from others (SF): alpha*ST + (1-alpha)*log(1+SF).
  -- top_k terms are kept per feature space.
  rank = { alpha = 0.5, top_k = 20 },

  -- Adaptive learning (SmartCrawler §3.4): rebuild the site feature space
  -- after N new deep sites and the link feature space after M new forms.
  -- --strategy ache relearns its link classifier after the same M forms: on
  -- a web where the domain's forms are rare or deep it may never reach M
  -- (a simulated web with forms mostly at depth 3-5: ACHE found 61 relevant
  -- forms in 10,000 pages with M = 100, 124 with M = 20), so lower M there.
  learn = { sites_every = 50, forms_every = 100 },

  -- Crawl budget; 0 means no limit (--pages on the command line overrides).
  budget = { pages = 0, sites = 0, duration = "0s" },

  -- Manners toward each web site (robots.txt is always honoured; a
  -- Crawl-delay longer than `delay` wins). Testbed runs use no delay.
  -- `user_agent` is sent with every request (default: dwcrawl's, naming its
  -- home page); `headers` are extra request headers sent to the crawled
  -- sites (never to search engines); User-Agent, Host and Cookie cannot be
  -- set here. Cookies the sites set are kept per crawl in the crawl
  -- directory and sent back, also after a resume. `per_ip = true` keeps
  -- `delay` per IP address as well as per host, so host names on one server
  -- are paced as one (off by default: a CDN puts unrelated sites on one
  -- address; see docs/politeness.md).
  politeness = {
    delay          = "2s",
    -- per_ip      = false,
    timeout        = "30s",
    max_body_bytes = 2 * 1024 * 1024,
    -- user_agent  = "dwcrawl/0.1 (+https://github.com/dwcrawl/dwcrawl)",
    headers        = { ["Accept-Language"] = "en-US,en;q=0.8" },
  },

  -- What the crawl may fetch. `allow_hosts` and `deny_hosts` are globs on
  -- the host name in which * matches any characters ("*.example.com": the
  -- subdomains of example.com); `allow` and `deny` are regular expressions
  -- (Go RE2 syntax) searched in the whole URL. A URL is in scope when its
  -- host matches an allow_hosts glob (or there is none) and no deny_hosts
  -- glob, and the URL matches an allow pattern (or there is none) and no
  -- deny pattern. `max_pages_per_host` caps the pages fetched from one host
  -- (0: no cap). A refused URL is not fetched; `dwcrawl failures` lists it
  -- with cause "scope".
  -- For example:
  --   deny_hosts = { "*.facebook.com", "*.youtube.com" },
  --   deny       = { "[?&]sessionid=", "/(cart|checkout)([/?]|$)" },
  scope = {
    allow_hosts        = {},
    deny_hosts         = {},
    allow              = {},
    deny               = {},
    max_pages_per_host = 0,
  },

  -- Sitemaps (the sitemaps.org files a site lists in robots.txt, and
  -- /sitemap.xml; index files and gzip are read) add the URLs of the site
  -- they list to its in-site frontier, at depth 1.
  sitemaps = { enabled = true, max_files = 5, max_urls = 500 },

  -- Post-query probing (off while queries = 0). A searchable form whose
  -- domain the classifiers cannot tell from its own text (a bare "Search"
  -- box) is asked queries - 1 of the keywords above, in order, and one
  -- nonsense term; from how the answers differ (records listed, the total
  -- shown, "no results" pages, redirects to a login page, whether the
  -- records read like the topic) it is judged a database of the topic, a
  -- generic site search or not a database; `dwcrawl forms` shows the
  -- decision and its evidence. Only forms classified searchable are ever
  -- submitted (never login, registration, order or contact forms), through
  -- the crawl's fetcher (robots.txt and the delay above apply). budget
  -- bounds the probe queries of the whole crawl; the crawl summary counts
  -- them. `dwcrawl classify --probe --profile domains/auto.lua URL` probes
  -- the forms of one page.
  probe = { queries = 0, budget = 200 },

  -- Result pages of single sites (`dwcrawl surface --form`): CSS selectors
  -- that replace the reader's inference for the forms of one host (a host
  -- name, "*.example.com" or host:port). `records` matches each record,
  -- `record_link` the record's own link inside it, `next` the next-page
  -- link or submit button. `surface --explain` shows what the reader found
  -- (docs/surface.md). For example:
  --   sites = { ["cars.example.com"] = { records = "ul.results > li",
  --             record_link = "a.title", next = "a[rel=next], a:contains('Next')" } },
  sites = {},

  strategy = "smartcrawler", -- or scdi, ache, bestfirst (--strategy overrides)
}
