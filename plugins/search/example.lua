-- search/example: a template for search-engine plugins and a fixture for
-- tests. It answers from a fixed list of pages instead of a real engine.
-- search(query, page) returns {results = {{url=, title=, snippet=}, ...},
-- next = bool}; "site:HOST" and "link:URL" queries are understood, plain
-- words must all appear in the title or snippet.
local pages = {
  { url = "https://www.example-cars.test/", title = "Example Cars", snippet = "used cars for sale by make and model",
    links = { "https://www.example-dealer.test/" } },
  { url = "https://www.example-dealer.test/", title = "Example Dealer", snippet = "certified used car inventory",
    links = {} },
}

local function matches(p, query)
  local site = query:match("^site:(%S+)$")
  if site then return dw.url.parse(p.url).host == site end
  local link = query:match("^link:(%S+)$")
  if link then
    for _, l in ipairs(p.links) do if l == link then return true end end
    return false
  end
  local text = (p.title .. " " .. p.snippet):lower()
  for word in query:lower():gmatch("%S+") do
    if not text:find(word, 1, true) then return false end
  end
  return true
end

return dw.plugin{
  kind = "search",
  name = "example",
  version = "0.1.0",
  description = "fixed list of pages (template and test fixture)",
  search = function(query, page)
    local out = {}
    if (page or 1) == 1 then
      for _, p in ipairs(pages) do
        if matches(p, query) then
          out[#out + 1] = { url = p.url, title = p.title, snippet = p.snippet }
        end
      end
    end
    return { results = out, next = false }
  end,
}
