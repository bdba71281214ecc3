"""One module per objective: how each solves its table over the turn-start states."""
