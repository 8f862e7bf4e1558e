"""Sequitur's pieces: the 72 letter balls (``data/letters.json``), the rack and the five Sequitur
cards. Goal cards are in :mod:`card_envs.sequitur.rules.goals`."""

from __future__ import annotations

import json

from card_envs.sequitur.rules.words import ALPHABET, BLANK, DATA_DIR, MAX_SLOTS, Q_QU, Q

START_BALLS = 5  # drawn into the rack in draw order
PLACED_BALLS = 3  # then drawn one at a time, each placed on either end
MAX_RACK = MAX_SLOTS  # the ruling's rack size; spelling keeps up to this many slots
MAX_WORD = MAX_RACK + 1  # letters: every ball one letter, the Q ball two as "qu"
SOLO_DRAW = 2  # goal cards drawn at a time in solo play (keep one)
LEFT, RIGHT = 0, 1  # the ends of the rack

# The five Sequitur cards of the ruling, each playable once per round.
CARDS = ("move inside", "move outside", "swap", "exchange", "extend")
CARD_LETTERS = "IOSXE"  # in renders: an unused card's letter, "." once played
MOVE_INSIDE, MOVE_OUTSIDE, SWAP, EXCHANGE, EXTEND = range(len(CARDS))


def _letter_table() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Ball id -> letter code and skill points, from ``data/letters.json`` ("?" is the blank)."""
    balls = json.loads((DATA_DIR / "letters.json").read_text())["balls"]
    letters, points = [], []
    for text, entry in balls.items():
        code = BLANK if text == "?" else ALPHABET.index(text)
        letters += [code] * entry["count"]
        points += [entry["points"]] * entry["count"]
    return tuple(letters), tuple(points)


BALL_LETTER, BALL_POINTS = _letter_table()
NUM_BALLS = len(BALL_LETTER)
LETTER_POINTS = {BALL_LETTER[b]: BALL_POINTS[b] for b in range(NUM_BALLS)}


def ball_text(ball: int) -> str:
    """``"W3"`` for a W ball worth 3, ``"?"`` for the blank."""
    code = BALL_LETTER[ball]
    if code == BLANK:
        return "?"
    points = BALL_POINTS[ball]
    return ALPHABET[code].upper() + (str(points) if points else "")


def balls_of(letters: str, taken: set[int] | None = None) -> list[int]:
    """Ball ids spelling ``letters`` ("?" blank), avoiding ``taken`` (updated in place)."""
    taken = set() if taken is None else taken
    out = []
    for ch in letters.lower():
        if ch != "?" and ch not in ALPHABET:
            raise ValueError(f"{letters!r}: balls are letters a-z and '?' (the blank)")
        code = BLANK if ch == "?" else ALPHABET.index(ch)
        free = [b for b in range(NUM_BALLS) if BALL_LETTER[b] == code and b not in taken]
        if not free:
            raise ValueError(f"no {ch!r} ball left for {letters!r}")
        taken.add(free[0])
        out.append(free[0])
    return out


def word_score(word: str, balls: list[int], q_mode: int) -> int:
    """Length of the word plus the skill points of its balls (blank 0; Q as "qu" 0)."""
    points = sum(BALL_POINTS[b] for b in balls if not (BALL_LETTER[b] == Q and q_mode == Q_QU))
    return len(word) + points
