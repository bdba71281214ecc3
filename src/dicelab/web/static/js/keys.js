// Keys: digits hold dice, R rolls, Enter follows the best option.
import { chooseBox, followKeep, toggleHold } from "./game.js";
import { adviceIsCurrent } from "./record.js";
import { $, state } from "./state.js";

// -- keys: digits hold dice, R rolls, Enter follows the best option ------------------
export function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || state.view !== "play") return;
  const t = e.target;
  if (t && (t.matches("input, select, textarea, button, a, label, [role=button]")
      || t.isContentEditable)) return;
  if (!state.info || !state.record) return;
  const n = state.info.dice;
  if (/^[1-9]$/.test(e.key) && Number(e.key) <= n) {
    e.preventDefault();
    toggleHold(Number(e.key) - 1);
  } else if (e.key === "r" || e.key === "R") {
    if (!$("roll").disabled) {
      e.preventDefault();
      $("roll").click();
    }
  } else if (e.key === "Enter") {
    const a = adviceIsCurrent() ? state.advice : null;
    if (!a || state.busy || !a.options.length) return;
    e.preventDefault();
    const best = a.options[0];
    if (best.kind === "keep") followKeep(best);
    else chooseBox(best.box);
  }
}
