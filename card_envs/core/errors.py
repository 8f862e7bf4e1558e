"""Errors raised by the rules and the environments."""


class IllegalActionError(ValueError):
    """An in-range action that the rules forbid now; the game is left exactly as it was."""
