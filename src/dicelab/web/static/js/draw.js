// Drawing the play view: the counter, the dice and the options; the scorecard, the
// review and the chart drawn by their own modules. main.js runs it on every change.
import { dieFace } from "./faces.js";
import { adjustDie, chooseBox, followKeep, refresh, toggleHold, undo, undoable } from "./game.js";
import { keepFinishedGame } from "./history.js";
import { actsAsButton, escapeHtml } from "./html.js";
import {
  computerBusyOrToMove, computerFilled, computerRecord, computerToMove, inDuel, inMatch, matchOver,
} from "./mode.js";
import { costText, objectiveKey, valueName, valueText } from "./objectives.js";
import { renderChart } from "./outlook.js";
import {
  adviceIsCurrent, boxes, filled, fmt, gameOver, rerollsLeft, rolls, scoring, throwsMade, totals,
  turnNumber,
} from "./record.js";
import { renderReview } from "./review.js";
import { renderScorecard } from "./scorecard.js";
import { solvingText } from "./solving.js";
import { $, state } from "./state.js";
import { standings } from "./table.js";
import { whyButton, whyRow } from "./why.js";

// -- drawing -------------------------------------------------------------------------
export function render() {
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
}

// Drawing replaces the dice, options and scorecard: keyboard focus goes back to the
// same control, or, where it is gone or disabled, to the next thing to do.
export function focusKey(el) {
  if (!el || el === document.body) return null;
  if (el.id) return `#${el.id}`;
  if (el.matches("tr.option")) return "tr.option";
  if (el.dataset && el.dataset.box) return `tr[data-box="${el.dataset.box}"]`;
  return null;
}

export function restoreFocus(key) {
  if (key === null) return;
  const usable = (el) => el && !el.disabled && el.offsetParent !== null;
  let el = document.querySelector(key);
  if (!usable(el)) {
    el = [$("roll"), document.querySelector("tr.option"), $("retry-advice"), $("new-game")]
      .find(usable);
  }
  if (el && el !== document.activeElement) el.focus();
}

export function renderCounter() {
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

export function renderDice() {
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

export function renderOptions() {
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
    + (spread ? '<th class="num sd" title="standard deviation of the final score">± sd</th>' : "")
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
