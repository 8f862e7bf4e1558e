"""Sequitur: spell a word each round from a rack of letter balls to claim goal cards (1-5 seats)."""
