-- domains/rental.lua — car-rental search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of car-rental companies and rental brokers (search by pick-up
-- location, dates and times, drop-off, car class).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/rental.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "rental" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "rental",
  description = "Searchable car-rental forms: rental companies, brokers and comparison sites",
  domain      = "rental",

  -- Where the crawl starts (bare host names mean https://host/).
  -- Car-rental companies and brokers; each has a pick-up/drop-off
  -- reservation search form on its home page.
  seeds = {
    "www.enterprise.com",
    "www.hertz.com",
    "www.avis.com",
    "www.budget.com",
    "www.nationalcar.com",
    "www.alamo.com",
    "www.sixt.com",
    "www.thrifty.com",
    "www.rentalcars.com",
    "www.carrentals.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "car rental", "rent a car", "rental car", "car hire", "pick-up", "drop-off", "pickup location",
    "return location", "airport", "daily rate", "unlimited mileage", "compact", "suv", "minivan",
    "reservation", "rental",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "car rental", "rent a car", "car hire", "rental cars", "rentals" },
    negative = {
      "apartment", "apartments for rent", "equipment rental", "tuxedo rental", "vacation rental",
      "used cars for sale", "house for rent",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "reservations", "book", "rent", "search", "locations", "deals", "car rental", "find a car",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "pick-up location", "drop-off location", "pick-up date", "return date", "pick-up time",
      "return time", "car class", "driver age", "airport", "coupon",
    },
    examples = {
      [[<form action="/reserve" method="post">
          <input name="pickupLocation" placeholder="Pick-up location (airport, city or zip)">
          <input name="returnLocation" placeholder="Return to a different location">
          <input type="date" name="pickupDate"> <select name="pickupTime"><option>10:00 AM</option></select>
          <input type="date" name="returnDate"> <select name="returnTime"><option>10:00 AM</option></select>
          <select name="carClass"><option value="">All vehicles</option><option>Compact</option><option>SUV</option></select>
          <button type="submit">Search cars</button>
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
