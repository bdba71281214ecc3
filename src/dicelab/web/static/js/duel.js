// The duel view: you against the computer, both playing to win.
import { api, showError } from "./api.js";
import { render } from "./draw.js";
import { emptyRecord } from "./game.js";
import { renderReview } from "./history.js";
import { objectiveKey } from "./playfor.js";
import { boxes, filled, filledOf, rolls, sorted, throwsMade, totals } from "./record.js";
import { $, rollDie, state } from "./state.js";
import { filledCount, nextComputer } from "./table.js";

// -- two players: you (A, first) against the computer (B), both playing to win ---------
export const inDuel = () => state.objective === "duel" && state.duel !== null;
export const computerRecord = () => state.duel.record.b;
export const computerFilled = () => Object.keys(filledOf(computerRecord())).length;
// the computer moves once you have filled a box more than it has
// (at a table: a computer player with fewer boxes than you)
export const computerToMove = () => (inDuel() && computerFilled() < Object.keys(filled()).length)
  || nextComputer() !== null;
// How long each step of the computer's turn shows (?fast skips the wait).
export const DUEL_STEP_MS = new URLSearchParams(location.search).has("fast") ? 0 : 400;
export const pause = (ms) => new Promise((done) => setTimeout(done, ms));

export function sheetOf(record) {
  return {
    filled: filledOf(record),
    extra_bonuses: record.turns.filter((t) => t.extra_bonus > 0).length,
  };
}

// A duel record, as `dicelab duel play` writes it (`dicelab duel review` reads it).
export function newDuel() {
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
export async function playComputerTurn(rec, ask, log, who, still) {
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

export async function computerTurn() {
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
  render();
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
