-- A scripted keyword plugin for the adapter tests: the query picks the
-- behaviour, "mode:n" makes the first n calls misbehave.
local faults = require("search._faults")
local calls = 0

local function ok(q, page, vars)
  local recs = {
    { id = "a" .. page, url = "https://db.example/a" .. page, fields = { title = "A " .. q, year = 2015, open = true } },
    { id = 7, fields = { title = "seven" }, text = "explicit text" },
    { url = "https://db.example/url-only" },
  }
  local out = { records = recs, total = 42, next = page < 3 }
  if page == 2 then out.k, out.page_size = 77, 3 end
  return out
end

return dw.plugin{
  kind = "keyword",
  name = "fake",
  version = "1.2.0",
  description = "scripted keyword plugin (tests)",
  env = { "FAKE_TOKEN" },
  vars = {
    base = { env = "FAKE_KW_URL", required = true, help = "base URL" },
    mode = { default = "plain" },
    note = "free text",
  },
  k = 100,
  page_size = 3,
  conjunctive = false,
  stopwords = true,
  min_interval = 0,

  search = function(q, page, vars)
    calls = calls + 1
    local mode, fault = faults(calls, q, "FAKE_TOKEN is not set")
    if fault then
      return fault
    elseif mode == "notable" then
      return 42
    elseif mode == "nested" then
      return { records = { { id = "x", fields = { authors = { "a", "b" } } } } }
    elseif mode == "noid" then
      return { records = { { fields = { title = "t" } } } }
    elseif mode == "badurl" then
      return { records = { { id = "x", url = "ftp://db.example/x" } } }
    elseif mode == "badkey" then
      return { records = { { id = "x", titel = "t" } } }
    elseif mode == "badtop" then
      return { recs = {} }
    elseif mode == "norecords" then
      return { next = false }
    elseif mode == "badtotal" then
      return { records = {}, total = -1 }
    elseif mode == "badk" then
      return { records = {}, k = 2.5 }
    elseif mode == "notlist" then
      return { records = { a = 1 } }
    elseif mode == "dup" then
      return { records = { { id = "d" }, { id = "d", text = "again" }, { id = "e" } }, next = false }
    elseif mode == "vars" then
      vars.base = "changed" -- a plugin may scribble on its copy
      return { records = { { id = "v", fields = vars } } }
    elseif mode == "loop" then
      while true do end
    end
    return ok(q, page, vars)
  end,

  fetch = function(rec, vars)
    if rec.url and rec.url:find("broken", 1, true) then
      return { error = "unavailable", message = "detail page down" }
    end
    return { fields = { detail = "yes", title = rec.fields.title .. " (full)" }, text = "full text of " .. rec.id }
  end,

  check = function(vars)
    if vars.mode == "off" then return "mode is off" end
  end,
}
