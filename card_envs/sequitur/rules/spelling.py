"""Spelling a word from the rack: the legal spellings (cached search), the detector that checks
one choice on its own, and the up to three choices (balls and direction, blank, Q mode)."""

from __future__ import annotations

from card_envs.sequitur.rules.cards import BALL_LETTER, word_score
from card_envs.sequitur.rules.state import BLANK_LETTER, EMPTY, Q_MODE, SequiturState
from card_envs.sequitur.rules.words import (
    BLANK,
    MAX_SLOTS,
    NO_CHOICE,
    Q_TEXT,
    Dictionary,
    Q,
    find_spellings,
    read_word,
)

SPELL_KEYS = 2 << MAX_SLOTS  # direction bit and a kept-slot bit per rack slot
CACHE_LIMIT = 4096  # cached racks before the cache is cleared


def spelled_balls(rack: list[int], key: int) -> list[int]:
    """The balls a spelling key keeps, in reading order (slots past the rack are ignored)."""
    direction, bits = divmod(key, 1 << MAX_SLOTS)
    balls = [ball for slot, ball in enumerate(rack) if bits >> slot & 1]
    return balls[::-1] if direction else balls


class Spellings:
    """Every spelling of a rack, cached by its letters (racks repeat within a turn)."""

    def __init__(self, dictionary: Dictionary):
        self.dictionary = dictionary
        self._cache: dict[tuple[int, ...], dict[int, list[tuple[int, int]]]] = {}

    def of(self, rack: list[int]) -> dict[int, list[tuple[int, int]]]:
        """Spelling key -> its ``(blank letter, Q mode)`` choices."""
        letters = tuple(BALL_LETTER[b] for b in rack)
        found = self._cache.get(letters)
        if found is None:
            if len(self._cache) > CACHE_LIMIT:
                self._cache.clear()
            found = self._cache[letters] = find_spellings(letters, self.dictionary)
        return found


def key_options(rack: list[int], key: int, dictionary: Dictionary) -> list[tuple[int, int]]:
    """(blank letter, Q mode) choices that make the balls of spelling ``key`` a word."""
    codes = [BALL_LETTER[b] for b in spelled_balls(rack, key)]
    if len(codes) != (key & ((1 << MAX_SLOTS) - 1)).bit_count():
        return []  # a kept slot beyond the rack
    blanks = range(26) if BLANK in codes else (NO_CHOICE,)
    modes = (0, 1) if Q in codes else (NO_CHOICE,)
    return [(b, q) for b in blanks for q in modes if read_word(codes, b, q) in dictionary.words]


def spell_violation(state: SequiturState, block: str, k: int, dictionary: Dictionary) -> str | None:
    """The spelling detector: tries every blank letter and Q mode on the chosen balls."""
    rack = state.racks[state.actor]
    if block == "spell_nothing":
        words = any(key_options(rack, key, dictionary) for key in range(SPELL_KEYS))
        return "a word can be spelled, so you must spell one" if words else None
    if block == "spell":
        return None if key_options(rack, k, dictionary) else "those balls spell no word"
    options = key_options(rack, state.spell_key, dictionary)
    if block == "blank":
        return None if any(b == k for b, _ in options) else "no word with that blank letter"
    ok = any(b == state.blank and q == k for b, q in options)
    return None if ok else f"no word with the Q as {Q_TEXT[k]!r}"


def choose(state: SequiturState, block: str, k: int) -> bool:
    """Apply one spelling choice; ``True`` once the actor's word (or nothing) is settled, else
    the next choice (blank letter, Q mode) is set as the decision."""
    rack = state.racks[state.actor]
    if block == "spell_nothing":
        return True
    if block == "spell":
        state.spell_key, state.blank = k, NO_CHOICE
    elif block == "blank":
        state.blank = k
    codes = [BALL_LETTER[b] for b in spelled_balls(rack, state.spell_key)]
    if BLANK in codes and state.blank == NO_CHOICE:
        state.decision = BLANK_LETTER
    elif Q in codes and block != "q_mode":
        state.decision = Q_MODE
    else:
        q_mode = k if block == "q_mode" else NO_CHOICE
        _record_word(state, spelled_balls(rack, state.spell_key), q_mode)
        return True
    return False


def _record_word(state: SequiturState, balls: list[int], q_mode: int) -> None:
    """The actor's word, its balls in reading order and its word score."""
    codes = [BALL_LETTER[b] for b in balls]
    word = read_word(codes, state.blank, q_mode)
    state.words[state.actor] = word
    state.word_balls[state.actor] = balls
    state.scores[state.actor] = word_score(word, balls, q_mode)
    state.spell_key, state.blank = EMPTY, NO_CHOICE
