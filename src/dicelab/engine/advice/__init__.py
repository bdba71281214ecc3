"""Advice on a position: every option ranked, one position at a time or in bulk."""
