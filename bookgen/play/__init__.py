"""Playing against people: levels of play and what the player knows between moves."""
