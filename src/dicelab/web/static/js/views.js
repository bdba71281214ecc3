// Views: play, training, history, dice games, compare.
import { showCompare } from "./compare.js";
import { loadGames } from "./dicegames.js";
import { loadHistory } from "./history.js";
import { $, state } from "./state.js";
import { renderTraining } from "./training.js";

// -- views: play, training, history, dice games -------------------------------------
export function showView(name) {
  state.view = name;
  setMenu(false);
  for (const v of ["play", "train", "history", "games", "compare"]) {
    $(`${v}-view`).hidden = v !== name;
    $(`view-${v}`).setAttribute("aria-pressed", String(v === name));
  }
  if (name === "history") loadHistory();
  if (name === "train") renderTraining();
  if (name === "games") loadGames();
  if (name === "compare") showCompare();
  // the rule sets are chosen in the view itself, or there are none
  document.querySelector(".rules-bar").hidden = name === "games" || name === "compare";
  showMenuLabel();
}

// -- the phone's header: one row, the views, rules and aim folded into a menu ---------
export function setMenu(open) {
  document.querySelector("header").classList.toggle("menu-open", open);
  $("menu-toggle").setAttribute("aria-expanded", String(open));
}

// What the folded menu holds now: the view, and in the rules' views their rule set.
export function showMenuLabel() {
  const view = $(`view-${state.view || "play"}`).textContent;
  const select = $("rules-select");
  const rules = select.selectedOptions[0]?.textContent.replace(/\s*\(.*$/, "") || "";
  const withRules = !document.querySelector(".rules-bar").hidden && rules;
  $("menu-now").textContent = withRules ? `${view} · ${rules}` : view;
}
