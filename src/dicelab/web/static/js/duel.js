// The duel: you against the computer, both playing to win; the computer's turns, and
// a position of the duel as the server reads it.
import { api, showError } from "./api.js";
import { changed } from "./hub.js";
import { computerRecord, computerToMove } from "./mode.js";
import { duelOutlookSoon } from "./outlook.js";
import { boxes, emptyRecord, filledCount, rolls, sheetOf, sorted, totals } from "./record.js";
import { rollDie, state } from "./state.js";

// -- two players: you (A, first) against the computer (B), both playing to win ---------
// How long each step of the computer's turn shows (?fast skips the wait).
export const DUEL_STEP_MS = new URLSearchParams(location.search).has("fast") ? 0 : 400;
export const pause = (ms) => new Promise((done) => setTimeout(done, ms));

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
  changed();
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
      changed();
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
    changed();
    return;
  }
  state.computerBusy = false;
  changed();
  duelOutlookSoon();
}

// A request's body turned into a duel position: both sheets, no objective.
export function duelBody(body) {
  delete body.filled;
  delete body.extra_bonuses;
  delete body.objective;
  return Object.assign(body, { mine: sheetOf(state.record), theirs: sheetOf(computerRecord()) });
}
