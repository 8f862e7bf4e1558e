"""Seamless: trick-taking, claim one card per trick into a 2..A row (4 players)."""
