// The page of `gops serve`: everything it shows comes from the JSON API (/api/...).
"use strict";

const $ = (id) => document.getElementById(id);
// Rhoads & Bartholdi 2012, the first move as printed: [bid - 1][upcard - 1], as the
// printed text (its digits give its rounding interval; a printed 0 claims exactly 0).
const PAPER = {
  5: { name: "Table 1", rows: [
    ["0.0470", "0.1855", "0.1182", "0.1226", "0.1123"],
    ["0.8327", "0", "0.1188", "0.07347", "0.0241"],
    ["0.1203", "0.7375", "0", "0.1915", "0"],
    ["0", "0.0770", "0.7630", "0.2043", "0"],
    ["0", "0", "0", "0.4081", "0.8636"],
  ] },
  13: { name: "Table 2", rows: [  // transcribed as benchmarks/paper_tables.py's TABLE_2
    ["0", "0", "0.052", "0.031", "0", "0", "0.020", "0", "0", "0", "0.014", "0", "0.010"],
    ["0.414", "0.227", "0", "0.020", "0.056", "0.073", "0", "0.034", "0.047", "0.036", "0", "0.030", "0"],
    ["0.090", "0.022", "0.178", "0.095", "0.036", "0.002", "0.069", "0.021", "0.002", "0", "0.041", "0", "0.037"],
    ["0.496", "0.299", "0.034", "0.061", "0.088", "0.098", "0", "0.054", "0.065", "0.067", "0", "0.056", "0"],
    ["0", "0.098", "0.230", "0.134", "0.067", "0", "0.124", "0.039", "0", "0", "0.080", "0", "0.065"],
    ["0", "0.355", "0.092", "0.107", "0.124", "0.185", "0", "0.077", "0.120", "0.098", "0", "0.082", "0"],
    ["0", "0", "0.274", "0.175", "0.101", "0.002", "0.168", "0.060", "0.001", "0", "0.102", "0.008", "0.087"],
    ["0", "0", "0.139", "0.154", "0.165", "0.218", "0.021", "0.103", "0.142", "0.138", "0.016", "0.099", "0"],
    ["0", "0", "0", "0.221", "0.148", "0.045", "0.202", "0.092", "0.029", "0.015", "0.123", "0.028", "0.126"],
    ["0", "0", "0", "0", "0.215", "0.266", "0", "0.144", "0.177", "0.170", "0", "0.124", "0.013"],
    ["0", "0", "0", "0", "0", "0.110", "0.397", "0.151", "0", "0.063", "0.253", "0.065", "0"],
    ["0", "0", "0", "0", "0", "0", "0", "0.226", "0.417", "0.241", "0.023", "0", "0"],
    ["0", "0", "0", "0", "0", "0", "0", "0", "0", "0.170", "0.348", "0.508", "0.661"],
  ] },
};

// The paper's cells that a certified enclosure [lo, hi] of the exact probability proves
// wrong: the enclosure misses the printed number's rounding interval (docs/errata.md's
// rule).  enclosures: {upcard: [[lo, hi] per bid]}; the cells as [bid, upcard].
function provenErrata(rows, enclosures) {
  const out = [];
  rows.forEach((row, b) => row.forEach((text, u) => {
    const iv = enclosures[String(u + 1)];
    if (!iv || !iv[b]) return;
    const [lo, hi] = iv[b];
    const p = Number(text), places = (text.split(".")[1] || "").length;
    const half = p === 0 ? 0 : 0.5 * 10 ** -places;
    if (hi < p - half || lo > p + half) out.push([b + 1, u + 1]);
  }));
  return out;
}
// Explore's position (mine, theirs, deck, upcard) is the one shown; after steps, ``start``
// is the position the ``line`` of play ([upcard, my bid, their bid] per round) began at.
const state = { tab: "explore", mine: new Set(), theirs: new Set(), deck: new Set(), upcard: null,
                line: [], start: null };

// A request that may wait for a large solve shows its progress (/api/progress, polled)
// and a Cancel button (POST /api/cancel, and the request is abandoned).
let watched = null;  // {controller, params, timer} of the request being waited for

async function api(path, params, { watch = true } = {}) {
  const query = new URLSearchParams(params).toString();
  const controller = new AbortController();
  const mine = watch ? { controller, params, timer: setTimeout(pollProgress, 400) } : null;
  if (mine) { if (watched) stopWatching(watched); watched = mine; }
  try {
    const response = await fetch(`/api/${path}?${query}`, { signal: controller.signal });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  } catch (err) {
    if (err.name === "AbortError") throw new Error("cancelled: the solve was stopped");
    throw err;
  } finally {
    if (mine) stopWatching(mine);
  }
}

function stopWatching(w) {
  clearTimeout(w.timer);
  if (watched === w) { watched = null; $("progress").hidden = true; }
}

async function pollProgress() {
  const w = watched;
  if (!w) return;
  try {
    const r = await fetch("/api/progress");
    const { solving } = await r.json();
    if (watched !== w) return;
    if (solving.length) {
      // the solve this request waits for: its N, objective and variant (else the first under way)
      const want = (s) => s.n === Number(w.params.n) && s.objective === (w.params.objective || "points") &&
        (s.variant || "standard") === (w.params.variant || "standard");
      const s = solving.find(want) || solving[0];
      $("progress").hidden = false;
      $("progress-text").textContent = describeSolve(s);
      if (s.state === "queued") $("progress-bar").removeAttribute("value");  // no bar yet
      else $("progress-bar").value = s.fraction;
    }
  } catch (err) { /* the next poll tries again */ }
  if (watched === w) w.timer = setTimeout(pollProgress, 500);
}

// A solve under way in words: its level and share done, or, while it waits for the
// solver thread, its place in the queue and the solve it waits behind.
function describeSolve(s) {
  const doing = (r) => `${r.what}: level ${r.level} of ${r.levels}, ${Math.round(100 * r.fraction)}% ` +
    `(${r.seconds.toFixed(0)} s of about ${r.estimate_seconds.toFixed(0)} s)`;
  if (s.state !== "queued") return `solving ${doing(s)}`;
  const ahead = s.queue_position > 1 ? ` and ${plural(s.queue_position - 1, "queued solve")}` : "";
  const behind = (s.behind || []).map(doing).join("; ");
  return `${s.what}: queued (position ${s.queue_position}), waiting behind ` +
    (behind ? `the solve of ${behind}` : "the solver") + ahead;
}

async function cancelSolve() {
  const w = watched;
  if (!w) return;
  const p = new URLSearchParams({ n: w.params.n, objective: w.params.objective || "points" });
  if (w.params.order) p.set("order", w.params.order);
  if (w.params.variant) p.set("variant", w.params.variant);  // else the standard game's solves
  await fetch(`/api/cancel?${p}`, { method: "POST" });
  w.controller.abort();
}

function showError(message) {
  $("error").textContent = message || "";  // the CLI's line, without its "gops: error:"
  $("error").hidden = !message;
}

// A number as shown: fixed digits, never "-0.000000" for a zero.
function fmt(x, digits = 6) {
  const text = Number(x).toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}
// What a claim read from a store rests on, in the claim's own sentence (as `gops table
// --store --certified` prints it): the stored levels below the one re-derived by the server.
function storeCondition(source) {
  const levels = (source && source.unverified_levels) || [];
  if (!levels.length) return "";
  return `, given the stored levels 0..${Math.max(...levels)} of ${source.store} ` +
    `(not re-derived here: gops verify ${source.store} proves them)`;
}

function sig(x, digits = 12) {  // an interval's end: 12 significant digits
  const text = Number(x).toPrecision(digits);
  return /^-0\.?0*(e.*)?$/.test(text) ? text.slice(1) : text;
}
const plural = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;
let info = null;  // /api/info: what this server solves and serves

function n() { return parseInt($("n").value, 10); }
function objective() { return $("objective").value; }
function lead() { return parseInt($("lead").value || "0", 10); }
function order() { return $("order").value; }
// The variant of Play (standard, twelve, dummy); the variants are for points with shuffled
// prizes, at the N of gops play --variant (/api/info's variants).
function variant() { return state.tab === "play" ? $("variant").value : "standard"; }
function variantParams() { return variant() === "standard" ? {} : { variant: variant() }; }
function objectiveParams() {
  return objective() === "win" ? { objective: "win", lead: lead() } : {};
}
const list = (set) => [...set].sort((a, b) => a - b).join(",");

// -- the shareable address: #tab?n=..&objective=..&mine=.. ----------------------------------
function writeHash() {
  const p = new URLSearchParams({ n: n(), objective: objective() });
  if (objective() === "win") p.set("lead", lead());
  if (state.tab === "play" && order() !== "random") p.set("order", order());
  if (variant() !== "standard") p.set("variant", variant());
  if (state.tab === "play" && game) p.set("seed", game.seed);  // this game, to replay
  if (state.tab === "explore") {  // a line: its start and its rounds, then the upcard now
    const base = state.line.length ? state.start : state;
    p.set("mine", list(base.mine)); p.set("theirs", list(base.theirs)); p.set("deck", list(base.deck));
    if (state.line.length) {
      if (objective() === "win") p.set("lead", state.start.lead);
      p.set("line", lineText());
    }
    if (state.upcard) p.set("upcard", state.upcard);
  }
  history.replaceState(null, "", `#${state.tab}?${p.toString().replace(/%2C/g, ",").replace(/%3A/g, ":")}`);
}

function readHash() {
  const [tab, query] = location.hash.replace(/^#/, "").split("?");
  const p = new URLSearchParams(query || "");
  const cards = (key) => new Set((p.get(key) || "").split(",").filter(Boolean).map(Number));
  if (p.get("objective") === "win") $("objective").value = "win";
  fillN(p.get("n") || 5);
  if (p.get("lead")) $("lead").value = p.get("lead");
  if (p.get("seed")) $("seed").value = p.get("seed");
  if ([...$("order").options].some((o) => o.value === p.get("order"))) $("order").value = p.get("order");
  if ([...$("variant").options].some((o) => o.value === p.get("variant"))) $("variant").value = p.get("variant");
  if (p.has("mine")) {
    state.mine = cards("mine"); state.theirs = cards("theirs"); state.deck = cards("deck");
    state.upcard = p.get("upcard") ? Number(p.get("upcard")) : null;
    state.line = (p.get("line") || "").split(",").filter(Boolean).map((step) => step.split(/[:-]/).map(Number));
    state.start = state.line.length ? { mine: state.mine, theirs: state.theirs, deck: state.deck, lead: lead() } : null;
  } else {
    fullPosition();
  }
  return ["explore", "first", "play", "agent"].includes(tab) ? tab : "explore";
}

function fullPosition() {
  const all = Array.from({ length: n() }, (_, i) => i + 1);
  state.mine = new Set(all); state.theirs = new Set(all); state.deck = new Set(all);
  state.upcard = n();
  cutLine();
}

// -- explore ---------------------------------------------------------------------------------
function cardButtons(containerId, role, isOn, onClick, enabled = () => true) {
  const box = $(containerId);
  box.innerHTML = "";
  for (let c = 1; c <= n(); c++) {
    const b = document.createElement("button");
    b.className = "card" + (isOn(c) ? " on" : "");
    b.textContent = c;
    b.dataset.role = role;
    b.dataset.card = c;
    b.disabled = !enabled(c);
    b.onclick = () => onClick(c);
    box.appendChild(b);
  }
}

function toggle(set, c) { if (set.has(c)) set.delete(c); else set.add(c); }

// The position an answer is for: the answer on the page (#result) is hidden as soon as
// the position differs from the one it answers, until the new position's answer comes.
let shownPosition = null;
const positionKey = () => JSON.stringify([n(), list(state.mine), list(state.theirs),
  list(state.deck), state.upcard, objective(), objective() === "win" ? lead() : null]);

function hideStaleAnswer() {
  if (positionKey() !== shownPosition) $("result").hidden = true;
}

function drawCards() {
  hideStaleAnswer();
  const redraw = () => { cutLine(); drawCards(); writeHash(); };  // an edit starts a new line
  cardButtons("mine-cards", "mine", (c) => state.mine.has(c), (c) => { toggle(state.mine, c); redraw(); });
  cardButtons("theirs-cards", "theirs", (c) => state.theirs.has(c), (c) => { toggle(state.theirs, c); redraw(); });
  cardButtons("deck-cards", "deck", (c) => state.deck.has(c), (c) => { toggle(state.deck, c); redraw(); });
  cardButtons("upcard-cards", "upcard", (c) => state.upcard === c,
              (c) => { state.upcard = c; drawCards(); writeHash(); }, (c) => state.deck.has(c));
}

// ranges: {card: [lo, hi]} of each probability over all optimal strategies, drawn as a
// whisker where it is not a point.
function bars(svgId, mix, ranges = {}) {
  const svg = $(svgId);
  const cards = Object.keys(mix);
  // h: the chart; 20 below the bars for the cards, 16 above for the label of a bar at p = 1
  const w = 360, h = 150, top = 16, gap = 4, bw = Math.max(8, (w - gap * cards.length) / cards.length);
  let out = "";
  cards.forEach((c, i) => {
    const p = mix[c], x = i * (bw + gap), bh = p * (h - 20 - top);
    const [lo, hi] = ranges[c] || [p, p], y = (q) => h - 20 - q * (h - 20 - top);
    const whisker = hi - lo > 1e-9
      ? `<line class="range" x1="${x + bw / 2}" x2="${x + bw / 2}" y1="${y(lo)}" y2="${y(hi)}" stroke="#e90" stroke-width="3"></line>` +
        `<line x1="${x + bw / 2 - 5}" x2="${x + bw / 2 + 5}" y1="${y(lo)}" y2="${y(lo)}" stroke="#e90" stroke-width="2"></line>` +
        `<line x1="${x + bw / 2 - 5}" x2="${x + bw / 2 + 5}" y1="${y(hi)}" y2="${y(hi)}" stroke="#e90" stroke-width="2"></line>`
      : "";
    out += `<g data-card="${c}" data-p="${p}" data-lo="${lo}" data-hi="${hi}"><title>bid ${c}: ${fmt(p)}` +
      `${hi - lo > 1e-9 ? ` (optimal strategies: ${fmt(lo, 4)} to ${fmt(hi, 4)})` : ""}</title>` +
      `<rect x="${x}" y="${h - 20 - bh}" width="${bw}" height="${bh}" fill="#1f3a5f"></rect>` +
      `<text x="${x + bw / 2}" y="${h - 5}" text-anchor="middle" font-size="12">${c}</text>` +
      `<text x="${x + bw / 2}" y="${h - 24 - bh}" text-anchor="middle" font-size="10">${fmt(p, 3)}</text>${whisker}</g>`;
  });
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.innerHTML = out;
}

// Diverging, for payoffs: blue (negative) .. white (0) .. red (positive), symmetric
// about 0 so that white is always a zero payoff.
function heat(value, lo, hi) {
  const m = Math.max(Math.abs(lo), Math.abs(hi));
  const t = m > 0 ? 0.5 + value / (2 * m) : 0.5;
  const r = Math.round(t < 0.5 ? 255 * 2 * t : 255);
  const b = Math.round(t > 0.5 ? 255 * 2 * (1 - t) : 255);
  const g = Math.round(255 - 80 * Math.abs(t - 0.5) * 2);
  return `rgb(${r},${g},${b})`;
}

// Sequential, for probabilities: white (0) .. dark blue (1).
function shade(p) {
  const mix = (a, b) => Math.round(a + (b - a) * Math.min(1, Math.max(0, p)));
  return `rgb(${mix(255, 31)},${mix(255, 58)},${mix(255, 95)})`;
}
const ink = (p) => (p > 0.55 ? "white" : "#222");

// A colour legend: a gradient from lo to hi with its ends and middle labelled.
function legend(id, colour, lo, hi, label) {
  const stops = Array.from({ length: 11 }, (_, i) => colour(lo + (hi - lo) * i / 10)).join(",");
  $(id).innerHTML = `<span class="legend-label">${label}</span> <span>${fmt(lo, 3)}</span>` +
    `<span class="legend-bar" style="background:linear-gradient(to right,${stops})"></span>` +
    `<span>${fmt(hi, 3)}</span>`;
}

function drawMatrix(pos) {
  const flat = pos.matrix.flat();
  const m = Math.max(...flat.map(Math.abs)), lo = -m, hi = m;
  const rowSupport = (c) => pos.mine[String(c)] > 0, colSupport = (c) => pos.theirs[String(c)] > 0;
  let html = "<tr><th></th>" + pos.columns.map((c) =>
    `<th class="${colSupport(c) ? "support" : ""}">${c}${colSupport(c) ? "*" : ""}</th>`).join("") + "</tr>";
  pos.matrix.forEach((row, i) => {
    const c = pos.rows[i];
    html += `<tr><th class="${rowSupport(c) ? "support" : ""}">${c}${rowSupport(c) ? "*" : ""}</th>` +
      row.map((a) => `<td style="background:${heat(a, lo, hi)}" title="${a}">${fmt(a, 3)}</td>`).join("") + "</tr>";
  });
  $("matrix").innerHTML = html;
  legend("matrix-legend", (v) => heat(v, lo, hi), lo, hi, "payoff to me:");
}

let requests = 0;  // a later request supersedes an earlier one's answer
const current = (token) => token === requests;

async function solvePosition() {
  showError("");
  writeHash();
  if (needsStore()) return;
  if (!state.upcard) {
    $("result").hidden = true;
    showError("no prize is turned up: click a card of the upcard row (or a prize above)");
    return;
  }
  const token = ++requests, asked = positionKey();
  try {
    const pos = await api("position", {
      n: n(), mine: list(state.mine), theirs: list(state.theirs), deck: list(state.deck),
      upcard: state.upcard ?? "", ...objectiveParams(),
    });
    if (!current(token) || asked !== positionKey()) return;  // the position changed since
    shownPosition = asked;
    $("result").hidden = false;
    drawStepChoices(pos);
    $("value").textContent = fmt(pos.value);
    $("units").textContent = objective() === "win" ? "(P(win) - P(loss))" : "(expected point difference)";
    const ranges = pos.ranges || {};
    bars("mine-mix", pos.mine, ranges.mine);
    bars("theirs-mix", pos.theirs, ranges.theirs);
    drawRanges(ranges);
    drawBefore(pos.before_upcard);
    drawMatrix(pos);
    const cert = pos.certified;
    $("enclosure").textContent = `exact value in [${sig(cert.value[0])}, ${sig(cert.value[1])}]`;
    const given = storeCondition(pos.source);
    $("certified").textContent = cert.unique_and_enclosed
      ? `certified${given}: this is the unique exact equilibrium; each exact probability lies in its interval:`
      : `not certified as unique (${cert.reason}); guaranteed value${given} in [${sig(cert.guarantee[0])}, ${sig(cert.guarantee[1])}]`;
    $("intervals").hidden = !cert.unique_and_enclosed;
    const intervals = (ivs) => Object.entries(ivs || {}).map(([c, iv]) => `bid ${c}: [${sig(iv[0])}, ${sig(iv[1])}]`).join(", ");
    $("intervals-mine").textContent = `mine: ${intervals(cert.mine)}`;
    $("intervals-theirs").textContent = `theirs: ${intervals(cert.theirs)}`;
    $("exact-box").hidden = !pos.exact;
    if (pos.exact) {
      const mix = (m) => Object.entries(m).map(([c, p]) => `  bid ${c}: ${p}`).join("\n");
      $("exact-digits").textContent = plural(pos.exact.digits, "digit");
      $("exact-value").textContent = pos.exact.value;
      $("exact").value = `my mix:\n${mix(pos.exact.mine)}\ntheir mix:\n${mix(pos.exact.theirs)}`;
    }
  } catch (err) {
    $("result").hidden = true;
    showError(err.message);
  }
}

// The position before its upcard is turned: its value and each upcard's (click one to
// turn it up instead).
function drawBefore(before) {
  const box = $("before");
  box.innerHTML = "";
  if (!before) return;
  box.append(`before the prize is turned up: ${fmt(before.value)}; once it is up: `);
  for (const [u, v] of Object.entries(before.by_upcard)) {
    const b = document.createElement("button");
    b.className = "card" + (Number(u) === state.upcard ? " on" : "");
    b.dataset.role = "before";
    b.dataset.card = u;
    b.dataset.value = v;
    b.textContent = `${u}: ${fmt(v, 3)}`;
    b.title = `turn up the ${u}`;
    b.onclick = () => { state.upcard = Number(u); drawCards(); solvePosition(); };
    box.appendChild(b);
  }
}

// Whether each player's optimal strategy is unique; if not, every probability's range.
function drawRanges(r) {
  if (!r.mine) { $("ranges").textContent = ""; return; }
  const how = r.exact ? "exact LPs" : "float LPs";
  const one = (who, name) => r.unique[who]
    ? `${name} optimal strategy is unique`
    : `${name} optimal strategies form a set; each probability ranges over ` +
      Object.entries(r[who]).filter(([, [lo, hi]]) => hi - lo > 1e-9)
        .map(([c, [lo, hi]]) => `bid ${c}: [${fmt(lo, 4)}, ${fmt(hi, 4)}]`).join(", ") +
      " (orange whiskers)";
  $("ranges").textContent = `over all optimal strategies (${how}): ${one("mine", "my")}; ${one("theirs", "their")}.`;
}

// -- stepping: a round played from the position shown, by the server's rules (/api/line) --
const lineText = () => state.line.map(([u, b, t]) => `${u}:${b}-${t}`).join(",");

function cutLine() {  // the position was edited: it starts a new line
  state.line = []; state.start = null;
  $("line-box").hidden = true;
}

// The bids to step with: each hand, the equilibrium's most likely bid chosen.
function drawStepChoices(pos) {
  for (const [id, mix] of [["step-mine", pos.mine], ["step-theirs", pos.theirs]]) {
    const cards = Object.keys(mix);
    const best = cards.reduce((a, c) => (mix[c] > mix[a] ? c : a), cards[0]);
    $(id).innerHTML = cards.map((c) =>
      `<option value="${c}"${c === best ? " selected" : ""}>${c} (p = ${fmt(mix[c], 3)})</option>`).join("");
  }
}

async function walkLine() {
  const s = state.start;
  const r = await api("line", {
    n: n(), mine: list(s.mine), theirs: list(s.theirs), deck: list(s.deck), line: lineText(),
    ...(objective() === "win" ? { objective: "win", lead: s.lead } : {}),
  });
  state.mine = new Set(r.mine); state.theirs = new Set(r.theirs); state.deck = new Set(r.deck);
  if (r.lead !== undefined) $("lead").value = r.lead;
  drawCards();
  drawLine(r);
  writeHash();
  return r;
}

function drawLine(r) {
  const who = { me: "I win it", them: "they win it", nobody: "a tie, discarded" };
  $("line-box").hidden = !r.steps.length;
  $("line").textContent = r.steps.map((st, i) => `${i + 1}. prize ${st.prize}: ${st.mine} vs ${st.theirs} ` +
    `(${who[st.winner]}${st.lead !== undefined ? `, lead ${st.lead}` : ""})`).join("; ");
  const box = $("next-upcards");
  box.innerHTML = "";
  if (r.over) {
    $("next").textContent = `the line is over: points won along it, me ${r.points[0]}, them ${r.points[1]}` +
      (r.lead !== undefined ? `; final lead ${r.lead}` : "");
    return;
  }
  $("next").textContent = `value before the next prize is turned up: ${fmt(r.value)}; ` +
    "turn one up to see its equilibrium (the value once it is up):";
  for (const [u, v] of Object.entries(r.by_upcard)) {
    const b = document.createElement("button");
    b.className = "card";
    b.dataset.role = "next";
    b.dataset.card = u;
    b.dataset.value = v;
    b.textContent = `${u} (${fmt(v, 3)})`;
    b.onclick = () => { state.upcard = Number(u); drawCards(); solvePosition(); };
    box.appendChild(b);
  }
}

async function stepRound() {
  showError("");
  const b = Number($("step-mine").value), t = Number($("step-theirs").value);
  if (!state.line.length) {
    state.start = { mine: new Set(state.mine), theirs: new Set(state.theirs), deck: new Set(state.deck), lead: lead() };
  }
  state.line.push([state.upcard, b, t]);
  const upcard = state.upcard;
  state.upcard = null;
  $("result").hidden = true;
  try {
    await walkLine();
  } catch (err) {
    state.line.pop(); state.upcard = upcard;
    if (!state.line.length) cutLine();
    showError(err.message);
  }
}

async function stepBack() {
  showError("");
  const [u] = state.line.pop();
  if (state.line.length) {
    state.upcard = u;
    await walkLine();
  } else {  // back at the start
    const s = state.start;
    state.mine = s.mine; state.theirs = s.theirs; state.deck = s.deck; state.upcard = u;
    $("lead").value = s.lead;
    cutLine();
    drawCards();
  }
  solvePosition();
}

// -- first move -------------------------------------------------------------------------------
// text(u, b): a cell's text (default 4 decimals); errata: {"b,u": note} of cells marked;
// ranges: {"u": [[lo, hi] per bid]} over all optimal strategies (a cell whose range is wider
// than RANGE_WIDTH is marked "ranged", its range in its title).
const RANGE_WIDTH = 1e-6;
function firstTable(tableEl, byUpcard, size, text = null, errata = {}, ranges = null) {
  let html = "<tr><th>bid\\up</th>" + Array.from({ length: size }, (_, u) => `<th>${u + 1}</th>`).join("") + "</tr>";
  for (let b = 1; b <= size; b++) {
    html += `<tr><th>${b}</th>`;
    for (let u = 1; u <= size; u++) {
      const p = byUpcard(u, b), note = errata[`${b},${u}`];
      const range = ranges ? ranges[String(u)][b - 1] : null;
      const ranged = range && range[1] - range[0] > RANGE_WIDTH;
      const classes = [note ? "erratum" : "", ranged ? "ranged" : ""].filter(Boolean).join(" ");
      const over = ranged ? `; over all optimal strategies from ${fmt(range[0], 4)} to ${fmt(range[1], 4)}` : "";
      html += `<td data-bid="${b}" data-upcard="${u}" title="bid ${b} on upcard ${u}: ${p}${over}${note ? `; ${note}` : ""}" ` +
        `${classes ? `class="${classes}" ` : ""}style="background:${shade(p)};color:${ink(p)}">` +
        `${text ? text(u, b) : p === 0 ? "0" : fmt(p, 4)}</td>`;
    }
    html += "</tr>";
  }
  tableEl.innerHTML = html;
}

// One line on the first move's optimal set: the upcards whose optimal strategy is unique,
// and how the others are marked.
function rangesNote(ranges, size, exact) {
  const wide = Object.entries(ranges).filter(([, col]) => col.some(([lo, hi]) => hi - lo > RANGE_WIDTH));
  const how = exact ? "exact" : "float LPs, a width up to 1e-6 counted as unique";
  if (!wide.length) return `Over all optimal strategies (${how}): every column's optimal strategy is unique.`;
  const ups = wide.map(([u]) => u).sort((a, b) => a - b).join(", ");
  return `Over all optimal strategies (${how}): unique in ${size - wide.length} of ${size} columns; ` +
    `on upcard${wide.length === 1 ? "" : "s"} ${ups} the optimal strategies form a set, and a ` +
    `probability that ranges over it is marked with a dotted border (hover for its range).`;
}

async function showFirstMove() {
  showError("");
  writeHash();
  if (needsStore()) return;
  const token = ++requests;
  try {
    const paper = objective() === "points" ? PAPER[n()] : null;  // proved against the paper
    const ranged = objective() === "points";  // --ranges covers the points objective (the table: random order)
    const t = await api("table", { n: n(), ...objectiveParams(), ...(paper ? { certified: 1 } : {}),
                                   ...(ranged ? { ranges: 1 } : {}) });
    if (!current(token)) return;
    $("first-title").textContent = `N = ${t.n}, ${t.objective} objective` + (t.objective === "win"
      ? (t.lead ? `, lead ${t.lead} (you start ${Math.abs(t.lead)} points ${t.lead > 0 ? "ahead" : "behind"})` : ", lead 0")
      : "");
    legend("first-legend", shade, 0, 1, "P(bid | upcard):");
    $("paper-box").hidden = !paper;
    const errata = {};
    if (paper) {
      const proved = Object.values(t.certified).every((g) => g.unique_and_enclosed);
      const byBid = (ivs) => Object.entries(ivs || {}).sort(([a], [b]) => a - b).map(([, iv]) => iv);
      const enclosures = Object.fromEntries(Object.entries(t.certified).map(([u, g]) => [u, byBid(g.mine)]));
      const wrong = proved ? provenErrata(paper.rows, enclosures) : [];
      for (const [b, u] of wrong) {
        const [lo, hi] = enclosures[String(u)][b - 1];
        errata[`${b},${u}`] = `proven erratum: the paper prints ${paper.rows[b - 1][u - 1]}, the exact ` +
          `probability lies in [${sig(lo)}, ${sig(hi)}]`;
      }
      $("paper-title").textContent = `Rhoads & Bartholdi 2012, ${paper.name} (N = ${t.n})`;
      const cells = t.n * t.n;
      $("paper-note").textContent = !proved
        ? "not every column could be certified here, so no cell is marked"
        : wrong.length
          ? `${cells - wrong.length} of ${cells} entries agree with the certified enclosures${storeCondition(t.source)}; ` +
            `${wrong.length} proven errat${wrong.length === 1 ? "um" : "a"} of the paper, outlined in red (hover for the enclosure)`
          : `all ${cells} entries agree with the certified enclosures of the exact probabilities${storeCondition(t.source)}`;
      firstTable($("paper-table"), (u, b) => Number(paper.rows[b - 1][u - 1]), t.n,
                 (u, b) => paper.rows[b - 1][u - 1], errata);
    }
    firstTable($("first-table"), (u, b) => t.by_upcard[String(u)][b - 1], t.n, null, errata, t.ranges);
    $("first-ranges").textContent = t.ranges ? rangesNote(t.ranges, t.n, t.ranges_exact) : "";
  } catch (err) {
    showError(err.message);
  }
}

// -- play: the server plays the game (/api/game/...); the page sends your bids and draws
// its answers, keeping no rules of its own -----------------------------------------------------
let game = null;  // the server's last answer: the game as it stands, and the state to send back
let busy = false;

async function newGame() {
  showError("");
  if (needsStore()) return;
  busy = true;
  try {
    const seed = $("seed").value.trim();
    const rules = variant() === "hidden" ? { objective: objective(), variant: "hidden" }
      : { ...objectiveParams(), ...variantParams(), ...($("declarations").checked ? { declarations: 1 } : {}) };
    game = await api("game/new", { n: n(), order: order(), ...rules, ...(seed ? { seed } : {}) });
  } catch (err) {
    showError(err.message);
    return;
  } finally {
    busy = false;
  }
  $("table-top").hidden = false;
  $("revealed").textContent = "";
  drawPlay();
  writeHash();
}

function dropGame() {  // N or the objective changed: that game is over for the page
  game = null;
  $("table-top").hidden = true;
}

const cardList = (cards) => cards.length ? cards.join(" ") : "none";

// -- card faces: SVG drawn here (no external assets), one suit per player ----------------------
// Suits: the prizes diamonds, you spades, the computer hearts, computer 2 clubs; each ink
// has a contrast of at least 4.5:1 on the card's white (WCAG AA).
const SUITS = {
  prize: { pip: "\u2666", ink: "#8a4b00" }, you: { pip: "\u2660", ink: "#1f3a5f" },
  computer: { pip: "\u2665", ink: "#b00020" }, computer2: { pip: "\u2663", ink: "#2e5e1e" },
};
const RANK = (c) => String(c);  // numbers, as the rules and the history say them

// A card as an SVG data URL (a face, or its back): the corner ranks and suit, a big pip.
function faceSvg(card, suit, down = false) {
  const { pip, ink } = SUITS[suit];
  const body = down
    ? `<rect x="1" y="1" width="58" height="82" rx="6" fill="#1f3a5f" stroke="#0d1f33" stroke-width="2"/>` +
      `<rect x="6" y="6" width="48" height="72" rx="4" fill="none" stroke="#9cb3d1" stroke-width="2" stroke-dasharray="4 3"/>`
    : `<rect x="1" y="1" width="58" height="82" rx="6" fill="#fff" stroke="#555" stroke-width="2"/>` +
      `<text x="7" y="17" font-size="13" font-family="sans-serif" font-weight="bold" fill="${ink}">${RANK(card)}</text>` +
      `<text x="7" y="30" font-size="12" fill="${ink}">${pip}</text>` +
      `<text x="53" y="76" font-size="12" fill="${ink}" text-anchor="end">${pip}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 84">${body}</svg>`;
  return `url("data:image/svg+xml,${encodeURIComponent(svg)}")`;
}

// A card of a suit in a span (its rank as text, for reading aloud and for tests).
function faceSpan(card, suit, className = "face", down = false) {
  const e = document.createElement("span");
  e.className = className + (down ? " down" : "");
  e.style.backgroundImage = faceSvg(card, suit, down);
  e.style.color = SUITS[suit].ink;
  e.textContent = down ? "" : String(card);
  if (down) e.title = "face down";
  return e;
}

// A pile of won prizes: small faces (their ranks as text, "none" for an empty pile); a
// prize is a card or {prize, share} (three players: share "1/2", half of a split prize,
// drawn as the card's left half, its corner rank showing, marked "½"; data-prize and
// data-share say what it is).
function drawPile(id, cards) {
  const box = $(id);
  box.innerHTML = "";
  if (!cards.length) { box.textContent = "none"; return; }
  cards.forEach((c, i) => {
    if (i) box.appendChild(document.createTextNode(" "));
    const prize = typeof c === "object" ? c.prize : c;
    const half = typeof c === "object" && c.share === "1/2";
    const face = faceSpan(prize, "prize", half ? "face mini half" : "face mini");
    face.dataset.prize = prize;
    face.dataset.share = half ? "1/2" : "1";
    if (half) {
      face.textContent = "\u00bd";
      face.title = `half of the ${prize}: a tie for the high bid split it`;
      face.setAttribute("aria-label", `half of the ${prize}`);
    }
    box.appendChild(face);
  });
}

// The table: the prize turned over, both bids of the last round revealed together (a
// short flip), or face down (hidden bids, until the end).
function drawBoard(hidden, over, three) {
  const last = game.history[game.history.length - 1];
  const put = (id, card, suit, down = false) => {
    const slot = $(id);
    slot.innerHTML = "";
    if (card == null && !down) return;
    const f = faceSpan(card, suit, "face flip", down);
    slot.appendChild(f);
  };
  put("board-prize", game.upcard ?? (last && last.prize), "prize");
  put("board-you", last && last.you, "you");
  const theirs = last && last.computer;
  put("board-them", theirs, "computer", Boolean(last) && hidden && !over);
  $("board-second-slot").hidden = !three;
  if (three) put("board-second", last && last.computer2, "computer2");
  $("board-them-name").textContent = three ? "computer 1" : "its bid";
  const said = last ? `round ${last.round}: the ${last.prize} to ${last.winner === "nobody" ? "nobody (a tie)" : last.winner}` : "";
  $("board-says").textContent = game.upcard != null && last ? `${said}; now the ${game.upcard} is up` : said;
  if (game.computer_lead != null) {  // declarations: the computer leads face up, you answer
    put("board-them", game.computer_lead, "computer");
    $("board-says").textContent = `the ${game.upcard} is up: the computer lays its ${game.computer_lead} face up; answer it`;
  }
}

// Where the three-player computers' equilibrium came from (a game's "equilibrium"):
// a saved solution (its file, N and the NashConv its solve proved) or a solve here.
function equilibriumSource(source) {
  if (!source) return "";
  if (source.from === "solved") return "The computers play the three-player equilibrium, solved on this server for this game.";
  const bound = source.nashconv == null ? "" : ` (NashConv \u2264 ${Number(source.nashconv).toExponential(1)})`;
  return `The computers play the saved ${source.n}-card equilibrium ${source.file}${bound}.`;
}

function drawPlay() {
  const over = game.awaiting === "over";
  const orderName = [...$("order").options].find((o) => o.value === game.order)?.text || game.order;
  const variantName = game.variant ? `, variant: ${[...$("variant").options].find((o) => o.value === game.variant)?.text || game.variant}` : "";
  const computers = game.computers ? `; computers: ${game.computers.join(" and ")}` : "";
  $("play-what").textContent = `N = ${game.n}, ${game.objective} objective, prize order: ${orderName}${variantName}${computers}`;
  $("variant-rules").hidden = !game.variant_text;
  $("variant-rules").textContent = game.variant_text || "";
  const dummy = game.variant === "dummy";
  document.querySelectorAll(".dummy-fact").forEach((e) => { e.hidden = !dummy; });
  const three = game.players === 3;  // you against computer 1 and computer 2
  const them = three ? "computer 1" : "computer";
  $("them-name").textContent = them;
  $("them-head").textContent = them;
  $("their-cards-name").textContent = `${them}'s cards`;
  document.querySelectorAll(".second-fact").forEach((e) => { e.hidden = !three; });
  $("second-head").hidden = !three;
  $("second-score").hidden = !three;
  if (three) {
    $("score-second").textContent = game.score.computer2;
    $("second-cards").textContent = cardList(game.computer2_cards);
  }
  $("play-note").hidden = !game.note;
  $("play-note").textContent = game.note || "";
  $("play-source").hidden = !game.equilibrium;
  $("play-source").textContent = equilibriumSource(game.equilibrium);
  $("dummy-head").hidden = !dummy;
  $("dummy-score").hidden = !dummy;
  if (dummy) {
    $("score-dummy").textContent = game.score.dummy;
    $("dummy-cards").textContent = cardList(game.dummy_cards);
    $("won-dummy").textContent = cardList(game.won.dummy);
    $("split").textContent = cardList([...new Set(Object.values(game.split).flat())].sort((a, b) => a - b));
  }
  $("play-what").title = game.order_text;
  $("play-seed").textContent = `seed ${game.seed}`;
  $("round").textContent = over ? `${game.rounds} of ${game.rounds} (over)` : `${game.round} of ${game.rounds}`;
  $("prize").textContent = game.upcard ?? (game.awaiting === "prize" ? "?" : "-");
  $("head-start").textContent = game.lead
    ? `(${game.lead > 0 ? "you" : "the computer"} started ${plural(Math.abs(game.lead), "point")} ahead)` : "";
  const choosing = game.awaiting === "prize" && game.chooser === "me";
  $("choose-box").hidden = !choosing;
  $("choices").innerHTML = "";
  if (choosing) game.choices.forEach((c) => {
    const b = document.createElement("button");
    b.className = "card";
    b.textContent = c;
    b.dataset.role = "choice";
    b.dataset.card = c;
    b.title = `turn up the ${c} as the next prize`;
    b.onclick = () => choosePrize(c);
    $("choices").appendChild(b);
  });
  $("score-me").textContent = game.score.you;
  $("score-them").textContent = game.score.computer;
  $("to-come").textContent = cardList(game.prizes_to_come);
  const hidden = game.hidden === true;  // the computer's cards face down until the end
  $("their-cards").textContent = hidden ? `${plural(game.computer_cards_left, "card")}, face down`
    : cardList(game.computer_cards);
  $("won-them-name").textContent = three ? "prizes computer 1 won" : "prizes it won";
  $("reveal").textContent = three ? "Show the computers' mixes last round" : "Show the computer's mix last round";
  if (three) {  // every player's pile, a split prize's half in each tied bidder's
    drawPile("won-me", game.piles.you);
    drawPile("won-them", game.piles.computer);
    drawPile("won-second", game.piles.computer2);
  } else {
    drawPile("won-me", game.won.you);
    drawPile("won-them", game.won.computer);
  }
  drawBoard(hidden, over, three);
  const hand = $("hand");
  hand.innerHTML = "";
  game.your_cards.forEach((c) => {
    const b = document.createElement("button");
    b.className = "card face-card";
    b.textContent = c;
    b.style.backgroundImage = faceSvg(c, "you");
    b.dataset.role = "hand";
    b.dataset.card = c;
    b.title = `bid ${c} (key ${c === 10 ? "0" : c <= 9 ? c : "Tab to it, then Enter"})`;
    b.disabled = game.awaiting !== "bid";
    b.onclick = () => bid(c);
    hand.appendChild(b);
  });
  // a prize split on a tie with the dummy: each tied bidder's share
  const share = (r) => {
    const got = r.points ? Object.values(r.points).filter((p) => p > 0) : [];
    return got.length > 1 ? ` (${got[0]} each)` : "";
  };
  // declarations: may you declare now, since when your bids are face up, the game's score
  $("declare-box").hidden = !game.can_declare;
  $("declared-note").hidden = !game.declarations;
  $("declared-note").textContent = !game.declarations ? ""
    : game.declaration_score ? `Declaration scoring: ${game.declared ? `you bid face up from round ${game.declared}` : "nobody declared"}, ` +
      `so the game scores ${game.declaration_score.points} for ${game.declaration_score.winner === "you" ? "you" : game.declaration_score.winner === "computer" ? "the computer" : "nobody (a draw)"}.`
    : game.declared ? `You declared in round ${game.declared}: your bids are face up and the computer answers each.`
    : "Declarations: tick declare before a bid to bid face up from that round on.";
  const declaring = game.variant === "declaring";  // both may declare: the equilibrium's game
  $("declare2-box").hidden = !(declaring && game.awaiting === "declare");
  if (declaring) {
    const by = game.declared_by, s = game.declaration_score;
    const first = by.you && by.computer ? (by.you === by.computer ? `both declared in round ${by.you}` : "")
      : by.you ? `you declared in round ${by.you}` : by.computer ? `the computer declared in round ${by.computer}` : "";
    $("declared-note").hidden = false;
    $("declared-note").textContent = s
      ? `Declaration scoring: ${first || "nobody declared"}, so the game scores ${s.points} for ` +
        `${s.winner === "you" ? "you" : s.winner === "computer" ? "the computer" : "nobody (a draw)"}.`
      : first ? `${first[0].toUpperCase()}${first.slice(1)}: the bids are face up from then on.`
      : "Nobody has declared: each round, say first whether you declare.";
  }
  const faceUp = (i) => ((game.face_up ? game.face_up[i] : game.history[i].face_up) ? " (face up)" : "");
  const mixText = (mix) => Object.entries(mix || {}).filter(([, p]) => p > 0)
    .map(([c, p]) => `${c}: ${fmt(p, 3)}`).join(", ");
  $("mix-head").hidden = !(hidden && over);
  $("history").querySelector("tbody").innerHTML = game.history.map((r, i) =>
    `<tr><td>${r.round}</td><td>${r.prize}</td><td>${r.you}${faceUp(i)}</td><td>${r.computer ?? "?"}</td>` +
    (three ? `<td>${r.computer2}</td>` : "") +
    (dummy ? `<td>${r.dummy}</td>` : "") + `<td>${r.winner}${share(r)}${r.declared ? `; declared: ${r.declared}` : ""}</td>` +
    (hidden && over ? `<td class="mix">${mixText(r.mix)}</td>` : "") + "</tr>").join("");
  $("reveal").disabled = game.history.length === 0 || (hidden && !over);
  const verdict = { you: "you win.", computer: "the computer wins.", nobody: "a tie.", dummy: "the dummy has the most.",
    "computer 1": "computer 1 wins.", "computer 2": "computer 2 wins." };
  if (three) verdict.nobody = "a tie for the most points.";
  $("outcome").textContent = over
    ? `Game over: you ${game.score.you}, ${them} ${game.score.computer}` +
      (three ? `, computer 2 ${game.score.computer2}` : "") +
      (dummy ? `, dummy ${game.score.dummy}` : "") + `: ${verdict[game.winner]}` : "";
  const left = over && game.leftover != null;
  $("leftover").hidden = !left;
  $("leftover").textContent = left
    ? `The ${game.leftover} was left over: it is never bid on and scores for nobody.` : "";
  $("review-note").hidden = !(over && game.review_text);
  $("review-note").textContent = over && game.review_text ? `${game.review_text[0].toUpperCase()}${game.review_text.slice(1)}.` : "";
  drawReview();
}

function drawReview() {
  const review = game.review;
  $("review-box").hidden = !review;
  if (!review) return;
  const units = game.objective === "win" ? "P(win) - P(loss)" : "expected points";
  $("review-units").textContent = units;
  $("review").querySelector("tbody").innerHTML = review.rounds.map((r) =>
    `<tr><td>${r.round}</td><td>${r.prize}</td><td>${r.you}</td>` +
    `<td>${Object.entries(r.equilibrium).filter(([, p]) => p > 0).map(([c, p]) => `${c}: ${fmt(p, 3)}`).join(", ")}</td>` +
    `<td class="${r.cost > 1e-9 ? "cost" : ""}">${r.forced ? "forced" : fmt(r.cost, 3)}</td></tr>`).join("");
  $("review-total").textContent = fmt(review.total_cost, 3);
}

async function choosePrize(card) {
  if (busy || !game || game.awaiting !== "prize" || game.chooser !== "me") return;
  busy = true;
  try {
    game = await api("game/prize", { ...game.state, prize: card });
    drawPlay();
  } catch (err) {
    showError(err.message);
  } finally {
    busy = false;
  }
}

async function declareNow(yes) {
  if (busy || !game || game.awaiting !== "declare") return;
  busy = true;
  try {
    game = await api("game/declare", { ...game.state, declare: yes ? 1 : 0 });
    drawPlay();
  } catch (err) {
    showError(err.message);
  } finally {
    busy = false;
  }
}

async function bid(card) {
  if (busy || !game || game.awaiting !== "bid") return;
  busy = true;
  try {
    const declare = game.can_declare && $("declare").checked ? { declare: 1 } : {};
    game = await api("game/bid", { ...game.state, bid: card, ...declare });
    $("declare").checked = false;
    $("revealed").textContent = "";
    drawPlay();
  } catch (err) {
    showError(err.message);
  } finally {
    busy = false;
  }
}

// Number keys bid on Play (1..9, 0 for 10); Tab and Enter reach every card button too.
document.addEventListener("keydown", (e) => {
  if (state.tab !== "play" || !game || e.ctrlKey || e.metaKey || e.altKey) return;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement?.tagName)) return;
  if (game.awaiting === "declare" && ["d", "n"].includes(e.key)) { e.preventDefault(); declareNow(e.key === "d"); return; }
  if (!/^[0-9]$/.test(e.key)) return;
  const card = e.key === "0" ? 10 : Number(e.key);
  if (game.awaiting === "prize" && game.choices.includes(card)) { e.preventDefault(); choosePrize(card); }
  else if (game.awaiting === "bid" && game.your_cards.includes(card)) { e.preventDefault(); bid(card); }
});

// -- your agent: a policy file uploaded, its NashConv (POST /api/nashconv) ------------------------
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function showUploadLimits() {
  const limits = info && info.nashconv;
  if (!limits) return;
  $("upload-limit").textContent = `${mib(limits.upload_max_bytes)} (${limits.upload_max_bytes.toLocaleString("en")} bytes)`;
  $("upload-max-n").textContent = Object.entries(limits.max_n).map(([o, k]) => `${k} (${o})`).join(", ");
}

async function judgeAgent(event) {
  event.preventDefault();
  const file = $("agent-file").files[0];
  $("agent-result").hidden = true;
  showError("");
  if (!file) { showError("choose a policy file first"); return; }
  const limit = info.nashconv.upload_max_bytes;
  if (file.size > limit) {
    showError(`the policy file has ${file.size.toLocaleString("en")} bytes, more than the ` +
      `${limit.toLocaleString("en")} this server reads: judge it with gops imperfect nashconv FILE`);
    return;
  }
  const p = new URLSearchParams({ n: $("agent-n").value, order: $("agent-order").value,
                                  objective: $("agent-objective").value });
  if ($("agent-fill").checked) p.set("fill_uniform", "1");
  $("agent-status").textContent = `reading ${file.name} (${file.size.toLocaleString("en")} bytes) and computing best responses...`;
  $("agent-go").disabled = true;
  try {
    const response = await fetch(`/api/nashconv?${p}`, { method: "POST", body: file });
    const r = await response.json();
    if (!response.ok) throw new Error(r.error || `HTTP ${response.status}`);
    const pm = (x) => `\u00b1 ${Number(x).toExponential(1)}`;
    $("agent-nashconv").textContent = `${r.nash_conv} ${pm(r.error_bound)}`;
    $("agent-nashconv").dataset.value = r.nash_conv;
    $("agent-exploitability").textContent = `${r.exploitability} ${pm(r.exploitability_error_bound)}`;
    $("agent-br0").textContent = String(r.best_response_values[0]);
    $("agent-br1").textContent = String(r.best_response_values[1]);
    $("agent-units").textContent = r.units;
    $("agent-result").hidden = false;
    $("agent-status").textContent = `${file.name}: N = ${r.n}, ${r.order} order, ${r.objective}; ` +
      `best responses in ${r.seconds} s (floats; the error bound is proven)`;
  } catch (err) {
    $("agent-status").textContent = "";
    showError(err.message);
  } finally {
    $("agent-go").disabled = false;
  }
}

// -- N beyond this server: keep the address, say what it takes --------------------------------
function needsStore() {
  const list = info ? info.solvable[objective()] : [];
  if (list.includes(n())) { $("notice").hidden = true; return false; }
  const top = Math.max(...list);
  $("notice").hidden = false;
  $("notice").innerHTML = `N = ${n()} (${objective()} objective) is not served here: this server ` +
    `solves N &le; ${top} on the fly and has no store of N = ${n()}.  A store is solved once ` +
    `(<code>gops solve ${n()}${objective() === "win" ? " --objective win" : ""} --store DIR</code>, ` +
    `hours to days beyond N = 12) and served with <code>gops serve --store DIR</code>.`;
  $("result").hidden = true;
  return true;
}

// -- wiring -------------------------------------------------------------------------------------
function showTab(tab) {
  state.tab = tab;
  for (const t of ["explore", "first", "play", "agent"]) {
    $(t).hidden = t !== tab;
    $(`tab-${t}`).classList.toggle("active", t === tab);
  }
  showLead();
  writeHash();
  document.querySelector(".game-controls").hidden = tab === "agent";  // its own game
  if (tab === "agent") { $("notice").hidden = true; return; }
  needsStore();
  if (tab === "first") showFirstMove();
}

// The N menu: what this server solves for the objective, and an N asked for by the
// address that it does not (marked; the page then says what that N needs).
function fillN(wanted) {
  const list = info.solvable[objective()];
  const want = Number(wanted ?? $("n").value ?? 5);
  const ok = Number.isInteger(want) && want >= 1 && want <= 16;
  const opts = ok && !list.includes(want) ? [...list, want].sort((a, b) => a - b) : list;
  $("n").innerHTML = opts.map((k) =>
    `<option value="${k}">${k}${list.includes(k) ? "" : " (needs a store)"}</option>`).join("");
  $("n").value = ok ? want : 5;
}

// The lead: a position's on Explore, a handicap on First move, a head start on Play.
function showLead() {
  $("lead-label").hidden = objective() !== "win";
  $("lead-name").textContent = state.tab === "play" ? "head start" : "lead";
  $("order-label").hidden = state.tab !== "play";
  $("variant-label").hidden = state.tab !== "play";
  showVariant();
}

// What a variant allows: points, shuffled prizes, its N (the options that do not apply
// are disabled, with a title saying why; a variant chosen keeps the order at shuffled).
function showVariant() {
  const limits = (info && info.variants) || {};
  for (const o of $("variant").options) {
    const lim = limits[o.value];
    const why = !lim ? "" : objective() !== "points" ? "solved for points only"
      : n() < lim.min_n || n() > lim.max_n ? `played at N = ${lim.min_n} to ${lim.max_n}` : "";
    o.disabled = Boolean(why);
    o.title = why;
  }
  if ($("variant").selectedOptions[0]?.disabled) $("variant").value = "standard";
  // hidden bids: the shipped equilibria's games (/api/info's hidden: [n, order, objective])
  const shipped = (info && info.hidden) || [];
  const hidden = variant() === "hidden";
  for (const o of $("order").options) o.disabled = hidden && !shipped.some(([, so]) => so === o.value);
  if (hidden && $("order").selectedOptions[0]?.disabled) $("order").value = "descending";
  const on = !["standard", "hidden"].includes(variant());
  const noDeclarations = variant() !== "standard" || objective() !== "points";  // as gops play
  $("declarations").disabled = noDeclarations;
  if (noDeclarations) $("declarations").checked = false;
  if (on) $("order").value = "random";
  $("order").disabled = on;
  $("order-label").title = on ? "the variants are played with shuffled prizes" : "who orders the prizes";
  const winOption = [...$("objective").options].find((o) => o.value === "win");
  winOption.disabled = on;
  const lim = limits[variant()];
  for (const o of $("n").options) {
    const k = Number(o.value);
    o.disabled = hidden ? !shipped.some(([sn, so, sobj]) => sn === k && so === order() && sobj === objective())
      : Boolean(lim) && (k < lim.min_n || k > lim.max_n);
  }
}

function settingsChanged() {
  showLead();
  hideStaleAnswer();  // another objective or lead: another position
  if (state.line.length) cutLine();
  if (game) { dropGame(); if (state.tab === "play") newGame(); }
  writeHash();
  if (needsStore()) return;
  if (state.tab === "first") showFirstMove();
}

async function start() {
  info = await api("info", {}, { watch: false });
  $("loading").hidden = true;
  const tab = readHash();
  drawCards();
  $("objective").onchange = () => { fillN(); if (!info.solvable[objective()].includes(n())) { fillN(5); fullPosition(); drawCards(); } settingsChanged(); };
  $("lead").onchange = settingsChanged;
  $("order").onchange = settingsChanged;
  $("variant").onchange = settingsChanged;
  $("declarations").onchange = settingsChanged;
  $("n").onchange = () => { fillN(); fullPosition(); drawCards(); settingsChanged(); };
  $("solve").onclick = solvePosition;
  $("step").onclick = stepRound;
  $("back").onclick = stepBack;
  $("new-game").onclick = newGame;
  $("declare-yes").onclick = () => declareNow(true);
  $("declare-no").onclick = () => declareNow(false);
  $("agent-form").onsubmit = judgeAgent;
  showUploadLimits();
  $("cancel").onclick = cancelSolve;
  $("reveal").onclick = () => {
    const last = game && game.history[game.history.length - 1];
    const mix = (m) => Object.entries(m || {}).map(([c, p]) => `${c}: ${fmt(p, 3)}`).join(", ");
    $("revealed").textContent = game && game.players === 3  // both computers' mixes
      ? `computer 1's mix: ${mix(last && last.mix)}; computer 2's mix: ${mix(last && last.mix2)}`
      : "its mix: " + mix(last && last.mix);
  };
  document.querySelectorAll(".tab").forEach((b) => { b.onclick = () => showTab(b.dataset.tab); });
  showTab(tab);
  if (tab === "explore" && state.line.length && !needsStore()) {
    try { await walkLine(); } catch (err) { showError(err.message); return; }
  }
  if (tab === "explore" && location.hash.includes("mine=") && !needsStore() && state.upcard) solvePosition();
}

start().catch((err) => { $("loading").hidden = true; showError(err.message); });
