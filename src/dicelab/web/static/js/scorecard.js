// The scorecard: your boxes, filled and offered, beside the computer's in a duel or
// each other player's at a table (a friend's boxes typed into their column).
import { showError } from "./api.js";
import { chooseBox, refresh } from "./game.js";
import { actsAsButton, escapeHtml } from "./html.js";
import { computerRecord, inDuel, others } from "./mode.js";
import {
  adviceIsCurrent, boxName, boxes, extraBonuses, filled, filledOf, scoring, totals,
} from "./record.js";
import { $, state } from "./state.js";
import { otherTotals } from "./table.js";

export function renderScorecard() {
  const table = $("scorecard");
  table.innerHTML = "";
  const a = scoring() && adviceIsCurrent() ? state.advice : null;
  const candidates = {};
  if (a) for (const o of a.options) candidates[o.box] = o;
  const f = filled();
  const t = totals();
  const cats = boxes();
  // a column for each other player: the computer in a duel, the others at a table
  const cols = inDuel()
    ? [{ name: "computer", record: computerRecord(), total: "computer-total" }]
    : others().map((o, k) => ({
      name: o.name, record: o.record, total: `other-total-${k + 1}`,
      friend: state.match.kind === "friends" ? o : null,
    }));
  table.classList.toggle("duel", cols.length > 0);  // the box descriptions fold away
  const colFilled = cols.map((c) => filledOf(c.record));
  const colTotals = cols.map((c) => (c.friend ? otherTotals(c.friend) : totals(c.record)));
  const other = (cell) => cols.map((c, k) => `<td class="num computer">${cell(k)}</td>`).join("");
  // a friend's box: typed as they fill it
  const typed = (k, id, name, value) => `<input class="friend-box" id="friend-${k + 1}-${id}" `
    + `inputmode="numeric" size="3" data-other="${k}"${id === "extra" ? "" : ` data-box="${id}"`} `
    + `value="${value}" aria-label="${escapeHtml(`${cols[k].name}: ${name}`)}">`;
  if (cols.length) {
    const head = document.createElement("tr");
    // on a phone, a table of three or four: the short names, "cpu 1", "pl. 2"
    const narrow = cols.length > 1 && matchMedia("(max-width: 600px)").matches;
    const shown = (name) => (narrow
      ? name.replace(/^computer /, "cpu ").replace(/^player /, "pl. ") : name);
    head.innerHTML = '<th></th><th class="num">you</th>' + cols.map((c) => '<th class="num" '
      + `title="${escapeHtml(c.name)}">${escapeHtml(shown(c.name))}</th>`).join("");
    table.appendChild(head);
  }
  const lastUpper = cats.map((c) => c.upper).lastIndexOf(true);
  const row = (cells, cls) => {
    const tr = document.createElement("tr");
    if (cls) tr.className = cls;
    tr.innerHTML = cells;
    table.appendChild(tr);
    return tr;
  };
  // in scorecard order (forced_order) only the first open box is ever offered
  const forced = state.info.forced_order ? cats.find((c) => !(c.id in f)) : null;
  cats.forEach((c, i) => {
    let cell;
    const tr = row("", "box");
    tr.dataset.box = c.id;
    if (forced && c.id === forced.id) {
      tr.classList.add("forced");
      tr.title = `this turn fills ${c.name} (boxes in scorecard order)`;
    }
    if (c.id in f) {
      tr.classList.add("filled");
      cell = `<td class="num points">${f[c.id]}</td>`;
    } else if (candidates[c.id]) {
      const o = candidates[c.id];
      tr.classList.add("candidate");
      if (o.best && $("show-advice").checked) tr.classList.add("best");
      tr.title = `fill ${c.name} with ${o.points}`;
      actsAsButton(tr, () => chooseBox(c.id), `fill ${c.name} with ${o.points}`);
      const bonus = o.extra_bonus ? ` +${o.extra_bonus}` : "";
      cell = `<td class="num points maybe">${o.points}${bonus}</td>`;
    } else if (forced) {  // another open box: clicked, it says which one this turn fills
      tr.addEventListener("click", () => showError(`This turn fills ${forced.name}: `
        + "the boxes are filled in scorecard order."));
      cell = '<td class="num points"></td>';
    } else {
      cell = '<td class="num points"></td>';
    }
    tr.innerHTML = `<td title="${escapeHtml(c.scores)}"><span class="box-name">${escapeHtml(c.name)}</span>`
      + `<span class="scores">${escapeHtml(c.scores)}</span></td>${cell}`
      + other((k) => {
        const v = c.id in colFilled[k] ? String(colFilled[k][c.id]) : "";
        return cols[k].friend ? typed(k, c.id, c.name, v) : v;
      });
    if (i === lastUpper) {
      const bonus = state.info.upper_bonus;
      row(`<td>Upper total</td><td class="num" id="upper-total">${t.upper}`
        + `${bonus ? ` / ${bonus.threshold}` : ""}</td>${other((k) => colTotals[k].upper)}`, "sum");
      if (bonus) {
        const upperOpen = cats.some((u) => u.upper && !(u.id in f));
        const text = t.bonusEarned ? String(t.bonusEarned)
          : !upperOpen ? '<span class="muted">missed: 0</span>'
          : `<span class="muted">${Math.max(0, bonus.threshold - t.upper)} to go</span>`;
        row(`<td>Bonus (${bonus.points} at ${bonus.threshold})</td>`
          + `<td class="num" id="upper-bonus">${text}</td>`
          + other((k) => colTotals[k].bonusEarned),
        "sum");
      }
    }
  });
  if (state.info.extra_bonus) {
    row(`<td>Extra bonuses (${extraBonuses()} × ${state.info.extra_bonus.points})</td>`
      + `<td class="num">${t.extraPoints}</td>`
      + other((k) => (cols[k].friend
        ? typed(k, "extra", "extra bonuses", String(cols[k].friend.extra))
        : colTotals[k].extraPoints)), "sum");
  }
  row(`<td>Total</td><td class="num" id="total">${t.total}</td>`
    + cols.map((c, k) => `<td class="num computer" id="${c.total}">${colTotals[k].total}</td>`)
      .join(""),
  "sum total");
  for (const el of table.querySelectorAll("input.friend-box")) {
    el.addEventListener("change", typedBox);
  }
}

// A friend's box typed (or cleared) in their column of the scorecard.
function typedBox(e) {
  const el = e.target;
  const o = state.match.others[Number(el.dataset.other)];
  const text = el.value.trim();
  const list = o.record.turns;
  if (el.dataset.box === undefined) {  // the extra bonuses
    const n = Number(text || "0");
    if (!Number.isInteger(n) || n < 0) {
      showError(`${o.name}, extra bonuses: type a whole number, 0 or more`);
      el.value = String(o.extra);
      return;
    }
    o.extra = n;
  } else {
    const id = el.dataset.box;
    const at = list.findIndex((t) => t.box === id);
    const points = Number(text);
    if (text !== "" && !(Number.isInteger(points) && points >= 0)) {
      showError(`${o.name}, ${boxName(id)}: type the points as a whole number, 0 or more`);
      el.value = at >= 0 ? String(list[at].points) : "";
      return;
    }
    if (text === "") {
      if (at >= 0) list.splice(at, 1);
    } else if (at >= 0) {
      list[at].points = points;
    } else {
      list.push({ throws: [], keeps: [], box: id, points, extra_bonus: 0 });
    }
  }
  showError("");
  state.advice = null;
  refresh();
}
