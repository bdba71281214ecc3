// What the advice plays for, changed: the menu's choice and its parameter's box; the
// game goes on, or another begins where it is another kind of game.
import { showError } from "./api.js";
import { newGame, refresh } from "./game.js";
import { OBJECTIVES, paramNames, paramValue, paramsOf } from "./objectives.js";
import { outlookSoon } from "./outlook.js";
import { turns } from "./record.js";
import { reviewSoon } from "./review.js";
import { watchSolve } from "./solving.js";
import { $, state } from "./state.js";
import { dropWhy } from "./why.js";

// Change what the advice plays for (the game goes on): its table may need a solve.
export function setObjective(event) {
  const objective = $("objective").value;
  const own = paramsOf(objective);
  for (const name of paramNames()) {
    const hide = !own.some((p) => p.name === name);
    $(name).hidden = hide;
    if ($(`${name}-label`)) $(`${name}-label`).hidden = hide;
  }
  // an aim with a parameter, just picked from the menu: played for at once with the
  // value in its box (its default, 250 points for a target), which stays there to
  // change; a change is played for as it is typed (a pause after the last key) or on Enter
  const picked = event && event.target === $("objective") && objective !== state.objective;
  $("objective-note").hidden = !(picked && own.length);
  if (picked && own.length) {
    const p = own[0];
    if ($(p.name).value.trim() === "" && p.default !== null) $(p.name).value = String(p.default);
    $("objective-note").textContent = `${p.help}: change it to play for another`;
    $(p.name).focus();
    $(p.name).select();
  }
  const params = {};
  for (const p of own) {
    const got = paramValue(p);
    if (got.error) {
      showError(got.error);
      return;
    }
    params[p.name] = got.value;
  }
  showError("");
  if (objective === state.objective && JSON.stringify(params) === JSON.stringify(state.params)) {
    return;  // Enter and the change it makes: one aim, asked once
  }
  // a game alone, a duel, against computer players or with friends: different games
  const family = (o) => (o in OBJECTIVES ? "alone" : o);
  const otherGame = family(objective) !== family(state.objective);
  $("opponents").hidden = !["match", "friends"].includes(objective);
  if (objective !== state.objective) dropWhy();  // a why of another aim is not wanted
  state.objective = objective;
  state.params = params;
  state.advice = null;
  state.outlook = null;
  if (otherGame) newGame();
  if (objective !== "expected") {
    state.solving = { state: "idle", estimate_seconds: 0 };
    watchSolve(state.rulesId);
  }
  outlookSoon();
  if (!otherGame && turns().length) reviewSoon();  // priced again in what is played for
  refresh();
}
