// The game: throws, keeps, boxes, undo; the advice asked for each position.
import { api, showError } from "./api.js";
import { duelBody, newDuel } from "./duel.js";
import { changed } from "./hub.js";
import { atTable, computerToMove, inDuel, inMatch } from "./mode.js";
import { objectiveBody } from "./objectives.js";
import { outlookSoon } from "./outlook.js";
import {
  adviceIsCurrent, currentTurn, emptyRecord, extraBonuses, filled, gameOver, keptFaces,
  rerollsLeft, sameFaces, scoring, servedNow, sorted, stopped, throwsMade, totals, turns,
} from "./record.js";
import { reviewSoon } from "./review.js";
import { $, rollDie, state } from "./state.js";
import { matchBody, newMatch, playOthers } from "./table.js";

// -- the game ------------------------------------------------------------------------
export function newGame() {
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
  changed();
  outlookSoon();
}

// A throw: virtual dice, or the faces of real ones (``faces``, every die).
export function doThrow(faces) {
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

export function enterThrow(text) {
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

export function scoreNow() {
  const t = currentTurn();
  if (!t || scoring() || state.busy) return;
  t.keeps.push(sorted(state.dice));
  state.held = state.held.map(() => false);
  reviewSoon();
  refresh();
}

export function chooseBox(id) {
  if (!(scoring() || servedNow()) || state.busy || !adviceIsCurrent() || id in filled()) return;
  const option = state.advice.options.find((o) => o.box === id);
  if (!option) return;
  showError("");  // a box refused before (forced order) is no longer the question
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
  changed();
  if (inDuel() || computerToMove()) {
    playOthers();
  } else {
    outlookSoon();
  }
}

// Undo takes back the last decision the dice have not followed: the box filled last
// (its dice come back, to be placed again), or a stop before a box was chosen. A keep
// that was rolled cannot be taken back: the dice it threw are part of the game.
export function undoable() {
  if (state.busy) return null;
  const t = currentTurn();
  if (t) return stopped(t) ? "stop" : null;
  const ts = turns();
  // in a duel, or against computer players, they have moved since
  return ts.length && !inDuel() && !(inMatch() && state.match.kind === "computers") ? "box" : null;
}

export function undo() {
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

export function followKeep(option) {
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
  changed();
}

export function toggleHold(i) {
  if (throwsMade() === 0 || scoring() || gameOver()) return;
  state.held[i] = !state.held[i];
  changed();
}

// Correct a die of the last throw (a mistyped or misread real die).
// Whether the faces ``dice`` still hold every face of ``keep`` (multisets).
export function holdsAll(dice, keep) {
  const rest = [...dice];
  for (const k of keep) {
    const at = rest.indexOf(k);
    if (at < 0) return false;
    rest.splice(at, 1);
  }
  return true;
}

export function adjustDie(i, step) {
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
export async function refresh() {
  changed();
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
  changed();
  try {
    const advice = await api(path, body);
    if (inMatch()) advice.objective = state.objective;  // match or friends: one answer
    if (number === state.request) {
      if (!state.advice || !sameFaces(state.advice.dice, advice.dice)
          || state.advice.rerolls_left !== advice.rerolls_left) state.whyOpen = new Set();
      state.advice = advice;
      // an answer came: whatever it needed is loaded (a table's "on disk" stops showing)
      if (inMatch()) state.solving = null;
      showError("");
    }
  } catch (err) {
    if (number === state.request) {
      state.advice = null;
      showError(err.message);
    }
  } finally {
    if (number === state.request) state.busy = false;
    changed();
  }
}
