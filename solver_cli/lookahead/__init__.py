"""Looking ahead: searching the game forward from a position (the exact endgame, the
pre-endgame; later simulation and opponent-rack inference). Built on the engine's move
generator; the games (self-play, review) and the CLI use it."""
