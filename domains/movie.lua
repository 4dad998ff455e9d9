-- domains/movie.lua — movie search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of film databases, review sites, showtime and streaming guides
-- (search by title, actor, director, genre, year).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/movie.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "movie" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "movie",
  description = "Searchable movie forms: film databases, reviews, showtimes and streaming guides",
  domain      = "movie",

  -- Where the crawl starts (bare host names mean https://host/). Film
  -- databases, review aggregators and showtime/streaming guides with a
  -- title/person search or an advanced search form.
  seeds = {
    "www.imdb.com",
    "www.themoviedb.org",
    "www.rottentomatoes.com",
    "www.metacritic.com",
    "letterboxd.com",
    "www.allmovie.com",
    "www.boxofficemojo.com",
    "www.fandango.com",
    "www.justwatch.com",
    "www.moviefone.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "movie", "movies", "film", "films", "cinema", "actor", "actress", "director", "cast", "genre",
    "trailer", "review", "rating", "box office", "showtimes", "dvd", "release date", "streaming",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "movies", "film database", "movie reviews", "showtimes", "cinema", "films" },
    negative = {
      "movie maker software", "video editing", "plastic film", "film camera repair",
      "screen protector",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "search", "advanced search", "movies", "films", "browse", "genres", "find", "showtimes",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "title", "actor", "director", "genre", "year", "release date", "rating", "keywords", "cast",
      "country", "language",
    },
    examples = {
      [[<form action="/search/title" method="get">
          <input name="title" placeholder="Movie title">
          <input name="name" placeholder="Actor or director">
          <select name="genre"><option value="">Any genre</option><option>Comedy</option><option>Drama</option><option>Horror</option></select>
          <input name="year_from" placeholder="From year"> <input name="year_to" placeholder="To year">
          <button type="submit">Search movies</button>
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
