"""The game engine: alphabet, rules, board, GADDAG, move generation, scoring and ranking."""
