-- domains/book.lua — book search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of bookstores, used-book marketplaces, library catalogues and
-- bibliographic databases (search by title, author, ISBN, publisher,
-- subject).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/book.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "book" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "book",
  description = "Searchable book forms: bookstores, used-book marketplaces, library catalogues and bibliographies",
  domain      = "book",

  -- Where the crawl starts (bare host names mean https://host/).
  -- Bookstores, used-book marketplaces and catalogues with a
  -- title/author/ISBN search form.
  seeds = {
    "www.abebooks.com",
    "www.bookfinder.com",
    "www.barnesandnoble.com",
    "www.powells.com",
    "www.alibris.com",
    "www.biblio.com",
    "www.thriftbooks.com",
    "openlibrary.org",
    "search.worldcat.org",
    "dblp.org",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "book", "books", "author", "title", "isbn", "publisher", "edition", "paperback", "hardcover",
    "used books", "rare books", "bookstore", "library", "catalog", "textbook", "fiction",
    "bibliography", "publication",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = {
      "books", "bookstore", "used books", "rare books", "library catalog", "bibliography",
    },
    negative = {
      "book a table", "book now", "booking", "facebook", "notebook", "bookkeeping", "bookmaker",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "search", "advanced search", "books", "catalog", "browse", "find a book", "titles", "authors",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "title", "author", "isbn", "keywords", "publisher", "subject", "edition", "binding",
      "year published", "format",
    },
    examples = {
      [[<form action="/servlet/SearchResults" method="get">
          <input name="an" placeholder="Author">
          <input name="tn" placeholder="Title">
          <input name="isbn" placeholder="ISBN">
          <input name="pn" placeholder="Publisher">
          <select name="bi"><option value="">Any binding</option><option value="h">Hardcover</option><option value="s">Softcover</option></select>
          <button type="submit">Find books</button>
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
