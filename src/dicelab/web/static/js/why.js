// Why an option is worth its value: folded under it until asked for.
import { api, showError } from "./api.js";
import { duelBody, pause } from "./duel.js";
import { escapeHtml } from "./html.js";
import { changed } from "./hub.js";
import { inDuel } from "./mode.js";
import { objectiveBody } from "./objectives.js";
import { adviceIsCurrent, boxes, extraBonuses, filled, fmt } from "./record.js";
import { state } from "./state.js";

// -- why an option is worth its value: folded under it until asked for ----------------
export function whyButton(o, open) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "why-toggle";
  b.textContent = open ? "why ▾" : "why ▸";
  b.setAttribute("aria-expanded", String(open));
  b.setAttribute("aria-label", `why: ${o.label}`);
  b.addEventListener("click", (e) => {
    e.stopPropagation();  // the row itself follows the option
    toggleWhy(o.label);
  });
  b.addEventListener("keydown", (e) => e.stopPropagation());
  return b;
}

export function toggleWhy(label) {
  if (state.whyOpen.has(label)) state.whyOpen.delete(label);
  else state.whyOpen.add(label);
  const a = state.advice;
  if (state.whyOpen.size && a && !a.options.some(explained)) whySoon();
  changed();
}

// Whether an option carries its why in full (in a duel: with its expected lead).
export function explained(o) {
  return Boolean(o.explain) && (!inDuel() || o.explain.expected_lead != null);
}

// The advice shown, asked again with the why of every option (the first time for a
// rule set, its split of the expected score by box is worked out: seconds; in a duel,
// its table of expected leads: minutes for the largest games).
export async function whySoon() {
  const duel = inDuel();
  if (duel) state.leadAsked = true;
  else state.whyAsked = true;
  if (state.whyBusy) return;
  state.whyBusy = true;
  const number = state.request;
  const a = state.advice;
  // given up when the player leaves (another aim, other rules): the server then stops
  // a table no one waits for any more
  const control = new AbortController();
  state.whyControl = control;
  try {
    const body = {
      rules: state.rulesId, dice: a.dice, rerolls_left: a.rerolls_left, filled: filled(),
      extra_bonuses: extraBonuses(), ...objectiveBody(), explain: true,
    };
    watchWhy(state.rulesId, duel ? "duel-lead" : "explain");
    const path = duel ? "/api/duel/advice" : "/api/advice";
    const answer = await api(path, duel ? duelBody(body) : body, control.signal);
    if (number === state.request && adviceIsCurrent()) state.advice = answer;
  } catch (err) {
    if (!control.signal.aborted) showError(err.message);
  } finally {
    if (state.whyControl === control) state.whyControl = null;
    state.whyBusy = false;
    state.whyProgress = null;
    changed();
  }
}

// The first why of a rule set waits for its table (the split by box, or the duel's
// expected leads): how far it has come.
export async function watchWhy(id, objective) {
  await pause(300);  // a table on disk answers before the first look
  while (state.whyBusy && state.rulesId === id) {
    try {
      const p = await api(`/api/rules/${encodeURIComponent(id)}/progress?objective=${objective}`);
      if (!state.whyBusy) return;
      state.whyProgress = p;
      changed();
    } catch (err) {
      return;  // the advice's own request says what went wrong
    }
    await pause(500);
  }
}

export function whyWaitText() {
  const p = state.whyProgress;
  const what = inDuel() ? "Working out the expected leads" : "Working out why";
  if (p && p.state === "solving" && p.total > 0 && p.left_seconds != null) {
    const left = Math.max(1, Math.round(p.left_seconds));
    return `${what}, once for these rules: ${Math.floor((100 * p.done) / p.total)}%, `
      + `about ${left < 120 ? `${left} s` : `${Math.round(left / 60)} min`} left`;
  }
  if (p && p.state === "queued") return `${what}: waiting for another solve to end…`;
  if (p && p.estimate_seconds >= 5) {  // said before it starts: it takes a while
    const s = p.estimate_seconds;
    return `${what}, once for these rules: at most about `
      + `${s < 120 ? `${Math.round(s)} s` : `${Math.round(s / 60)} min`}…`;
  }
  return `${what}…`;
}

// Give up the why asked for (the player left): its request, and so its table's solve.
export function dropWhy() {
  if (state.whyControl) state.whyControl.abort();
}

export function whyRow(o, columns) {
  const tr = document.createElement("tr");
  tr.className = "why-row";
  const td = document.createElement("td");
  td.colSpan = columns;
  const w = o.explain;
  if (!w) {
    td.innerHTML = `<span class="muted why-wait">${escapeHtml(whyWaitText())}</span>`;
  } else {
    const parts = [];
    if (w.box_points) {
      const written = new Set(Object.keys(filled()));
      for (const b of boxes()) {
        if (!written.has(b.id)) parts.push(`${escapeHtml(b.name)} ${fmt(w.box_points[b.id], 1)}`);
      }
      if (w.p_upper_bonus !== null) parts.push(`upper bonus ${fmt(100 * w.p_upper_bonus, 0)}%`);
      if (w.expected_extra_bonuses !== null) {
        parts.push(`extra bonuses ${fmt(w.expected_extra_bonuses, 3)}`);
      } else if (w.p_all_same !== null) {
        parts.push(`all alike scored ${fmt(100 * w.p_all_same, 0)}%`);
      }
    }
    if (w.expected_lead != null) {
      const lead = w.expected_lead;
      parts.push(`expected final lead ${lead >= 0 ? "+" : "−"}${fmt(Math.abs(lead), 1)} points`);
    }
    const waiting = inDuel() && w.expected_lead == null && state.whyBusy;
    td.innerHTML = `<p class="why-text">${escapeHtml(w.text)}</p>`
      + (parts.length ? `<p class="why-parts">${parts.join(" · ")}</p>` : "")
      + (waiting ? `<p class="muted why-wait">${escapeHtml(whyWaitText())}</p>` : "");
  }
  tr.appendChild(td);
  return tr;
}
