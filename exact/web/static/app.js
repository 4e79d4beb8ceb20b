// The page of `gops serve`: everything it shows comes from the JSON API (/api/...).
"use strict";

const $ = (id) => document.getElementById(id);
const TABLE_1 = [  // Rhoads & Bartholdi 2012, Table 1: [bid - 1][upcard - 1], N = 5
  [0.0470, 0.1855, 0.1182, 0.1226, 0.1123],
  [0.8327, 0, 0.1188, 0.07347, 0.0241],
  [0.1203, 0.7375, 0, 0.1915, 0],
  [0, 0.0770, 0.7630, 0.2043, 0],
  [0, 0, 0, 0.4081, 0.8636],
];
const state = { tab: "explore", mine: new Set(), theirs: new Set(), deck: new Set(), upcard: null };

async function api(path, params) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`/api/${path}?${query}`);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

function showError(message) {
  $("error").textContent = message ? `gops: error: ${message}` : "";
  $("error").hidden = !message;
}

function n() { return parseInt($("n").value, 10); }
function objective() { return $("objective").value; }
function lead() { return parseInt($("lead").value || "0", 10); }
function objectiveParams() {
  return objective() === "win" ? { objective: "win", lead: lead() } : {};
}
const list = (set) => [...set].sort((a, b) => a - b).join(",");

// -- the shareable address: #tab?n=..&objective=..&mine=.. ----------------------------------
function writeHash() {
  const p = new URLSearchParams({ n: n(), objective: objective() });
  if (objective() === "win") p.set("lead", lead());
  if (state.tab === "explore") {
    p.set("mine", list(state.mine)); p.set("theirs", list(state.theirs));
    p.set("deck", list(state.deck)); if (state.upcard) p.set("upcard", state.upcard);
  }
  history.replaceState(null, "", `#${state.tab}?${p.toString().replace(/%2C/g, ",")}`);
}

function readHash() {
  const [tab, query] = location.hash.replace(/^#/, "").split("?");
  const p = new URLSearchParams(query || "");
  const cards = (key) => new Set((p.get(key) || "").split(",").filter(Boolean).map(Number));
  if (p.get("n")) $("n").value = p.get("n");
  if (p.get("objective")) $("objective").value = p.get("objective");
  if (p.get("lead")) $("lead").value = p.get("lead");
  if (p.has("mine")) {
    state.mine = cards("mine"); state.theirs = cards("theirs"); state.deck = cards("deck");
    state.upcard = p.get("upcard") ? Number(p.get("upcard")) : null;
  } else {
    fullPosition();
  }
  return ["explore", "first", "play"].includes(tab) ? tab : "explore";
}

function fullPosition() {
  const all = Array.from({ length: n() }, (_, i) => i + 1);
  state.mine = new Set(all); state.theirs = new Set(all); state.deck = new Set(all);
  state.upcard = n();
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

function drawCards() {
  const redraw = () => { drawCards(); writeHash(); };
  cardButtons("mine-cards", "mine", (c) => state.mine.has(c), (c) => { toggle(state.mine, c); redraw(); });
  cardButtons("theirs-cards", "theirs", (c) => state.theirs.has(c), (c) => { toggle(state.theirs, c); redraw(); });
  cardButtons("deck-cards", "deck", (c) => state.deck.has(c), (c) => { toggle(state.deck, c); redraw(); });
  cardButtons("upcard-cards", "upcard", (c) => state.upcard === c,
              (c) => { state.upcard = c; redraw(); }, (c) => state.deck.has(c));
}

function bars(svgId, mix) {
  const svg = $(svgId);
  const cards = Object.keys(mix);
  const w = 360, h = 150, gap = 4, bw = Math.max(8, (w - gap * cards.length) / cards.length);
  let out = "";
  cards.forEach((c, i) => {
    const p = mix[c], x = i * (bw + gap), bh = p * (h - 20);
    out += `<g data-card="${c}" data-p="${p}"><title>bid ${c}: ${p.toFixed(6)}</title>` +
      `<rect x="${x}" y="${h - 20 - bh}" width="${bw}" height="${bh}" fill="#1f3a5f"></rect>` +
      `<text x="${x + bw / 2}" y="${h - 5}" text-anchor="middle" font-size="12">${c}</text>` +
      `<text x="${x + bw / 2}" y="${h - 24 - bh}" text-anchor="middle" font-size="10">${p.toFixed(3)}</text></g>`;
  });
  svg.innerHTML = out;
}

function heat(value, lo, hi) {
  const t = hi > lo ? (value - lo) / (hi - lo) : 0.5;  // blue (low) .. white .. red (high)
  const r = Math.round(t < 0.5 ? 255 * 2 * t : 255);
  const b = Math.round(t > 0.5 ? 255 * 2 * (1 - t) : 255);
  const g = Math.round(255 - 80 * Math.abs(t - 0.5) * 2);
  return `rgb(${r},${g},${b})`;
}

function drawMatrix(pos) {
  const flat = pos.matrix.flat(), lo = Math.min(...flat), hi = Math.max(...flat);
  const rowSupport = (c) => pos.mine[String(c)] > 0, colSupport = (c) => pos.theirs[String(c)] > 0;
  let html = "<tr><th></th>" + pos.columns.map((c) =>
    `<th class="${colSupport(c) ? "support" : ""}">${c}${colSupport(c) ? "*" : ""}</th>`).join("") + "</tr>";
  pos.matrix.forEach((row, i) => {
    const c = pos.rows[i];
    html += `<tr><th class="${rowSupport(c) ? "support" : ""}">${c}${rowSupport(c) ? "*" : ""}</th>` +
      row.map((a) => `<td style="background:${heat(a, lo, hi)}" title="${a}">${a.toFixed(3)}</td>`).join("") + "</tr>";
  });
  $("matrix").innerHTML = html;
}

async function solvePosition() {
  showError("");
  writeHash();
  try {
    const pos = await api("position", {
      n: n(), mine: list(state.mine), theirs: list(state.theirs), deck: list(state.deck),
      upcard: state.upcard ?? "", ...objectiveParams(),
    });
    $("result").hidden = false;
    $("value").textContent = pos.value.toFixed(6);
    $("units").textContent = objective() === "win" ? "(P(win) - P(loss))" : "(expected point difference)";
    bars("mine-mix", pos.mine);
    bars("theirs-mix", pos.theirs);
    drawMatrix(pos);
    const cert = pos.certified;
    $("enclosure").textContent = `exact value in [${cert.value[0]}, ${cert.value[1]}]`;
    $("certified").textContent = cert.unique_and_enclosed
      ? "certified: this is the unique exact equilibrium, each exact probability within the interval of " +
        Object.entries(cert.mine).map(([c, iv]) => `${c}: [${iv[0].toPrecision(12)}, ${iv[1].toPrecision(12)}]`).join(", ")
      : `not certified as unique (${cert.reason}); guaranteed value in [${cert.guarantee[0]}, ${cert.guarantee[1]}]`;
    $("exact-box").hidden = !pos.exact;
    if (pos.exact) {
      $("exact-digits").textContent = pos.exact.digits;
      $("exact").value = Object.entries(pos.exact.mine).map(([c, p]) => `bid ${c}: ${p}`).join("\n");
    }
  } catch (err) {
    $("result").hidden = true;
    showError(err.message);
  }
}

// -- first move -------------------------------------------------------------------------------
function firstTable(tableEl, byUpcard, size) {
  let html = "<tr><th>bid\\up</th>" + Array.from({ length: size }, (_, u) => `<th>${u + 1}</th>`).join("") + "</tr>";
  for (let b = 1; b <= size; b++) {
    html += `<tr><th>${b}</th>`;
    for (let u = 1; u <= size; u++) {
      const p = byUpcard(u, b);
      html += `<td data-bid="${b}" data-upcard="${u}" title="bid ${b} on upcard ${u}: ${p}" ` +
        `style="background:${heat(p, 0, 1)}">${p === 0 ? "0" : p.toFixed(4)}</td>`;
    }
    html += "</tr>";
  }
  tableEl.innerHTML = html;
}

async function showFirstMove() {
  showError("");
  writeHash();
  try {
    const t = await api("table", { n: n(), ...objectiveParams() });
    $("first-title").textContent = `N = ${t.n}, ${t.objective} objective`;
    firstTable($("first-table"), (u, b) => t.by_upcard[String(u)][b - 1], t.n);
    $("paper-box").hidden = t.n !== 5 || t.objective !== "points";
    firstTable($("paper-table"), (u, b) => TABLE_1[b - 1][u - 1], 5);
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
  try {
    game = await api("game/new", { n: n(), objective: objective() });
  } catch (err) {
    showError(err.message);
    return;
  }
  $("table-top").hidden = false;
  $("revealed").textContent = "";
  drawPlay();
}

function drawPlay() {
  const over = game.awaiting === "over";
  $("round").textContent = over ? `${game.rounds} of ${game.rounds} (over)` : `${game.round} of ${game.rounds}`;
  $("prize").textContent = game.upcard ?? "-";
  $("score-me").textContent = game.score.you;
  $("score-them").textContent = game.score.computer;
  const hand = $("hand");
  hand.innerHTML = "";
  for (const c of game.your_cards) {
    const b = document.createElement("button");
    b.className = "card";
    b.textContent = c;
    b.dataset.role = "hand";
    b.dataset.card = c;
    b.disabled = game.awaiting !== "bid";
    b.onclick = () => bid(c);
    hand.appendChild(b);
  }
  $("history").querySelector("tbody").innerHTML = game.history.map((r) =>
    `<tr><td>${r.round}</td><td>${r.prize}</td><td>${r.you}</td><td>${r.computer}</td><td>${r.winner}</td></tr>`).join("");
  $("reveal").disabled = game.history.length === 0;
  const verdict = { you: "you win.", computer: "the computer wins.", nobody: "a tie." };
  $("outcome").textContent = over
    ? `Game over: you ${game.score.you}, computer ${game.score.computer}: ${verdict[game.winner]}` : "";
}

async function bid(card) {
  if (busy || !game || game.awaiting !== "bid") return;
  busy = true;
  try {
    game = await api("game/bid", { ...game.state, bid: card });
    $("revealed").textContent = "";
    drawPlay();
  } catch (err) {
    showError(err.message);
  } finally {
    busy = false;
  }
}

// -- wiring -------------------------------------------------------------------------------------
function showTab(tab) {
  state.tab = tab;
  for (const t of ["explore", "first", "play"]) {
    $(t).hidden = t !== tab;
    $(`tab-${t}`).classList.toggle("active", t === tab);
  }
  writeHash();
  if (tab === "first") showFirstMove();
}

async function start() {
  const info = await api("info", {});
  const fill = () => {
    const current = $("n").value || "5";
    $("n").innerHTML = info.solvable[objective()].map((k) => `<option>${k}</option>`).join("");
    $("n").value = info.solvable[objective()].includes(Number(current)) ? current : "5";
  };
  fill();
  const tab = readHash();
  fill();
  $("lead-label").hidden = objective() !== "win";
  drawCards();
  $("objective").onchange = () => { fill(); $("lead-label").hidden = objective() !== "win"; writeHash(); if (state.tab === "first") showFirstMove(); };
  $("lead").onchange = () => { writeHash(); if (state.tab === "first") showFirstMove(); };
  $("n").onchange = () => { fullPosition(); drawCards(); writeHash(); if (state.tab === "first") showFirstMove(); };
  $("solve").onclick = solvePosition;
  $("new-game").onclick = newGame;
  $("reveal").onclick = () => {
    const last = game && game.history[game.history.length - 1];
    $("revealed").textContent = "its mix: " + Object.entries(last ? last.mix : {})
      .map(([c, p]) => `${c}: ${Number(p).toFixed(3)}`).join(", ");
  };
  document.querySelectorAll(".tab").forEach((b) => { b.onclick = () => showTab(b.dataset.tab); });
  showTab(tab);
  if (tab === "explore" && location.hash.includes("mine=")) solvePosition();
}

start().catch((err) => showError(err.message));
