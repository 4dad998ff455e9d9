-- testbed/lab/profiles/myth.lua — Mythology entries of the lab's gitit wiki (WordNet glosses) (a topic of the lab of real web software).
--
-- Crawls the lab through the real-web path: start the lab on port 8470,
--   go run ./testbed/lab/cmd/lab -port 8470 up /tmp/dwlab-8470
-- then
--   dwcrawl run --allow-private --resolve '*.lab.test:8470:127.0.0.1' --proxy direct testbed/lab/profiles/myth.lua
-- The lab's host names exist only through --resolve, and they resolve to
-- loopback, which the address policy refuses without --allow-private.
-- testbed/lab's tests run the same crawl against a lab on any port (they
-- replace the seed) and score it against the lab's truth files.

return dw.domain{
  name        = "lab-myth",
  description = "Mythology entries of the lab's gitit wiki (WordNet glosses)",
  domain      = "mythology",

  seeds = { "http://hub.lab.test:8470/" },

  keywords = { "mythology", "myth", "god", "goddess", "hero", "greek", "norse", "roman", "legend", "deity", "wiki" },
  site     = { keywords = { "mythology wiki", "mythology", "myth" } },
  forms    = { keywords = { "page", "mythology", "search" } },

  -- the lab's web: its hosts only (the applications' footers link to
  -- github.com and the like, which a lab without network cannot reach)
  scope = { allow_hosts = { "*.lab.test" } },

  -- reverse search needs a search engine over the lab, which it has not
  reverse = { plugins = {} },

  -- loopback servers: a short delay, robots.txt obeyed as anywhere
  politeness = { delay = "20ms", timeout = "30s" },

  budget = { pages = 600 },
}
