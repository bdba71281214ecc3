// What the advice plays for: the objective, its outlook, chart and review.
import { api, showError } from "./api.js";
import { render } from "./draw.js";
import { duelOutlookSoon, duelReviewSoon, inDuel } from "./duel.js";
import { newGame, refresh } from "./game.js";
import { renderReview } from "./history.js";
import { OBJECTIVES, paramNames, paramValue, paramsOf } from "./objectives.js";
import { currentTurn, extraBonuses, filled, fmt, gameOver, stopped, throwsMade, turns } from "./record.js";
import { chooseRules, loadRulesList, watchSolve } from "./rules.js";
import { dropWhy } from "./why.js";
import { $, state } from "./state.js";
import { atTable, inMatch } from "./table.js";

// -- what the advice plays for --------------------------------------------------------
export function objectiveBody() {
  return { objective: state.objective, ...state.params };
}

// Whether the objective's values are points (an expected score, a sure score), not chances.
export const inPoints = () => (OBJECTIVES[state.objective] || { unit: "chance" }).unit === "points";

// A value of the objective: points, or a chance in per cent.
export function valueText(x) {
  return inPoints() ? fmt(x) : `${fmt(100 * x)}%`;
}

export function costText(c) {
  return inPoints() ? `−${fmt(c)}` : `−${fmt(100 * c)}%`;
}

export function valueName() {
  if (state.objective === "duel") return "chance to win the duel";
  if (atTable()) return "chance to finish first";
  const o = OBJECTIVES[state.objective];
  if (!o) return "expected final score";
  return o.value_name.replace(/\{(\w+)\}/g, (_, name) => String(state.params[name]));
}

export function objectiveKey() {
  return `${state.objective}:${JSON.stringify(state.params)}`;
}

// Change what the advice plays for (the game goes on): its table may need a solve.
export function setObjective(event) {
  const objective = $("objective").value;
  const own = paramsOf(objective);
  for (const name of paramNames()) {
    const hide = !own.some((p) => p.name === name);
    $(name).hidden = hide;
    if ($(`${name}-label`)) $(`${name}-label`).hidden = hide;
  }
  // an aim with a parameter, just picked from the menu: played for at once with the
  // value in its box (its default, 250 points for a target), which stays there to
  // change; a change is played for as it is typed (a pause after the last key) or on Enter
  const picked = event && event.target === $("objective") && objective !== state.objective;
  $("objective-note").hidden = !(picked && own.length);
  if (picked && own.length) {
    const p = own[0];
    if ($(p.name).value.trim() === "" && p.default !== null) $(p.name).value = String(p.default);
    $("objective-note").textContent = `${p.help}: change it to play for another`;
    $(p.name).focus();
    $(p.name).select();
  }
  const params = {};
  for (const p of own) {
    const got = paramValue(p);
    if (got.error) {
      showError(got.error);
      return;
    }
    params[p.name] = got.value;
  }
  showError("");
  if (objective === state.objective && JSON.stringify(params) === JSON.stringify(state.params)) {
    return;  // Enter and the change it makes: one aim, asked once
  }
  // a game alone, a duel, against computer players or with friends: different games
  const family = (o) => (o in OBJECTIVES ? "alone" : o);
  const otherGame = family(objective) !== family(state.objective);
  $("opponents").hidden = !["match", "friends"].includes(objective);
  if (objective !== state.objective) dropWhy();  // a why of another aim is not wanted
  state.objective = objective;
  state.params = params;
  state.advice = null;
  state.outlook = null;
  if (otherGame) newGame();
  if (objective !== "expected") {
    state.solving = { state: "idle", estimate_seconds: 0 };
    watchSolve(state.rulesId);
  }
  outlookSoon();
  if (!otherGame && turns().length) reviewSoon();  // priced again in what is played for
  refresh();
}

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
  render();
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

// Continue (or just review) a game from a record file.
export async function openRecord(file) {
  showError("");
  let record;
  try {
    record = JSON.parse(await file.text());
  } catch (err) {
    showError(`${file.name}: not a JSON file`);
    return;
  }
  if (!record || typeof record !== "object" || record.format !== "dicelab-game") {
    showError(`${file.name}: not a dicelab game record`);
    return;
  }
  // the rule set the game was played under, known by its fingerprint
  await loadRulesList(state.rulesId);
  const match = state.rulesList.find((r) => r.fingerprint === record.fingerprint);
  if (!match) {
    showError(`${file.name}: the game was played under rules ${JSON.stringify(record.rules)} `
      + "that are not loaded here; upload their rules file first");
    return;
  }
  const wanted = match.id;
  try {
    const review = await api("/api/review", { rules: wanted, record });
    await chooseRules(wanted);
    state.record = record;
    state.record.dice = "real";
    state.review = review;
    const t = currentTurn();
    state.dice = t && t.throws.length ? [...t.throws[t.throws.length - 1]] : [];
    const keep = t && t.keeps.length === t.throws.length && !stopped(t) ? [...t.keeps.pop()] : [];
    state.held = state.dice.map((d) => {
      const at = keep.indexOf(d);
      if (at < 0) return false;
      keep.splice(at, 1);
      return true;
    });
    state.advice = null;
    refresh();
  } catch (err) {
    showError(`${file.name}: ${err.message}`);
  }
}
