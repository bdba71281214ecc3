// A die's face, drawn as pips (dice of up to six faces) or as its number: the one
// drawing of the play view's dice, the training's and the dice games'.
import { PIPS, state } from "./state.js";

export function faceElement(face, pips) {
  const el = document.createElement("span");
  el.className = "face";
  if (face && pips && PIPS[face]) {
    el.classList.add("pips");
    for (let k = 0; k < 9; k++) {
      const pip = document.createElement("i");
      if (PIPS[face].includes(k)) pip.className = "on";
      el.appendChild(pip);
    }
  } else {
    el.classList.add("number");
    el.textContent = face ? String(face) : "?";
  }
  return el;
}

// A die of the rules played: pips where its dice have six faces or fewer.
export function dieFace(face) {
  return faceElement(face, state.info.faces <= 6);
}
