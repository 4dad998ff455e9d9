-- domains/music.lua — music search forms.
--
-- A domain profile tells `dwcrawl run` what to look for: the searchable
-- forms of music databases, record stores, lyrics and concert sites
-- (search by artist, album, song, label, genre).
--
-- It returns dw.domain{...}; keys left out keep their defaults, and
-- `dwcrawl profile check domains/music.lua` prints every resolved setting.
-- See domains/auto.lua for a commented walk through every key.
--
-- With --testbed the seeds come from the simulated web's "music" sites and
-- reverse search goes to the simulated search engine, so the same file drives
-- an offline run and a real one.

return dw.domain{
  name        = "music",
  description = "Searchable music forms: discographies, record stores, lyrics and concert listings",
  domain      = "music",

  -- Where the crawl starts (bare host names mean https://host/). Music
  -- databases, record marketplaces, lyrics and concert sites with an
  -- artist/album/track search form.
  seeds = {
    "www.discogs.com",
    "www.allmusic.com",
    "musicbrainz.org",
    "www.last.fm",
    "bandcamp.com",
    "genius.com",
    "www.setlist.fm",
    "rateyourmusic.com",
    "www.songkick.com",
    "www.billboard.com",
  },

  -- Topic words: they seed the site classifier and the rankers' feature
  -- spaces until the crawl has learned its own.
  keywords = {
    "music", "album", "albums", "artist", "band", "song", "songs", "track", "lyrics", "cd", "vinyl",
    "record label", "discography", "genre", "concert", "release", "mp3", "singer",
  },

  -- Stage one (site locating): words on a home page or in a host name that
  -- make a site more or less likely to host a relevant search form.
  site = {
    keywords = { "music", "albums", "discography", "records", "lyrics", "concerts" },
    negative = {
      "music theory homework", "sheet metal", "record player repair", "musical instrument insurance",
      "ringtones",
    },
  },

  -- Stage two (in-site exploring): link words that lead toward the search
  -- form, and links to avoid.
  link = {
    keywords = {
      "search", "advanced search", "artists", "albums", "browse", "music", "releases", "find",
    },
    negative = {
      "login", "sign in", "register", "cart", "privacy", "terms", "careers", "contact", "help",
    },
  },

  -- What a relevant form looks like: field and label words, and an example.
  forms = {
    keywords = {
      "artist", "album", "song", "track", "title", "label", "genre", "year", "format", "release",
      "lyrics",
    },
    examples = {
      [[<form action="/search" method="get">
          <input name="artist" placeholder="Artist">
          <input name="release_title" placeholder="Album">
          <input name="track" placeholder="Track">
          <select name="format"><option value="">All formats</option><option>Vinyl</option><option>CD</option></select>
          <button type="submit">Search music</button>
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
