"""Sequitur's dictionary and the search for every word a rack can spell.

The default list (``data/words.txt``, 63,301 words) is generated from Debian's ``scowl`` package by
``scripts/build_wordlist.py``: plain English, American and British words of SCOWL sizes 10-50,
lower-case, with inflections, without proper names, abbreviations or contractions, at least 3
letters. It is loaded once per process and shared by every environment.

Letters are codes ``0..25`` for a..z; :data:`BLANK` (26) is the blank ball. A spelling reads a
subset of the rack's balls in rack order, left to right or right to left (the rack turns freely);
the blank names any letter and the Q ball reads "q" or "qu".
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"
DEFAULT_WORDS = DATA_DIR / "words.txt"
MIN_WORD = 3
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
BLANK = 26
Q = ALPHABET.index("q")
NO_CHOICE = -1  # blank letter or Q mode of a spelling that does not use that ball
Q_PLAIN, Q_QU = 0, 1
Q_TEXT = ("q", "qu")
MAX_SLOTS = 10  # spelling keys are ``direction << MAX_SLOTS | kept-slot bits``


def _readings(code: int) -> tuple[tuple[str, int | None, int | None], ...]:
    """Every way to read ball ``code``: (text, blank letter or None, Q mode or None)."""
    if code == BLANK:
        return tuple((ALPHABET[c], c, None) for c in range(26))
    if code == Q:
        return tuple((text, None, mode) for mode, text in enumerate(Q_TEXT))
    return ((ALPHABET[code], None, None),)


_READINGS = tuple(_readings(code) for code in range(BLANK + 1))


class Dictionary:
    """A fixed word set with its prefixes (for pruned search) and anagram classes."""

    def __init__(self, words: Iterable[str]):
        cleaned = (w.strip().lower() for w in words)
        self.words = frozenset(
            w for w in cleaned if len(w) >= MIN_WORD and w.isascii() and w.isalpha()
        )
        if not self.words:
            raise ValueError("the dictionary has no words of at least 3 letters a-z")
        self.prefixes = frozenset(w[:i] for w in self.words for i in range(1, len(w) + 1))
        self._anagrams = Counter("".join(sorted(w)) for w in self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def has_anagram(self, word: str) -> bool:
        """True when another dictionary word uses exactly the same letters."""
        return self._anagrams.get("".join(sorted(word)), 0) > (word in self.words)


@functools.lru_cache(maxsize=4)
def _load_file(path: str) -> Dictionary:
    return Dictionary(Path(path).read_text().split())


def load_dictionary(source: str | Path | Iterable[str] | Dictionary | None = None) -> Dictionary:
    """The default list, a word-list file (one word a line), or a collection of words.

    Files are loaded once per process and shared; a collection builds a new dictionary.
    """
    if source is None:
        source = DEFAULT_WORDS
    if isinstance(source, Dictionary):
        return source
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"dictionary={str(source)!r} is not a word-list file")
        return _load_file(str(path.resolve()))
    return Dictionary(source)


def read_word(codes: Iterable[int], blank: int, q_mode: int) -> str:
    """The word spelled by ball ``codes`` in reading order, the blank naming letter ``blank``."""
    parts = []
    for code in codes:
        if code == BLANK:
            parts.append(ALPHABET[blank])
        elif code == Q:
            parts.append(Q_TEXT[q_mode])
        else:
            parts.append(ALPHABET[code])
    return "".join(parts)


def find_spellings(
    rack: tuple[int, ...], dictionary: Dictionary
) -> dict[int, list[tuple[int, int]]]:
    """Every dictionary word in ``rack``: spelling key -> its ``(blank letter, Q mode)`` choices.

    A depth-first walk over subsequences in both reading directions, pruned by the prefix set.
    """
    words, prefixes = dictionary.words, dictionary.prefixes
    found: dict[int, list[tuple[int, int]]] = {}
    n = len(rack)

    def walk(seq, start, prefix, mask, blank, q_mode):
        for k in range(start, n):
            slot, readings = seq[k]
            bits = mask | (1 << slot)
            for text, b, q in readings:
                word = prefix + text
                if word not in prefixes:
                    continue
                bb = blank if b is None else b
                qq = q_mode if q is None else q
                if word in words:
                    found.setdefault(bits, []).append((bb, qq))
                walk(seq, k + 1, word, bits, bb, qq)

    for direction in (0, 1):
        slots = range(n) if direction == 0 else range(n - 1, -1, -1)
        seq = [(s, _READINGS[rack[s]]) for s in slots]
        walk(seq, 0, "", direction << MAX_SLOTS, NO_CHOICE, NO_CHOICE)
    return found
