"""Spelling a word from the rack: the legal spellings (cached search), the detector that checks
one choice on its own, and the up to three choices (balls and direction, blank, Q mode); every
spelling of a rack with its word and score, for agents that weigh racks."""

from __future__ import annotations

from itertools import compress

from card_envs.sequitur.rules.cards import BALL_LETTER, LETTER_POINTS, word_score
from card_envs.sequitur.rules.state import BLANK_LETTER, EMPTY, Q_MODE, SequiturState
from card_envs.sequitur.rules.words import (
    ALPHABET,
    BLANK,
    MAX_SLOTS,
    NO_CHOICE,
    Q_QU,
    Q_TEXT,
    Dictionary,
    Q,
    find_spellings,
    read_word,
)

SPELL_KEYS = 2 << MAX_SLOTS  # direction bit and a kept-slot bit per rack slot
CACHE_LIMIT = 4096  # cached racks before the cache is cleared
CODE_POINTS = tuple(LETTER_POINTS[code] for code in range(BLANK + 1))  # by letter code
PLAIN = (NO_CHOICE, NO_CHOICE)  # the one choice of a spelling without the blank or the Q ball
SLOTS_OF = [[bits >> slot & 1 for slot in range(MAX_SLOTS)] for bits in range(1 << MAX_SLOTS)]
Spelled = tuple[int, int, int, str, int]  # spelling key, blank letter, Q mode, word, word score


def spelled_balls(rack: list[int], key: int) -> list[int]:
    """The balls a spelling key keeps, in reading order (slots past the rack are ignored)."""
    direction, bits = divmod(key, 1 << MAX_SLOTS)
    balls = [ball for slot, ball in enumerate(rack) if bits >> slot & 1]
    return balls[::-1] if direction else balls


Choices = tuple[tuple[int, int], ...]  # a spelling key's (blank letter, Q mode) choices


class Spellings:
    """Every spelling of a rack, cached by its letters (racks repeat within a turn). The cache
    keeps each key's choices as one shared tuple per distinct choice list (nearly every key has
    the one plain choice): where the search's lists, one per key of thousands of cached racks,
    were most of what every collection of the garbage collector's older generations walked, and
    their churn set off the young collections."""

    def __init__(self, dictionary: Dictionary):
        self.dictionary = dictionary
        self._cache: dict[tuple[int, ...], dict[int, Choices]] = {}
        self._choices: dict[Choices, Choices] = {}

    def of(self, rack: list[int]) -> dict[int, Choices]:
        """Spelling key -> its ``(blank letter, Q mode)`` choices."""
        letters = tuple(BALL_LETTER[b] for b in rack)
        found = self._cache.get(letters)
        if found is None:
            if len(self._cache) > CACHE_LIMIT:
                self._cache.clear()
                self._choices.clear()
            found = self._cache[letters] = {}
            shared = self._choices
            for key, options in find_spellings(letters, self.dictionary).items():
                choices = tuple(options)
                found[key] = shared.setdefault(choices, choices)
        return found


def spelled_words(rack: tuple[int, ...], dictionary: Dictionary) -> list[Spelled]:
    """``(key, blank letter, Q mode, word, word score)`` of every spelling of a rack of letter
    codes, in the order of :func:`find_spellings` (each key's choices in turn): by the compiled
    search where it is built, else by :func:`words_reference`, which it matches."""
    tree = dictionary.tree
    if tree is None:
        return words_reference(rack, dictionary)
    return tree.words(rack, CODE_POINTS)


def words_reference(rack: tuple[int, ...], dictionary: Dictionary) -> list[Spelled]:
    """:func:`spelled_words` in Python, the compiled one's spec and fallback. Without the Q ball
    a word is read and scored by selecting its slots from the rack's text ("?" the blank, then
    each blank letter in its place) and points (the blank's are 0), rather than letter by
    letter."""
    text = "".join([ALPHABET[code] if code < len(ALPHABET) else "?" for code in rack])
    points = [CODE_POINTS[code] for code in rack]
    out: list[Spelled] = []
    for key, options in find_spellings(rack, dictionary).items():
        direction, bits = divmod(key, 1 << MAX_SLOTS)
        if options[0][1] == NO_CHOICE:  # no Q ball in the word
            word = "".join(compress(text, SLOTS_OF[bits]))
            word = word[::-1] if direction else word
            score = len(word) + sum(compress(points, SLOTS_OF[bits]))
            if options[0] == PLAIN:
                out.append((key, NO_CHOICE, NO_CHOICE, word, score))
                continue
            for blank, q_mode in options:
                out.append((key, blank, q_mode, word.replace("?", ALPHABET[blank]), score))
            continue
        codes = [code for slot, code in enumerate(rack) if bits >> slot & 1]
        if direction:
            codes.reverse()
        for blank, q_mode in options:
            word = read_word(codes, blank, q_mode)
            score = sum(CODE_POINTS[c] for c in codes if not (c == Q and q_mode == Q_QU))
            out.append((key, blank, q_mode, word, len(word) + score))
    return out


def key_options(rack: list[int], key: int, dictionary: Dictionary) -> list[tuple[int, int]]:
    """(blank letter, Q mode) choices that make the balls of spelling ``key`` a word."""
    codes = [BALL_LETTER[b] for b in spelled_balls(rack, key)]
    if len(codes) != (key & ((1 << MAX_SLOTS) - 1)).bit_count():
        return []  # a kept slot beyond the rack
    blanks = range(26) if BLANK in codes else (NO_CHOICE,)
    modes = (0, 1) if Q in codes else (NO_CHOICE,)
    return [(b, q) for b in blanks for q in modes if read_word(codes, b, q) in dictionary.words]


def key_choices(rack: list[int], key: int, dictionary: Dictionary) -> list[tuple[int, int]]:
    """The ``(blank letter, Q mode)`` choices of spelling ``key`` of ``rack``, as the rack's
    search finds them: the search over the key's balls alone, all kept in reading order. A
    rack's whole search again would cost several times more (tens of microseconds with the
    blank), and its cached one is seldom there (the mask does not fill the cache)."""
    codes = tuple(BALL_LETTER[b] for b in spelled_balls(rack, key))
    return find_spellings(codes, dictionary).get((1 << len(codes)) - 1, [])


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
    if block == "spell_nothing":
        return True
    if block == "spell":
        state.spell_key, state.blank = k, NO_CHOICE
    elif block == "blank":
        state.blank = k
    balls = spelled_balls(state.racks[state.actor], state.spell_key)
    codes = [BALL_LETTER[b] for b in balls]
    if BLANK in codes and state.blank == NO_CHOICE:
        state.decision = BLANK_LETTER
    elif Q in codes and block != "q_mode":
        state.decision = Q_MODE
    else:
        _record_word(state, balls, codes, k if block == "q_mode" else NO_CHOICE)
        return True
    return False


def _record_word(state: SequiturState, balls: list[int], codes: list[int], q_mode: int) -> None:
    """The actor's word, its balls in reading order (``codes`` their letters) and its word
    score."""
    word = read_word(codes, state.blank, q_mode)
    state.words[state.actor] = word
    state.word_balls[state.actor] = balls
    state.scores[state.actor] = word_score(word, balls, q_mode)
    state.spell_key, state.blank = EMPTY, NO_CHOICE
