// The page's one-way flow: a module that changes the state says so (changed()), and
// the drawings main.js subscribed run; no module that changes the state imports them.

const drawings = [];

// Run `fn` after every change (main.js subscribes the play view's drawing).
export function subscribe(fn) {
  drawings.push(fn);
}

// The state has changed: everything subscribed draws it again, in its order.
export function changed() {
  for (const fn of drawings) fn();
}
