-- A scripted search plugin for the adapter tests: the query picks the
-- behaviour, "mode:n" makes the first n calls misbehave.
local faults = require("search._faults")
local calls = 0

local function ok(q, page)
  return { results = { { url = "https://a.example/" .. page, title = "A " .. q, snippet = "s" } }, next = page < 3, total = 42 }
end

return dw.plugin{
  kind = "search",
  name = "fake",
  version = "1.0.0",
  env = { "FAKE_KEY" },
  min_interval = 0,
  max_page = 5,
  search = function(q, page)
    calls = calls + 1
    local mode, fault = faults(calls, q, "FAKE_KEY is not set")
    if fault then
      return fault
    elseif mode == "unsupported" then
      return { error = "unsupported" }
    elseif mode == "notable" then
      return "nope"
    elseif mode == "nourl" then
      return { results = { { title = "no url" } } }
    elseif mode == "badkey" then
      return { results = {}, nxt = true }
    elseif mode == "badcode" then
      return { error = "weird" }
    elseif mode == "badnext" then
      return { results = {}, next = "yes" }
    elseif mode == "noresults" then
      return { next = false }
    elseif mode == "loop" then
      while true do end
    elseif mode == "echo" then
      return { results = { { url = "https://echo.example/?q=" .. dw.url.escape(q) .. "&p=" .. page } }, next = false }
    end
    return ok(q, page)
  end,
}
