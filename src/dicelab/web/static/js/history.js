// The history view: the games kept, and their trend; a game sent there once finished.
import { api, showError } from "./api.js";
import { escapeHtml } from "./html.js";
import { inDuel } from "./mode.js";
import { fmt } from "./record.js";
import { $, state } from "./state.js";

// -- history: the games kept, and their trend ---------------------------------------------
export async function loadHistory() {
  try {
    const h = await api("/api/history?last=200");
    renderHistory(h);
    if (h.note) showError(h.note);  // damaged games left out
  } catch (err) {
    showError(err.message);
  }
}

export function renderHistory(h) {
  const s = h.summary.all;
  const mean = s.mean_score !== null ? `: games score ${fmt(s.mean_score, 1)} on average` : "";
  const loss = s.average_cost !== null ? `; in games and training, ${fmt(s.average_cost, 3)} `
    + `points lost per decision, ${fmt(100 * s.best_share, 1)}% best choices` : "";
  $("history-summary").textContent = s.games
    ? `${s.games} game${s.games > 1 ? "s" : ""} and sessions kept${mean}${loss}.`
    : "No games kept yet: finish a game or a training session.";
  const table = $("history-table");
  table.innerHTML = "<thead><tr><th>ended</th><th>kind</th><th>rules</th>"
    + '<th class="num">score</th><th class="num">loss/decision</th>'
    + '<th class="num">mistakes</th><th>worst mistake</th></tr></thead>';
  const body = document.createElement("tbody");
  for (const g of [...h.games].reverse()) {
    const w = g.worst[0];
    const chance = g.kind === "duel" || g.kind === "match";  // costs in win chance
    const cost = (c, digits) => (chance ? `${fmt(100 * c, 1)}%` : fmt(c, digits));
    const worst = w ? `turn ${w.turn}: ${w.chosen}, best ${w.best} (−${cost(w.cost, 2)})` : "";
    const tr = document.createElement("tr");
    tr.className = "history-game";
    tr.innerHTML = `<td>${escapeHtml(g.finished_at)}</td><td>${escapeHtml(g.kind)}</td>`
      + `<td>${escapeHtml(g.rules)}</td>`
      + `<td class="num">${g.kind === "training" ? "–" : g.score}</td>`
      + `<td class="num">${cost(g.average_cost, 3)}</td>`
      + `<td class="num">${g.mistakes}/${g.decisions}</td><td>${escapeHtml(worst)}</td>`;
    body.appendChild(tr);
  }
  table.appendChild(body);
  const games = h.games.filter((g) => g.kind === "game");
  $("history-chart").hidden = games.length < 2;
  if (games.length >= 2) {
    drawTrend($("history-score"), games.map((g) => g.score), 0);
    drawTrend($("history-loss"), games.map((g) => g.average_cost), 2);
  }
}

// Each value as a dot, and the mean of the last ten as a line.
export function drawTrend(svg, values, digits) {
  const w = 600;
  const h = svg.viewBox.baseVal.height;
  const left = 40;
  const lo = Math.min(...values, digits ? 0 : Infinity);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const x = (i) => left + (i * (w - left - 10)) / Math.max(1, values.length - 1);
  const y = (v) => h - 8 - ((v - lo) * (h - 16)) / span;
  const means = values.map((_, i) => {
    const part = values.slice(Math.max(0, i - 9), i + 1);
    return part.reduce((a, b) => a + b, 0) / part.length;
  });
  svg.innerHTML = values.map((v, i) => `<circle class="dot" cx="${x(i)}" cy="${y(v)}" r="4"/>`)
    .join("")
    + `<polyline class="mean" points="${means.map((v, i) => `${x(i)},${y(v)}`).join(" ")}"/>`
    + `<text x="2" y="12">${fmt(hi, digits)}</text><text x="2" y="${h - 4}">${fmt(lo, digits)}</text>`;
}

// A finished game goes to the history of the server's user (kept once).
export async function keepFinishedGame() {
  state.keptFor = state.record;
  try {
    await api("/api/history", { record: inDuel() ? state.duel.record : state.record });
  } catch (err) {
    showError(`The game was not kept in the history: ${err.message}`);
  }
}
