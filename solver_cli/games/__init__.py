"""Whole games built on the engine: greedy self-play and Boggle."""
