// The game record: a new one, and the facts derived from it (the turn, the throw, the
// boxes, the score), with the position shown (the dice kept, the advice that is its).
import { state } from "./state.js";

// A record as `dicelab play` writes it, of no turn yet.
export function emptyRecord() {
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

// -- derived facts: everything follows from the record ------------------------------
export const rolls = () => state.info.rolls;
export const boxes = () => state.info.categories;
export const turns = () => state.record.turns;
export const sorted = (xs) => [...xs].sort((a, b) => a - b);
export const sameFaces = (a, b) => a.length === b.length && sorted(a).every((x, i) => x === sorted(b)[i]);
export const fmt = (x, digits = 2) => Number(x).toFixed(digits);

export function currentTurn() {
  const ts = turns();
  const last = ts[ts.length - 1];
  return last && !("box" in last) ? last : null;
}

export function filled() {
  return filledOf(state.record);
}

export function filledOf(record) {
  const out = {};
  for (const t of record.turns) if ("box" in t) out[t.box] = t.points;
  return out;
}

export const filledCount = (record) => Object.keys(filledOf(record)).length;

// A player's sheet as the server reads it.
export function sheetOf(record) {
  return {
    filled: filledOf(record),
    extra_bonuses: record.turns.filter((t) => t.extra_bonus > 0).length,
  };
}

export function boxName(id) {
  const b = boxes().find((c) => c.id === id);
  return b ? b.name : id;
}

export const extraBonuses = () => sheetOf(state.record).extra_bonuses;
export const turnNumber = () => Object.keys(filled()).length + 1;
export const gameOver = () => Object.keys(filled()).length === boxes().length;
export const throwsMade = () => (currentTurn() ? currentTurn().throws.length : 0);

// Keeping every die ends the rolling, as in `dicelab play`.
export function stopped(t) {
  return t.keeps.length > 0 && t.keeps[t.keeps.length - 1].length === state.info.dice;
}

export function scoring() {
  const t = currentTurn();
  return Boolean(t) && (t.throws.length >= rolls() || stopped(t));
}

// Under rules with served bonuses, a first throw scored at once takes its served
// points: its advice is the first throw's, whose options include the boxes.
export const servedNow = () => Boolean(state.info.served) && throwsMade() === 1;
export const rerollsLeft = () => {
  if (!scoring()) return rolls() - throwsMade();
  return servedNow() ? rolls() - 1 : 0;
};

export function totals(record = state.record) {
  const f = filledOf(record);
  const filledSum = Object.values(f).reduce((s, v) => s + v, 0);
  const bonus = state.info.upper_bonus;
  const upper = boxes().filter((c) => c.upper && c.id in f).reduce((s, c) => s + f[c.id], 0);
  const bonusEarned = bonus && upper >= bonus.threshold ? bonus.points : 0;
  const extraPoints = record.turns.reduce((s, t) => s + (t.extra_bonus || 0), 0);
  return { upper, bonusEarned, extraPoints, total: filledSum + bonusEarned + extraPoints };
}

export function keptFaces() {
  return state.dice.filter((_, i) => state.held[i]);
}

// Whether the advice kept is the position shown's, asked for what is played for now.
export function adviceIsCurrent() {
  const a = state.advice;
  return a && sameFaces(a.dice, state.dice) && a.rerolls_left === rerollsLeft()
    && a.objective === state.objective
    && Object.entries(state.params).every(([k, v]) => a[k] === v);
}
