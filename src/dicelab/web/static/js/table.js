// A table of two to four: computer players, or friends whose boxes you type.
import { api, showError } from "./api.js";
import { computerTurn, playComputerTurn } from "./duel.js";
import { changed } from "./hub.js";
import { inDuel, nextComputer, others } from "./mode.js";
import { paramNames } from "./objectives.js";
import { emptyRecord, sheetOf, totals } from "./record.js";
import { $, state } from "./state.js";

// -- a table of two to four: computer players, or friends whose boxes you type --------
// You sit first; the others follow in their order. Every sheet goes to the server,
// which ranks your options by your chance to finish first (a tie shared), the others
// taken to play for points; computer players play to win by the same advice.
export function newMatch() {
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
export function otherSheet(o) {
  const sheet = sheetOf(o.record);
  if (o.extra !== undefined) sheet.extra_bonuses = o.extra;
  return sheet;
}

export function otherTotals(o) {
  const t = totals(o.record);
  if (o.extra !== undefined && state.info.extra_bonus) {
    t.extraPoints = o.extra * state.info.extra_bonus.points;
    t.total += t.extraPoints;
  }
  return t;
}

// A request's body turned into a position at the table.
export function matchBody(body) {
  for (const key of ["filled", "extra_bonuses", "objective", "explain", ...paramNames()]) {
    delete body[key];
  }
  body.mine = sheetOf(state.record);
  body.theirs = others().map(otherSheet);
  return body;
}

// The computer players' turns, in their order, once you have filled a box.
export async function matchTurns() {
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
  changed();
}

export const playOthers = () => (inDuel() ? computerTurn() : matchTurns());

// Every sheet full (matchOver): the final scores, best first, and your place.
export function standings() {
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
