// Markup every view shares: text escaped for HTML (a name from a rules file is shown,
// never run), and a table row made a control.

export function escapeHtml(text) {
  const div = document.createElement("div");
  div.textContent = text;
  return div.innerHTML;
}

// A table row that is a control: a button to assistive technology, reached by Tab,
// and pressed by a click, Enter or Space, as a button is.
export function actsAsButton(tr, act, label) {
  tr.tabIndex = 0;
  tr.setAttribute("role", "button");
  tr.setAttribute("aria-label", label);
  tr.addEventListener("click", act);
  tr.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault(); // Space would scroll the page
      act();
    }
  });
}
