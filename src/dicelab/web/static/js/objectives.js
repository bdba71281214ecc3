// What a player may play for: the server's registry of objectives, its menu and boxes,
// and the one played for now in words and numbers (its values, its request's fields).
import { api } from "./api.js";
import { atTable } from "./mode.js";
import { fmt } from "./record.js";
import { $, state } from "./state.js";

// -- what a player may play for: the server's registry of objectives (GET /api/objectives)
export const OBJECTIVES = {};  // name -> {name, unit, value_name, menu, params: [{name, kind, ...}]}

// The registry's objectives in the "Play for" menu (before the duel and the tables),
// and an input for each parameter (the target score, theta), shown with its objective.
// A value typed or changed there goes to `setObjective` (playfor.js, passed by main.js).
export async function loadObjectives(setObjective) {
  const list = await api("/api/objectives");
  const menu = $("objective");
  const after = menu.querySelector('option[value="duel"]');
  const inputs = new Map();
  for (const o of list) {
    OBJECTIVES[o.name] = o;
    const opt = document.createElement("option");
    opt.value = o.name;
    opt.textContent = o.menu;
    menu.insertBefore(opt, after);
    for (const p of o.params) {
      if (inputs.has(p.name)) continue;
      const input = document.createElement("input");
      Object.assign(input, { id: p.name, type: "number", hidden: true, title: p.help });
      input.step = p.kind === "int" ? "1" : "0.005";
      if (p.low !== null) input.min = String(p.low);
      if (p.high !== null) input.max = String(p.high);
      if (p.default !== null) input.value = String(p.default);
      input.setAttribute("aria-label", p.help);
      input.addEventListener("change", setObjective);
      let typing = 0;  // a value typed is played for after a pause: not 3 and 30 on the way to 300
      input.addEventListener("input", (e) => {
        clearTimeout(typing);
        typing = setTimeout(() => setObjective(e), 700);
      });
      input.addEventListener("keydown", (e) => {  // Enter plays for the value shown
        if (e.key === "Enter") setObjective(e);
      });
      if (p.kind !== "int") {  // a number without a unit: named beside its box
        const label = Object.assign(document.createElement("label"), { htmlFor: p.name });
        label.textContent = p.name;
        label.id = `${p.name}-label`;
        label.hidden = true;
        $("new-game").before(label);
      }
      $("new-game").before(input);
      inputs.set(p.name, input);
    }
  }
  menu.value = "expected";
}

export const paramsOf = (objective) => (OBJECTIVES[objective] ? OBJECTIVES[objective].params : []);
export const paramNames = () => [...new Set(Object.values(OBJECTIVES).flatMap((o) => o.params)
  .map((p) => p.name))];

// A parameter typed in, or the line that says what is wrong with it.
export function paramValue(p) {
  const x = Number($(p.name).value);
  const whole = p.kind === "int";
  const ok = $(p.name).value.trim() !== "" && Number.isFinite(x) && (!whole || Number.isInteger(x))
    && (p.low === null || x >= p.low) && (p.high === null || x <= p.high);
  if (ok) return { value: x };
  const range = p.low !== null && p.high !== null ? ` from ${p.low} to ${p.high}`
    : p.low !== null ? `, ${p.low} or more` : "";
  return { error: `${p.name}: type ${whole ? "a whole number of points" : "a number"}${range}` };
}

// -- what the advice plays for now -----------------------------------------------------
export function objectiveBody() {
  return { objective: state.objective, ...state.params };
}

// Whether the objective's values are points (an expected score, a sure score), not chances.
export const inPoints = () => (OBJECTIVES[state.objective] || { unit: "chance" }).unit === "points";

// A value of the objective: points, or a chance in per cent.
export function valueText(x) {
  return inPoints() ? fmt(x) : `${fmt(100 * x)}%`;
}

export function costText(c) {
  return inPoints() ? `−${fmt(c)}` : `−${fmt(100 * c)}%`;
}

export function valueName() {
  if (state.objective === "duel") return "chance to win the duel";
  if (atTable()) return "chance to finish first";
  const o = OBJECTIVES[state.objective];
  if (!o) return "expected final score";
  return o.value_name.replace(/\{(\w+)\}/g, (_, name) => String(state.params[name]));
}

export function objectiveKey() {
  return `${state.objective}:${JSON.stringify(state.params)}`;
}
