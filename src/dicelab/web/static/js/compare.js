// The Compare view: rule sets side by side (POST /api/compare), as `dicelab compare`
// gives them: a column per rule set, the final-score distributions overlaid in one
// chart, and the positions met in play where their best moves part most.
import { api, showError } from "./api.js";
import { escapeHtml } from "./html.js";
import { $, state } from "./state.js";

const COLORS = ["#1f6feb", "#d1242f", "#1a7f37", "#8250df"];
const PICKS = ["compare-a", "compare-b", "compare-c", "compare-d"];
const cmp = { request: 0 };

const fixed = (x, n) => (x === null || x === undefined ? "none" : x.toFixed(n));
const percent = (p) => (p === null || p === undefined ? "none" : `${(100 * p).toFixed(2)}%`);

// A rule set's name in the pickers: with its file's where another has the same name.
function pickName(r, list) {
  const name = r.name || r.id;
  if (list.filter((x) => x.name === r.name).length < 2) return name;
  return `${name} (${r.source === "builtin" ? "built-in" : r.file || r.id})`;
}

// The pickers, filled from the rule sets the server knows (two chosen, two optional)
// each time the view is shown: an upload made since is offered, the choices stay.
export function showCompare() {
  const list = state.rulesList;
  if (!list.length) return;
  const options = list
    .map((r) => `<option value="${escapeHtml(r.id)}">${escapeHtml(pickName(r, list))}</option>`)
    .join("");
  const ids = list.map((r) => r.id);
  const first = ids.includes("yahtzee") ? "yahtzee" : ids[0];
  const second = ids.includes("yahtzee-simple") ? "yahtzee-simple" : ids[1];
  PICKS.forEach((id, i) => {
    const was = $(id).value;
    $(id).innerHTML = (i >= 2 ? '<option value="">(none)</option>' : "") + options;
    $(id).value = ids.includes(was) ? was : i === 0 ? first : i === 1 ? second : "";
  });
}

document.addEventListener("ruleslist", () => {
  if (!$("compare-view").hidden) showCompare();
});

const label = (s) => s.label || s.rules;

function setState(name, text) {
  $("compare-view").dataset.state = name;
  $("compare-status").textContent = text;
}

export async function runCompare() {
  const rules = PICKS.map((id) => $(id).value).filter((v) => v);
  if (new Set(rules).size < 2) {
    setState("error", "Choose two different rule sets (or more).");
    return;
  }
  const games = Math.max(0, Math.min(2000, Number($("compare-games").value) || 0));
  const request = ++cmp.request;
  setState("busy", "Solving and comparing… (a rule set's first time: Yahtzee takes about ten seconds)");
  $("compare-run").disabled = true;
  try {
    const body = { rules: [...new Set(rules)], games, boxes: $("compare-boxes").checked };
    const data = await api("/api/compare", body);
    if (request !== cmp.request) return;
    drawTable(data.rule_sets);
    drawChart(data.rule_sets);
    drawPartings(data.partings, data.rule_sets);
    setState("done", `${data.rule_sets.length} rule sets compared under optimal play.`);
  } catch (err) {
    if (request !== cmp.request) return;
    setState("error", "");
    showError(err.message);
  } finally {
    if (request === cmp.request) $("compare-run").disabled = false;
  }
}

// -- the table: a row per figure, a column per rule set -------------------------------
function rows(sets) {
  const out = [
    ["expected score", sets.map((s) => fixed(s.expected_score, 4))],
    ["sd", sets.map((s) => fixed(s.sd, 4))],
    ...["10", "50", "90"].map((q) => [`p${q}`, sets.map((s) => String(s.percentiles[q]))]),
    ["range", sets.map((s) => `${s.min_score}–${s.max_score}`)],
    ["P(upper bonus)", sets.map((s) => percent(s.p_bonus))],
    ["all-alike box", sets.map((s) => s.all_same_box || "none")],
    ["P(it scores)", sets.map((s) => percent(s.p_all_same))],
    ["simple strategy", sets.map((s) => fixed(s.simple_strategy.expected_score, 4))],
    ["skill gap", sets.map((s) => fixed(s.skill_gap, 4))],
    ["first player's edge", sets.map((s) => (s.duel && s.duel.edge !== null
      ? `${(100 * s.duel.edge).toFixed(3)} pts` : "left out*"))],
  ];
  if (sets.every((s) => s.box_points)) {
    const labels = new Map();
    for (const s of sets) for (const b of s.boxes) labels.set(b.id, b.label);
    const keys = [...new Set(sets.flatMap((s) => Object.keys(s.box_points)))];
    for (const k of keys) {
      out.push([`points: ${labels.get(k) || k}`,
        sets.map((s) => (k in s.box_points ? s.box_points[k].toFixed(3) : ""))]);
    }
  }
  return out;
}

function drawTable(sets) {
  const head = sets.map((s, i) =>
    `<th class="num"><span class="swatch" style="background:${COLORS[i]}"></span>${escapeHtml(label(s))}</th>`);
  const body = rows(sets).map(([name, cells]) =>
    `<tr><td>${escapeHtml(name)}</td>${cells.map((c) => `<td class="num">${escapeHtml(c)}</td>`).join("")}</tr>`);
  $("compare-table").innerHTML = `<thead><tr><th></th>${head.join("")}</tr></thead>`
    + `<tbody>${body.join("")}</tbody>`;
  const notes = sets.filter((s) => s.duel && s.duel.note)
    .map((s) => `* ${escapeHtml(label(s))}: ${escapeHtml(s.duel.note)}`
      + (s.duel.solvable ? " (<code>dicelab duel</code> solves it once; the page then reads it)" : ""));
  $("compare-notes").innerHTML = [
    `Simple strategy: ${escapeHtml(sets[0].simple_strategy.strategy)}. Skill gap: the optimum's `
      + "expected score less the simple strategy's, both exact.",
    "First player's edge: the first player's chance in the two-player game, both playing to win, "
      + "less a half (from tables solved before: a two-player game takes minutes to solve).",
    ...notes,
  ].map((t) => `<p>${t}</p>`).join("");
}

// -- the chart: each distribution a line, up to where nearly all of the mass lies ----
function drawChart(sets) {
  const W = 600, H = 200, pad = 4;
  const lo = Math.min(...sets.map((s) => s.lowest));
  const hi = Math.max(...sets.map((s) => upTo(s, 0.995)));
  const top = Math.max(...sets.map((s) => Math.max(...s.pmf)));
  const x = (v) => pad + ((v - lo) / Math.max(hi - lo, 1)) * (W - 2 * pad);
  const y = (p) => H - pad - (p / top) * (H - 2 * pad);
  const lines = sets.map((s, i) => {
    const pts = [];
    s.pmf.forEach((p, j) => {
      const v = s.lowest + j;
      if (v <= hi) pts.push(`${x(v).toFixed(1)},${y(p).toFixed(1)}`);
    });
    const mean = x(s.expected_score).toFixed(1);
    return `<polyline fill="none" stroke="${COLORS[i]}" stroke-width="1.5" vector-effect="non-scaling-stroke" points="${pts.join(" ")}"/>`
      + `<line x1="${mean}" x2="${mean}" y1="${pad}" y2="${H - pad}" stroke="${COLORS[i]}" stroke-dasharray="4 3" vector-effect="non-scaling-stroke"/>`;
  });
  $("compare-svg").innerHTML = lines.join("");
  $("compare-axis").innerHTML = [lo, Math.round((lo + hi) / 2), hi]
    .map((v) => `<span>${v}</span>`).join("");
  $("compare-legend").innerHTML = sets.map((s, i) =>
    `<span><span class="swatch" style="background:${COLORS[i]}"></span>${escapeHtml(label(s))}`
    + ` (mean ${s.expected_score.toFixed(1)})</span>`).join("");
  $("compare-chart").hidden = false;
}

function upTo(s, q) {
  let acc = 0;
  for (let j = 0; j < s.pmf.length; j++) {
    acc += s.pmf[j];
    if (acc >= q) return s.lowest + j;
  }
  return s.highest;
}

// -- the partings: for each pair and direction, the positions that cost most a game ---
function position(p, boxes) {
  const open = boxes.filter((b) => !(b.id in p.filled)).map((b) => b.label);
  const left = p.rerolls_left === 1 ? "1 reroll left" : `${p.rerolls_left} rerolls left`;
  return `${p.dice.join(" ")} · ${left} · open: ${open.join(", ")}`
    + ` · upper ${p.upper_total}`;
}

function drawPartings(partings, sets) {
  const boxesOf = new Map(sets.map((s) => [label(s), s.boxes]));
  const parts = partings.left_out.map((t) => `<p class="small">Not compared: ${escapeHtml(t)}</p>`);
  for (const rep of partings.pairs) {
    parts.push(`<h3>Played by ${escapeHtml(rep.played)}'s optimum, ${escapeHtml(rep.other)}'s best `
      + "move priced</h3>"
      + `<p class="small">${rep.games} games, ${rep.decisions} decisions: the best moves differ at `
      + `${rep.differing} (${(100 * rep.share).toFixed(2)}%), costing `
      + `${rep.points_per_game.toFixed(4)} points a game under ${escapeHtml(rep.played)}'s rules.</p>`);
    if (!rep.largest.length) continue;
    // each cell named (data-label): a phone shows a row as a card, its cells labelled
    const best = escapeHtml(`${rep.played}'s best`), other = escapeHtml(`${rep.other}'s`);
    const body = rep.largest.map((p) => `<tr><td>${escapeHtml(position(p, boxesOf.get(rep.played)))}</td>`
      + `<td data-label="${best}">${escapeHtml(p.best)}</td>`
      + `<td data-label="${other}">${escapeHtml(p.other)}</td>`
      + `<td class="num" data-label="cost">${p.cost.toFixed(3)}</td>`
      + `<td class="num" data-label="met">${p.met}</td>`
      + `<td class="num" data-label="a game">${p.points_per_game.toFixed(4)}</td></tr>`).join("");
    parts.push(`<div class="review-scroll partings-scroll"><table class="review-table partings"><thead><tr>`
      + `<th>position met</th><th>${escapeHtml(rep.played)}'s best</th>`
      + `<th>${escapeHtml(rep.other)}'s</th><th class="num">cost</th><th class="num">met</th>`
      + `<th class="num">a game</th></tr></thead><tbody>${body}</tbody></table></div>`);
  }
  $("compare-partings").innerHTML = parts.join("");
}
