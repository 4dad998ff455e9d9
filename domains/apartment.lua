-- domains/apartment.lua — apartment-rental search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of apartment-listing sites, rental marketplaces and property
-- managers (search by city or zip, rent range, bedrooms, pets).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/apartment.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "apartment" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "apartment",
  description = "Searchable apartment-rental forms: listing sites, rental marketplaces and property managers",
  domain      = "apartment",

  -- Where the crawl starts (bare host names mean https://host/).
  -- Apartment and rental-housing listing sites; each has a location
  -- search with rent and bedroom filters.
  seeds = {
    "www.apartments.com",
    "www.zillow.com",
    "www.trulia.com",
    "www.rent.com",
    "www.apartmentguide.com",
    "hotpads.com",
    "www.zumper.com",
    "www.apartmentlist.com",
    "www.padmapper.com",
    "www.forrent.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "apartment", "apartments", "apartments for rent", "rent", "rentals", "lease", "bedroom",
    "bedrooms", "bath", "studio", "condo", "townhouse", "sqft", "pet friendly", "tenant", "landlord",
    "floor plan", "monthly rent",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "apartments for rent", "rentals", "apartment finder", "rent", "leasing" },
    negative = {
      "car rental", "rent a car", "vacation rental", "hotel", "mortgage", "home loans",
      "furniture rental",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "search", "find apartments", "rentals", "listings", "browse", "apartments", "for rent",
      "neighborhoods",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "city", "zip", "neighborhood", "min rent", "max rent", "price", "bedrooms", "beds", "baths",
      "pets", "move-in date", "square feet",
    },
    examples = {
      [[<form action="/apartments/search" method="get">
          <input name="location" placeholder="City, neighborhood or zip">
          <select name="minRent"><option value="">No min</option><option>500</option></select>
          <select name="maxRent"><option value="">No max</option><option>2000</option></select>
          <select name="beds"><option value="">Any beds</option><option>Studio</option><option>1+</option><option>2+</option></select>
          <label><input type="checkbox" name="pets" value="1"> Pet friendly</label>
          <button type="submit">Search apartments</button>
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
