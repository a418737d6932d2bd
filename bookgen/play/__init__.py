"""Playing: the AI player, a position's analysis, levels of play, what the player
knows between moves, and the terminal game."""
