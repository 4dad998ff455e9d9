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
  -- sites. "search/simweb" is the simulated engine (offline, testbed); on the
  -- real web use a plugin for an engine you can reach, e.g. "search/searxng"
  -- (your own instance, SEARXNG_URL), "search/brave" (BRAVE_API_KEY) or
  -- "search/google" (GOOGLE_API_KEY, GOOGLE_CSE_ID). API keys are read from
  -- the environment by the plugin, never written here.
  reverse = {
    plugin      = "search/simweb",
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
  politeness = {
    delay          = "2s",
    timeout        = "30s",
    max_body_bytes = 2 * 1024 * 1024,
  },

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

  strategy = "smartcrawler", -- or scdi, ache, bestfirst (--strategy overrides)
}
