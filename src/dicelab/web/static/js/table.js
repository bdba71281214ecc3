// A table of two to four: computer players, or friends whose boxes you type.
import { api, showError } from "./api.js";
import { render } from "./draw.js";
import { computerTurn, inDuel, playComputerTurn, sheetOf } from "./duel.js";
import { emptyRecord, refresh } from "./game.js";
import { paramNames } from "./objectives.js";
import { boxes, filled, filledOf, gameOver, totals } from "./record.js";
import { $, state } from "./state.js";
import { boxName } from "./training.js";

// -- a table of two to four: computer players, or friends whose boxes you type --------
// You sit first; the others follow in their order. Every sheet goes to the server,
// which ranks your options by your chance to finish first (a tie shared), the others
// taken to play for points; computer players play to win by the same advice.
export const atTable = () => state.objective === "match" || state.objective === "friends";
export const inMatch = () => atTable() && state.match !== null;
export const others = () => (inMatch() ? state.match.others : []);
export const filledCount = (record) => Object.keys(filledOf(record)).length;
// the table the server keeps for both: the points to come from every state
export const storeObjective = () => (state.objective === "friends" ? "match" : state.objective);

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

// The next computer player to move: the first with fewer boxes than you.
export const nextComputer = () => (inMatch() && state.match.kind === "computers"
  ? state.match.others.find((o) => filledCount(o.record) < Object.keys(filled()).length)
    || null
  : null);

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
  render();
}

export const playOthers = () => (inDuel() ? computerTurn() : matchTurns());

// Every sheet full: the final scores, best first, and your place.
export const matchOver = () => inMatch() && gameOver()
  && others().every((o) => filledCount(o.record) === boxes().length);

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

// A friend's box typed (or cleared) in their column of the scorecard.
export function typedBox(e) {
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
