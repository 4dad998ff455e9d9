-- search/brave: the Brave Search API (web search).
--
-- API: GET https://api.search.brave.com/res/v1/web/search?q=QUERY&count=20&offset=P
--      header X-Subscription-Token: BRAVE_API_KEY
--   -> {"query": {"original":, "more_results_available": bool},
--       "web": {"results": [{"url":, "title":, "description":}]}}
-- offset counts pages of `count` results from 0 (at most 9), so page N is
-- offset N-1 and ten pages of 20 results are reachable. Errors come as
-- {"error": {"code": "RATE_LIMITED", "detail": "...", "status": 429}};
-- 429 carries X-RateLimit-Reset (seconds). The free plan allows one query
-- per second.
--
-- Environment:
--   BRAVE_API_KEY     subscription token (required; https://brave.com/search/api/)
--   BRAVE_SEARCH_URL  endpoint override (default the URL above; tests point it
--                     at a local server)
--
-- Reverse search: Brave has no link: operator; link(url) searches for pages
-- that mention the host, other than the site itself:
-- "example.com" -site:example.com. Brave supports site: for site(host).
local common = require("search._common")

local DEFAULT_URL = "https://api.search.brave.com/res/v1/web/search"
local COUNT = 20

local function describe(data)
  local e = type(data.error) == "table" and data.error
  if not e then return nil end
  return (e.code or "") .. (e.detail and (": " .. e.detail) or "")
end

local function query(q, page)
  local key, err = common.need("BRAVE_API_KEY", "a Brave Search API subscription token, https://brave.com/search/api/")
  if not key then return err end
  page = page or 1
  local url = dw.url.build(common.base("BRAVE_SEARCH_URL", DEFAULT_URL), { q = q, count = COUNT, offset = page - 1 })
  local data
  data, err = common.get_json(url, { ["X-Subscription-Token"] = key }, "Brave Search", describe)
  if not data then return err end
  local out = {}
  local web = type(data.web) == "table" and data.web.results or {}
  for _, r in ipairs(web) do
    if type(r.url) == "string" then
      out[#out + 1] = { url = r.url, title = common.text(r.title), snippet = common.text(r.description) }
    end
  end
  local more = type(data.query) == "table" and data.query.more_results_available == true
  return { results = out, next = more and page < 10 }
end

return dw.plugin{
  kind         = "search",
  name         = "brave",
  version      = "1.0.0",
  description  = "Brave Search API; BRAVE_API_KEY",
  env          = { "BRAVE_API_KEY", "BRAVE_SEARCH_URL" },
  min_interval = 1.0, -- the free plan's rate
  max_page     = 10,  -- offset 0..9

  check = function()
    local _, err = common.need("BRAVE_API_KEY", "a Brave Search API subscription token")
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
