-- domains/airfare.lua — flight search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of airlines, online travel agencies and fare comparison sites
-- (search by origin, destination, dates, passengers, cabin).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/airfare.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "airfare" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "airfare",
  description = "Searchable flight and airfare forms: airlines, travel agencies and fare comparison sites",
  domain      = "airfare",

  -- Where the crawl starts (bare host names mean https://host/).
  -- Well-known flight search sites; each has a flight search form on or
  -- near its home page.
  seeds = {
    "www.kayak.com",
    "www.expedia.com",
    "www.skyscanner.com",
    "www.cheapflights.com",
    "www.momondo.com",
    "www.priceline.com",
    "www.orbitz.com",
    "www.travelocity.com",
    "www.cheapoair.com",
    "www.southwest.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "airfare", "cheap flights", "flight", "flights", "airline", "airport", "fare", "round trip",
    "one way", "departure", "return", "destination", "passengers", "economy", "business class",
    "nonstop", "ticket", "book flights",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "cheap flights", "airfare", "flight deals", "airline tickets", "fly" },
    negative = {
      "flight school", "flight simulator", "pilot training", "drone", "air conditioning", "airsoft",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "flights", "search flights", "book", "deals", "fares", "find flights", "cheap flights",
      "destinations",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "from", "to", "origin", "destination", "depart", "return", "departure date", "return date",
      "passengers", "adults", "cabin class", "round trip", "one way",
    },
    examples = {
      [[<form action="/flights/search" method="get">
          <label><input type="radio" name="trip" value="rt" checked> Round trip</label>
          <label><input type="radio" name="trip" value="ow"> One way</label>
          <input name="origin" placeholder="From (city or airport)">
          <input name="destination" placeholder="To (city or airport)">
          <input type="date" name="depart"> <input type="date" name="return">
          <select name="adults"><option>1 adult</option><option>2 adults</option></select>
          <select name="cabin"><option>Economy</option><option>Business</option></select>
          <button type="submit">Search flights</button>
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
