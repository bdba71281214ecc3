// The game kept in the browser: a reload, Back or a closed tab loses nothing.
import { showError } from "./api.js";
import { newGame, refresh } from "./game.js";
import { computerToMove } from "./mode.js";
import { OBJECTIVES, paramNames } from "./objectives.js";
import { outlookSoon } from "./outlook.js";
import { gameOver, turns } from "./record.js";
import { reviewSoon } from "./review.js";
import { chooseRules } from "./rules.js";
import { $, state } from "./state.js";
import { playOthers } from "./table.js";

// -- keeping the game in the browser: a reload, Back or a closed tab loses nothing ----
export const SAVE_KEY = "dicelab.game";
export let storageWorks = true;

// After every change (main.js subscribes it, after the drawing).
export function saveGame() {
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

export function savedGame() {
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
export async function restoreGame(saved) {
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
