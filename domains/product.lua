-- domains/product.lua — product search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of online retailers, marketplaces and price-comparison sites
-- (search by keywords, category, brand, price range).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/product.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "product" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "product",
  description = "Searchable product forms: online stores, marketplaces and price comparison",
  domain      = "product",

  -- Where the crawl starts (bare host names mean https://host/). Online
  -- retailers, marketplaces and price-comparison sites with a product
  -- search box and category/brand/price filters.
  seeds = {
    "www.ebay.com",
    "www.walmart.com",
    "www.bestbuy.com",
    "www.target.com",
    "www.newegg.com",
    "www.bhphotovideo.com",
    "www.homedepot.com",
    "www.pricegrabber.com",
    "www.bizrate.com",
    "camelcamelcamel.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "product", "products", "shop", "shopping", "buy", "price", "compare prices", "deals", "sale",
    "brand", "catalog", "electronics", "appliances", "free shipping", "in stock", "reviews", "model",
    "store",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "shop", "online store", "compare prices", "deals", "buy online", "catalog" },
    negative = {
      "product management jobs", "product design course", "by-product", "mathematics", "cross product",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "shop", "search", "departments", "categories", "browse", "products", "deals", "compare",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "keywords", "search products", "category", "department", "brand", "min price", "max price",
      "condition", "sort by", "model number",
    },
    examples = {
      [[<form action="/search" method="get">
          <input name="q" placeholder="Search products">
          <select name="category"><option value="">All departments</option><option>Electronics</option><option>Home &amp; Kitchen</option></select>
          <input name="minPrice" placeholder="Min $"> <input name="maxPrice" placeholder="Max $">
          <button type="submit">Search</button>
        </form>]],
    },
  },

  -- Reverse searching (SmartCrawler Algorithm 1) when the site frontier runs
  -- low. "search/simweb" is the simulated engine; on the real web use
  -- "search/searxng" (SEARXNG_URL), "search/brave" (BRAVE_API_KEY) or
  -- "search/google" (GOOGLE_API_KEY, GOOGLE_CSE_ID). Keys stay in the
  -- environment, never in this file.
  reverse = {
    plugin      = "search/simweb",
    threshold   = 50,
    min_links   = 3,
    max_queries = 20,
  },

  -- Stop-early criteria of in-site exploring (SmartCrawler §3.3).
  stop = {
    max_depth                   = 5,   -- SC1
    max_pages_per_depth         = 100, -- SC2
    max_forms_per_depth         = 5,   -- SC3
    max_pages_no_form_per_depth = 6,   -- SC4
    max_pages_no_form           = 50,  -- SC5
    max_pages_per_site          = 300,
  },

  rank  = { alpha = 0.5, top_k = 20 },             -- alpha*ST + (1-alpha)*log(1+SF)
  learn = { sites_every = 50, forms_every = 100 }, -- rebuild FSS / FSL

  budget = { pages = 0, sites = 0, duration = "0s" }, -- 0 = no limit

  politeness = {
    delay          = "2s",
    timeout        = "30s",
    max_body_bytes = 2 * 1024 * 1024,
  },

  strategy = "smartcrawler",
}
