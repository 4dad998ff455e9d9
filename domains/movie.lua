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

  -- Reverse searching, the stop-early criteria SC1–SC5, ranking, learning,
  -- scope, sitemaps and budgets keep their defaults: auto.lua spells out
  -- every setting and `dwcrawl profile check` prints the resolved values.
  -- Reverse search uses the first engine whose environment is set
  -- (SEARXNG_URL; BRAVE_API_KEY; GOOGLE_API_KEY and GOOGLE_CSE_ID); with
  -- --testbed the simulated engine.
  reverse    = { plugins = { "search/searxng", "search/brave", "search/google" } },
  politeness = { delay = "2s" },
}
