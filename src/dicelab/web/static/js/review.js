// The review: every decision so far priced against the best one (the server replays
// the record), drawn under the scorecard, with the game's summary at its end.
import { api, showError } from "./api.js";
import { escapeHtml } from "./html.js";
import { computerRecord, computerToMove, inDuel, inMatch } from "./mode.js";
import { objectiveBody, valueName } from "./objectives.js";
import { fmt, gameOver, rolls, totals, turns } from "./record.js";
import { $, state } from "./state.js";

// Price every decision so far (play.py's review, on the server).
export async function reviewSoon() {
  if (inDuel()) {
    duelReviewSoon();
    return;
  }
  if (inMatch()) {  // `dicelab match review` reviews a game at a table
    state.review = null;
    renderReview();
    return;
  }
  const number = ++state.reviewRequest;
  const record = JSON.parse(JSON.stringify(state.record));
  try {
    // priced in what the game is played for: expected points, or the chance
    const body = { rules: state.rulesId, record, ...objectiveBody() };
    if (state.whyAsked && state.objective === "expected") body.explain = true;
    const review = await api("/api/review", body);
    if (number === state.reviewRequest) state.review = review;
  } catch (err) {
    if (number === state.reviewRequest) showError(`review: ${err.message}`);
  }
  renderReview();
}

// Your decisions priced in win chance (the server replays the duel record).
export async function duelReviewSoon() {
  const number = ++state.reviewRequest;
  const record = JSON.parse(JSON.stringify(state.duel.record));
  try {
    const r = await api("/api/duel/review", { rules: state.rulesId, record });
    if (number === state.reviewRequest) {
      const decisions = r.decisions.map((d) => ({
        ...d, throw: rolls() - d.rerolls_left, chosen_value: d.win_chance_chosen,
      }));
      state.review = { ...r, decisions, duel: true };
    }
  } catch (err) {
    if (number === state.reviewRequest) showError(`review: ${err.message}`);
  }
  renderReview();
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
