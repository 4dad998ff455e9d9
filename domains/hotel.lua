-- domains/hotel.lua — hotel search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of hotel chains, booking sites and hotel comparison sites (search
-- by destination, check-in and check-out dates, rooms, guests).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/hotel.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "hotel" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "hotel",
  description = "Searchable hotel forms: hotel chains, booking agencies and hotel price comparison",
  domain      = "hotel",

  -- Where the crawl starts (bare host names mean https://host/). Hotel
  -- booking and comparison sites and large chains; each has a
  -- destination/date search form on its home page.
  seeds = {
    "www.booking.com",
    "www.hotels.com",
    "www.trivago.com",
    "www.agoda.com",
    "www.tripadvisor.com",
    "www.hotwire.com",
    "www.choicehotels.com",
    "www.marriott.com",
    "www.hilton.com",
    "www.ihg.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "hotel", "hotels", "room", "rooms", "resort", "motel", "inn", "lodging", "accommodation",
    "check-in", "check-out", "guests", "nights", "reservation", "booking", "hotel deals", "suites",
    "stars",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "hotels", "hotel deals", "book hotels", "accommodation", "resorts", "lodging" },
    negative = {
      "hotel management school", "hospitality jobs", "hotel supplies", "hotel furniture", "trivia",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "hotels", "search", "find hotels", "book", "reservations", "deals", "destinations", "stay",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "destination", "city", "check-in", "check-out", "arrival", "departure", "rooms", "guests",
      "adults", "children", "nights",
    },
    examples = {
      [[<form action="/hotels/search" method="get">
          <input name="destination" placeholder="Where are you going?">
          <input type="date" name="checkin"> <input type="date" name="checkout">
          <select name="rooms"><option>1 room</option><option>2 rooms</option></select>
          <select name="adults"><option>2 adults</option><option>1 adult</option></select>
          <button type="submit">Search hotels</button>
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
