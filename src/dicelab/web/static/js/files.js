// A game record as a file: downloaded (as `dicelab play` writes it, a duel's as
// `dicelab duel play` does), and opened again to review or continue the game.
import { api, showError } from "./api.js";
import { refresh } from "./game.js";
import { inDuel } from "./mode.js";
import { currentTurn, stopped } from "./record.js";
import { chooseRules, loadRulesList } from "./rules.js";
import { state } from "./state.js";

export function downloadRecord() {
  const record = inDuel() ? state.duel.record : state.record;
  const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `dicelab-${state.rulesId}-${inDuel() ? "duel" : "game"}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// Continue (or just review) a game from a record file.
export async function openRecord(file) {
  showError("");
  let record;
  try {
    record = JSON.parse(await file.text());
  } catch (err) {
    showError(`${file.name}: not a JSON file`);
    return;
  }
  if (!record || typeof record !== "object" || record.format !== "dicelab-game") {
    showError(`${file.name}: not a dicelab game record`);
    return;
  }
  // the rule set the game was played under, known by its fingerprint
  await loadRulesList(state.rulesId);
  const match = state.rulesList.find((r) => r.fingerprint === record.fingerprint);
  if (!match) {
    showError(`${file.name}: the game was played under rules ${JSON.stringify(record.rules)} `
      + "that are not loaded here; upload their rules file first");
    return;
  }
  const wanted = match.id;
  try {
    const review = await api("/api/review", { rules: wanted, record });
    await chooseRules(wanted);
    state.record = record;
    state.record.dice = "real";
    state.review = review;
    const t = currentTurn();
    state.dice = t && t.throws.length ? [...t.throws[t.throws.length - 1]] : [];
    const keep = t && t.keeps.length === t.throws.length && !stopped(t) ? [...t.keeps.pop()] : [];
    state.held = state.dice.map((d) => {
      const at = keep.indexOf(d);
      if (at < 0) return false;
      keep.splice(at, 1);
      return true;
    });
    state.advice = null;
    refresh();
  } catch (err) {
    showError(`${file.name}: ${err.message}`);
  }
}
