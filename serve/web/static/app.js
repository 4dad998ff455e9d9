// dwcrawl dashboard: polls the REST API and redraws. Plain script, no build
// step; every value from the API is inserted as text, never as HTML.
"use strict";

const POLL_MS = 2000;

function token() {
  const t = document.getElementById("token");
  return t ? t.value : "";
}

async function api(path, opts = {}) {
  const headers = Object.assign({}, opts.headers || {});
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  if (token()) headers["Authorization"] = "Bearer " + token();
  const r = await fetch(path, { method: opts.method || "GET", headers, body: opts.body });
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!r.ok) throw new Error((data && data.error) || r.status + " " + r.statusText);
  return data;
}

// el builds an element: el("td", {class: "num"}, "text", child…).
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

function fill(tbody, rows, cols, empty) {
  tbody.replaceChildren(...(rows.length ? rows : [el("tr", { class: "empty" }, el("td", { colspan: cols }, empty))]));
}

const fmt = (x, d = 3) => (typeof x === "number" ? x.toFixed(d) : "–");
const when = (s) => (s ? new Date(s).toLocaleString() : "");

function stateBadge(s) { return el("span", { class: "state " + s }, s); }

// act stops or resumes a job; kind is the API's collection (crawls, harvests).
async function act(kind, id, what, msg) {
  msg.textContent = what === "stop" ? "stopping…" : "resuming…";
  try {
    const st = await api("/api/" + kind + "/" + encodeURIComponent(id) + "/" + what, { method: "POST" });
    msg.textContent = "";
    return st;
  } catch (e) {
    msg.textContent = e.message;
  }
}

// --- front page

function crawlRow(c) {
  const pct = c.budget ? Math.min(100, (100 * c.pages) / c.budget) : 0;
  const msg = el("span", { class: "msg" });
  const btn = c.state === "running"
    ? el("button", { type: "button", class: "small" }, "Stop")
    : el("button", { type: "button", class: "small" }, "Resume");
  btn.onclick = async () => { await act("crawls", c.id, c.state === "running" ? "stop" : "resume", msg); refreshIndex(); };
  return el("tr", { "data-id": c.id },
    el("td", {}, el("a", { href: "/crawls/" + encodeURIComponent(c.id) }, c.id)),
    el("td", {}, c.profile), el("td", {}, c.strategy), el("td", {}, stateBadge(c.state)),
    el("td", {}, el("div", { class: "bar" }, el("span", { style: "width:" + pct + "%" })), c.pages + (c.budget ? " / " + c.budget : "")),
    el("td", { class: "num" }, c.sites), el("td", { class: "num" }, c.deep_sites),
    el("td", { class: "num" }, c.searchable_forms), el("td", { class: "num" }, c.relevant_forms),
    el("td", { class: "num" }, fmt(c.harvest_rate)), el("td", {}, when(c.started_at)), el("td", {}, btn, msg));
}

function harvestRow(h) {
  const pct = h.budget ? Math.min(100, (100 * h.pages) / h.budget) : 0;
  const msg = el("span", { class: "msg" });
  const btn = el("button", { type: "button", class: "small" }, h.state === "running" ? "Stop" : "Resume");
  btn.onclick = async () => { await act("harvests", h.id, h.state === "running" ? "stop" : "resume", msg); refreshIndex(); };
  return el("tr", { "data-id": h.id },
    el("td", {}, el("a", { href: "/harvests/" + encodeURIComponent(h.id) }, h.id)),
    el("td", {}, h.profile), el("td", {}, stateBadge(h.state)),
    el("td", {}, el("div", { class: "bar" }, el("span", { style: "width:" + pct + "%" })), h.pages + (h.budget ? " / " + h.budget : "")),
    el("td", { class: "num" }, h.stages.found), el("td", { class: "num" }, h.stages.topic), el("td", { class: "num" }, h.stages.done),
    el("td", { class: "num" }, h.records), el("td", { class: "num" }, h.queries), el("td", {}, when(h.started_at)), el("td", {}, btn, msg));
}

async function refreshIndex() {
  try {
    const crawls = await api("/api/crawls");
    fill(document.querySelector("#crawls tbody"), crawls.map(crawlRow), 12, "No crawl yet: start one above.");
    const harvests = await api("/api/harvests");
    fill(document.querySelector("#harvests tbody"), harvests.map(harvestRow), 11, "No harvest yet: start one above.");
  } catch (e) { /* keep the last view */ }
}

function initIndex() {
  const form = document.getElementById("start");
  const msg = document.getElementById("start-msg");
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const harvest = ev.submitter && ev.submitter.value === "harvest";
    const body = { profile: f.get("profile"), pages: Number(f.get("pages")), strategy: f.get("strategy"), testbed: f.get("testbed") === "on" };
    if (harvest && f.get("queries_per_db")) body.queries_per_db = Number(f.get("queries_per_db"));
    const kind = harvest ? "harvests" : "crawls";
    msg.textContent = "starting…";
    try {
      const r = await api("/api/" + kind, { method: "POST", body: JSON.stringify(body) });
      msg.textContent = "";
      location.href = "/" + kind + "/" + encodeURIComponent(r.id);
    } catch (e) {
      msg.textContent = e.message;
    }
  };
  refreshIndex();
  setInterval(refreshIndex, POLL_MS);
}

// --- charts

// lineChart draws series [{points: [[x,y]…], cls, title}] into an SVG of
// 640×300; a series' title shows when the pointer is on its line.
function lineChart(svg, series, xLabel) {
  const W = 640, H = 300, L = 52, R = 14, T = 14, B = 40;
  let maxX = 1, maxY = 1;
  for (const s of series) for (const [x, y] of s.points) { maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); }
  maxY = niceStep(maxY / 5) * Math.ceil(maxY / niceStep(maxY / 5));
  const sx = (x) => L + ((W - L - R) * x) / maxX;
  const sy = (y) => H - B - ((H - T - B) * y) / maxY;
  const ns = "http://www.w3.org/2000/svg";
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const kids = [];
  const ys = niceStep(maxY / 5);
  for (let y = 0; y <= maxY + 1e-9; y += ys) {
    const py = sy(y);
    kids.push(mk("line", { x1: L, x2: W - R, y1: py, y2: py, class: "gridline" }));
    kids.push(mk("text", { x: L - 8, y: py + 4, class: "tick", "text-anchor": "end" }, +y.toFixed(2)));
  }
  const xs = niceStep(maxX / 5);
  for (let x = 0; x <= maxX + 1e-9; x += xs) {
    kids.push(mk("text", { x: sx(x), y: H - B + 18, class: "tick", "text-anchor": "middle" }, +x.toFixed(2)));
  }
  kids.push(mk("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
  kids.push(mk("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
  kids.push(mk("text", { x: (L + W - R) / 2, y: H - 6, class: "label", "text-anchor": "middle" }, xLabel));
  for (const s of series) {
    if (!s.points.length) continue;
    const d = s.points.map(([x, y], i) => (i ? "L" : "M") + sx(x).toFixed(1) + " " + sy(y).toFixed(1)).join(" ");
    const path = mk("path", { d, class: "series " + s.cls });
    if (s.title) path.append(mk("title", {}, s.title));
    kids.push(path);
  }
  svg.replaceChildren(...kids);
}

// niceStep rounds a tick step up to 1, 2, 2.5 or 5 times a power of ten.
function niceStep(v) {
  if (v <= 0) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}


// --- crawl page

const frontierHistory = { sites: [], links: [], t0: Date.now() };
let lastFormsKey = null, lastAuxKey = null, lastAuxAt = 0;

function setText(id, v) { const e = document.getElementById(id); if (e) e.textContent = v; }

function renderStatus(c) {
  const st = document.getElementById("state");
  st.className = "state " + c.state;
  st.textContent = c.state;
  setText("strategy", c.strategy);
  setText("s-pages", c.pages);
  setText("s-rate", c.state === "running" && c.pages_per_second ? c.pages_per_second.toFixed(0) + " pages/s" : "");
  setText("s-sites", c.sites);
  setText("s-deep", c.deep_sites);
  setText("s-searchable", c.searchable_forms);
  setText("s-relevant", c.relevant_forms);
  setText("s-harvest", fmt(c.harvest_rate));
  setText("s-fsites", c.frontier_sites);
  setText("s-flinks", c.frontier_links);
  setText("s-failed", c.failed);
  const err = document.getElementById("error");
  err.hidden = !c.error;
  err.textContent = c.error || "";
  document.getElementById("stop").disabled = c.state !== "running";
  document.getElementById("resume").disabled = c.state === "running";
  const t = (Date.now() - frontierHistory.t0) / 1000;
  frontierHistory.sites.push([t, c.frontier_sites]);
  frontierHistory.links.push([t, c.frontier_links]);
  lineChart(document.getElementById("frontier"), [
    { points: frontierHistory.sites, cls: "fsites" },
    { points: frontierHistory.links, cls: "flinks" },
  ], "seconds since this page was opened");
}

function formRow(f) {
  const fields = (f.fields || []).filter((x) => !["hidden", "submit", "button", "reset", "image"].includes(x.type))
    .map((x) => (x.name || x.label || "?") + ":" + x.type).join(" ");
  const reasons = el("td", { class: "reasons" });
  const rs = f.reasons || [];
  if (rs.length) {
    const shown = rs.slice(0, 3);
    const ul = el("ul", { title: rs.join("\n") }, ...shown.map((r) => el("li", {}, r)));
    if (rs.length > shown.length) ul.append(el("li", { class: "more" }, "+" + (rs.length - shown.length) + " more"));
    reasons.append(ul);
  } else reasons.append("–");
  let host = f.site, path = f.page_url;
  try { const u = new URL(f.page_url); host = u.host; path = u.pathname + u.search; } catch (e) { /* keep the URL */ }
  return el("tr", { class: f.relevant ? "relevant" : "" },
    el("td", { class: "num" }, f.pages_fetched),
    el("td", { class: "page" }, el("a", { href: f.page_url, target: "_blank", rel: "noopener noreferrer", title: f.page_url },
      el("b", {}, host), el("span", {}, path))),
    el("td", {}, el("span", { class: "kind" }, f.kind)),
    el("td", { class: "num" }, fmt(f.searchable, 2)), el("td", { class: "num" }, fmt(f.domain_score, 2)),
    el("td", {}, f.relevant ? el("span", { class: "yes" }, "relevant") : el("span", { class: "muted" }, "off-topic")), el("td", { class: "mono fields" }, fields), reasons);
}

function terms(tw) { return (tw || []).slice(0, 8).map((t) => t.term).join(", "); }

async function refreshCrawl(id) {
  const base = "/api/crawls/" + encodeURIComponent(id);
  let c;
  try { c = await api(base); } catch (e) { return; }
  renderStatus(c);
  try {
    const curve = await api(base + "/curve");
    lineChart(document.getElementById("curve"), [
      { points: curve.forms, cls: "forms" },
      { points: curve.deep_sites, cls: "sites" },
    ], "pages fetched");
  } catch (e) { /* next time */ }
  const key = c.searchable_forms + "/" + c.state;
  if (key !== lastFormsKey) {
    try {
      const forms = await api(base + "/forms?format=json");
      lastFormsKey = key;
      setText("forms-count", "(" + forms.length + ", " + forms.filter((f) => f.relevant).length + " relevant)");
      fill(document.querySelector("#forms tbody"), forms.slice().reverse().map(formRow), 8, "No searchable form found yet.");
    } catch (e) { lastFormsKey = null; }
  }
  // learning rounds and failures change less often: at most every 10 s
  const aux = c.fss_rebuilds + "/" + c.fsl_rebuilds + "/" + c.failed + "/" + c.state;
  if (aux !== lastAuxKey && (Date.now() - lastAuxAt > 10000 || lastAuxKey === null || c.state !== "running")) {
    try {
      const feats = await api(base + "/features");
      fill(document.querySelector("#features tbody"), feats.map((it) => el("tr", {},
        el("td", {}, it.space), el("td", { class: "num" }, it.round), el("td", { class: "num" }, it.examples),
        el("td", {}, terms(it.url)), el("td", {}, terms(it.anchor)), el("td", {}, terms(it.text)))), 6,
        "No learning round yet (one after every learn.sites_every deep sites or learn.forms_every forms).");
      const fl = await api(base + "/failures?examples=3");
      setText("failures-count", "(" + fl.total + ")");
      fill(document.querySelector("#failures tbody"), fl.failures.map((g) => el("tr", {},
        el("td", {}, g.cause), el("td", { class: "num" }, g.count),
        el("td", { class: "mono" }, ...g.examples.map((x) => el("div", {}, x.url))))), 3, "No failed page.");
      lastAuxKey = aux;
      lastAuxAt = Date.now();
    } catch (e) { /* next time */ }
  }
}

function initCrawl(id) {
  const msg = document.getElementById("action-msg");
  document.getElementById("stop").onclick = async () => { await act("crawls", id, "stop", msg); refreshCrawl(id); };
  document.getElementById("resume").onclick = async () => { await act("crawls", id, "resume", msg); refreshCrawl(id); };
  refreshCrawl(id);
  setInterval(() => refreshCrawl(id), POLL_MS);
}

// --- harvest page

// PALETTE is the number of series colours (style.css: .series.s0 …).
const PALETTE = 8;

function coverageText(d) {
  if (typeof d.coverage_estimate !== "number") return "–";
  let t = (100 * d.coverage_estimate).toFixed(1) + "%";
  if (typeof d.coverage_low === "number" && typeof d.coverage_high === "number") {
    t += " [" + (100 * d.coverage_low).toFixed(1) + "–" + (100 * d.coverage_high).toFixed(1) + "%]";
  }
  return t;
}

function hostOf(u) {
  try { return new URL(u).host; } catch (e) { return u; }
}

function databaseRow(d, colour) {
  const id = el("td", { class: "mono" });
  if (colour !== undefined) id.append(el("i", { class: "swatch l-s" + colour }));
  id.append(d.id);
  return el("tr", { "data-id": d.id, class: d.verdict === "topic-database" ? "relevant" : "" },
    id,
    el("td", {}, el("a", { href: d.page_url, target: "_blank", rel: "noopener noreferrer", title: d.page_url }, d.site)),
    el("td", {}, d.verdict), el("td", { title: d.error || "" }, d.state + (d.stopped ? " (" + d.stopped + ")" : "")),
    el("td", { class: "num" }, d.queries), el("td", { class: "num" }, d.records), el("td", { class: "num" }, coverageText(d)));
}

async function refreshHarvest(id) {
  const base = "/api/harvests/" + encodeURIComponent(id);
  let h;
  try { h = await api(base); } catch (e) { return; }
  const st = document.getElementById("state");
  st.className = "state " + h.state;
  st.textContent = h.state;
  setText("s-pages", h.pages);
  setText("s-disc", h.discovery_done ? "discovery done" : "");
  setText("s-found", h.stages.found);
  setText("s-probed", h.stages.probed);
  setText("s-topic", h.stages.topic);
  setText("s-surfacing", h.stages.surfacing);
  setText("s-done", h.stages.done);
  setText("s-records", h.records);
  setText("s-queries", h.queries);
  setText("s-sites", h.crawl.sites);
  const err = document.getElementById("error");
  err.hidden = !h.error;
  err.textContent = h.error || "";
  document.getElementById("stop").disabled = h.state !== "running";
  document.getElementById("resume").disabled = h.state === "running";
  const events = document.getElementById("events");
  events.replaceChildren(...(h.events.length ? h.events.slice().reverse().map((e) => el("li", {}, e)) : [el("li", { class: "muted" }, "No event yet.")]));
  let curves = [];
  try { curves = (await api(base + "/curve")).databases; } catch (e) { /* next time */ }
  const colour = {};
  curves.forEach((c, i) => { colour[c.id] = i % PALETTE; });
  lineChart(document.getElementById("curves"), curves.map((c) => {
    const last = c.points[c.points.length - 1];
    return { points: c.points, cls: "s" + colour[c.id], title: c.id + " · " + c.site + ": " + last[1] + " records in " + last[0] + " queries" };
  }), "queries");
  const legend = document.getElementById("curves-legend");
  legend.replaceChildren(...(curves.length
    ? [...curves.flatMap((c) => [el("i", { class: "l-s" + colour[c.id] }), hostOf(c.site)]), el("br"), "records against queries, one line per database (colours as in the table)"]
    : ["No database surfaced yet: records against queries, one line per database."]));
  setText("dbs-count", "(" + h.databases.length + ", " + h.stages.topic + " of the topic)");
  fill(document.querySelector("#databases tbody"), h.databases.map((d) => databaseRow(d, colour[d.id])), 7, "No relevant searchable form found yet.");
}

function initHarvest(id) {
  const msg = document.getElementById("action-msg");
  document.getElementById("stop").onclick = async () => { await act("harvests", id, "stop", msg); refreshHarvest(id); };
  document.getElementById("resume").onclick = async () => { await act("harvests", id, "resume", msg); refreshHarvest(id); };
  refreshHarvest(id);
  setInterval(() => refreshHarvest(id), POLL_MS);
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.getElementById("page");
  if (page.dataset.token === "true") {
    document.getElementById("token-box").hidden = false;
    const t = document.getElementById("token");
    t.value = localStorage.getItem("dwcrawl-token") || "";
    t.onchange = () => localStorage.setItem("dwcrawl-token", t.value);
  }
  if (page.dataset.page === "index") initIndex();
  if (page.dataset.page === "crawl") initCrawl(page.dataset.id);
  if (page.dataset.page === "harvest") initHarvest(page.dataset.id);
});
