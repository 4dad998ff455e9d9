-- search/searxng: a SearXNG metasearch instance through its JSON API (run
-- your own: public instances usually disable JSON and rate-limit bots).
--
-- API: GET {SEARXNG_URL}/search?q=QUERY&format=json&pageno=N ->
--   {"query":, "number_of_results": n (0 when unknown),
--    "results": [{"url":, "title":, "content":, "engine":, ...}], ...}
-- The JSON format must be enabled in the instance's settings.yml:
--   search:
--     formats: [html, json]
-- otherwise SearXNG answers 403 Forbidden. It does not say whether a next
-- page exists: a page with results is taken to have a successor.
--
-- Environment:
--   SEARXNG_URL      base URL of the instance, e.g. http://localhost:8888 (required)
--   SEARXNG_ENGINES  optional comma-separated engine list (engines= parameter)
--
-- Reverse search: SearXNG forwards the query to its engines, none of which
-- reliably supports link:, so link(url) searches for pages that mention the
-- host, other than the site itself: "example.com" -site:example.com.
local common = require("search._common")

local function base()
  local b = common.base("SEARXNG_URL")
  if not b then
    return nil, { error = "config", message = "environment variable SEARXNG_URL is not set (the base URL of your SearXNG instance, e.g. http://localhost:8888)" }
  end
  return b
end

local function query(q, page)
  local b, err = base()
  if not b then return err end
  local params = { q = q, format = "json", pageno = page or 1 }
  local engines = dw.env("SEARXNG_ENGINES")
  if engines then params.engines = engines end
  local data
  data, err = common.get_json(dw.url.build(b .. "/search", params), nil, "SearXNG")
  if not data then
    if err.error == "config" then
      err.message = err.message .. " (is the json format enabled in settings.yml, search.formats: [html, json]?)"
    end
    return err
  end
  local out = {}
  for _, r in ipairs(data.results or {}) do
    if type(r.url) == "string" then
      out[#out + 1] = { url = r.url, title = common.text(r.title), snippet = common.text(r.content) }
    end
  end
  local total = tonumber(data.number_of_results)
  if total == 0 and #out > 0 then total = nil end -- 0 means "not reported"
  return { results = out, next = #out > 0, total = total }
end

return dw.plugin{
  kind         = "search",
  name         = "searxng",
  version      = "1.0.0",
  description  = "SearXNG metasearch instance (JSON API); SEARXNG_URL",
  env          = { "SEARXNG_URL", "SEARXNG_ENGINES" },
  min_interval = 1.0, -- be gentle with the engines behind the instance
  max_page     = 20,

  check = function()
    local _, err = base()
    return err and err.message
  end,

  search = query,

  link = function(url, page)
    return query(common.mention_query(url), page)
  end,

  site = function(host, page)
    return query("site:" .. common.host(host), page)
  end,
}
