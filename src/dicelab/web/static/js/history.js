// The history view: the games kept, and their trend; records saved and opened.
import { api, showError } from "./api.js";
import { computerRecord, computerToMove, inDuel } from "./duel.js";
import { adviceIsCurrent, chooseBox } from "./game.js";
import { valueName } from "./playfor.js";
import { boxes, extraBonuses, filled, filledOf, fmt, gameOver, scoring, totals, turns } from "./record.js";
import { escapeHtml } from "./rules.js";
import { $, state } from "./state.js";
import { inMatch, otherTotals, others, typedBox } from "./table.js";
import { training } from "./training.js";

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

// A table row that is a control: a button to assistive technology, reached by Tab,
// and pressed by a click, Enter or Space, as a button is.
export function actsAsButton(tr, act, label) {
  tr.tabIndex = 0;
  tr.setAttribute("role", "button");
  tr.setAttribute("aria-label", label);
  tr.addEventListener("click", act);
  tr.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault(); // Space would scroll the page
      act();
    }
  });
}

export function renderScorecard() {
  const table = $("scorecard");
  table.innerHTML = "";
  const a = scoring() && adviceIsCurrent() ? state.advice : null;
  const candidates = {};
  if (a) for (const o of a.options) candidates[o.box] = o;
  const f = filled();
  const t = totals();
  const cats = boxes();
  // a column for each other player: the computer in a duel, the others at a table
  const cols = inDuel()
    ? [{ name: "computer", record: computerRecord(), total: "computer-total" }]
    : others().map((o, k) => ({
      name: o.name, record: o.record, total: `other-total-${k + 1}`,
      friend: state.match.kind === "friends" ? o : null,
    }));
  table.classList.toggle("duel", cols.length > 0);  // the box descriptions fold away
  const colFilled = cols.map((c) => filledOf(c.record));
  const colTotals = cols.map((c) => (c.friend ? otherTotals(c.friend) : totals(c.record)));
  const other = (cell) => cols.map((c, k) => `<td class="num computer">${cell(k)}</td>`).join("");
  // a friend's box: typed as they fill it
  const typed = (k, id, name, value) => `<input class="friend-box" id="friend-${k + 1}-${id}" `
    + `inputmode="numeric" size="3" data-other="${k}"${id === "extra" ? "" : ` data-box="${id}"`} `
    + `value="${value}" aria-label="${escapeHtml(`${cols[k].name}: ${name}`)}">`;
  if (cols.length) {
    const head = document.createElement("tr");
    // on a phone, a table of three or four: the short names, "cpu 1", "pl. 2"
    const narrow = cols.length > 1 && matchMedia("(max-width: 600px)").matches;
    const shown = (name) => (narrow
      ? name.replace(/^computer /, "cpu ").replace(/^player /, "pl. ") : name);
    head.innerHTML = '<th></th><th class="num">you</th>' + cols.map((c) => '<th class="num" '
      + `title="${escapeHtml(c.name)}">${escapeHtml(shown(c.name))}</th>`).join("");
    table.appendChild(head);
  }
  const lastUpper = cats.map((c) => c.upper).lastIndexOf(true);
  const row = (cells, cls) => {
    const tr = document.createElement("tr");
    if (cls) tr.className = cls;
    tr.innerHTML = cells;
    table.appendChild(tr);
    return tr;
  };
  // in scorecard order (forced_order) only the first open box is ever offered
  const forced = state.info.forced_order ? cats.find((c) => !(c.id in f)) : null;
  cats.forEach((c, i) => {
    let cell;
    const tr = row("", "box");
    tr.dataset.box = c.id;
    if (forced && c.id === forced.id) {
      tr.classList.add("forced");
      tr.title = `this turn fills ${c.name} (boxes in scorecard order)`;
    }
    if (c.id in f) {
      tr.classList.add("filled");
      cell = `<td class="num points">${f[c.id]}</td>`;
    } else if (candidates[c.id]) {
      const o = candidates[c.id];
      tr.classList.add("candidate");
      if (o.best && $("show-advice").checked) tr.classList.add("best");
      tr.title = `fill ${c.name} with ${o.points}`;
      actsAsButton(tr, () => chooseBox(c.id), `fill ${c.name} with ${o.points}`);
      const bonus = o.extra_bonus ? ` +${o.extra_bonus}` : "";
      cell = `<td class="num points maybe">${o.points}${bonus}</td>`;
    } else if (forced) {  // another open box: clicked, it says which one this turn fills
      tr.addEventListener("click", () => showError(`This turn fills ${forced.name}: `
        + "the boxes are filled in scorecard order."));
      cell = '<td class="num points"></td>';
    } else {
      cell = '<td class="num points"></td>';
    }
    tr.innerHTML = `<td title="${escapeHtml(c.scores)}"><span class="box-name">${escapeHtml(c.name)}</span>`
      + `<span class="scores">${escapeHtml(c.scores)}</span></td>${cell}`
      + other((k) => {
        const v = c.id in colFilled[k] ? String(colFilled[k][c.id]) : "";
        return cols[k].friend ? typed(k, c.id, c.name, v) : v;
      });
    if (i === lastUpper) {
      const bonus = state.info.upper_bonus;
      row(`<td>Upper total</td><td class="num" id="upper-total">${t.upper}`
        + `${bonus ? ` / ${bonus.threshold}` : ""}</td>${other((k) => colTotals[k].upper)}`, "sum");
      if (bonus) {
        const upperOpen = cats.some((u) => u.upper && !(u.id in f));
        const text = t.bonusEarned ? String(t.bonusEarned)
          : !upperOpen ? '<span class="muted">missed: 0</span>'
          : `<span class="muted">${Math.max(0, bonus.threshold - t.upper)} to go</span>`;
        row(`<td>Bonus (${bonus.points} at ${bonus.threshold})</td>`
          + `<td class="num" id="upper-bonus">${text}</td>`
          + other((k) => colTotals[k].bonusEarned),
        "sum");
      }
    }
  });
  if (state.info.extra_bonus) {
    row(`<td>Extra bonuses (${extraBonuses()} × ${state.info.extra_bonus.points})</td>`
      + `<td class="num">${t.extraPoints}</td>`
      + other((k) => (cols[k].friend
        ? typed(k, "extra", "extra bonuses", String(cols[k].friend.extra))
        : colTotals[k].extraPoints)), "sum");
  }
  row(`<td>Total</td><td class="num" id="total">${t.total}</td>`
    + cols.map((c, k) => `<td class="num computer" id="${c.total}">${colTotals[k].total}</td>`)
      .join(""),
  "sum total");
  for (const el of table.querySelectorAll("input.friend-box")) {
    el.addEventListener("change", typedBox);
  }
}

export function renderReview() {
  if (!state.info || !state.record) return;
  const table = $("review");
  table.innerHTML = "";
  const r = state.review;
  const ds = r ? r.decisions : [];
  const duel = Boolean(r && r.duel);
  const chance = duel || Boolean(r && r.measure === "chance");
  // priced in points of another measure than the average (a sure score, for risk)
  const sure = !chance && !duel && state.objective !== "expected" && !inMatch();
  const costOf = (c) => (chance ? `${fmt(100 * c)}%` : fmt(c));
  $("review-total").textContent = ds.length
    ? `${ds.length} decision${ds.length > 1 ? "s" : ""}, total cost ${costOf(r.total_cost)}`
      + (duel ? " of win chance" : chance ? ` (percentage points) of the ${valueName()}`
        : sure ? ` points of the ${valueName()}` : " expected points")
    : inMatch() ? "At a table, each option shows its cost in chance to finish first as you "
      + "play; the command dicelab match play also reviews a whole game at the end."
      : "Each decision and what it cost against the best one appear here.";
  $("review-total").dataset.cost = r ? String(r.total_cost) : "0";
  if (ds.length) {
    table.innerHTML = '<thead><tr><th class="num">turn</th><th class="num">roll</th>'
      + '<th>dice</th><th>your choice</th><th>best</th><th class="num">cost</th></tr></thead>';
    const body = document.createElement("tbody");
    for (const d of [...ds].reverse()) {
      const tr = document.createElement("tr");
      const bad = d.cost > 1e-9;
      tr.className = bad ? "costly" : "good";
      tr.innerHTML = `<td class="num">${d.turn}</td><td class="num">${d.throw}</td>`
        + `<td class="dice-cell">${d.dice.join(" ")}</td><td>${escapeHtml(d.chosen)}</td>`
        + `<td>${bad ? escapeHtml(d.best) : "✓"}</td><td class="num">${costOf(d.cost)}</td>`;
      body.appendChild(tr);
      if (d.why) {  // the why across the whole table, not squeezed into one column
        const why = document.createElement("tr");
        why.className = `why-line ${tr.className}`;
        why.innerHTML = `<td colspan="6" class="review-why">${escapeHtml(d.why)}</td>`;
        body.appendChild(why);
      }
    }
    table.appendChild(body);
  }
  const summary = $("summary");
  if (duel && gameOver() && !state.computerBusy && !computerToMove()) {
    const me = totals().total;
    const it = totals(computerRecord()).total;
    const verdict = me > it ? "You win" : me < it ? "The computer wins" : "A tie";
    summary.innerHTML = `<strong id="duel-result">${verdict}: ${me} to ${it}</strong>`
      + `<br>Your decisions cost ${costOf(r.total_cost)} of win chance in all `
      + `(${r.mistakes} of ${ds.length} were not the best).`;
    summary.hidden = false;
  } else if (gameOver() && r && r.finished && chance) {
    summary.innerHTML = `<strong>Final score: <span id="final-score">${r.score}</span></strong>`
      + `<br>At the start the ${valueName()} was ${fmt(100 * r.expected_score)}% with the best `
      + `play. Your decisions cost ${fmt(100 * r.total_cost)} percentage points of it in all `
      + `(${r.mistakes} of ${ds.length} were not the best).`;
    summary.hidden = false;
  } else if (gameOver() && r && r.finished && sure) {
    summary.innerHTML = `<strong>Final score: <span id="final-score">${r.score}</span></strong>`
      + `<br>At the start the ${valueName()} was ${fmt(r.expected_score)} points with the `
      + `best play. Your decisions cost ${fmt(r.total_cost)} points of it in all `
      + `(${r.mistakes} of ${ds.length} were not the best).`;
    summary.hidden = false;
  } else if (gameOver() && r && r.finished) {
    summary.innerHTML = `<strong>Final score: <span id="final-score">${r.score}</span></strong>`
      + `<br>With optimal play a game scores ${fmt(r.expected_score)} on average. `
      + `Your decisions cost ${fmt(r.total_cost)} expected points in all `
      + `(${r.mistakes} of ${ds.length} were not the best); `
      + `the dice gave you ${r.luck >= 0 ? "+" : "−"}${fmt(Math.abs(r.luck))} (luck).`
      + analysisHtml(r);
    summary.hidden = false;
  } else {
    summary.hidden = true;
  }
  $("download").hidden = turns().length === 0;
}

// End of the game: the mistakes by kind, the loss per decision, and the expected
// final score after every decision, from the start's expectation to the final score.
export const KIND_NAMES = { keep: "keeps", "upper box": "upper boxes", "lower box": "lower boxes" };

export function analysisHtml(r) {
  const rows = r.by_kind.map((k) => `<tr data-kind="${k.kind}"><td>${KIND_NAMES[k.kind]}</td>`
    + `<td class="num">${k.decisions}</td><td class="num">${k.mistakes}</td>`
    + `<td class="num">${fmt(k.cost)}</td></tr>`).join("");
  const table = '<table class="kinds" id="by-kind"><thead><tr><th>decisions</th>'
    + '<th class="num">made</th><th class="num">not the best</th>'
    + `<th class="num">cost</th></tr></thead><tbody>${rows}</tbody></table>`;
  const average = `<p id="average-cost">On average a decision cost ${fmt(r.average_cost, 3)} `
    + "expected points.</p>";
  return table + average + pathSvg(r);
}

export function pathSvg(r) {
  const values = [r.expected_score, ...r.decisions.map((d) => d.chosen_value)];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const pad = Math.max(1, (hi - lo) * 0.08);
  const y = (v) => 96 - ((v - (lo - pad)) / (hi - lo + 2 * pad)) * 92;
  const x = (i) => (i / Math.max(1, values.length - 1)) * 400;
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const start = y(r.expected_score).toFixed(1);
  const marks = r.decisions.map((d, i) => (d.cost > 1e-9
    ? `<circle class="miss" cx="${x(i + 1).toFixed(1)}" cy="${y(d.chosen_value).toFixed(1)}" r="3">`
      + `<title>turn ${d.turn}, roll ${d.throw}: ${escapeHtml(d.chosen)} cost ${fmt(d.cost)}</title>`
      + "</circle>" : "")).join("");
  return '<figure class="path"><figcaption>Expected final score after each decision '
    + `(from ${fmt(r.expected_score)} to ${r.score}; red: not the best)</figcaption>`
    + '<svg id="score-path" viewBox="0 0 400 100" preserveAspectRatio="none" role="img" '
    + `aria-label="expected final score through the game, from ${fmt(r.expected_score)} `
    + `to ${r.score}"><line class="start" x1="0" x2="400" y1="${start}" y2="${start}"></line>`
    + `<polyline points="${points}"></polyline>${marks}</svg></figure>`;
}

export function downloadRecord() {
  const record = inDuel() ? state.duel.record : state.record;
  const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `dicelab-${state.rulesId}-${inDuel() ? "duel" : "game"}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
