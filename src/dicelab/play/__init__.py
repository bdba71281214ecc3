"""Playing: advice for a position, a game in progress, the duel game, review, simulation."""
