// The dice games view: Pig, Shut the Box, the bear-off, Farkle, against the computer.
// The page keeps the position the server last gave; each step asks the server for
// the next one, with the moves ranked (POST /api/games/position).
import { api, showError } from "./api.js";
import { actsAsButton, escapeHtml } from "./html.js";
import { faceElement } from "./faces.js";
import { $, random } from "./state.js";

const games = {
  families: [],    // GET /api/games
  now: null,       // the last answer: the position, its moves or throws
  seat: 1,         // the human's seat in a two-player game
  log: [],         // what happened, newest last
  decisions: [],   // the human's decisions: {text, move, best, cost}
  busy: false,
  request: 0,      // number of the latest request (a new game drops older answers)
  aside: new Set(), // Farkle: the places of the dice tapped to set aside
};

const pct = (x) => Math.abs(x) < 5e-5 ? "0.0000" : x.toFixed(4);

export async function loadGames() {
  if (games.families.length) return;
  try {
    games.families = await api("/api/games");
  } catch (err) {
    showError(err.message);
    return;
  }
  const select = $("games-family");
  select.innerHTML = games.families.map((f) => `<option value="${escapeHtml(f.name)}">`
    + `${escapeHtml(f.title || f.name)}</option>`).join("");
  showSettings();
}

function family() {
  return games.families.find((f) => f.name === $("games-family").value);
}

// Each setting with its meaning in words beside it, and its default (the bracketed
// end of the meaning, where short) shown in the empty box.
export function showSettings() {
  const f = family();
  if (!f) return;
  $("games-summary").textContent = f.summary;
  $("games-settings").innerHTML = f.settings.map((s) => {
    const given = /\(([^()]{1,16})\)$/.exec(s.help);
    return `<label><span class="setting-name">${escapeHtml(s.name)}</span>
      <input data-setting="${escapeHtml(s.name)}" placeholder="${escapeHtml(given ? given[1] : "")}"
        autocomplete="off">
      <span class="setting-help">${escapeHtml(s.help)}</span></label>`;
  }).join("");
  const presets = f.presets || [];
  $("games-preset-row").hidden = !presets.length;
  $("games-preset").innerHTML = `<option value="">the usual rules</option>`
    + presets.map((p) => `<option value="${escapeHtml(p.name)}">${escapeHtml(p.title)}</option>`)
      .join("");
  $("games-preset-source").textContent = "";
  seatPicker();
}

function chosenPreset() {
  const f = family();
  return f ? (f.presets || []).find((p) => p.name === $("games-preset").value) : undefined;
}

// The settings given, in the order of the preset's own (to compare the two).
function sortedByForm(given) {
  const order = Object.keys(chosenPreset().settings);
  return Object.fromEntries(Object.keys(given).sort((a, b) => order.indexOf(a) - order.indexOf(b))
    .map((k) => [k, given[k]]));
}

// A preset's house rules put into the settings (the others left to their defaults);
// changing a setting afterwards keeps the rest of the preset.
export function choosePreset() {
  const chosen = chosenPreset();
  for (const input of document.querySelectorAll("#games-settings input")) {
    input.value = chosen ? (chosen.settings[input.dataset.setting] ?? "") : "";
  }
  $("games-preset-source").textContent = chosen && chosen.published
    ? `published: ${chosen.published}` : "";
  seatPicker();
}

// The seat to play, where the computer plays too: not in a one-player game (Shut the
// Box, a one-sided bear-off, Farkle alone).
export function seatPicker() {
  const f = family();
  const given = settings();
  const changed = Object.entries(given).map(([k, v]) => `${k} ${v}`).join(", ");
  const preset = chosenPreset();
  if (preset && JSON.stringify(preset.settings) !== JSON.stringify(sortedByForm(given))) {
    $("games-preset").value = "";  // a setting changed: the preset no longer says it
    $("games-preset-source").textContent = "";
  }
  const named = chosenPreset() ? chosenPreset().title : "";
  $("games-rules-given").textContent = named ? `(${named})`
    : changed ? `(${changed})` : "(the usual rules)";
  const players = seatsOf(f, given);
  $("games-seat-row").hidden = players < 2;
  const seat = $("games-seat");
  if (seat.options.length !== players && players >= 2) {  // one choice per seat
    const was = Number(seat.value) || 1;
    seat.innerHTML = Array.from({ length: players }, (_, k) => `<option value="${k + 1}">`
      + `${ORDINALS[k]}</option>`).join("");
    seat.value = String(Math.min(was, players));
  }
}

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"];

// How many play: a family's own count, or the players setting of Pig and Farkle
// (Farkle alone by default).
function seatsOf(f, given) {
  if (f.name === "shut-the-box" || (f.name === "bearoff" && !given.theirs)) return 1;
  const typed = Number(given.players);
  if (f.name === "pig" || f.name === "farkle") {
    const players = Number.isInteger(typed) && typed >= 1 && typed <= 6 ? typed
      : f.name === "pig" ? 2 : 1;
    return players;
  }
  return 2;
}

function settings() {
  const out = {};
  for (const input of document.querySelectorAll("#games-settings input")) {
    if (input.value.trim()) out[input.dataset.setting] = input.value.trim();
  }
  return out;
}

export async function startGame() {
  games.seat = Number($("games-seat").value) || 1;
  Object.assign(games, { now: null, log: [], decisions: [], lastThrow: null, past: [],
    lastBoard: null });
  games.game = { game: $("games-family").value, settings: settings() };
  const given = Object.entries(games.game.settings).map(([k, v]) => `${k} ${v}`).join(", ");
  const preset = chosenPreset();
  games.preset = preset ? preset.title : "";
  games.label = preset ? preset.title : `${games.game.game}${given ? ` (${given})` : ""}`;
  $("games-status").textContent = `solving ${games.label}: the first time takes a few seconds…`;
  renderGame();
  const first = step({});
  watchSolve(games.request);
  await first;
}

// While the first position waits (the game being solved, in a worker for a large
// one), ask the server how far the solve has come (it answers at once) and show it.
async function watchSolve(asked) {
  const still = () => asked === games.request && !games.now;
  await new Promise((done) => setTimeout(done, 400));  // a small game answers first
  while (still()) {
    let p;
    try {
      p = await api("/api/games/progress", games.game);
    } catch (err) {
      return;  // the position's own request says what went wrong
    }
    if (!still()) return;
    $("games-status").textContent = `solving ${games.label}: ${solvingWords(p)}`;
    const bar = $("games-progress");
    bar.hidden = !(p.state === "solving" && p.total > 0);
    if (!bar.hidden) bar.value = p.done / p.total;
    await new Promise((done) => setTimeout(done, 500));
  }
}

export function solvingWords(p) {
  if (p.state === "queued") return "waiting for another game's solve to end…";
  if (p.state === "solving" && p.total > 0 && p.left_seconds != null) {
    const left = Math.max(1, Math.round(p.left_seconds));
    return `${Math.floor((100 * p.done) / p.total)}%, about ${left} s left`;
  }
  if (p.estimate_seconds >= 5) {
    return `the first time takes at most about ${Math.round(p.estimate_seconds)} s…`;
  }
  return "the first time takes a few seconds…";
}

async function step(extra) {
  const asked = ++games.request;
  games.busy = true;
  try {
    const body = { ...games.game, ...extra };
    if (games.now) body.position = games.now.position;
    const answer = await api("/api/games/position", body);
    if (asked !== games.request) return;
    if (games.now && games.now.board && games.now.board.scores) games.lastBoard = games.now.board;
    if (!games.now) games.startChances = answer.chances || null;  // each seat's, at the start
    const lost = turnLost(games.now, answer, extra);
    if (lost) games.log.push(lost);
    games.now = answer;
    games.aside = new Set();
    $("games-progress").hidden = true;
    showError("");
    const named = games.preset ? `${games.preset} (${answer.game})` : answer.game;
    const start = games.startChances
      ? games.startChances.map((c, k) => `${seatName(k, answer.players)} ${pct(c)}`).join(", ")
      : pct(answer.start_value);
    $("games-status").textContent = `${named}: ${answer.measure}, ${start} `
      + `(${answer.positions.toLocaleString("en")} ${answer.players > 2 ? "turn starts"
        : "positions"})`;
  } catch (err) {
    $("games-progress").hidden = true;
    if (asked === games.request) {
      showError(refusal(err.message));
      $("error").scrollIntoView({ block: "nearest" });  // above the settings: in sight
    }
    $("games-status").textContent = "";
  } finally {
    if (asked === games.request) games.busy = false;
  }
  renderGame();
  if (asked === games.request) setTimeout(() => carryOn(asked), 350);
}

// A refusal in one line, in the page's terms: a game too large to solve here is
// offered smaller settings (no command-line flags).
function refusal(message) {
  const line = message.replace(/\s+/g, " ").trim()
    .replace(/\s*\([^()]*--[^()]*\)/g, "")  // "(--allow-large)": the command line's
    .split(/;\s*/).filter((part) => !/--[a-z]|larger limit/.test(part)).join("; ")
    .replace(/[;,.\s]+$/, "");
  if (!/positions|too large|memory/i.test(line)) return line;
  return `Too large to solve here: ${line}. Choose smaller settings (a lower goal, fewer `
    + "dice or tiles) and start a new game.";
}

// The dice and the computer move by themselves; the human is asked.
function carryOn(asked) {
  const now = games.now;
  if (!now || asked !== games.request || games.busy) return;
  if (now.mover === "dice") {
    let r = random();
    let pick = now.throws[now.throws.length - 1];
    for (const t of now.throws) {
      if (r < t.chance) { pick = t; break; }
      r -= t.chance;
    }
    games.log.push(`the dice: ${pick.throw}`);
    games.lastThrow = pick.throw;
    step({ throw: pick.throw });
  } else if (now.mover !== "end" && !mine(now)) {
    const k = Number(now.mover.replace("player ", "")) - 1;
    games.log.push(`${seatName(k, now.players)}: ${now.moves[0].move}`);
    step({ move: now.moves[0].move });
  }
}

const mine = (now) => now.players === 1 || now.mover === `player ${games.seat}`;

function choose(index) {
  const now = games.now;
  if (!now || games.busy || !mine(now)) return;
  games.past.push({ now, log: games.log.length, decisions: games.decisions.length,
    lastThrow: games.lastThrow, lastBoard: games.lastBoard });
  const m = now.moves[index];
  games.decisions.push({ text: now.text, move: m.move, best: now.moves[0].move, cost: m.cost });
  games.log.push(`you: ${m.move}${m.cost > 1e-12 ? ` (costs ${pct(m.cost)})` : ""}`);
  step({ move: m.move });
}

// Back to the position of the player's last move: the dice thrown and the computer's
// moves since are taken back with it (the next throws fall anew).
export function undoMove() {
  const back = games.past.pop();
  if (!back || games.busy) return;
  games.request += 1;  // an answer still awaited is dropped
  games.now = back.now;
  games.log.length = back.log;
  games.decisions.length = back.decisions;
  Object.assign(games, { lastThrow: back.lastThrow, lastBoard: back.lastBoard, busy: false,
    aside: new Set() });
  games.log.push("(a move taken back)");
  renderGame();
}

// -- the table: dice as dice, each player's score, Shut the Box's tiles, the points --
function die(face, faces) {
  const el = document.createElement("span");
  el.className = "die small-die";
  el.appendChild(faceElement(face, faces <= 6));
  el.setAttribute("aria-label", `a ${face}`);
  return el;
}

// The faces of a throw's label ("1 1 5 2 3 4", "6-3", "4"), or none for a sum alone
// (Shut the Box's throw is the dice's sum).
function facesOf(label) {
  if (!label || games.game.game === "shut-the-box") return [];
  return label.split(/[\s-]+/).filter(Boolean).map(Number).filter((n) => n > 0);
}

// A throw that ended the turn (a farkle, Pig's 1) is said, not passed over in silence.
function turnLost(before, after, extra) {
  const b = before && before.board;
  const a = after && after.board;
  if (!extra.throw || !b || !a || b.seat === undefined || a.seat === undefined) return "";
  if (after.mover === "end" || a.seat === b.seat) return "";
  const who = seatName(b.seat, after.players);
  const what = games.game.game === "farkle" ? "a farkle" : "a 1";
  const total = b.turn_total ? `: the turn's ${b.turn_total} points are lost` : "";
  return `${who === "computer" ? "the computer" : who}: ${what}${total}`;
}

// A seat as the player reads it: "you", the one "computer", or "player 3" at a table.
function seatName(k, players) {
  if (players === 1 || k + 1 === games.seat) return "you";
  return players === 2 ? "computer" : `player ${k + 1}`;
}

function renderBoard(now) {
  const box = $("games-board");
  const b = now ? (now.board || {}) : {};
  const parts = [];
  const scores = b.scores || (now && now.mover === "end" && games.lastBoard
    ? games.lastBoard.scores : null);
  if (scores && scores.length) {
    const cells = scores.map((s, k) => {
      const won = b.winner === k ? " won" : "";
      const moving = now && now.mover === `player ${k + 1}` ? " moving" : "";
      const farkles = b.farkles ? ` <span class="muted">farkles ${b.farkles[k]}</span>` : "";
      // each seat's chance to win with best play from here (with the advice shown)
      const each = now.chances ? now.chances[k] : k === 0 ? now.value : 1 - now.value;
      const chance = now.players >= 2 && now.mover !== "end" && $("games-advice").checked
        ? `<span class="chance">chance ${pct(each)}</span>` : "";
      return `<div class="seat${moving}${won}"><span class="who">${seatName(k, now.players)}</span>`
        + `<strong>${b.winner === k ? "won" : s}</strong>${farkles}${chance}</div>`;
    });
    if (b.turn_total !== undefined) {
      cells.push(`<div class="seat turn"><span class="who">turn total</span>`
        + `<strong>${b.turn_total}</strong></div>`);
    }
    parts.push(`<div class="seats">${cells.join("")}</div>`);
  }
  if (b.tiles) {
    parts.push(`<div class="tiles">${b.tiles.map((t) => `<span class="tile${t.open ? "" : " shut"}"`
      + ` aria-label="tile ${t.tile} ${t.open ? "open" : "shut"}">${t.tile}</span>`).join("")}</div>`);
  }
  if (b.sides) {
    const side = (counts, k) => `<div class="points"><span class="who">${b.sides.length === 2
      ? seatName(k, 2) : "your side"}</span>${counts.map((c, p) => `<span class="point">`
      + `<span class="checkers">${"●".repeat(Math.min(c, 5))}${c > 5 ? `<sup>${c}</sup>` : ""}</span>`
      + `<span class="at">${p + 1}</span></span>`).join("")}</div>`;
    parts.push(`<div class="bearoff">${b.sides.map(side).join("")}</div>`);
  }
  box.innerHTML = parts.join("");
  // the last throw, drawn as dice (Shut the Box: its sum)
  const faces = facesOf(games.lastThrow);
  const dice = $("games-dice");
  dice.innerHTML = "";
  const sides = Number((games.game.settings || {}).faces) || 6;
  const tappable = now && mine(now) && now.moves.some((m) => m.dice);  // Farkle's keeps
  faces.forEach((f, i) => {
    const el = die(f, sides);
    if (tappable) {
      const aside = games.aside.has(i);
      el.classList.add("tap");
      el.classList.toggle("aside", aside);
      el.setAttribute("aria-pressed", String(aside));
      actsAsButton(el, () => tapDie(i), `a ${f}${aside ? ", set aside" : ""}`);
    }
    dice.appendChild(el);
  });
  $("games-throw-value").hidden = faces.length > 0;
}

// Farkle: a die tapped is set aside (or taken back); the moves that set aside just
// those dice are picked out, and a choice of dice no move makes is said so.
function tapDie(i) {
  if (games.aside.has(i)) games.aside.delete(i); else games.aside.add(i);
  renderGame();
}

function asideMoves(now) {
  const faces = facesOf(games.lastThrow);
  const tapped = [...games.aside].map((i) => faces[i]).sort().join(" ");
  const picked = now.moves.map((m) => (m.dice ? [...m.dice].sort().join(" ") === tapped : false));
  const box = $("games-aside");
  box.hidden = games.aside.size === 0;
  if (games.aside.size) {
    const names = now.moves.filter((_, i) => picked[i]).map((m) => m.move);
    box.textContent = names.length ? `set aside ${tapped}: ${names.join(", or ")}`
      : `set aside ${tapped}: no move keeps just these (each keep sets aside the dice `
        + "of its count that score the most); tap a die again to take it back";
  }
  return picked;
}

function youSee(now, value) {
  if (now.chances) return now.chances[games.seat - 1];  // a table: each seat's own
  return now.players === 2 && games.seat === 2 ? 1 - value : value;
}

export function renderGame() {
  const now = games.now;
  // which answer is shown, and whether the next is awaited (read by the page's tests)
  $("games-view").dataset.step = String(games.request);
  $("games-view").dataset.busy = String(games.busy);
  $("games-text").textContent = !now ? "" : now.mover === "end" ? ending(now) : now.text;
  $("games-throw").hidden = !games.lastThrow;
  $("games-throw-value").textContent = games.lastThrow || "";
  renderBoard(now);
  $("games-undo").hidden = !games.past.length || !now;
  $("games-undo").disabled = games.busy;
  const show = $("games-advice").checked;
  const moves = $("games-moves");
  moves.innerHTML = "";
  $("games-aside").hidden = true;
  if (now && now.mover !== "end" && mine(now) && now.moves.length) {
    const picked = games.aside.size ? asideMoves(now) : [];
    now.moves.forEach((m, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = (i === 0 && show ? "primary" : "") + (picked[i] ? " picked" : "");
      b.disabled = games.busy;
      b.innerHTML = escapeHtml(m.move) + (show
        ? ` <span class="muted">${pct(m.value)}${m.cost > 1e-12 ? `, −${pct(m.cost)}` : ""}</span>`
        : "");
      b.addEventListener("click", () => choose(i));
      moves.append(b);
    });
  }
  $("games-value").textContent = now && show && now.mover !== "end"
    ? `your ${now.players >= 2 ? "chance to win" : "value"} now: ${pct(youSee(now, now.value))}`
    : "";
  $("games-log").innerHTML = games.log.slice(-12)
    .map((line) => `<li>${escapeHtml(line)}</li>`).join("");
  renderReview(now);
}

// Who won, said to the player: "you won", "the computer won" (the position's own text
// numbers the players).
function ending(now) {
  if (now.players > 2) {
    const first = now.board ? now.board.winner : -1;
    const last = games.lastBoard && games.lastBoard.scores;
    const you = last ? ` (you at ${last[games.seat - 1]})` : "";
    return first === games.seat - 1 ? "You won." : `Player ${first + 1} won${you}.`;
  }
  if (now.players !== 2) return now.text;
  if (now.result !== 0 && now.result !== 1) return "A draw.";
  const won = (now.result === 1) === (games.seat === 1);
  const last = games.lastBoard && games.lastBoard.scores;
  const score = last ? ` (the other at ${last[won ? 2 - games.seat : games.seat - 1]})` : "";
  return won ? `You won${score}.` : `The computer won (you at ${last ? last[games.seat - 1] : 0}).`;
}

function renderReview(now) {
  const box = $("games-review");
  if (!now || now.mover !== "end") {
    box.innerHTML = "";
    return;
  }
  const lost = games.decisions.reduce((s, d) => s + d.cost, 0);
  const wrong = games.decisions.filter((d) => d.cost > 1e-12);
  let verdict = now.verdict;
  if (now.players >= 2) {
    verdict = ending(now).slice(0, -1).toLowerCase();
  }
  const n = games.decisions.length;
  const cost = n === 0 ? "You made no decision."
    : `Your ${n === 1 ? "1 decision" : `${n} decisions`} cost ${pct(lost)} in all `
      + `(${wrong.length} not the best).`;
  box.innerHTML = `<p><strong>Game over: ${escapeHtml(verdict)}.</strong> ${cost}</p>`
    + (wrong.length ? `<table class="review-table"><tr><th>position</th><th>you</th><th>best</th>
      <th>cost</th></tr>${wrong.map((d) => `<tr class="costly"><td>${escapeHtml(d.text)}</td>
      <td>${escapeHtml(d.move)}</td><td>${escapeHtml(d.best)}</td><td>${pct(d.cost)}</td></tr>`)
      .join("")}</table>` : "");
}
