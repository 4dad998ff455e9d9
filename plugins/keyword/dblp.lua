-- keyword/dblp: the publication search API of the dblp computer science
-- bibliography (https://dblp.org/faq/How+to+use+the+dblp+search+API.html).
--
-- API: GET {url}?q=QUERY&format=json&h=PAGE_SIZE&f=OFFSET ->
--   {"result": {"status": {"@code": "200"}, "hits": {"@total": "1234",
--     "@sent": "100", "@first": "0", "hit": [{"@id": "123", "info": {
--       "authors": {"author": [{"@pid": "..", "text": "Name"}]},  -- an object for one author
--       "title":, "venue": "VLDB" (or a list), "year":, "type":, "key":,
--       "doi":, "ee":, "url": "https://dblp.org/rec/KEY"}}]}}}
-- Every query word must match (as a prefix of a word: conjunctive); dblp
-- serves no hit beyond the first 10000 of a query (f + h <= 10000), so
-- k = 10000. It answers HTTP 429 with Retry-After when queried too fast.
--
-- Variables: url = the API endpoint (DBLP_API_URL, default
-- https://dblp.org/search/publ/api).
local common = require("search._common")

local PAGE_SIZE = 100
local K = 10000

-- list(x): a JSON value that is an object for one item and an array for
-- several, as an array.
local function list(x)
  if x == nil then return {} end
  if type(x) ~= "table" or (x[1] == nil and next(x) ~= nil) then return { x } end
  return x
end

local function names(authors)
  local out = {}
  for _, a in ipairs(list(authors and authors.author)) do
    local name = type(a) == "table" and a.text or a
    if type(name) == "string" then
      -- dblp tells homonyms apart with a number: "Wei Wang 0001".
      out[#out + 1] = (name:gsub("%s+%d%d%d%d$", ""))
    end
  end
  return table.concat(out, " and ")
end

local function str(x)
  if type(x) == "table" then
    local parts = {}
    for _, v in ipairs(x) do parts[#parts + 1] = tostring(v) end
    return table.concat(parts, ", ")
  end
  if x == nil then return nil end
  return tostring(x)
end

local function record(hit)
  local info = hit.info or {}
  local f = {
    title = common.text(str(info.title)),
    authors = names(info.authors),
    venue = str(info.venue),
    year = str(info.year),
    type = str(info.type),
    key = str(info.key),
    doi = str(info.doi),
    ee = str(info.ee),
    pages = str(info.pages),
  }
  local text = {}
  for _, k in ipairs({ "title", "authors", "venue", "year" }) do
    if f[k] and f[k] ~= "" then text[#text + 1] = f[k] end
  end
  local url = info.url
  if type(url) ~= "string" and f.key then url = "https://dblp.org/rec/" .. f.key end
  return { id = f.key or str(hit["@id"]), url = url, fields = f, text = table.concat(text, " ") }
end

return dw.plugin{
  kind         = "keyword",
  name         = "dblp",
  version      = "1.0.0",
  description  = "dblp publication search API (conjunctive, top 10000, 100 per page)",
  env          = { "DBLP_API_URL" },
  vars         = {
    url = { env = "DBLP_API_URL", default = "https://dblp.org/search/publ/api", help = "the publication search API endpoint" },
  },
  k            = K,
  page_size    = PAGE_SIZE,
  conjunctive  = true,
  stopwords    = false,
  min_interval = 1.0, -- dblp asks API users to go slowly

  search = function(query, page, vars)
    local first = (page - 1) * PAGE_SIZE
    if first >= K then return { records = {}, next = false } end
    local h = math.min(PAGE_SIZE, K - first)
    local url = dw.url.build(vars.url, { q = query, format = "json", h = h, f = first })
    local data, err = common.get_json(url, nil, "dblp")
    if not data then return err end
    local result = data.result
    if type(result) ~= "table" then
      return { error = "unavailable", message = "dblp: the reply has no result object" }
    end
    local status = result.status and tonumber(result.status["@code"])
    if status and status ~= 200 then
      return { error = "failed", message = "dblp: status " .. status .. " " .. tostring(result.status.text) }
    end
    local hits = result.hits or {}
    local out = {}
    for _, hit in ipairs(list(hits.hit)) do
      if type(hit) == "table" then out[#out + 1] = record(hit) end
    end
    local total = tonumber(hits["@total"])
    return {
      records = out,
      total = total,
      next = #out > 0 and total ~= nil and first + #out < math.min(total, K),
    }
  end,
}
