// The outlook between turns: the scorecard's value before the turn's first throw (in a
// duel, your chance to win), and the chart of the final score from this turn's start.
import { api, showError } from "./api.js";
import { changed } from "./hub.js";
import { computerRecord, inDuel, inMatch } from "./mode.js";
import { objectiveBody, objectiveKey } from "./objectives.js";
import { extraBonuses, filled, fmt, gameOver, sheetOf, throwsMade } from "./record.js";
import { $, state } from "./state.js";

// The value of the scorecard before the turn's first throw (and the game's start).
export async function outlookSoon() {
  if (inDuel()) {
    duelOutlookSoon();
    return;
  }
  if (inMatch()) return;  // the chance to finish first comes with each throw's advice
  if (!state.record || gameOver() || throwsMade() > 0) return;
  const key = `${objectiveKey()}|${JSON.stringify(filled())}`;
  if (state.outlook && state.outlook.key === key) return;
  const id = state.rulesId;
  try {
    const out = await api("/api/outlook", {
      rules: id, filled: filled(), extra_bonuses: extraBonuses(), ...objectiveBody(),
    });
    if (id === state.rulesId && `${objectiveKey()}|${JSON.stringify(filled())}` === key) {
      state.outlook = { ...out, key };
      if (state.objective !== "expected") state.solving = null;
    }
    distributionSoon();
  } catch (err) {
    if (id === state.rulesId) {
      showError(err.message);
      state.solving = null;
    }
  }
  changed();
}

// The chart: the final score's distribution from this turn's start (a second or so
// for the first turns of large games; it comes when it comes). A request for a turn
// left behind is given up: the browser holds few connections to one server, and
// charts nobody waits for must not keep the advice waiting for one.
export let chartRequest = null;

export async function distributionSoon() {
  if (!state.record || gameOver() || state.info.served || inDuel() || inMatch()) return;
  const card = JSON.stringify(filled());
  const key = `${state.rulesId}|${card}|${extraBonuses()}`;
  if (state.distribution && state.distribution.key === key) return;
  if (chartRequest && chartRequest.key === key) return;  // already on its way
  if (chartRequest) chartRequest.control.abort();
  const request = { key, control: new AbortController() };
  chartRequest = request;
  try {
    const d = await api("/api/distribution", {
      rules: state.rulesId, filled: filled(), extra_bonuses: extraBonuses(),
    }, request.control.signal);
    if (key === `${state.rulesId}|${JSON.stringify(filled())}|${extraBonuses()}`) {
      state.distribution = { ...d, key };
      renderChart();
    }
  } catch (err) {
    if (request.control.signal.aborted) return;  // a later turn's chart is on its way
    state.distribution = null;  // no chart: the rest of the page is unaffected
    renderChart();
  } finally {
    if (chartRequest === request) chartRequest = null;
  }
}

export function renderChart() {
  const fig = $("chart");
  const d = state.distribution;
  const key = `${state.rulesId}|${JSON.stringify(filled())}|${extraBonuses()}`;
  if (!d || d.key !== key || gameOver() || inDuel()) {
    fig.hidden = true;
    return;
  }
  // the middle 99% of the chances, in bars of a few points each
  const from = d.percentiles["1"];
  const to = d.percentiles["99"];
  const span = Math.max(1, to - from + 1);
  const step = Math.max(1, Math.ceil(span / 80));
  const bars = [];
  for (let x = from; x <= to; x += step) {
    let p = 0;
    for (let k = x; k < x + step && k <= d.highest; k++) p += d.pmf[k - d.lowest] || 0;
    bars.push([x, p]);
  }
  const top = Math.max(...bars.map((b) => b[1])) || 1;
  const w = 400 / bars.length;
  const at = (x) => ((x - from) / (bars.length * step)) * 400;
  const rects = bars.map(([x, p], i) => `<rect x="${(i * w).toFixed(2)}" width="${(w * 0.92).toFixed(2)}"`
    + ` y="${(118 - (110 * p) / top).toFixed(2)}" height="${((110 * p) / top).toFixed(2)}">`
    + `<title>${step > 1 ? `${x}–${x + step - 1}` : x}: ${fmt(100 * p, 3)}%</title></rect>`);
  const mean = `<line class="mean" x1="${at(d.mean).toFixed(2)}" x2="${at(d.mean).toFixed(2)}"`
    + ' y1="0" y2="120"></line>';
  $("chart-svg").innerHTML = rects.join("") + mean;
  $("chart-svg").setAttribute("aria-label", `final score distribution: mean ${fmt(d.mean)}, `
    + `sd ${fmt(d.sd)}, 10% below ${d.percentiles["10"]}, 90% below ${d.percentiles["90"]}`);
  // the chart is the expected-score optimum's: said so where another aim is played
  const how = state.objective === "expected" ? "playing for the highest average"
    : "if you play for the highest average from here (the chart of that play)";
  $("chart-caption").textContent = `Final score from this turn's start (before its throws; `
    + `the options' values count the dice showing), ${how}: `
    + `mean ${fmt(d.mean)}, sd ${fmt(d.sd)} (spread: the standard deviation); 80% of `
    + `games end between ${d.percentiles["10"]} and ${d.percentiles["90"]}`;
  $("chart-axis").innerHTML = `<span>${from}</span><span>${d.percentiles["50"]} (median)</span>`
    + `<span>${to}</span>`;
  fig.hidden = false;
}

// Whose turn and your chance to win, between turns (1, 1/2 or 0 at the end).
export async function duelOutlookSoon() {
  if (!inDuel() || throwsMade() > 0 || state.computerBusy) return;
  const sheets = { mine: sheetOf(state.record), theirs: sheetOf(computerRecord()) };
  const key = `${objectiveKey()}|${JSON.stringify(sheets)}`;
  if (state.outlook && state.outlook.key === key) return;
  const duel = state.duel;
  try {
    const out = await api("/api/duel/outlook", { rules: state.rulesId, ...sheets, my_seat: "A" });
    if (state.duel === duel) {
      state.outlook = { value: out.win_chance, sd: null, key };
      state.solving = null;
    }
  } catch (err) {
    if (state.duel === duel) {
      showError(err.message);
      state.solving = null;
    }
  }
  changed();
}
