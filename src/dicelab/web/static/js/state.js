// The page's state: one object every view reads and changes; the dice's random numbers.

export const $ = (id) => document.getElementById(id);

export const PIPS = {
  1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8],
};

export const state = {
  rulesId: null,
  info: null,          // scorecard of the rules (GET /api/rules/{id})
  expected: null,      // optimal expected score of a whole game
  solving: null,       // while the rule set is solved: how far (see watchSolve)
  record: null,        // the game record (the format of `dicelab play`): the game itself
  dice: [],            // faces showing, in the places they are drawn
  held: [],            // per die: kept for the next roll
  advice: null,        // the last advice, for the position shown
  objective: "expected", // what the advice plays for (see OBJECTIVES), duel, match, friends
  params: {},          // the values of the objective's parameters: {target: 250}, {theta: 0.02}
  outlook: null,       // the value of the scorecard before this turn's first throw
  distribution: null,  // the final score's distribution from this turn's start
  duel: null,          // a game against the computer: {record (dicelab-duel), log}
  match: null,         // a game at a table: {kind (computers or friends), others, log}
  computerBusy: false, // the computer is playing its turn
  review: null,        // the last review of the record (POST /api/review)
  busy: false,
  request: 0,          // number of the latest advice request
  rulesList: [],       // the rule sets the server knows (GET /api/rules)
  reviewRequest: 0,
  focusKey: null,      // the control to focus again once the server has answered
  view: "play",        // the view shown: play, train or history
  keptFor: null,       // the finished game's record kept in the history
  whyOpen: new Set(),  // labels of the options whose why is unfolded (this position)
  whyAsked: false,     // a why was asked for: advice comes with the why from then on
  leadAsked: false,    // the same in a duel: its options come with their expected leads
  whyBusy: false,      // the why of the options shown is on its way
  whyControl: null,    // its request, given up when the player leaves
  whyProgress: null,   // how far the split by box has come, while it is solved
};

// -- random numbers: crypto, or a seeded generator with ?seed=N (repeatable games) ----
export const seedParam = new URLSearchParams(location.search).get("seed");
export let seed = seedParam === null ? null : (Number(seedParam) >>> 0);
export function random() {
  if (seed === null) {
    const a = new Uint32Array(1);
    crypto.getRandomValues(a);
    return a[0] / 4294967296;
  }
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
export const rollDie = () => 1 + Math.floor(random() * state.info.faces);
