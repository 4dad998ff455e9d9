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

  -- Reverse searching, the stop-early criteria SC1–SC5, ranking, learning,
  -- scope, sitemaps and budgets keep their defaults: auto.lua spells out
  -- every setting and `dwcrawl profile check` prints the resolved values.
  -- Reverse search uses the first engine whose environment is set
  -- (SEARXNG_URL; BRAVE_API_KEY; GOOGLE_API_KEY and GOOGLE_CSE_ID); with
  -- --testbed the simulated engine.
  reverse    = { plugins = { "search/searxng", "search/brave", "search/google" } },
  politeness = { delay = "2s" },
}
