-- keyword/openlibrary: the Open Library search API
-- (https://openlibrary.org/dev/docs/api/search).
--
-- API: GET {url}?q=QUERY&page=N&limit=100&fields=key,title,author_name,first_publish_year,isbn ->
--   {"numFound": 629, "start": 0, "numFoundExact": true,
--    "docs": [{"key": "/works/OL27448W", "title": "The Lord of the Rings",
--              "author_name": ["J.R.R. Tolkien"], "first_publish_year": 1954,
--              "isbn": ["9780618640157", ...]}]}
-- Works are matched on all query words (conjunctive); 100 per page.
-- Record pages are https://openlibrary.org{key}.
--
-- Variables: url = the search endpoint (OPENLIBRARY_URL, default
-- https://openlibrary.org/search.json); record URLs use its scheme and host.
local common = require("search._common")

local PAGE_SIZE = 100

local function site(url)
  local u = dw.url.parse(url)
  local s = u.scheme .. "://" .. u.host
  if u.port ~= "" then s = s .. ":" .. u.port end
  return s
end

local function record(doc, base)
  local authors = {}
  for _, a in ipairs(type(doc.author_name) == "table" and doc.author_name or {}) do
    authors[#authors + 1] = tostring(a)
  end
  local isbn = type(doc.isbn) == "table" and doc.isbn[1] or nil
  local f = {
    title = common.text(doc.title),
    authors = table.concat(authors, ", "),
    year = doc.first_publish_year and tostring(doc.first_publish_year) or nil,
    isbn = isbn and tostring(isbn) or nil,
    key = doc.key,
  }
  local text = {}
  for _, k in ipairs({ "title", "authors", "year" }) do
    if f[k] and f[k] ~= "" then text[#text + 1] = f[k] end
  end
  return { id = doc.key, url = base .. doc.key, fields = f, text = table.concat(text, " ") }
end

return dw.plugin{
  kind         = "keyword",
  name         = "openlibrary",
  version      = "1.0.0",
  description  = "Open Library search API (books: works with title, authors, year, ISBN; 100 per page)",
  env          = { "OPENLIBRARY_URL" },
  vars         = {
    url = { env = "OPENLIBRARY_URL", default = "https://openlibrary.org/search.json", help = "the search endpoint" },
  },
  k            = nil, -- no documented limit
  page_size    = PAGE_SIZE,
  conjunctive  = true,
  stopwords    = false,
  min_interval = 1.0, -- Open Library asks for at most one request per second

  search = function(query, page, vars)
    local url = dw.url.build(vars.url, {
      q = query, page = page, limit = PAGE_SIZE,
      fields = "key,title,author_name,first_publish_year,isbn",
    })
    local data, err = common.get_json(url, nil, "Open Library")
    if not data then return err end
    if type(data.docs) ~= "table" then
      return { error = "unavailable", message = "Open Library: the reply has no docs list" }
    end
    local base = site(vars.url)
    local out = {}
    for _, doc in ipairs(data.docs) do
      if type(doc) == "table" and type(doc.key) == "string" then out[#out + 1] = record(doc, base) end
    end
    local total = tonumber(data.numFound or data.num_found)
    local start = tonumber(data.start) or (page - 1) * PAGE_SIZE
    return { records = out, total = total, next = #out > 0 and total ~= nil and start + #data.docs < total }
  end,
}
