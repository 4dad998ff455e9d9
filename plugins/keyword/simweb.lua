-- keyword/simweb: the JSON search API of a hidden database served by
-- testbed/hiddendb (the simulated web's databases, `dwcrawl bench`, tests).
--
-- API: GET {url}/api/search?q=QUERY&page=N ->
--   {"query":, "page":, "page_size":, "k":, "total": n|null, "next": bool,
--    "records": [{"id":, "url":, "fields": {"name": "value", ...}, "text":}]}
-- Search is conjunctive over the indexed fields, stop words are ignored, and
-- no query reaches beyond its top k; every answer reports k and the page
-- size, which the adapter learns (Info().K after the first query).
--
-- Variables: url = the database's base URL (http://host/db) or its API
-- endpoint (http://host/db/api/search); DWCRAWL_KEYWORD_URL when not given.
local common = require("search._common")

local function endpoint(base)
  base = base:gsub("/+$", "")
  if base:match("/api/search$") then return base end
  return base .. "/api/search"
end

local function positive(n)
  n = tonumber(n)
  if n and n >= 1 and n == math.floor(n) then return n end
  return nil
end

return dw.plugin{
  kind        = "keyword",
  name        = "simweb",
  version     = "1.0.0",
  description = "hidden database JSON API of testbed/hiddendb (simulated web, tests); url = http://host/db",
  env         = { "DWCRAWL_KEYWORD_URL" },
  vars        = {
    url = { env = "DWCRAWL_KEYWORD_URL", required = true,
            help = "base URL of the database, e.g. http://127.0.0.1:8080/db" },
  },
  k           = nil, -- reported by every answer
  page_size   = nil,
  conjunctive = true,
  stopwords   = true,

  search = function(query, page, vars)
    local url = dw.url.build(endpoint(vars.url), { q = query, page = page })
    local data, err = common.get_json(url, nil, "hidden database API")
    if not data then return err end
    if type(data.records) ~= "table" then
      return { error = "unavailable", message = "hidden database API: the reply has no records list" }
    end
    local out = {}
    for _, r in ipairs(data.records) do
      out[#out + 1] = {
        id = tostring(r.id),
        url = (type(r.url) == "string" and r.url ~= "") and r.url or nil,
        fields = r.fields,
        text = r.text,
      }
    end
    return {
      records = out,
      total = tonumber(data.total),
      next = data.next == true,
      k = positive(data.k),
      page_size = positive(data.page_size),
    }
  end,
}
