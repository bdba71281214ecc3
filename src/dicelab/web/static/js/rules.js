// Rule sets: the list, the scorecard of the chosen one, uploads, the first solve.
import { api, showError } from "./api.js";
import { newGame } from "./game.js";
import { escapeHtml } from "./html.js";
import { changed } from "./hub.js";
import { outlookSoon } from "./outlook.js";
import { watchSolve } from "./solving.js";
import { $, state } from "./state.js";
import { renderTraining, training } from "./training.js";
import { dropWhy } from "./why.js";

// -- rules ---------------------------------------------------------------------------
export async function loadRulesList(selectId) {
  const data = await api("/api/rules");
  state.rulesList = data.rules;
  const select = $("rules-select");
  select.innerHTML = "";
  for (const source of ["builtin", "upload"]) {
    const group = document.createElement("optgroup");
    group.label = source === "builtin" ? "Built-in" : "Uploaded";
    for (const r of data.rules.filter((x) => x.source === source)) {
      const opt = document.createElement("option");
      opt.value = r.id;
      opt.textContent = r.title;  // the sizes in a tooltip: the list stays narrow
      opt.title = `${r.boxes} boxes, ${r.dice} dice with ${r.faces} faces`;
      group.appendChild(opt);
    }
    if (group.children.length) select.appendChild(group);
  }
  select.value = selectId;
  document.dispatchEvent(new Event("ruleslist"));  // Compare's pickers offer them too
}

// Switch to a rule set (and a new game), and have its table solved or loaded.
export async function chooseRules(id) {
  showError("");
  dropWhy();  // other rules: the why asked of the last ones is not wanted
  const info = await api(`/api/rules/${encodeURIComponent(id)}`);
  Object.assign(state, { info, rulesId: id, expected: null });
  Object.assign(training, { session: null, summary: null, graded: null });  // other rules
  renderTraining();
  $("rules-select").value = id;
  rememberRulesInAddress(id);
  newGame();
  renderRulesText();
  state.solving = { state: "idle", estimate_seconds: 0 };
  changed();
  watchSolve(id);
  try {
    const ex = await api(`/api/rules/${encodeURIComponent(id)}/expected`);
    if (state.rulesId === id) state.expected = ex.expected_score;
  } catch (err) {
    showError(err.message);
  }
  if (state.rulesId === id && state.objective === "expected") state.solving = null;
  changed();
  if (state.objective !== "expected") watchSolve(id);
  outlookSoon();
  markWhatFits(id);
}

// The objectives whose table this server cannot make for these rules (a duel of
// Yahtzee, say) are shown disabled with the reason, before anyone rolls: asked of
// the server once each (its answer comes at once; the size is worked out apart).
async function markWhatFits(id) {
  const menu = $("objective");
  const asks = { duel: "duel", match: "match", friends: "match" };
  for (const o of menu.options) {
    o.disabled = false;
    o.title = "";
    if (o.dataset.label) o.textContent = o.dataset.label;
  }
  for (const [value, objective] of Object.entries(asks)) {
    const o = menu.querySelector(`option[value="${value}"]`);
    if (!o) continue;
    for (let tries = 0; tries < 40 && state.rulesId === id; tries += 1) {
      let p;
      try {
        p = await api(`/api/rules/${encodeURIComponent(id)}/progress?objective=${objective}`);
      } catch (err) {
        break;
      }
      if (p.refused) {
        o.dataset.label = o.dataset.label || o.textContent;
        o.textContent = `${o.dataset.label} (too large here)`;
        o.title = p.refused;
        o.disabled = menu.value !== value;  // the choice made stays, and says why
        break;
      }
      if (p.estimate_seconds !== undefined && p.estimate_seconds !== null) break;
      await new Promise((done) => setTimeout(done, 500));
    }
  }
}

// The address names the rule set on the page, so a reload or a shared link opens it.
export function rememberRulesInAddress(id) {
  const params = new URLSearchParams(location.search);
  if (params.get("rules") === id) return;
  params.set("rules", id);
  history.replaceState(null, "", `${location.pathname}?${params}`);
}

export async function uploadRules(file) {
  showError("");
  if (file.size > 64000) {
    showError(`${file.name}: the file is too large (at most 64000 characters)`);
    return;
  }
  const text = await file.text();
  try {
    // the file's name names a variant that gives none (house.toml: "house")
    const info = await api("/api/rules", { toml: text, filename: file.name });
    await loadRulesList(info.id);
    await chooseRules(info.id);
  } catch (err) {
    showError(`${file.name}: ${err.message}`);
  }
}

export function renderRulesText() {
  const info = state.info;
  const parts = [];
  if (info.description) parts.push(`<p>${escapeHtml(info.description)}</p>`);
  parts.push(`<p>${info.dice} dice with ${info.faces} faces, ${info.rolls} throws per turn, `
    + `${info.boxes} boxes.</p>`);
  if (info.upper_bonus) {
    parts.push(`<p>Upper bonus: ${info.upper_bonus.points} points for `
      + `${info.upper_bonus.threshold} or more in the upper boxes.</p>`);
  }
  if (info.extra_bonus) {
    parts.push(`<p>Extra bonus: ${info.extra_bonus.points} for each further all-same roll; `
      + `${escapeHtml(info.extra_bonus.text)}.</p>`);
  }
  $("rules-text").innerHTML = parts.join("");
  $("rules-title").textContent = info.title;
}
