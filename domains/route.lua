-- domains/route.lua — route and directions forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of route planners, driving-directions and distance calculators,
-- and bus, rail and trip planners (search by origin and destination).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/route.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "route" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "route",
  description = "Searchable route forms: driving directions, distance calculators and bus/rail/trip planners",
  domain      = "route",

  -- Where the crawl starts (bare host names mean https://host/). Route
  -- planners, distance calculators and ground-transport booking sites
  -- with an origin/destination form.
  seeds = {
    "www.mapquest.com",
    "www.rome2rio.com",
    "www.travelmath.com",
    "www.viamichelin.com",
    "www.wanderu.com",
    "www.amtrak.com",
    "www.greyhound.com",
    "www.distance.to",
    "www.flightconnections.com",
    "roadtrippers.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "route", "routes", "directions", "driving directions", "route planner", "trip planner", "distance",
    "mileage", "from", "to", "origin", "destination", "map", "travel time", "bus", "train", "schedule",
    "itinerary",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "directions", "route planner", "distance calculator", "trip planner", "maps" },
    negative = {
      "network routing", "router", "route 66 merchandise", "delivery route jobs", "wifi",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "directions", "route planner", "trip planner", "distance", "maps", "plan a trip", "schedules",
      "search",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "from", "to", "start", "end", "origin", "destination", "via", "departure", "date", "avoid tolls",
      "mode",
    },
    examples = {
      [[<form action="/directions" method="get">
          <input name="from" placeholder="Start: address, city or place">
          <input name="to" placeholder="Destination">
          <select name="mode"><option>Driving</option><option>Transit</option><option>Walking</option></select>
          <label><input type="checkbox" name="avoidTolls" value="1"> Avoid tolls</label>
          <button type="submit">Get directions</button>
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
