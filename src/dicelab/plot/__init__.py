"""Every picture dicelab draws, each from results computed elsewhere."""
