"""Games outside the Yahtzee family, each solved exactly."""
