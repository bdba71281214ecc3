// dicelab play-along page: the game is kept here, the server ranks the options.
"use strict";

const $ = (id) => document.getElementById(id);

const PIPS = {
  1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8],
};

const state = {
  rulesId: null,
  info: null,          // scorecard of the rules (GET /api/rules/{id})
  expected: null,      // optimal expected score of a whole game
  solving: null,       // while the rule set is solved: how far (see watchSolve)
  record: null,        // the game record (the format of `dicelab play`): the game itself
  dice: [],            // faces showing, in the places they are drawn
  held: [],            // per die: kept for the next roll
  advice: null,        // the last advice, for the position shown
  objective: "expected", // what the advice plays for (see OBJECTIVES), duel, match, friends
  params: {},          // the values of the objective's parameters: {target: 250}, {theta: 0.02}
  outlook: null,       // the value of the scorecard before this turn's first throw
  distribution: null,  // the final score's distribution from this turn's start
  duel: null,          // a game against the computer: {record (dicelab-duel), log}
  match: null,         // a game at a table: {kind (computers or friends), others, log}
  computerBusy: false, // the computer is playing its turn
  review: null,        // the last review of the record (POST /api/review)
  busy: false,
  request: 0,          // number of the latest advice request
  rulesList: [],       // the rule sets the server knows (GET /api/rules)
  reviewRequest: 0,
  focusKey: null,      // the control to focus again once the server has answered
  view: "play",        // the view shown: play, train or history
  keptFor: null,       // the finished game's record kept in the history
  whyOpen: new Set(),  // labels of the options whose why is unfolded (this position)
  whyAsked: false,     // a why was asked for: advice comes with the why from then on
  leadAsked: false,    // the same in a duel: its options come with their expected leads
  whyBusy: false,      // the why of the options shown is on its way
  whyProgress: null,   // how far the split by box has come, while it is solved
};

// -- random numbers: crypto, or a seeded generator with ?seed=N (repeatable games) ----
const seedParam = new URLSearchParams(location.search).get("seed");
let seed = seedParam === null ? null : (Number(seedParam) >>> 0);
function random() {
  if (seed === null) {
    const a = new Uint32Array(1);
    crypto.getRandomValues(a);
    return a[0] / 4294967296;
  }
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const rollDie = () => 1 + Math.floor(random() * state.info.faces);

// -- what a player may play for: the server's registry of objectives (GET /api/objectives)
const OBJECTIVES = {};  // name -> {name, unit, value_name, menu, params: [{name, kind, ...}]}

// The registry's objectives in the "Play for" menu (before the duel and the tables),
// and an input for each parameter (the target score, theta), shown with its objective.
async function loadObjectives() {
  const list = await api("/api/objectives");
  const menu = $("objective");
  const after = menu.querySelector('option[value="duel"]');
  const inputs = new Map();
  for (const o of list) {
    OBJECTIVES[o.name] = o;
    const opt = document.createElement("option");
    opt.value = o.name;
    opt.textContent = o.menu;
    menu.insertBefore(opt, after);
    for (const p of o.params) {
      if (inputs.has(p.name)) continue;
      const input = document.createElement("input");
      Object.assign(input, { id: p.name, type: "number", hidden: true, title: p.help });
      input.step = p.kind === "int" ? "1" : "0.005";
      if (p.low !== null) input.min = String(p.low);
      if (p.high !== null) input.max = String(p.high);
      if (p.default !== null) input.value = String(p.default);
      input.setAttribute("aria-label", p.help);
      input.addEventListener("change", setObjective);
      if (p.kind !== "int") {  // a number without a unit: named beside its box
        const label = Object.assign(document.createElement("label"), { htmlFor: p.name });
        label.textContent = p.name;
        label.id = `${p.name}-label`;
        label.hidden = true;
        $("new-game").before(label);
      }
      $("new-game").before(input);
      inputs.set(p.name, input);
    }
  }
  menu.value = "expected";
}

const paramsOf = (objective) => (OBJECTIVES[objective] ? OBJECTIVES[objective].params : []);
const paramNames = () => [...new Set(Object.values(OBJECTIVES).flatMap((o) => o.params)
  .map((p) => p.name))];

// A parameter typed in, or the line that says what is wrong with it.
function paramValue(p) {
  const x = Number($(p.name).value);
  const whole = p.kind === "int";
  const ok = $(p.name).value.trim() !== "" && Number.isFinite(x) && (!whole || Number.isInteger(x))
    && (p.low === null || x >= p.low) && (p.high === null || x <= p.high);
  if (ok) return { value: x };
  const range = p.low !== null && p.high !== null ? ` from ${p.low} to ${p.high}`
    : p.low !== null ? `, ${p.low} or more` : "";
  return { error: `${p.name}: type ${whole ? "a whole number of points" : "a number"}${range}` };
}

// -- server --------------------------------------------------------------------------
async function api(path, body, signal) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  if (signal) init.signal = signal;
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (signal && signal.aborted) throw err;  // given up on purpose: not the server's fault
    throw new Error("the server cannot be reached");
  }
  let data = null;
  try { data = await res.json(); } catch (err) { data = null; }
  if (!res.ok) {
    throw new Error((data && data.detail) || `the server answered ${res.status}`);
  }
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// -- derived facts: everything follows from the record ------------------------------
const rolls = () => state.info.rolls;
const boxes = () => state.info.categories;
const turns = () => state.record.turns;
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const sameFaces = (a, b) => a.length === b.length && sorted(a).every((x, i) => x === sorted(b)[i]);
const fmt = (x, digits = 2) => Number(x).toFixed(digits);

function currentTurn() {
  const ts = turns();
  const last = ts[ts.length - 1];
  return last && !("box" in last) ? last : null;
}

function filled() {
  return filledOf(state.record);
}

function filledOf(record) {
  const out = {};
  for (const t of record.turns) if ("box" in t) out[t.box] = t.points;
  return out;
}

const extraBonuses = () => sheetOf(state.record).extra_bonuses;
const turnNumber = () => Object.keys(filled()).length + 1;
const gameOver = () => Object.keys(filled()).length === boxes().length;
const throwsMade = () => (currentTurn() ? currentTurn().throws.length : 0);

// Keeping every die ends the rolling, as in `dicelab play`.
function stopped(t) {
  return t.keeps.length > 0 && t.keeps[t.keeps.length - 1].length === state.info.dice;
}

function scoring() {
  const t = currentTurn();
  return Boolean(t) && (t.throws.length >= rolls() || stopped(t));
}

// Under rules with served bonuses, a first throw scored at once takes its served
// points: its advice is the first throw's, whose options include the boxes.
const servedNow = () => Boolean(state.info.served) && throwsMade() === 1;
const rerollsLeft = () => {
  if (!scoring()) return rolls() - throwsMade();
  return servedNow() ? rolls() - 1 : 0;
};

function totals(record = state.record) {
  const f = filledOf(record);
  const filledSum = Object.values(f).reduce((s, v) => s + v, 0);
  const bonus = state.info.upper_bonus;
  const upper = boxes().filter((c) => c.upper && c.id in f).reduce((s, c) => s + f[c.id], 0);
  const bonusEarned = bonus && upper >= bonus.threshold ? bonus.points : 0;
  const extraPoints = record.turns.reduce((s, t) => s + (t.extra_bonus || 0), 0);
  return { upper, bonusEarned, extraPoints, total: filledSum + bonusEarned + extraPoints };
}

function keptFaces() {
  return state.dice.filter((_, i) => state.held[i]);
}

// -- rules ---------------------------------------------------------------------------
async function loadRulesList(selectId) {
  const data = await api("/api/rules");
  state.rulesList = data.rules;
  const select = $("rules-select");
  select.innerHTML = "";
  for (const source of ["builtin", "upload"]) {
    const group = document.createElement("optgroup");
    group.label = source === "builtin" ? "Built-in" : "Uploaded";
    for (const r of data.rules.filter((x) => x.source === source)) {
      const opt = document.createElement("option");
      opt.value = r.id;
      opt.textContent = r.title;  // the sizes in a tooltip: the list stays narrow
      opt.title = `${r.boxes} boxes, ${r.dice} dice with ${r.faces} faces`;
      group.appendChild(opt);
    }
    if (group.children.length) select.appendChild(group);
  }
  select.value = selectId;
}

// Switch to a rule set (and a new game), and have its table solved or loaded.
async function chooseRules(id) {
  showError("");
  const info = await api(`/api/rules/${encodeURIComponent(id)}`);
  Object.assign(state, { info, rulesId: id, expected: null });
  Object.assign(training, { session: null, summary: null, graded: null });  // other rules
  renderTraining();
  $("rules-select").value = id;
  rememberRulesInAddress(id);
  newGame();
  renderRulesText();
  state.solving = { state: "idle", estimate_seconds: 0 };
  render();
  watchSolve(id);
  try {
    const ex = await api(`/api/rules/${encodeURIComponent(id)}/expected`);
    if (state.rulesId === id) state.expected = ex.expected_score;
  } catch (err) {
    showError(err.message);
  }
  if (state.rulesId === id && state.objective === "expected") state.solving = null;
  render();
  if (state.objective !== "expected") watchSolve(id);
  outlookSoon();
}

// While a rule set is being loaded or solved, show how far it has come (the server
// answers this at once, also during a solve of minutes).
async function watchSolve(id) {
  while (state.rulesId === id && state.solving) {
    try {
      const which = state.objective === "expected" ? ""
        : `?${new URLSearchParams({ objective: storeObjective(), ...state.params })}`;
      const p = await api(`/api/rules/${encodeURIComponent(id)}/progress${which}`);
      if (state.rulesId !== id || !state.solving || p.state === "ready") return;
      state.solving = p;
      render();
    } catch (err) {
      return; // the solve's own request says what went wrong
    }
    await new Promise((done) => setTimeout(done, 500));
  }
}

function solvingText(p) {
  if (p.state === "solving" && p.total > 0 && p.left_seconds != null) {
    const part = p.done / p.total;
    const left = Math.max(1, Math.round(p.left_seconds));
    return `(solving the rules: ${Math.floor(100 * part)}%, about ${left} s left)`;
  }
  if (p.state === "cached") return "(loading the solved rules…)";
  if (p.state === "queued") {
    return `(waiting for another solve to end: ${p.position === 1 ? "next" : `${p.position} in line`})`;
  }
  if (p.estimate_seconds >= 5) {
    return `(solving the rules the first time: at most about ${Math.round(p.estimate_seconds)} s)`;
  }
  return "(solving the rules…)";
}

// The address names the rule set on the page, so a reload or a shared link opens it.
function rememberRulesInAddress(id) {
  const params = new URLSearchParams(location.search);
  if (params.get("rules") === id) return;
  params.set("rules", id);
  history.replaceState(null, "", `${location.pathname}?${params}`);
}

async function uploadRules(file) {
  showError("");
  if (file.size > 64000) {
    showError(`${file.name}: the file is too large (at most 64000 characters)`);
    return;
  }
  const text = await file.text();
  try {
    const info = await api("/api/rules", { toml: text });
    await loadRulesList(info.id);
    await chooseRules(info.id);
  } catch (err) {
    showError(`${file.name}: ${err.message}`);
  }
}

function renderRulesText() {
  const info = state.info;
  const parts = [];
  if (info.description) parts.push(`<p>${escapeHtml(info.description)}</p>`);
  parts.push(`<p>${info.dice} dice with ${info.faces} faces, ${info.rolls} throws per turn, `
    + `${info.boxes} boxes.</p>`);
  if (info.upper_bonus) {
    parts.push(`<p>Upper bonus: ${info.upper_bonus.points} points for `
      + `${info.upper_bonus.threshold} or more in the upper boxes.</p>`);
  }
  if (info.extra_bonus) {
    parts.push(`<p>Extra bonus: ${info.extra_bonus.points} for each further all-same roll; `
      + `${escapeHtml(info.extra_bonus.text)}.</p>`);
  }
  $("rules-text").innerHTML = parts.join("");
  $("rules-title").textContent = info.title;
}

function escapeHtml(text) {
  const div = document.createElement("div");
  div.textContent = text;
  return div.innerHTML;
}

// -- the game ------------------------------------------------------------------------
function emptyRecord() {
  return {
    format: "dicelab-game",
    version: 1,
    rules: state.info.name,
    rules_source: state.rulesId,
    fingerprint: state.info.fingerprint,
    started: new Date().toISOString().slice(0, 19),
    dice: "real",   // "drawn" once the page throws the dice: no seed reproduces them
    seed: null,
    turns: [],
    finished: false,
    final_score: null,
  };
}

function newGame() {
  if (state.objective === "duel") {
    newDuel();
  } else if (atTable()) {
    newMatch();
  } else {
    state.duel = null;
    state.match = null;
    state.record = emptyRecord();
  }
  state.computerBusy = false;
  // answers still on their way belong to the old game: they are dropped on arrival
  state.request += 1;
  state.reviewRequest += 1;
  Object.assign(state, {
    dice: [], held: [], advice: null, review: null, busy: false, outlook: null,
  });
  render();
  outlookSoon();
}

// A throw: virtual dice, or the faces of real ones (``faces``, every die).
function doThrow(faces) {
  if (computerToMove()) {
    playOthers();
    return;
  }
  if (gameOver() || scoring() || state.busy || state.computerBusy) return;
  const n = state.info.dice;
  let t = currentTurn();
  if (!t) {
    t = { throws: [], keeps: [] };
    turns().push(t);
    state.dice = faces ? [...faces] : Array.from({ length: n }, rollDie);
    state.held = Array(n).fill(false);
  } else {
    const kept = keptFaces();
    if (kept.length === n) {
      scoreNow();
      return;
    }
    if (t.keeps.length < t.throws.length) {
      t.keeps.push(sorted(kept));
      reviewSoon();
    }
    if (faces) {
      // the kept dice stay where they are; the other places take the remaining faces
      const rest = [...faces];
      for (const k of kept) rest.splice(rest.indexOf(k), 1);
      state.dice = state.dice.map((d, i) => (state.held[i] ? d : rest.shift()));
    } else {
      state.dice = state.dice.map((d, i) => (state.held[i] ? d : rollDie()));
    }
  }
  if (!faces) state.record.dice = "drawn";
  t.throws.push(sorted(state.dice));
  if (scoring()) state.held = state.held.map(() => false);
  refresh();
}

function enterThrow(text) {
  showError("");
  const faces = text.trim().split(/[\s,]+/).filter(Boolean).map(Number);
  const n = state.info.dice;
  if (faces.length !== n || faces.some((f) => !Number.isInteger(f))) {
    showError(`type ${n} dice, faces 1 to ${state.info.faces}, e.g. ${"3 ".repeat(n).trim()}`);
    return;
  }
  const bad = faces.find((f) => f < 1 || f > state.info.faces);
  if (bad !== undefined) {
    showError(`a die shows ${bad}: faces go from 1 to ${state.info.faces}`);
    return;
  }
  if (throwsMade() > 0) {
    const rest = [...faces];
    for (const k of keptFaces()) {
      const at = rest.indexOf(k);
      if (at < 0) {
        showError(`the kept dice (${keptFaces().join(" ")}) must be part of the throw`);
        return;
      }
      rest.splice(at, 1);
    }
  }
  $("enter-dice").value = "";
  doThrow(faces);
}

function scoreNow() {
  const t = currentTurn();
  if (!t || scoring() || state.busy) return;
  t.keeps.push(sorted(state.dice));
  state.held = state.held.map(() => false);
  reviewSoon();
  refresh();
}

function chooseBox(id) {
  if (!(scoring() || servedNow()) || state.busy || !adviceIsCurrent() || id in filled()) return;
  const option = state.advice.options.find((o) => o.box === id);
  if (!option) return;
  const t = currentTurn();
  if (!scoring()) t.keeps.push(sorted(state.dice)); // a served first throw scored at once
  t.box = id;
  t.points = option.points;
  t.extra_bonus = option.extra_bonus;
  if (gameOver()) {
    state.record.finished = true;
    state.record.final_score = totals().total;
  }
  Object.assign(state, { dice: [], held: [], advice: null });
  reviewSoon();
  render();
  if (inDuel() || computerToMove()) {
    playOthers();
  } else {
    outlookSoon();
  }
}

// Undo takes back the last decision the dice have not followed: the box filled last
// (its dice come back, to be placed again), or a stop before a box was chosen. A keep
// that was rolled cannot be taken back: the dice it threw are part of the game.
function undoable() {
  if (state.busy) return null;
  const t = currentTurn();
  if (t) return stopped(t) ? "stop" : null;
  const ts = turns();
  // in a duel, or against computer players, they have moved since
  return ts.length && !inDuel() && !(inMatch() && state.match.kind === "computers") ? "box" : null;
}

function undo() {
  const what = undoable();
  if (!what) return;
  const ts = turns();
  const t = ts[ts.length - 1];
  if (what === "box") {
    delete t.box;
    delete t.points;
    delete t.extra_bonus;
    Object.assign(state.record, { finished: false, final_score: null });
    state.dice = [...t.throws[t.throws.length - 1]];
    state.held = state.dice.map(() => stopped(t));
  } else {
    t.keeps.pop();
    state.held = state.dice.map(() => false);
  }
  state.advice = null;
  reviewSoon();
  refresh();
}

function adviceIsCurrent() {
  const a = state.advice;
  return a && sameFaces(a.dice, state.dice) && a.rerolls_left === rerollsLeft()
    && a.objective === state.objective
    && Object.entries(state.params).every(([k, v]) => a[k] === v);
}

function followKeep(option) {
  if (option.stops) {
    scoreNow();
    return;
  }
  const want = [...option.keep];
  state.held = state.dice.map((d) => {
    const at = want.indexOf(d);
    if (at < 0) return false;
    want.splice(at, 1);
    return true;
  });
  render();
}

function toggleHold(i) {
  if (throwsMade() === 0 || scoring() || gameOver()) return;
  state.held[i] = !state.held[i];
  render();
}

// Correct a die of the last throw (a mistyped or misread real die).
// Whether the faces ``dice`` still hold every face of ``keep`` (multisets).
function holdsAll(dice, keep) {
  const rest = [...dice];
  for (const k of keep) {
    const at = rest.indexOf(k);
    if (at < 0) return false;
    rest.splice(at, 1);
  }
  return true;
}

function adjustDie(i, step) {
  const t = currentTurn();
  if (!t || state.busy) return;
  const f = state.info.faces;
  const face = ((state.dice[i] - 1 + step + f) % f) + 1;
  const carried = t.throws.length >= 2 ? t.keeps[t.throws.length - 2] : [];
  const after = state.dice.map((d, j) => (j === i ? face : d));
  if (!holdsAll(after, carried)) {
    // the record already says these dice were kept from the throw before
    showError(`die ${i + 1} was kept from the throw before (kept: ${carried.join(" ")}), `
      + "and the game record holds it already: correct only dice of the last throw");
    return;
  }
  showError("");
  state.dice[i] = face;
  t.throws[t.throws.length - 1] = sorted(state.dice);
  if (t.keeps.length === t.throws.length) t.keeps.pop(); // a stop made with other dice
  refresh();
}

// Ask for advice on the position shown, then draw everything.
async function refresh() {
  render();
  if (throwsMade() === 0 || gameOver()) return;
  const number = ++state.request;
  const body = {
    rules: state.rulesId,
    dice: state.dice,
    rerolls_left: rerollsLeft(),
    filled: filled(),
    extra_bonuses: extraBonuses(),
    ...objectiveBody(),
  };
  if (inDuel() ? state.leadAsked : state.whyAsked) body.explain = true;
  const path = inDuel() ? "/api/duel/advice" : inMatch() ? "/api/match/advice" : "/api/advice";
  if (inDuel()) duelBody(body);
  if (inMatch()) matchBody(body);
  state.busy = true;
  render();
  try {
    const advice = await api(path, body);
    if (inMatch()) advice.objective = state.objective;  // match or friends: one answer
    if (number === state.request) {
      if (!state.advice || !sameFaces(state.advice.dice, advice.dice)
          || state.advice.rerolls_left !== advice.rerolls_left) state.whyOpen = new Set();
      state.advice = advice;
      showError("");
    }
  } catch (err) {
    if (number === state.request) {
      state.advice = null;
      showError(err.message);
    }
  } finally {
    if (number === state.request) state.busy = false;
    render();
  }
}

// -- two players: you (A, first) against the computer (B), both playing to win ---------
const inDuel = () => state.objective === "duel" && state.duel !== null;
const computerRecord = () => state.duel.record.b;
const computerFilled = () => Object.keys(filledOf(computerRecord())).length;
// the computer moves once you have filled a box more than it has
// (at a table: a computer player with fewer boxes than you)
const computerToMove = () => (inDuel() && computerFilled() < Object.keys(filled()).length)
  || nextComputer() !== null;
// How long each step of the computer's turn shows (?fast skips the wait).
const DUEL_STEP_MS = new URLSearchParams(location.search).has("fast") ? 0 : 400;
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

function sheetOf(record) {
  return {
    filled: filledOf(record),
    extra_bonuses: record.turns.filter((t) => t.extra_bonus > 0).length,
  };
}

// A duel record, as `dicelab duel play` writes it (`dicelab duel review` reads it).
function newDuel() {
  const a = emptyRecord();
  const b = emptyRecord();
  state.duel = {
    record: {
      format: "dicelab-duel", version: 1, rules: state.info.name, rules_source: state.rulesId,
      fingerprint: state.info.fingerprint, started: a.started, seed: null, human: "A", a, b,
    },
    log: [],
  };
  state.record = a;
}

// A computer player's turn: it throws (the page's dice), asks the server for its best
// option after each throw (``ask(dice, rerolls_left)``), and follows it; each step
// shows for a moment and goes into ``log``. False if ``still()`` says the game is
// gone meanwhile; on an error the turn is taken back, to be played again.
async function playComputerTurn(rec, ask, log, who, still) {
  const n = state.info.dice;
  const t = { throws: [], keeps: [] };
  rec.turns.push(t);
  rec.dice = "drawn";
  let dice = sorted(Array.from({ length: n }, rollDie));
  t.throws.push(dice);
  log.push(`${who} threw ${dice.join(" ")}.`);
  render();
  try {
    for (;;) {
      await pause(DUEL_STEP_MS);
      const stoppedNow = t.keeps.length === t.throws.length;
      const left = stoppedNow ? 0 : rolls() - t.throws.length;
      const advice = await ask(dice, left);
      if (!still()) return false;  // a new game began meanwhile
      const best = advice.options[0];
      if (best.kind === "box") {
        Object.assign(t, { box: best.box, points: best.points, extra_bonus: best.extra_bonus });
        log.push(`It filled ${best.label}.`);
        break;
      }
      t.keeps.push(sorted(best.keep));
      if (best.stops) {
        log.push("It keeps them all.");
        continue;
      }
      const kept = [...best.keep];
      dice = sorted([...kept, ...Array.from({ length: n - kept.length }, rollDie)]);
      t.throws.push(dice);
      log.push(`It kept ${kept.length ? kept.join(" ") : "nothing"} and threw `
        + `${dice.join(" ")}.`);
      render();
    }
  } catch (err) {
    rec.turns.pop();  // the turn is played again from its start
    throw err;
  }
  if (filledCount(rec) === boxes().length) {
    rec.finished = true;
    rec.final_score = totals(rec).total;
  }
  return true;
}

async function computerTurn() {
  if (!computerToMove() || state.computerBusy) return;
  const duel = state.duel;
  const rec = computerRecord();
  state.computerBusy = true;
  showError("");
  duel.log = [];
  const ask = (dice, left) => api("/api/duel/advice", {
    rules: state.rulesId, dice, rerolls_left: left,
    mine: sheetOf(rec), theirs: sheetOf(state.record),
  });
  try {
    if (!await playComputerTurn(rec, ask, duel.log, "The computer", () => state.duel === duel)) {
      return;
    }
  } catch (err) {
    showError(`the computer's turn: ${err.message}`);
    state.computerBusy = false;
    render();
    return;
  }
  state.computerBusy = false;
  render();
  duelOutlookSoon();
}

// Whose turn and your chance to win, between turns (1, 1/2 or 0 at the end).
async function duelOutlookSoon() {
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
  render();
}

// Your decisions priced in win chance (the server replays the duel record).
async function duelReviewSoon() {
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

// -- a table of two to four: computer players, or friends whose boxes you type --------
// You sit first; the others follow in their order. Every sheet goes to the server,
// which ranks your options by your chance to finish first (a tie shared), the others
// taken to play for points; computer players play to win by the same advice.
const atTable = () => state.objective === "match" || state.objective === "friends";
const inMatch = () => atTable() && state.match !== null;
const others = () => (inMatch() ? state.match.others : []);
const filledCount = (record) => Object.keys(filledOf(record)).length;
// the table the server keeps for both: the points to come from every state
const storeObjective = () => (state.objective === "friends" ? "match" : state.objective);

function newMatch() {
  const kind = state.objective === "match" ? "computers" : "friends";
  const n = Number($("opponents").value) || 1;
  state.match = {
    kind,
    others: Array.from({ length: n }, (_, i) => ({
      name: kind === "computers" ? `computer ${i + 1}` : `player ${i + 2}`,
      record: emptyRecord(),
      ...(kind === "friends" ? { extra: 0 } : {}),  // extra bonuses, as typed
    })),
    log: [],
  };
  state.duel = null;
  state.record = emptyRecord();
}

// Another player's sheet as the server reads it.
function otherSheet(o) {
  const sheet = sheetOf(o.record);
  if (o.extra !== undefined) sheet.extra_bonuses = o.extra;
  return sheet;
}

function otherTotals(o) {
  const t = totals(o.record);
  if (o.extra !== undefined && state.info.extra_bonus) {
    t.extraPoints = o.extra * state.info.extra_bonus.points;
    t.total += t.extraPoints;
  }
  return t;
}

// A request's body turned into a position at the table.
function matchBody(body) {
  for (const key of ["filled", "extra_bonuses", "objective", "explain", ...paramNames()]) {
    delete body[key];
  }
  body.mine = sheetOf(state.record);
  body.theirs = others().map(otherSheet);
  return body;
}

// The next computer player to move: the first with fewer boxes than you.
const nextComputer = () => (inMatch() && state.match.kind === "computers"
  ? state.match.others.find((o) => filledCount(o.record) < Object.keys(filled()).length)
    || null
  : null);

// The computer players' turns, in their order, once you have filled a box.
async function matchTurns() {
  if (state.computerBusy || !nextComputer()) return;
  const match = state.match;
  state.computerBusy = true;
  showError("");
  match.log = [];
  try {
    for (let o = nextComputer(); o; o = nextComputer()) {
      const mover = o;
      const ask = (dice, left) => api("/api/match/advice", {
        rules: state.rulesId, dice, rerolls_left: left, mine: otherSheet(mover),
        theirs: [sheetOf(state.record), ...match.others.filter((x) => x !== mover)
          .map(otherSheet)],
      });
      const who = mover.name[0].toUpperCase() + mover.name.slice(1);
      if (!await playComputerTurn(mover.record, ask, match.log, who,
        () => state.match === match)) return;
    }
  } catch (err) {
    showError(`the computer players' turns: ${err.message}`);
  }
  state.computerBusy = false;
  render();
}

const playOthers = () => (inDuel() ? computerTurn() : matchTurns());

// Every sheet full: the final scores, best first, and your place.
const matchOver = () => inMatch() && gameOver()
  && others().every((o) => filledCount(o.record) === boxes().length);

function standings() {
  const me = totals().total;
  const scores = others().map((o) => otherTotals(o).total);
  const above = scores.filter((x) => x > me).length;
  const tied = scores.filter((x) => x === me).length;
  const places = ["first", "second", "third", "fourth"];
  const verdict = above === 0 && tied === 0 ? "you finish first"
    : above === 0 ? "you share first place" : `you finish ${places[above]}`;
  const all = [`you ${me}`, ...others().map((o, i) => `${o.name} ${scores[i]}`)];
  return `${verdict}: ${all.join(", ")}`;
}

// A friend's box typed (or cleared) in their column of the scorecard.
function typedBox(e) {
  const el = e.target;
  const o = state.match.others[Number(el.dataset.other)];
  const text = el.value.trim();
  const list = o.record.turns;
  if (el.dataset.box === undefined) {  // the extra bonuses
    const n = Number(text || "0");
    if (!Number.isInteger(n) || n < 0) {
      showError(`${o.name}, extra bonuses: type a whole number, 0 or more`);
      el.value = String(o.extra);
      return;
    }
    o.extra = n;
  } else {
    const id = el.dataset.box;
    const at = list.findIndex((t) => t.box === id);
    const points = Number(text);
    if (text !== "" && !(Number.isInteger(points) && points >= 0)) {
      showError(`${o.name}, ${boxName(id)}: type the points as a whole number, 0 or more`);
      el.value = at >= 0 ? String(list[at].points) : "";
      return;
    }
    if (text === "") {
      if (at >= 0) list.splice(at, 1);
    } else if (at >= 0) {
      list[at].points = points;
    } else {
      list.push({ throws: [], keeps: [], box: id, points, extra_bonus: 0 });
    }
  }
  showError("");
  state.advice = null;
  refresh();
}

// -- what the advice plays for --------------------------------------------------------
function objectiveBody() {
  return { objective: state.objective, ...state.params };
}

// Whether the objective's values are points (an expected score, a sure score), not chances.
const inPoints = () => (OBJECTIVES[state.objective] || { unit: "chance" }).unit === "points";

// A value of the objective: points, or a chance in per cent.
function valueText(x) {
  return inPoints() ? fmt(x) : `${fmt(100 * x)}%`;
}

function costText(c) {
  return inPoints() ? `−${fmt(c)}` : `−${fmt(100 * c)}%`;
}

function valueName() {
  if (state.objective === "duel") return "chance to win the duel";
  if (atTable()) return "chance to finish first";
  const o = OBJECTIVES[state.objective];
  if (!o) return "expected final score";
  return o.value_name.replace(/\{(\w+)\}/g, (_, name) => String(state.params[name]));
}

function objectiveKey() {
  return `${state.objective}:${JSON.stringify(state.params)}`;
}

// Change what the advice plays for (the game goes on): its table may need a solve.
function setObjective() {
  const objective = $("objective").value;
  const own = paramsOf(objective);
  for (const name of paramNames()) {
    const hide = !own.some((p) => p.name === name);
    $(name).hidden = hide;
    if ($(`${name}-label`)) $(`${name}-label`).hidden = hide;
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
  // a game alone, a duel, against computer players or with friends: different games
  const family = (o) => (o in OBJECTIVES ? "alone" : o);
  const otherGame = family(objective) !== family(state.objective);
  $("opponents").hidden = !["match", "friends"].includes(objective);
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
async function outlookSoon() {
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
let chartRequest = null;

async function distributionSoon() {
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

function renderChart() {
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
  $("chart-caption").textContent = `Final score from this turn on, playing for the highest `
    + `average: mean ${fmt(d.mean)}, sd ${fmt(d.sd)}; 80% of games end between `
    + `${d.percentiles["10"]} and ${d.percentiles["90"]}`;
  $("chart-axis").innerHTML = `<span>${from}</span><span>${d.percentiles["50"]} (median)</span>`
    + `<span>${to}</span>`;
  fig.hidden = false;
}

// Price every decision so far (play.py's review, on the server).
async function reviewSoon() {
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
async function openRecord(file) {
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

// -- keeping the game in the browser: a reload, Back or a closed tab loses nothing ----
const SAVE_KEY = "dicelab.game";
let storageWorks = true;

function saveGame() {
  if (!state.record || !state.rulesId) return;
  const saved = {
    rulesId: state.rulesId, record: state.record, dice: state.dice, held: state.held,
    objective: state.objective, params: state.params, duel: state.duel, match: state.match,
  };
  try {
    localStorage.setItem(SAVE_KEY, JSON.stringify(saved));
    storageWorks = true;
  } catch (err) {
    storageWorks = false;  // storage off or full: the page warns before it is left
  }
}

function savedGame() {
  try {
    const saved = JSON.parse(localStorage.getItem(SAVE_KEY) || "null");
    const ok = saved && typeof saved.rulesId === "string" && saved.record
      && saved.record.format === "dicelab-game" && Array.isArray(saved.dice)
      && Array.isArray(saved.held) && saved.dice.length === saved.held.length;
    return ok ? saved : null;
  } catch (err) {
    return null;
  }
}

// The game of the last visit, if its rules are still on the server (and the address
// does not ask for other rules): the same turn, dice and held dice as it was left.
async function restoreGame(saved) {
  if (saved.objective in OBJECTIVES || ["duel", "match", "friends"].includes(saved.objective)) {
    $("objective").value = saved.objective;
    const params = saved.params || (saved.target != null ? { target: saved.target } : {});
    for (const name of paramNames()) {
      $(name).hidden = !(name in params);
      if ($(`${name}-label`)) $(`${name}-label`).hidden = !(name in params);
      if (name in params) $(name).value = String(params[name]);
    }
    state.objective = saved.objective;
    state.params = params;
  }
  const table = ["match", "friends"].includes(saved.objective) && saved.match;
  $("opponents").hidden = !table;
  if (table) $("opponents").value = String(saved.match.others.length);
  await chooseRules(saved.rulesId);
  Object.assign(state, {
    record: saved.record, dice: saved.dice, held: saved.held, advice: null, review: null,
  });
  if (state.objective === "duel" && saved.duel && saved.duel.record) {
    state.duel = saved.duel;
    state.record = state.duel.record.a;  // the page's player moves first
  }
  if (table) state.match = saved.match;
  try {
    if (turns().length) await reviewSoon();
    state.outlook = null;
    outlookSoon();
    await refresh();
    if (computerToMove()) playOthers();
  } catch (err) {
    newGame();
    showError(`the game kept in this browser could not be restored (${err.message}): `
      + "a new game starts");
  }
}

window.addEventListener("beforeunload", (e) => {
  if (storageWorks || !state.record || !turns().length || gameOver()) return;
  e.preventDefault();  // the game cannot be kept: ask before it is lost
  e.returnValue = "";
});

// -- drawing -------------------------------------------------------------------------
function render() {
  if (!state.info || !state.record) return;
  if (gameOver() && state.keptFor !== state.record && !inMatch()
      && !(inDuel() && computerBusyOrToMove())) {
    keepFinishedGame();
  }
  const focused = focusKey(document.activeElement) || state.focusKey;
  renderCounter();
  renderDice();
  renderOptions();
  renderScorecard();
  renderReview();
  renderChart();
  if (state.busy || state.computerBusy) {
    // controls are off while the server answers or the computer plays: wait for it
    state.focusKey = focused;
  } else {
    state.focusKey = null;
    restoreFocus(focused);
  }
  saveGame();
}

// Drawing replaces the dice, options and scorecard: keyboard focus goes back to the
// same control, or, where it is gone or disabled, to the next thing to do.
function focusKey(el) {
  if (!el || el === document.body) return null;
  if (el.id) return `#${el.id}`;
  if (el.matches("tr.option")) return "tr.option";
  if (el.dataset && el.dataset.box) return `tr[data-box="${el.dataset.box}"]`;
  return null;
}

function restoreFocus(key) {
  if (key === null) return;
  const usable = (el) => el && !el.disabled && el.offsetParent !== null;
  let el = document.querySelector(key);
  if (!usable(el)) {
    el = [$("roll"), document.querySelector("tr.option"), $("retry-advice"), $("new-game")]
      .find(usable);
  }
  if (el && el !== document.activeElement) el.focus();
}

function renderCounter() {
  const n = boxes().length;
  const k = throwsMade();
  const counter = $("roll-counter");
  const hint = $("hint");
  if (inDuel() && (state.computerBusy || computerToMove())) {
    counter.textContent = `Turn ${computerFilled() + 1} of ${n} · the computer plays`;
    hint.textContent = "The computer plays to win; its turn shows below.";
  } else if (inDuel() && gameOver()) {
    const me = totals().total;
    const it = totals(computerRecord()).total;
    const verdict = me > it ? "you win" : me < it ? "the computer wins" : "a tie";
    counter.textContent = `Game over: ${verdict}, ${me} to ${it}`;
    hint.textContent = "Start a new duel, or change the rules or what you play for.";
  } else if (inMatch() && (state.computerBusy || computerToMove())) {
    counter.textContent = `Turn ${Object.keys(filled()).length} of ${n} · the computers play`;
    hint.textContent = "The computer players play to win; their turns show below.";
  } else if (matchOver()) {
    counter.textContent = `Game over: ${standings()}`;
    hint.textContent = "Start a new game, or change the rules or what you play for.";
  } else if (inMatch() && gameOver()) {
    counter.textContent = "Your sheet is full";
    hint.textContent = "Type the other players' last boxes to see who finished first.";
  } else if (gameOver()) {
    counter.textContent = "Game over";
    hint.textContent = "Start a new game, or change the rules.";
  } else if (k === 0) {
    counter.textContent = `Turn ${turnNumber()} of ${n} · Roll 1 of ${rolls()}`;
    hint.textContent = "Roll the virtual dice, or throw real ones and type what they show.";
  } else if (scoring()) {
    counter.textContent = `Turn ${turnNumber()} of ${n} · Roll ${k} of ${rolls()} · choose a box`;
    hint.textContent = "Click a box in the scorecard or an option below.";
  } else {
    const left = rerollsLeft();
    counter.textContent = `Turn ${turnNumber()} of ${n} · Roll ${k} of ${rolls()}`;
    hint.textContent = `${left} reroll${left > 1 ? "s" : ""} left: `
      + "click the dice to keep (▲ ▼ correct a face), or an option to follow it; "
      + "then roll again, or score now.";
  }
  counter.dataset.turn = gameOver() ? "" : String(turnNumber());
  counter.dataset.roll = String(k);
  const canThrow = !gameOver() && !scoring() && !state.busy && !state.computerBusy;
  $("roll").disabled = !canThrow;
  $("roll").textContent = k === 0 ? "Roll"
    : k < rolls() ? `Roll again (roll ${k + 1} of ${rolls()})` : "No rolls left";
  // a computer's turn that could not be played (a lost connection) is played on Roll
  const computerWaits = computerToMove() && !state.computerBusy;
  if (computerWaits) $("roll").textContent = "Let the computer play";
  $("roll").disabled = !canThrow && !computerWaits;
  $("enter-throw").disabled = !canThrow || computerToMove();
  $("enter-dice").disabled = !canThrow;
  $("score-now").disabled = k === 0 || scoring() || gameOver() || state.busy;
  $("undo").disabled = !undoable();
  const log = $("computer-log");
  const lines = inDuel() ? state.duel.log : inMatch() ? state.match.log : [];
  log.hidden = !lines.length;
  log.textContent = lines.join(" ");
}

function dieFace(face) {
  const el = document.createElement("span");
  el.className = "face";
  if (face && state.info.faces <= 6) {
    el.classList.add("pips");
    for (let k = 0; k < 9; k++) {
      const pip = document.createElement("i");
      if (PIPS[face].includes(k)) pip.className = "on";
      el.appendChild(pip);
    }
  } else {
    el.classList.add("number");
    el.textContent = face ? String(face) : "?";
  }
  return el;
}

function renderDice() {
  const box = $("dice");
  box.innerHTML = "";
  for (let i = 0; i < state.info.dice; i++) {
    const face = state.dice[i];
    const slot = document.createElement("div");
    slot.className = "slot";
    const die = document.createElement("button");
    die.type = "button";
    die.className = "die";
    die.id = `die-${i}`;
    die.dataset.face = face ? String(face) : "";
    die.setAttribute("aria-label", face ? `die ${i + 1}: ${face}` : `die ${i + 1}: not thrown`);
    die.setAttribute("aria-pressed", state.held[i] ? "true" : "false");
    if (state.held[i]) die.classList.add("held");
    if (!face) die.classList.add("blank");
    die.disabled = !face || scoring() || gameOver();
    die.appendChild(dieFace(face));
    die.addEventListener("click", () => toggleHold(i));
    slot.appendChild(die);
    const tag = document.createElement("div");
    tag.className = "tag";
    tag.textContent = state.held[i] ? "kept" : "";
    slot.appendChild(tag);
    const adj = document.createElement("div");
    adj.className = "adjust";
    for (const [label, step] of [["▲", 1], ["▼", -1]]) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = step > 0 ? "one face up" : "one face down";
      b.disabled = !face || gameOver();
      b.addEventListener("click", () => adjustDie(i, step));
      adj.appendChild(b);
    }
    slot.appendChild(adj);
    box.appendChild(slot);
  }
}

function renderOptions() {
  const box = $("options");
  const expectedNow = $("expected-now");
  box.innerHTML = "";
  if (gameOver()) {
    expectedNow.textContent = "";
    box.innerHTML = '<p class="muted">The game is over.</p>';
    return;
  }
  if (throwsMade() === 0) {
    const o = state.outlook;
    if (!o || o.key.split("|")[0] !== objectiveKey()) {
      expectedNow.textContent = state.solving ? solvingText(state.solving) : "";
    } else {
      const sd = o.sd !== null && o.sd !== undefined ? ` ± ${fmt(o.sd)}` : "";
      expectedNow.textContent = `(${valueName()} now: ${valueText(o.value)}${sd})`;
    }
    box.innerHTML = '<p class="muted">Roll to see the options.</p>';
    return;
  }
  const a = adviceIsCurrent() ? state.advice : null;
  if (!a) {
    expectedNow.textContent = "";
    if (state.busy) {
      const what = state.solving ? solvingText(state.solving).slice(1, -1) : "Thinking…";
      box.innerHTML = `<p class="muted" id="thinking">${escapeHtml(what)}</p>`;
      return;
    }
    // the server did not answer (or answered an error): the position can be asked again
    box.innerHTML = '<p class="muted">No advice for this position yet. </p>';
    const retry = document.createElement("button");
    retry.type = "button";
    retry.id = "retry-advice";
    retry.textContent = "Ask again";
    retry.addEventListener("click", () => refresh());
    box.firstChild.appendChild(retry);
    return;
  }
  expectedNow.textContent = `(${valueName()} now: ${valueText(a.value)})`;
  if (!$("show-advice").checked) {
    box.innerHTML = '<p class="muted">Advice hidden: choose, and the review shows the cost.</p>';
    return;
  }
  const table = document.createElement("table");
  table.className = "options";
  const spread = a.options.some((o) => o.sd !== null && o.sd !== undefined);
  // the duel's come with it; at a table there is none
  const why = (!inDuel() && !inMatch()) || a.options.some((o) => o.explain);
  table.innerHTML = `<thead><tr><th>option</th><th class="num">${valueName()}</th>`
    + (spread ? '<th class="num" title="standard deviation of the final score">± sd</th>' : "")
    + '<th class="num">cost</th>' + (why ? '<th><span class="sr-only">why</span></th>' : "")
    + "</tr></thead>";
  const body = document.createElement("tbody");
  for (const o of a.options) {
    const tr = document.createElement("tr");
    tr.className = "option" + (o.best ? " best" : "");
    tr.dataset.kind = o.kind;
    tr.dataset.cost = String(o.cost);
    if (o.box) tr.dataset.box = o.box;
    if (o.keep) tr.dataset.keep = o.keep.join(" ");
    tr.title = o.kind === "box" ? "click to fill this box"
      : o.stops ? "click to stop rolling and choose a box" : "click to keep these dice";
    const cost = o.best ? "best" : costText(o.cost);
    tr.innerHTML = `<td>${escapeHtml(o.label)}</td><td class="num value">${valueText(o.value)}`
      + (spread ? `</td><td class="num sd">${fmt(o.sd, 1)}` : "")
      + `</td><td class="num cost">${cost}</td>`;
    const act = () => (o.kind === "keep" ? followKeep(o) : chooseBox(o.box));
    actsAsButton(tr, act, `${o.label}: ${valueName()} ${valueText(o.value)}`
      + (spread ? ` (spread ${fmt(o.sd, 1)}), ` : ", ")
      + (o.best ? "the best option" : `costs ${costText(o.cost).slice(1)}`));
    body.appendChild(tr);
    if (why) {
      const open = state.whyOpen.has(o.label);
      const cell = document.createElement("td");
      cell.appendChild(whyButton(o, open));
      tr.appendChild(cell);
      if (open) body.appendChild(whyRow(o, 4 + (spread ? 1 : 0)));
    }
  }
  table.appendChild(body);
  box.appendChild(table);
}

// -- why an option is worth its value: folded under it until asked for ----------------
function whyButton(o, open) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "why-toggle";
  b.textContent = open ? "why ▾" : "why ▸";
  b.setAttribute("aria-expanded", String(open));
  b.setAttribute("aria-label", `why: ${o.label}`);
  b.addEventListener("click", (e) => {
    e.stopPropagation();  // the row itself follows the option
    toggleWhy(o.label);
  });
  b.addEventListener("keydown", (e) => e.stopPropagation());
  return b;
}

function toggleWhy(label) {
  if (state.whyOpen.has(label)) state.whyOpen.delete(label);
  else state.whyOpen.add(label);
  const a = state.advice;
  if (state.whyOpen.size && a && !a.options.some(explained)) whySoon();
  render();
}

// Whether an option carries its why in full (in a duel: with its expected lead).
function explained(o) {
  return Boolean(o.explain) && (!inDuel() || o.explain.expected_lead != null);
}

// A request's body turned into a duel position: both sheets, no objective.
function duelBody(body) {
  delete body.filled;
  delete body.extra_bonuses;
  delete body.objective;
  return Object.assign(body, { mine: sheetOf(state.record), theirs: sheetOf(computerRecord()) });
}

// The advice shown, asked again with the why of every option (the first time for a
// rule set, its split of the expected score by box is worked out: seconds; in a duel,
// its table of expected leads: minutes for the largest games).
async function whySoon() {
  const duel = inDuel();
  if (duel) state.leadAsked = true;
  else state.whyAsked = true;
  if (state.whyBusy) return;
  state.whyBusy = true;
  const number = state.request;
  const a = state.advice;
  try {
    const body = {
      rules: state.rulesId, dice: a.dice, rerolls_left: a.rerolls_left, filled: filled(),
      extra_bonuses: extraBonuses(), ...objectiveBody(), explain: true,
    };
    watchWhy(state.rulesId, duel ? "duel-lead" : "explain");
    const path = duel ? "/api/duel/advice" : "/api/advice";
    const answer = await api(path, duel ? duelBody(body) : body);
    if (number === state.request && adviceIsCurrent()) state.advice = answer;
  } catch (err) {
    showError(err.message);
  } finally {
    state.whyBusy = false;
    state.whyProgress = null;
    render();
  }
}

// The first why of a rule set waits for its table (the split by box, or the duel's
// expected leads): how far it has come.
async function watchWhy(id, objective) {
  await pause(300);  // a table on disk answers before the first look
  while (state.whyBusy && state.rulesId === id) {
    try {
      const p = await api(`/api/rules/${encodeURIComponent(id)}/progress?objective=${objective}`);
      if (!state.whyBusy) return;
      state.whyProgress = p;
      render();
    } catch (err) {
      return;  // the advice's own request says what went wrong
    }
    await pause(500);
  }
}

function whyWaitText() {
  const p = state.whyProgress;
  const what = inDuel() ? "Working out the expected leads" : "Working out why";
  if (p && p.state === "solving" && p.total > 0 && p.left_seconds != null) {
    const left = Math.max(1, Math.round(p.left_seconds));
    return `${what}, once for these rules: ${Math.floor((100 * p.done) / p.total)}%, `
      + `about ${left < 120 ? `${left} s` : `${Math.round(left / 60)} min`} left`;
  }
  if (p && p.state === "queued") return `${what}: waiting for another solve to end…`;
  return `${what}…`;
}

function whyRow(o, columns) {
  const tr = document.createElement("tr");
  tr.className = "why-row";
  const td = document.createElement("td");
  td.colSpan = columns;
  const w = o.explain;
  if (!w) {
    td.innerHTML = `<span class="muted why-wait">${escapeHtml(whyWaitText())}</span>`;
  } else {
    const parts = [];
    if (w.box_points) {
      const written = new Set(Object.keys(filled()));
      for (const b of boxes()) {
        if (!written.has(b.id)) parts.push(`${escapeHtml(b.name)} ${fmt(w.box_points[b.id], 1)}`);
      }
      if (w.p_upper_bonus !== null) parts.push(`upper bonus ${fmt(100 * w.p_upper_bonus, 0)}%`);
      if (w.expected_extra_bonuses !== null) {
        parts.push(`extra bonuses ${fmt(w.expected_extra_bonuses, 3)}`);
      } else if (w.p_all_same !== null) {
        parts.push(`all alike scored ${fmt(100 * w.p_all_same, 0)}%`);
      }
    }
    if (w.expected_lead != null) {
      const lead = w.expected_lead;
      parts.push(`expected final lead ${lead >= 0 ? "+" : "−"}${fmt(Math.abs(lead), 1)} points`);
    }
    const waiting = inDuel() && w.expected_lead == null && state.whyBusy;
    td.innerHTML = `<p class="why-text">${escapeHtml(w.text)}</p>`
      + (parts.length ? `<p class="why-parts">${parts.join(" · ")}</p>` : "")
      + (waiting ? `<p class="muted why-wait">${escapeHtml(whyWaitText())}</p>` : "");
  }
  tr.appendChild(td);
  return tr;
}

// -- keys: digits hold dice, R rolls, Enter follows the best option ------------------
function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || state.view !== "play") return;
  const t = e.target;
  if (t && (t.matches("input, select, textarea, button, a, label, [role=button]")
      || t.isContentEditable)) return;
  if (!state.info || !state.record) return;
  const n = state.info.dice;
  if (/^[1-9]$/.test(e.key) && Number(e.key) <= n) {
    e.preventDefault();
    toggleHold(Number(e.key) - 1);
  } else if (e.key === "r" || e.key === "R") {
    if (!$("roll").disabled) {
      e.preventDefault();
      $("roll").click();
    }
  } else if (e.key === "Enter") {
    const a = adviceIsCurrent() ? state.advice : null;
    if (!a || state.busy || !a.options.length) return;
    e.preventDefault();
    const best = a.options[0];
    if (best.kind === "keep") followKeep(best);
    else chooseBox(best.box);
  }
}

// -- views: play, training, history --------------------------------------------------
function showView(name) {
  state.view = name;
  for (const v of ["play", "train", "history"]) {
    $(`${v}-view`).hidden = v !== name;
    $(`view-${v}`).setAttribute("aria-pressed", String(v === name));
  }
  if (name === "history") loadHistory();
  if (name === "train") renderTraining();
}

// A finished game goes to the history of the server's user (kept once).
const computerBusyOrToMove = () => state.computerBusy || computerToMove()
  || computerFilled() < boxes().length;

async function keepFinishedGame() {
  state.keptFor = state.record;
  try {
    await api("/api/history", { record: inDuel() ? state.duel.record : state.record });
  } catch (err) {
    showError(`The game was not kept in the history: ${err.message}`);
  }
}

// -- training: a question at a time, graded at once ------------------------------------
const training = {
  session: null,   // {rules, seed, daily, questions} (POST /api/training)
  index: 0,        // the question shown
  answers: [],     // what was answered, with its position (sent again at the end)
  graded: null,    // the grading of the question shown, once answered
  summary: null,   // the session's figures, at the end
  busy: false,
};

const pad2 = (n) => String(n).padStart(2, "0");
function today() {
  const d = new Date();
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
}

async function startTraining(daily) {
  if (training.busy || !state.rulesId) return;
  const count = Math.max(1, Math.min(50, Number($("train-count").value) || 10));
  const body = { rules: state.rulesId, questions: count };
  if (daily) body.date = today();
  Object.assign(training, { session: null, summary: null, graded: null, answers: [], index: 0 });
  training.busy = true;
  renderTraining();
  try {
    training.session = await api("/api/training", body);
    showError("");
  } catch (err) {
    showError(err.message);
  } finally {
    training.busy = false;
    renderTraining();
  }
}

async function answerTraining(label) {
  const t = training.session;
  if (!t || training.graded || training.busy) return;
  const q = t.questions[training.index];
  const position = {
    dice: q.dice, rerolls_left: q.rerolls_left, filled: q.filled, extra_bonuses: q.extra_bonuses,
  };
  training.busy = true;
  try {
    training.graded = await api("/api/training/answer", { rules: t.rules, ...position, answer: label });
    training.answers.push({ ...position, answer: label });
    showError("");
  } catch (err) {
    showError(err.message);
  } finally {
    training.busy = false;
    renderTraining();
    const next = $("train-next");
    if (next) next.focus();
  }
}

async function nextTraining() {
  const t = training.session;
  training.graded = null;
  training.index += 1;
  if (training.index < t.questions.length) {
    renderTraining();
    return;
  }
  training.busy = true;
  renderTraining();
  try {
    const body = { rules: t.rules, answers: training.answers };
    if (t.daily) body.date = t.daily; else body.seed = t.seed;
    training.summary = await api("/api/training/finish", body);
  } catch (err) {
    showError(err.message);
  } finally {
    training.busy = false;
    renderTraining();
  }
}

function boxName(id) {
  const b = boxes().find((c) => c.id === id);
  return b ? b.name : id;
}

function renderTraining() {
  $("train-rules").textContent = state.info ? `(${state.info.title || state.rulesId})` : "";
  const qbox = $("train-question");
  const rbox = $("train-result");
  const sbox = $("train-summary");
  qbox.innerHTML = rbox.innerHTML = sbox.innerHTML = "";
  $("train-start").disabled = $("train-daily").disabled = training.busy;
  const t = training.session;
  if (!t) {
    if (training.busy) qbox.innerHTML = '<p class="muted" id="train-busy">Drawing the positions…</p>';
    return;
  }
  if (training.summary) {
    const s = training.summary;
    const kinds = s.by_kind.map((k) => `${k.kind}: ${k.mistakes} of ${k.decisions} cost `
      + `${fmt(k.cost)}`).join(" · ");
    sbox.innerHTML = `<p id="train-score"><strong>${s.questions} answered: `
      + `${fmt(100 * s.best_share, 0)}% best, ${fmt(s.average_cost, 3)} points lost per `
      + `decision</strong></p><p class="muted">${escapeHtml(kinds)}</p>`
      + `<p class="muted">${s.kept ? "Kept in your history." : "Kept in your history already."}</p>`;
    return;
  }
  if (training.busy && training.index >= t.questions.length) {
    sbox.innerHTML = '<p class="muted">Adding up…</p>';
    return;
  }
  const q = t.questions[training.index];
  const when = q.rerolls_left ? `${q.rerolls_left} reroll${q.rerolls_left > 1 ? "s" : ""} left`
    : "after the last throw: choose a box";
  const written = boxes().filter((b) => b.id in q.filled)
    .map((b) => `${escapeHtml(b.name)} ${q.filled[b.id]}`);
  const what = t.daily ? `today's set (${t.daily})` : `seed ${t.seed}`;
  qbox.innerHTML = `<p id="train-counter"><strong>Question ${q.question} of `
    + `${t.questions.length}</strong> · ${when} · <span class="muted">${what}</span></p>`
    + `<p class="train-sheet">${written.length ? written.join(" · ") : "An empty scorecard"}`
    + (q.extra_bonuses ? ` · ${q.extra_bonuses} extra bonus(es)` : "") + "</p>";
  const dice = document.createElement("div");
  dice.className = "train-dice";
  for (const face of q.dice) {
    const die = document.createElement("span");
    die.className = "die";
    die.setAttribute("aria-label", `a die showing ${face}`);
    die.appendChild(dieFace(face));
    dice.appendChild(die);
  }
  qbox.appendChild(dice);
  const options = document.createElement("div");
  options.className = "train-options";
  const g = training.graded;
  for (const label of q.options) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.label = label;
    b.disabled = training.busy || g !== null;
    if (g && label === g.chosen && !g.correct) b.classList.add("chosen");
    if (g && label === g.best) b.classList.add("best");
    b.addEventListener("click", () => answerTraining(label));
    options.appendChild(b);
  }
  qbox.appendChild(options);
  if (!g) return;
  rbox.innerHTML = (g.correct
    ? `<p class="graded good" id="train-graded">Best: ${escapeHtml(g.chosen)}.</p>`
    : `<p class="graded bad" id="train-graded">Costs ${fmt(g.cost)} points: the best is `
      + `${escapeHtml(g.best)}.</p>`)
    + (g.why ? `<p class="why-text">${escapeHtml(g.why)}</p>` : "");
  const next = document.createElement("button");
  next.type = "button";
  next.id = "train-next";
  next.className = "primary";
  next.textContent = training.index + 1 < t.questions.length ? "Next question" : "See the result";
  next.addEventListener("click", nextTraining);
  rbox.appendChild(next);
}

// -- history: the games kept, and their trend ---------------------------------------------
async function loadHistory() {
  try {
    renderHistory(await api("/api/history?last=200"));
  } catch (err) {
    showError(err.message);
  }
}

function renderHistory(h) {
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
function drawTrend(svg, values, digits) {
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
function actsAsButton(tr, act, label) {
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

function renderScorecard() {
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
    head.innerHTML = '<th></th><th class="num">you</th>'
      + cols.map((c) => `<th class="num">${escapeHtml(c.name)}</th>`).join("");
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
  cats.forEach((c, i) => {
    let cell;
    const tr = row("", "box");
    tr.dataset.box = c.id;
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
    } else {
      cell = '<td class="num points"></td>';
    }
    tr.innerHTML = `<td title="${escapeHtml(c.scores)}">${escapeHtml(c.name)}`
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

function renderReview() {
  if (!state.info || !state.record) return;
  const table = $("review");
  table.innerHTML = "";
  const r = state.review;
  const ds = r ? r.decisions : [];
  const duel = Boolean(r && r.duel);
  const chance = duel || Boolean(r && r.measure === "chance");
  const costOf = (c) => (chance ? `${fmt(100 * c)}%` : fmt(c));
  $("review-total").textContent = ds.length
    ? `${ds.length} decision${ds.length > 1 ? "s" : ""}, total cost ${costOf(r.total_cost)}`
      + (duel ? " of win chance" : chance ? ` of the ${valueName()}` : " expected points")
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
        + `<td class="dice-cell">${d.dice.join(" ")}</td><td>${escapeHtml(d.chosen)}`
        + (d.why ? `<div class="review-why">${escapeHtml(d.why)}</div>` : "") + "</td>"
        + `<td>${bad ? escapeHtml(d.best) : "✓"}</td><td class="num">${costOf(d.cost)}</td>`;
      body.appendChild(tr);
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
      + `play. Your decisions cost ${fmt(100 * r.total_cost)}% of it in all `
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
const KIND_NAMES = { keep: "keeps", "upper box": "upper boxes", "lower box": "lower boxes" };

function analysisHtml(r) {
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

function pathSvg(r) {
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

function downloadRecord() {
  const record = inDuel() ? state.duel.record : state.record;
  const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `dicelab-${state.rulesId}-${inDuel() ? "duel" : "game"}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// -- wiring --------------------------------------------------------------------------
function wire() {
  $("rules-select").addEventListener("change", (e) => chooseRules(e.target.value)
    .catch((err) => showError(err.message)));
  $("rules-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (file) uploadRules(file);
  });
  $("record-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (file) openRecord(file);
  });
  $("new-game").addEventListener("click", newGame);
  for (const label of document.querySelectorAll("label.file-button")) {
    label.addEventListener("keydown", (e) => {  // a label is no button: Enter and Space open
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        $(label.htmlFor).click();
      }
    });
  }
  $("roll").addEventListener("click", () => doThrow(null));
  $("score-now").addEventListener("click", scoreNow);
  $("undo").addEventListener("click", undo);
  $("enter-form").addEventListener("submit", (e) => {
    e.preventDefault();
    enterThrow($("enter-dice").value);
  });
  $("show-advice").addEventListener("change", render);
  $("objective").addEventListener("change", setObjective);
  $("opponents").addEventListener("change", () => {
    if (inMatch()) newGame();  // another table: a new game
  });
  $("download").addEventListener("click", downloadRecord);
  document.addEventListener("keydown", onKey);
  for (const b of document.querySelectorAll("nav.views button")) {
    b.addEventListener("click", () => showView(b.dataset.view));
  }
  $("train-start").addEventListener("click", () => startTraining(false));
  $("train-daily").addEventListener("click", () => startTraining(true));
}

async function start() {
  wire();
  const asked = new URLSearchParams(location.search).get("rules");
  let wanted = asked || "yahtzee";
  try {
    await loadObjectives();
    await loadRulesList("yahtzee");
    const saved = savedGame();
    if (saved && (asked === null || asked === saved.rulesId)
        && state.rulesList.some((r) => r.id === saved.rulesId)) {
      await restoreGame(saved);
      return;
    }
    let unknown = null;
    if (!state.rulesList.some((r) => r.id === wanted)) {
      unknown = wanted;
      wanted = "yahtzee";
    }
    $("rules-select").value = wanted;
    await chooseRules(wanted);
    if (unknown !== null) {
      showError(`The address asks for rules "${unknown}", which this server does not have: ` +
        "showing Yahtzee. Choose rules from the list, or upload a rules file.");
    }
  } catch (err) {
    showError(err.message);
  }
}

start();
