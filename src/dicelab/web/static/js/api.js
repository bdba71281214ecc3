// The server: JSON requests, and the one line that says what went wrong.
import { $ } from "./state.js";

// -- server --------------------------------------------------------------------------
export async function api(path, body, signal) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  if (signal) init.signal = signal;
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (signal && signal.aborted) throw err;  // given up on purpose: not the server's fault
    throw new Error("the server cannot be reached");
  }
  let data = null;
  try { data = await res.json(); } catch (err) { data = null; }
  if (!res.ok) {
    throw new Error((data && data.detail) || `the server answered ${res.status}`);
  }
  return data;
}

export function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}
