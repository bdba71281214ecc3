"""The dice race: exact chances, the best list, and the simulation cross-check."""
