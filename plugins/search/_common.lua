-- search/_common: helpers shared by the bundled search plugins. A file whose
-- name starts with "_" is a helper module, not a plugin; load it with
--   local common = require("search._common")
-- It turns HTTP replies into the error tables of the search-plugin contract
-- (plugins/README.md): 429 -> rate_limited, 401/403 -> config,
-- 5xx or a garbled reply -> unavailable, any other status -> failed.
local M = {}

-- env(name): the variable's value, nil when unset or empty.
M.env = dw.env

-- base(var, default): a base URL from the environment variable var, or
-- default; trailing slashes removed. nil when neither is set.
function M.base(var, default)
  local v = dw.env(var) or default
  if v == nil then return nil end
  return (v:gsub("/+$", ""))
end

-- need(var, hint): the value of a required variable, or nil and a "config"
-- error table naming the variable.
function M.need(var, hint)
  local v = dw.env(var)
  if v then return v end
  local msg = "environment variable " .. var .. " is not set"
  if hint then msg = msg .. " (" .. hint .. ")" end
  return nil, { error = "config", message = msg }
end

-- retry_after(headers): seconds to wait from Retry-After (delta-seconds
-- form) or X-RateLimit-Reset (Brave sends "1, 1419704": the first window's
-- reset in seconds); nil when the reply does not say.
function M.retry_after(h)
  local ra = h and h["retry-after"]
  if ra then
    local n = tonumber(ra:match("^%s*(%d+)%s*$"))
    if n then return n end
  end
  local reset = h and h["x-ratelimit-reset"]
  if reset then
    local n = tonumber(reset:match("^%s*(%d+)"))
    if n then return n end
  end
  return nil
end

local entities = { amp = "&", lt = "<", gt = ">", quot = '"', apos = "'", nbsp = " ", ["#39"] = "'", ["#x27"] = "'" }

-- text(s): plain text of a snippet or title: tags removed, common entities
-- decoded, white space collapsed. nil and non-strings give "".
function M.text(s)
  if type(s) ~= "string" then return "" end
  s = s:gsub("<[^>]*>", "")
  s = s:gsub("&(#?%w+);", function(e)
    local num = e:match("^#(%d+)$")
    if num then
      local n = tonumber(num)
      if n and n < 128 then return string.char(n) end
    end
    return entities[e:lower()]
  end)
  s = s:gsub("%s+", " ")
  return (s:gsub("^ ", ""):gsub(" $", ""))
end

-- snip(s): the first 200 characters of a body, on one line.
function M.snip(s)
  s = M.text(s or "")
  if #s > 200 then s = s:sub(1, 197) .. "..." end
  return s
end

-- host(u): the host of a URL (or of a bare host name) without "www.".
function M.host(u)
  if not u:find("://", 1, true) then u = "http://" .. u end
  local h = dw.url.parse(u).host:lower()
  return (h:gsub("^www%.", ""))
end

-- mention_query(u): the reverse-search fallback for engines without a
-- link: operator: pages that name the host, other than the site itself.
function M.mention_query(u)
  local h = M.host(u)
  return '"' .. h .. '" -site:' .. h
end

-- get_json(url, headers, engine, describe): GET url and decode its JSON.
-- Returns the decoded value, or nil and an error table. describe(data),
-- when given, extracts the engine's error message from an error reply.
function M.get_json(url, headers, engine, describe)
  local h = { Accept = "application/json" }
  for k, v in pairs(headers or {}) do h[k] = v end
  local resp = dw.http.get(url, { headers = h, timeout = 30 })
  local ok, data = pcall(dw.json.decode, resp.body)
  if not ok then data = nil end
  local status = resp.status
  if status == 200 then
    if type(data) ~= "table" then
      return nil, { error = "unavailable", message = engine .. " sent a reply that is not a JSON object: " .. M.snip(resp.body) }
    end
    return data
  end
  local detail
  if describe and type(data) == "table" then detail = describe(data) end
  if not detail or detail == "" then detail = M.snip(resp.body) end
  local msg = engine .. ": HTTP " .. status
  if detail ~= "" then msg = msg .. ": " .. detail end
  return nil, M.status_error(resp, msg)
end

-- status_error(resp, msg): the error table for an HTTP reply whose status
-- is not a success: 429 -> rate_limited (retry_after from the headers),
-- 401/403 -> config, 5xx -> unavailable, any other -> failed.
function M.status_error(resp, msg)
  local status = resp.status
  if status == 429 then
    return { error = "rate_limited", retry_after = M.retry_after(resp.headers), message = msg }
  elseif status == 401 or status == 403 then
    return { error = "config", message = msg }
  elseif status >= 500 then
    return { error = "unavailable", retry_after = M.retry_after(resp.headers), message = msg }
  end
  return { error = "failed", message = msg }
end

return M
