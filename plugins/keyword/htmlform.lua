-- keyword/htmlform: drives a searchable HTML form, such as one the crawl
-- discovered, as a keyword interface.
--
-- search(query, page) fills the form's main text box with the query, keeps
-- every other control at its default value, submits the form by GET or POST
-- and reads the result page:
--
-- * Result links. With result_selector (a CSS selector of the result
--   links) that selector decides. Otherwise the links that cannot be results
--   are set aside first: navigation (every link of the form page, and links
--   inside nav, header, footer, role=navigation, or an element whose id or
--   class names a nav, menu, header, footer, breadcrumb or sidebar),
--   pagination (rel=next/prev, anchor texts such as "next", "previous",
--   "more", "»" or a page number), links back to the search itself (the
--   action's path) and non-http(s) links. Of the remaining links, the
--   results are those of the list (ol or ul: one link per li) or table (one
--   link per row) that holds the most of them; the first link of each item
--   counts. When no list or table holds any, the largest group of links
--   sharing a URL pattern (host, directory, query parameter names) is taken,
--   which finds results laid out in div blocks.
-- * Next page. next_selector, else a[rel~=next] or link[rel~=next], else the
--   first anchor whose text is "next ...", "more", "»", "›" or ">". Page n is
--   reached by following next links from page n-1 (remembered per query, so
--   reading pages in order costs one request each).
-- * Total. The first number in total_selector's text (default .total,
--   .count, .result-count, .results-count, #total, #count), else unknown.
--
-- A record is {id = url, url = url, fields = {title = anchor text,
-- snippet = the rest of the item's text}, text = the item's text}. fetch
-- reads a record's page: dt/dd pairs and th/td rows become fields.
--
-- Limits: forms driven by JavaScript, CAPTCHAs and "next" buttons that
-- submit a form (rather than a link) are not supported.
local common = require("search._common")

local NAV_CSS = table.concat({
  "nav a[href]", "header a[href]", "footer a[href]", "[role=navigation] a[href]",
  "[id*=nav] a[href]", "[class*=nav] a[href]", "[id*=menu] a[href]", "[class*=menu] a[href]",
  "[id*=header] a[href]", "[class*=header] a[href]", "[id*=footer] a[href]", "[class*=footer] a[href]",
  "[id*=breadcrumb] a[href]", "[class*=breadcrumb] a[href]", "[id*=sidebar] a[href]", "[class*=sidebar] a[href]",
}, ", ")
local TOTAL_CSS = ".total, .count, .result-count, .results-count, #total, #count"
local PAGER_WORDS = {
  ["next"] = true, ["next page"] = true, ["previous"] = true, ["previous page"] = true, ["prev"] = true,
  ["more"] = true, ["more results"] = true, ["first"] = true, ["last"] = true, ["older"] = true, ["newer"] = true,
}
local MAX_QUERIES = 64 -- queries whose next links are remembered

local walks = { n = 0, by = {} } -- query -> { next = { [page] = url } }
local navs = {}                  -- form page URL -> set of its links

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- Elements whose text is a separate run: text() puts a space before them.
local BLOCKS = {}
for tag in ("address article aside blockquote br dd div dl dt footer h1 h2 h3 h4 h5 h6 header hr li main nav " ..
            "ol p pre section span table tbody td th thead tr ul"):gmatch("%S+") do
  BLOCKS[tag] = true
end

-- text(html): the visible text of an HTML fragment, with the runs of
-- block elements and table cells apart ("<td>a</td><td>b</td>" is "a b").
local function text(html)
  local spaced = html:gsub("<(/?)(%a%w*)", function(slash, tag)
    if BLOCKS[tag:lower()] then return " <" .. slash .. tag end
  end)
  return trim(dw.html.text(spaced, "body") or "")
end

-- resolve(base, href): the absolute http(s) URL without fragment, or nil.
local function resolve(base, href)
  if type(href) ~= "string" then return nil end
  href = trim(href)
  if href == "" or href:sub(1, 1) == "#" then return nil end
  local ok, u = pcall(dw.url.join, base, href)
  if not ok then return nil end
  u = u:gsub("#.*$", "")
  local scheme = u:match("^(%a[%w+.-]*):")
  scheme = scheme and scheme:lower()
  if scheme ~= "http" and scheme ~= "https" then return nil end
  return u
end

local function path_of(u)
  local ok, p = pcall(dw.url.parse, u)
  if not ok then return nil end
  return p.host:lower() .. p.path
end

-- is_pager(a): a pagination link.
local function is_pager(a)
  local rel = (a.attrs.rel or ""):lower()
  if rel:find("next", 1, true) or rel:find("prev", 1, true) then return true end
  local t = trim(a.text:lower())
  if t == "" then return false end
  if t:match("^%d+$") or PAGER_WORDS[t] then return true end
  local words = trim((t:gsub("[^%w]+", " ")))
  return words == "" or PAGER_WORDS[words] == true or words:match("^page %d+$") ~= nil
end

local function is_next(a)
  local t = trim(a.text:lower())
  if t:match("^next") or t == "more" or t == "more results" then return true end
  return t == "»" or t == "›" or t == ">" or t == ">>"
end

local function decode_defaults(vars)
  local raw = vars.defaults
  if raw == nil or raw == "" then return {} end
  local ok, t = pcall(dw.json.decode, raw)
  if not ok or type(t) ~= "table" then
    return nil, { error = "config", message = "variable defaults: want a JSON object of control names and values, got " .. raw }
  end
  local out = {}
  for k, v in pairs(t) do
    if type(k) ~= "string" then
      return nil, { error = "config", message = "variable defaults: want a JSON object, got a list" }
    end
    if type(v) == "table" then
      local vals = {}
      for _, x in ipairs(v) do vals[#vals + 1] = tostring(x) end
      out[k] = vals
    elseif v ~= nil then
      out[k] = tostring(v)
    end
  end
  return out
end

-- ok_html(resp, what): nil when resp is a success, else an error table.
local function ok_html(resp, what)
  if resp.status >= 200 and resp.status < 300 then return nil end
  return common.status_error(resp, what .. ": HTTP " .. resp.status .. ": " .. common.snip(resp.body))
end

local function submit(query, vars)
  local fields, err = decode_defaults(vars)
  if not fields then return nil, err end
  fields[vars.field] = query
  local method = (vars.method or "GET"):upper()
  local resp
  if method == "POST" then
    resp = dw.http.post(vars.action, fields, { timeout = 30 })
  elseif method == "GET" then
    resp = dw.http.get(dw.url.build(vars.action, fields), { timeout = 30 })
  else
    return nil, { error = "config", message = "variable method: want GET or POST, got " .. method }
  end
  err = ok_html(resp, "form " .. vars.action)
  if err then return nil, err end
  return resp
end

-- nav_links(vars): the links of the form page (fetched once), a set.
local function nav_links(vars)
  local page = vars.form_page
  if page == nil or page == "" then return {} end
  if navs[page] then return navs[page] end
  local set = {}
  local ok, resp = pcall(dw.http.get, page, { timeout = 30 })
  if ok and resp.status == 200 then
    for _, a in ipairs(dw.html.select(resp.body, "a[href]")) do
      local u = resolve(resp.url, a.attrs.href)
      if u then set[u] = true end
    end
  else
    dw.log("warn", "htmlform: form page not readable; its links are not set aside", { url = page })
  end
  navs[page] = set
  return set
end

-- next_url(body, base, vars): the URL of the next result page, or nil.
local function next_url(body, base, vars)
  if vars.next_selector and vars.next_selector ~= "" then
    return resolve(base, dw.html.attr(body, vars.next_selector, "href"))
  end
  local u = resolve(base, dw.html.attr(body, "a[rel~=next], link[rel~=next]", "href"))
  if u then return u end
  for _, a in ipairs(dw.html.select(body, "a[href]")) do
    if is_next(a) then
      u = resolve(base, a.attrs.href)
      if u then return u end
    end
  end
  return nil
end

local function total_of(body, vars)
  local css = (vars.total_selector and vars.total_selector ~= "") and vars.total_selector or TOTAL_CSS
  local t = dw.html.text(body, css)
  local n = t and t:match("%d[%d,.]*")
  if not n then return nil end
  return tonumber((n:gsub("[,.]", "")))
end

local function record(url, title, item_text)
  local snippet = item_text
  if title ~= "" and item_text:sub(1, #title) == title then snippet = trim(item_text:sub(#title + 1)) end
  return { id = url, url = url, fields = { title = title, snippet = snippet }, text = item_text }
end

-- pattern(u): host, directory and parameter names: result links share it.
local function pattern(u)
  local p = dw.url.parse(u)
  local keys = {}
  for k in pairs(p.query) do keys[#keys + 1] = k end
  table.sort(keys)
  return p.host .. p.path:gsub("[^/]*$", "") .. "?" .. table.concat(keys, "&")
end

-- results(body, base, vars): the result records of a page.
local function results(body, base, vars)
  if vars.result_selector and vars.result_selector ~= "" then
    local out, seen = {}, {}
    for _, a in ipairs(dw.html.select(body, vars.result_selector)) do
      local u = resolve(base, a.attrs.href)
      if u and not seen[u] then
        seen[u] = true
        out[#out + 1] = record(u, a.text, a.text)
      end
    end
    return out
  end
  local skip = {}
  for u in pairs(nav_links(vars)) do skip[u] = true end
  for _, a in ipairs(dw.html.select(body, NAV_CSS)) do
    local u = resolve(base, a.attrs.href)
    if u then skip[u] = true end
  end
  local self = { [path_of(vars.action) or ""] = true, [path_of(base) or ""] = true }
  if vars.form_page and vars.form_page ~= "" then self[path_of(vars.form_page) or ""] = true end
  local function candidate(a)
    local u = resolve(base, a.attrs.href)
    if not u or skip[u] or is_pager(a) or self[path_of(u) or ""] then return nil end
    return u
  end

  -- Lists and tables: the one holding the most candidate links.
  local best = {}
  for _, c in ipairs(dw.html.select(body, "ol, ul, table")) do
    local group, seen = {}, {}
    for _, item in ipairs(dw.html.select(c.html, c.tag == "table" and "tr" or "li")) do
      for _, a in ipairs(dw.html.select(item.html, "a[href]")) do
        local u = candidate(a)
        if u then
          if not seen[u] then
            seen[u] = true
            group[#group + 1] = record(u, a.text, text(item.html))
          end
          break
        end
      end
    end
    if #group > #best then best = group end
  end
  if #best > 0 then return best end

  -- No list holds a result: the largest group of links sharing a pattern.
  local groups, order = {}, {}
  for _, a in ipairs(dw.html.select(body, "a[href]")) do
    local u = candidate(a)
    if u then
      local key = pattern(u)
      local g = groups[key]
      if not g then
        g = { seen = {} }
        groups[key] = g
        order[#order + 1] = key
      end
      if not g.seen[u] then
        g.seen[u] = true
        g[#g + 1] = record(u, a.text, a.text)
      end
    end
  end
  for _, key in ipairs(order) do
    if #groups[key] > #best then best = groups[key] end
  end
  local out = {}
  for i, r in ipairs(best) do out[i] = r end
  return out
end

local function walk_of(query)
  local w = walks.by[query]
  if not w then
    if walks.n >= MAX_QUERIES then walks.by, walks.n = {}, 0 end
    w = { next = {} }
    walks.by[query] = w
    walks.n = walks.n + 1
  end
  return w
end

local function positive(s)
  local n = tonumber(s)
  if n and n >= 1 and n == math.floor(n) then return n end
  return nil
end

return dw.plugin{
  kind        = "keyword",
  name        = "htmlform",
  version     = "1.0.0",
  description = "generic adapter for a searchable HTML form: fills its text box, submits, reads result links and next pages",
  vars        = {
    action          = { required = true, help = "absolute URL the form submits to" },
    field           = { required = true, help = "name of the form's main text box" },
    method          = { default = "GET", help = "GET or POST" },
    defaults        = "the other controls' values as a JSON object, e.g. {\"cat\":\"all\",\"tags\":[\"a\",\"b\"]}",
    form_page       = "URL of the page holding the form: its links are navigation, never results",
    result_selector = "CSS selector of the result links (replaces the heuristic)",
    next_selector   = "CSS selector of the next-page link",
    total_selector  = "CSS selector of the element stating the number of results",
    k               = "the site's result limit, when known",
    page_size       = "results per page, when known",
  },
  conjunctive = true,
  stopwords   = false,

  search = function(query, page, vars)
    local w = walk_of(query)
    local from = 1
    for p = page, 2, -1 do
      if w.next[p] then
        from = p
        break
      end
    end
    local resp, err
    for p = from, page do
      if p == 1 then
        resp, err = submit(query, vars)
      else
        resp = dw.http.get(w.next[p], { timeout = 30 })
        err = ok_html(resp, "result page " .. w.next[p])
      end
      if err then return err end
      w.next[p + 1] = next_url(resp.body, resp.url, vars)
      if p < page and not w.next[p + 1] then
        return { records = {}, next = false } -- the site has fewer pages
      end
    end
    return {
      records = results(resp.body, resp.url, vars),
      next = w.next[page + 1] ~= nil,
      total = total_of(resp.body, vars),
      k = positive(vars.k),
      page_size = positive(vars.page_size),
    }
  end,

  fetch = function(record, vars)
    local resp = dw.http.get(record.url, { timeout = 30 })
    local err = ok_html(resp, "record page " .. record.url)
    if err then return err end
    local fields = {}
    local dts, dds = dw.html.select(resp.body, "dt"), dw.html.select(resp.body, "dd")
    if #dts == #dds then
      for i, dt in ipairs(dts) do
        if dt.text ~= "" then fields[dt.text] = dds[i].text end
      end
    end
    for _, tr in ipairs(dw.html.select(resp.body, "tr")) do
      local row = "<table>" .. tr.html .. "</table>" -- a lone <tr> does not parse as a row
      local th, td = dw.html.text(row, "th"), dw.html.text(row, "td")
      if th and td and th ~= "" then fields[th] = td end
    end
    local title = dw.html.text(resp.body, "h1") or dw.html.text(resp.body, "title")
    if title and title ~= "" and fields.title == nil then fields.title = title end
    return { fields = fields, text = text(resp.body) }
  end,
}
