// Which game is played (alone, a duel against the computer, a table of two to four) and
// whose move it is: read from the state, by every module that must know.
import { boxes, filled, filledCount, filledOf, gameOver } from "./record.js";
import { state } from "./state.js";

// -- two players: you (A, first) against the computer (B), both playing to win ---------
export const inDuel = () => state.objective === "duel" && state.duel !== null;
export const computerRecord = () => state.duel.record.b;
export const computerFilled = () => Object.keys(filledOf(computerRecord())).length;

// -- a table of two to four: computer players, or friends whose boxes you type --------
export const atTable = () => state.objective === "match" || state.objective === "friends";
export const inMatch = () => atTable() && state.match !== null;
export const others = () => (inMatch() ? state.match.others : []);
// the table the server keeps for both: the points to come from every state
export const storeObjective = () => (state.objective === "friends" ? "match" : state.objective);

// The next computer player to move: the first with fewer boxes than you.
export const nextComputer = () => (inMatch() && state.match.kind === "computers"
  ? state.match.others.find((o) => filledCount(o.record) < Object.keys(filled()).length)
    || null
  : null);

// the computer moves once you have filled a box more than it has
// (at a table: a computer player with fewer boxes than you)
export const computerToMove = () => (inDuel() && computerFilled() < Object.keys(filled()).length)
  || nextComputer() !== null;

// A duel is not over while the computer plays or has a turn to play: its finished game
// goes to the history only then.
export const computerBusyOrToMove = () => state.computerBusy || computerToMove()
  || computerFilled() < boxes().length;

// Every sheet at the table full.
export const matchOver = () => inMatch() && gameOver()
  && others().every((o) => filledCount(o.record) === boxes().length);
