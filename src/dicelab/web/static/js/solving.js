// How far the solve of a rule set's table has come: asked of the server while it runs,
// and said in words beside the options.
import { api } from "./api.js";
import { changed } from "./hub.js";
import { storeObjective } from "./mode.js";
import { state } from "./state.js";

// While a rule set is being loaded or solved, show how far it has come (the server
// answers this at once, also during a solve of minutes).
export async function watchSolve(id) {
  while (state.rulesId === id && state.solving) {
    try {
      const which = state.objective === "expected" ? ""
        : `?${new URLSearchParams({ objective: storeObjective(), ...state.params })}`;
      const p = await api(`/api/rules/${encodeURIComponent(id)}/progress${which}`);
      if (state.rulesId !== id || !state.solving || p.state === "ready") return;
      state.solving = p;
      changed();
    } catch (err) {
      return; // the solve's own request says what went wrong
    }
    await new Promise((done) => setTimeout(done, 500));
  }
}

export function solvingText(p) {
  if (p.state === "solving" && p.total > 0 && p.left_seconds != null) {
    const part = p.done / p.total;
    const left = Math.max(1, Math.round(p.left_seconds));
    return `(solving the rules: ${Math.floor(100 * part)}%, about ${left} s left)`;
  }
  if (p.state === "cached") return "(loading the solved rules…)";
  if (p.state === "queued") {
    const line = p.position === 1 ? "next" : `${p.position} in line`;
    const left = p.behind_left_seconds != null
      ? `, about ${Math.max(1, Math.round(p.behind_left_seconds))} s left` : "";
    const what = p.behind ? ` (${p.behind}${left})` : "";
    return `(waiting for another solve to end${what}: ${line})`;
  }
  if (p.estimate_seconds >= 5) {
    return `(solving the rules the first time: at most about ${Math.round(p.estimate_seconds)} s)`;
  }
  return "(solving the rules…)";
}
