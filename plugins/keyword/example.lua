-- keyword/example: a template for keyword-interface plugins and a fixture for
-- tests. It searches a fixed table of records conjunctively, two per page,
-- following the contract of plugins/README.md:
-- search(query, page) -> {records = {{id=, url=, fields={}, text=}}, total = n|nil, next = bool}.
local records = {
  { id = "1", title = "Ford Focus 2015", body = "used hatchback low mileage" },
  { id = "2", title = "Toyota Corolla 2018", body = "used sedan one owner" },
  { id = "3", title = "Ford F-150 2012", body = "used truck" },
}
local page_size = 2

local function hit(r, words)
  local text = (r.title .. " " .. r.body):lower()
  for _, w in ipairs(words) do
    if not text:find(w, 1, true) then return false end
  end
  return true
end

return dw.plugin{
  kind = "keyword",
  name = "example",
  version = "0.1.0",
  description = "fixed table of records (template and test fixture)",
  k = nil,              -- no result limit
  page_size = page_size,
  conjunctive = true,
  search = function(query, page)
    local words = {}
    for w in query:lower():gmatch("%S+") do words[#words + 1] = w end
    local all = {}
    for _, r in ipairs(records) do
      if hit(r, words) then all[#all + 1] = r end
    end
    local out, first = {}, ((page or 1) - 1) * page_size + 1
    for i = first, math.min(#all, first + page_size - 1) do
      local r = all[i]
      out[#out + 1] = { id = r.id, url = "https://records.example.test/" .. r.id,
                        fields = { title = r.title, body = r.body }, text = r.title .. " " .. r.body }
    end
    return { records = out, total = #all, next = first + page_size <= #all }
  end,
}
