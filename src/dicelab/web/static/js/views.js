// Views: play, training, history, dice games, compare.
import { api, showError } from "./api.js";
import { showCompare } from "./compare.js";
import { computerFilled, computerToMove, inDuel } from "./duel.js";
import { loadGames } from "./dicegames.js";
import { loadHistory } from "./history.js";
import { boxes } from "./record.js";
import { $, state } from "./state.js";
import { renderTraining } from "./training.js";

// -- views: play, training, history, dice games -------------------------------------
export function showView(name) {
  state.view = name;
  for (const v of ["play", "train", "history", "games", "compare"]) {
    $(`${v}-view`).hidden = v !== name;
    $(`view-${v}`).setAttribute("aria-pressed", String(v === name));
  }
  if (name === "history") loadHistory();
  if (name === "train") renderTraining();
  if (name === "games") loadGames();
  if (name === "compare") showCompare();
  // the rule sets are chosen in the view itself, or there are none
  document.querySelector(".rules-bar").hidden = name === "games" || name === "compare";
}

// A finished game goes to the history of the server's user (kept once).
export const computerBusyOrToMove = () => state.computerBusy || computerToMove()
  || computerFilled() < boxes().length;

export async function keepFinishedGame() {
  state.keptFor = state.record;
  try {
    await api("/api/history", { record: inDuel() ? state.duel.record : state.record });
  } catch (err) {
    showError(`The game was not kept in the history: ${err.message}`);
  }
}
