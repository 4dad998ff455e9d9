-- domains/people.lua — people search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of people-search and white-pages directories, genealogy and
-- public-record databases, and biography sites (search by first and last
-- name, city, state, age).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/people.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "people" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "people",
  description = "Searchable people forms: white pages, people-search, genealogy and biography databases",
  domain      = "people",

  -- Where the crawl starts (bare host names mean https://host/).
  -- People-search, white-pages and genealogy sites; each has a first
  -- name/last name/location search form.
  seeds = {
    "www.whitepages.com",
    "www.spokeo.com",
    "www.peoplefinders.com",
    "www.truepeoplesearch.com",
    "www.fastpeoplesearch.com",
    "www.411.com",
    "www.familysearch.org",
    "www.findagrave.com",
    "www.ancestry.com",
    "www.biography.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "people search", "find people", "person", "first name", "last name", "phone number", "address",
    "white pages", "public records", "background check", "genealogy", "ancestry", "family tree",
    "obituary", "biography", "born", "relatives",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = {
      "people search", "white pages", "find people", "genealogy", "public records", "people finder",
    },
    negative = {
      "people magazine", "celebrity gossip", "people management", "human resources software", "dating",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "search", "find people", "people search", "lookup", "records", "directory", "search records",
      "advanced search",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "first name", "last name", "middle name", "city", "state", "age", "phone", "address",
      "birth year", "death year", "country",
    },
    examples = {
      [[<form action="/name" method="get">
          <input name="firstName" placeholder="First name">
          <input name="lastName" placeholder="Last name" required>
          <input name="location" placeholder="City, state or zip">
          <select name="age"><option value="">Any age</option><option>18-30</option><option>31-50</option></select>
          <button type="submit">Search people</button>
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
