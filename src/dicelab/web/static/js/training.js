// The training view: a question at a time, graded at once.
import { api, showError } from "./api.js";
import { dieFace } from "./faces.js";
import { escapeHtml } from "./html.js";
import { boxes, fmt } from "./record.js";
import { $, state } from "./state.js";

// -- training: a question at a time, graded at once ------------------------------------
export const training = {
  session: null,   // {rules, seed, daily, questions} (POST /api/training)
  index: 0,        // the question shown
  answers: [],     // what was answered, with its position (sent again at the end)
  graded: null,    // the grading of the question shown, once answered
  summary: null,   // the session's figures, at the end
  busy: false,
};

export const pad2 = (n) => String(n).padStart(2, "0");
export function today() {
  const d = new Date();
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
}

// One request of the training view: busy (its buttons off) until the answer comes,
// drawn first unless `drawFirst` is false, an error shown in place of an answer, and
// drawn again either way. Every request of the view goes through here.
async function whileBusy(request, drawFirst = true) {
  training.busy = true;
  if (drawFirst) renderTraining();
  try {
    await request();
  } catch (err) {
    showError(err.message);
  } finally {
    training.busy = false;
    renderTraining();
  }
}

export async function startTraining(daily) {
  if (training.busy || !state.rulesId) return;
  const count = Math.max(1, Math.min(50, Number($("train-count").value) || 10));
  const body = { rules: state.rulesId, questions: count };
  if (daily) body.date = today();
  Object.assign(training, { session: null, summary: null, graded: null, answers: [], index: 0 });
  await whileBusy(async () => {
    training.session = await api("/api/training", body);
    showError(training.session.note || "");  // a history that could not be read, if so
  });
}

export async function answerTraining(label) {
  const t = training.session;
  if (!t || training.graded || training.busy) return;
  const q = t.questions[training.index];
  const position = {
    dice: q.dice, rerolls_left: q.rerolls_left, filled: q.filled, extra_bonuses: q.extra_bonuses,
  };
  await whileBusy(async () => {
    training.graded = await api("/api/training/answer", { rules: t.rules, ...position, answer: label });
    training.answers.push({ ...position, answer: label });
    showError("");
  }, false);
  const next = $("train-next");
  if (next) next.focus();
}

export async function nextTraining() {
  const t = training.session;
  training.graded = null;
  training.index += 1;
  if (training.index < t.questions.length) {
    renderTraining();
    return;
  }
  await whileBusy(async () => {
    const body = { rules: t.rules, answers: training.answers };
    if (t.daily) body.date = t.daily; else body.seed = t.seed;
    training.summary = await api("/api/training/finish", body);
  });
}

export function renderTraining() {
  $("train-rules").textContent = state.info ? `(${state.info.title || state.rulesId})` : "";
  const qbox = $("train-question");
  const rbox = $("train-result");
  const sbox = $("train-summary");
  qbox.innerHTML = rbox.innerHTML = sbox.innerHTML = "";
  $("train-start").disabled = $("train-daily").disabled = training.busy;
  const t = training.session;
  if (!t) {
    if (training.busy) qbox.innerHTML = '<p class="muted" id="train-busy">Drawing the positions…</p>';
    return;
  }
  if (training.summary) {
    const s = training.summary;
    const kinds = s.by_kind.map((k) => `${k.kind}: ${k.mistakes} of ${k.decisions} cost `
      + `${fmt(k.cost)}`).join(" · ");
    sbox.innerHTML = `<p id="train-score"><strong>${s.questions} answered: `
      + `${fmt(100 * s.best_share, 0)}% best, ${fmt(s.average_cost, 3)} points lost per `
      + `decision</strong></p><p class="muted">${escapeHtml(kinds)}</p>`
      + `<p class="muted">${s.kept ? "Kept in your history." : "Kept in your history already."}</p>`;
    return;
  }
  if (training.busy && training.index >= t.questions.length) {
    sbox.innerHTML = '<p class="muted">Adding up…</p>';
    return;
  }
  const q = t.questions[training.index];
  const when = q.rerolls_left ? `${q.rerolls_left} reroll${q.rerolls_left > 1 ? "s" : ""} left`
    : "after the last throw: choose a box";
  const written = boxes().filter((b) => b.id in q.filled)
    .map((b) => `${escapeHtml(b.name)} ${q.filled[b.id]}`);
  const what = t.daily ? `today's set (${t.daily})` : `seed ${t.seed}`;
  qbox.innerHTML = `<p id="train-counter"><strong>Question ${q.question} of `
    + `${t.questions.length}</strong> · ${when} · <span class="muted">${what}</span></p>`
    + `<p class="train-sheet">${written.length ? written.join(" · ") : "An empty scorecard"}`
    + (q.extra_bonuses ? ` · ${q.extra_bonuses} extra bonus(es)` : "") + "</p>";
  const dice = document.createElement("div");
  dice.className = "train-dice";
  for (const face of q.dice) {
    const die = document.createElement("span");
    die.className = "die";
    die.setAttribute("aria-label", `a die showing ${face}`);
    die.appendChild(dieFace(face));
    dice.appendChild(die);
  }
  qbox.appendChild(dice);
  const options = document.createElement("div");
  options.className = "train-options";
  const g = training.graded;
  for (const label of q.options) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.label = label;
    b.disabled = training.busy || g !== null;
    if (g && label === g.chosen && !g.correct) b.classList.add("chosen");
    if (g && label === g.best) b.classList.add("best");
    b.addEventListener("click", () => answerTraining(label));
    options.appendChild(b);
  }
  qbox.appendChild(options);
  if (!g) return;
  rbox.innerHTML = (g.correct
    ? `<p class="graded good" id="train-graded">Best: ${escapeHtml(g.chosen)}.</p>`
    : `<p class="graded bad" id="train-graded">Costs ${fmt(g.cost)} points: the best is `
      + `${escapeHtml(g.best)}.</p>`)
    + (g.why ? `<p class="why-text">${escapeHtml(g.why)}</p>` : "");
  const next = document.createElement("button");
  next.type = "button";
  next.id = "train-next";
  next.className = "primary";
  next.textContent = training.index + 1 < t.questions.length ? "Next question" : "See the result";
  next.addEventListener("click", nextTraining);
  rbox.appendChild(next);
}
