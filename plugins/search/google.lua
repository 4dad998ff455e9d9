-- search/google: Google Programmable Search Engine, Custom Search JSON API.
--
-- API: GET https://www.googleapis.com/customsearch/v1?cx=GOOGLE_CSE_ID&q=QUERY&start=S&num=10
--      (the API key is sent in the X-Goog-Api-Key header, so it never
--      appears in a logged URL)
--   -> {"items": [{"link":, "title":, "snippet":}],
--       "queries": {"nextPage": [{"startIndex": 11, ...}]},
--       "searchInformation": {"totalResults": "1230"}}
-- start is the 1-based index of the first result; at most 100 results are
-- reachable (start <= 91), so page N is start 10(N-1)+1 and N <= 10. Create
-- the engine at https://programmablesearchengine.google.com/ with "Search
-- the entire web" on. The free quota is 100 queries a day: when it is spent
-- the API answers 429/403 "Quota exceeded ... per day", which this plugin
-- reports as rate_limited with a one-hour retry_after so the crawl gives up
-- on the engine instead of waiting.
--
-- Environment:
--   GOOGLE_API_KEY  API key (required)
--   GOOGLE_CSE_ID   the search engine ID, "cx" (required)
--   GOOGLE_CSE_URL  endpoint override (default the URL above; tests point it
--                   at a local server)
--
-- Reverse search: the link: operator is gone; the API's linkSite parameter
-- restricts results to pages linking to a host, so link(url) sends
-- linkSite=HOST with the query "HOST" -site:HOST (pages naming the host,
-- other than the site itself), which still finds linking pages where
-- linkSite is ignored.
local common = require("search._common")

local DEFAULT_URL = "https://www.googleapis.com/customsearch/v1"

local function describe(data)
  local e = type(data.error) == "table" and data.error
  if not e then return nil end
  local reason = ""
  if type(e.errors) == "table" and type(e.errors[1]) == "table" and e.errors[1].reason then
    reason = e.errors[1].reason .. ": "
  end
  return reason .. (e.message or e.status or "")
end

local function creds()
  local key, err = common.need("GOOGLE_API_KEY", "a Google Cloud API key with the Custom Search API enabled")
  if not key then return nil, nil, err end
  local cx
  cx, err = common.need("GOOGLE_CSE_ID", "the ID (cx) of a Programmable Search Engine that searches the entire web")
  if not cx then return nil, nil, err end
  return key, cx
end

local function query(q, page, extra)
  local key, cx, err = creds()
  if not key then return err end
  page = page or 1
  local params = { cx = cx, q = q, start = (page - 1) * 10 + 1, num = 10 }
  for k, v in pairs(extra or {}) do params[k] = v end
  local url = dw.url.build(common.base("GOOGLE_CSE_URL", DEFAULT_URL), params)
  local data
  data, err = common.get_json(url, { ["X-Goog-Api-Key"] = key }, "Google Custom Search", describe)
  if not data then
    -- A spent daily quota is rate limiting that no short wait cures; an
    -- invalid key is reported as 400 but is a configuration error.
    local m = (err.message or ""):lower()
    if m:find("per day", 1, true) or m:find("dailylimitexceeded", 1, true) then
      err.error, err.retry_after = "rate_limited", 3600
    elseif m:find("api key not valid", 1, true) or m:find("keyinvalid", 1, true) then
      err.error = "config"
    end
    return err
  end
  local out = {}
  for _, r in ipairs(data.items or {}) do
    if type(r.link) == "string" then
      out[#out + 1] = { url = r.link, title = common.text(r.title), snippet = common.text(r.snippet) }
    end
  end
  local total
  if type(data.searchInformation) == "table" then total = tonumber(data.searchInformation.totalResults) end
  local next = type(data.queries) == "table" and type(data.queries.nextPage) == "table" and #data.queries.nextPage > 0
  return { results = out, next = next and page < 10, total = total }
end

return dw.plugin{
  kind        = "search",
  name        = "google",
  version     = "1.0.0",
  description = "Google Programmable Search (Custom Search JSON API); GOOGLE_API_KEY, GOOGLE_CSE_ID",
  env         = { "GOOGLE_API_KEY", "GOOGLE_CSE_ID", "GOOGLE_CSE_URL" },
  max_page    = 10, -- 100 results at most

  check = function()
    local _, _, err = creds()
    return err and err.message
  end,

  search = function(q, page) return query(q, page) end,

  link = function(url, page)
    local host = common.host(url)
    return query(common.mention_query(url), page, { linkSite = host })
  end,

  site = function(host, page)
    return query("site:" .. common.host(host), page)
  end,
}
