"""Playing: the AI player, a position's analysis, levels of play and their ratings,
what the player knows between moves, and the terminal game."""
