// dicelab play-along page: the game is kept here, the server ranks the options.
// This module wires the page's controls and starts it; each view is a module of its own.
// It is the one module that imports the drawings: the others say what changed (hub.js),
// and every change is drawn, then kept in the browser, as subscribed here.
import { showError } from "./api.js";
import { runCompare } from "./compare.js";
import {
  choosePreset, renderGame, seatPicker, showSettings, startGame, undoMove,
} from "./dicegames.js";
import { render } from "./draw.js";
import { downloadRecord, openRecord } from "./files.js";
import { doThrow, enterThrow, newGame, scoreNow, undo } from "./game.js";
import { changed, subscribe } from "./hub.js";
import { onKey } from "./keys.js";
import { inMatch } from "./mode.js";
import { loadObjectives } from "./objectives.js";
import { setObjective } from "./playfor.js";
import { chooseRules, loadRulesList, uploadRules } from "./rules.js";
import { $, state } from "./state.js";
import { restoreGame, saveGame, savedGame } from "./storage.js";
import { startTraining } from "./training.js";
import { setMenu, showMenuLabel, showView } from "./views.js";

// -- wiring --------------------------------------------------------------------------
function wire() {
  $("rules-select").addEventListener("change", (e) => chooseRules(e.target.value)
    .catch((err) => showError(err.message)));
  $("rules-select").addEventListener("change", showMenuLabel);
  $("menu-toggle").addEventListener("click", () => {
    setMenu($("menu-toggle").getAttribute("aria-expanded") !== "true");
    showMenuLabel();
  });
  $("rules-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (file) uploadRules(file);
  });
  $("record-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (file) openRecord(file);
  });
  $("new-game").addEventListener("click", newGame);
  for (const label of document.querySelectorAll("label.file-button")) {
    label.addEventListener("keydown", (e) => {  // a label is no button: Enter and Space open
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        $(label.htmlFor).click();
      }
    });
  }
  $("roll").addEventListener("click", () => doThrow(null));
  $("score-now").addEventListener("click", scoreNow);
  $("undo").addEventListener("click", undo);
  $("enter-form").addEventListener("submit", (e) => {
    e.preventDefault();
    enterThrow($("enter-dice").value);
  });
  $("show-advice").addEventListener("change", changed);
  $("objective").addEventListener("change", setObjective);
  $("opponents").addEventListener("change", () => {
    if (inMatch()) newGame();  // another table: a new game
  });
  $("download").addEventListener("click", downloadRecord);
  document.addEventListener("keydown", onKey);
  for (const b of document.querySelectorAll("nav.views button")) {
    b.addEventListener("click", () => showView(b.dataset.view));
  }
  $("train-start").addEventListener("click", () => startTraining(false));
  $("train-daily").addEventListener("click", () => startTraining(true));
  $("games-family").addEventListener("change", showSettings);
  $("games-settings").addEventListener("input", seatPicker);
  $("games-preset").addEventListener("change", choosePreset);
  $("games-start").addEventListener("click", startGame);
  $("games-advice").addEventListener("change", renderGame);
  $("games-undo").addEventListener("click", undoMove);
  $("compare-run").addEventListener("click", runCompare);
}

async function start() {
  subscribe(render);    // every change drawn,
  subscribe(saveGame);  // then kept in the browser
  wire();
  if (navigator.maxTouchPoints > 0 || matchMedia("(pointer: coarse)").matches) {
    document.body.classList.add("touch");  // a touch screen: no keyboard hints
  }
  const asked = new URLSearchParams(location.search).get("rules");
  let wanted = asked || "yahtzee";
  try {
    await loadObjectives(setObjective);
    await loadRulesList("yahtzee");
    const saved = savedGame();
    if (saved && (asked === null || asked === saved.rulesId)
        && state.rulesList.some((r) => r.id === saved.rulesId)) {
      await restoreGame(saved);
      return;
    }
    let unknown = null;
    if (!state.rulesList.some((r) => r.id === wanted)) {
      unknown = wanted;
      wanted = "yahtzee";
    }
    $("rules-select").value = wanted;
    await chooseRules(wanted);
    if (unknown !== null) {
      showError(`The address asks for rules "${unknown}", which this server does not have: ` +
        "showing Yahtzee. Choose rules from the list, or upload a rules file.");
    }
  } catch (err) {
    showError(err.message);
  } finally {
    showMenuLabel();
  }
}

start();
