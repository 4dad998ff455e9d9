-- search/simweb: the simulated web's search engine (testbed/simweb), used by
-- --testbed runs, tests and benchmarks. It understands plain keywords
-- (conjunctive), "site:HOST" and "link:URL", so reverse search asks it for
-- link:URL directly.
--
-- API: GET {base}/search?q=QUERY&format=json&page=N ->
--   {"query":, "page":, "page_size":, "total": reachable results (capped),
--    "estimated_total": all matches, "next": bool,
--    "results": [{"rank":, "url":, "title":, "snippet":}]}
-- It answers 429 with a Retry-After header when queried too fast.
--
-- Environment: DWCRAWL_SIMWEB_SEARCH overrides the base URL
-- (default http://search.simweb, which the testbed transport serves).
local common = require("search._common")

local DEFAULT_BASE = "http://search.simweb"

local function query(q, page)
  local base = common.base("DWCRAWL_SIMWEB_SEARCH", DEFAULT_BASE)
  local url = dw.url.build(base .. "/search", { q = q, format = "json", page = page or 1 })
  local data, err = common.get_json(url, nil, "simweb search")
  if not data then return err end
  local out = {}
  for _, r in ipairs(data.results or {}) do
    if type(r.url) == "string" then
      out[#out + 1] = { url = r.url, title = common.text(r.title), snippet = common.text(r.snippet) }
    end
  end
  return { results = out, next = data.next == true, total = tonumber(data.estimated_total or data.total) }
end

return dw.plugin{
  kind        = "search",
  name        = "simweb",
  version     = "1.0.0",
  description = "simulated web search engine (testbed): keywords, site:HOST, link:URL",
  env         = { "DWCRAWL_SIMWEB_SEARCH" },

  search = query,

  -- Pages linking to url: the engine has a real link: operator.
  link = function(url, page)
    return query("link:" .. url, page)
  end,

  site = function(host, page)
    return query("site:" .. host, page)
  end,
}
