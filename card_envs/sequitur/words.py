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
TREE_WIDTH = 32  # letter-tree edge key: node * TREE_WIDTH + letter
ORD_A = ord("a")
U = ALPHABET.index("u")


class Dictionary:
    """A fixed word set, its letter tree (for pruned search) and anagram classes.

    The tree is stored flat for speed: node ids are ints (0 the root), ``edges[node * 32 +
    letter]`` is the child node, and ``ends`` holds the nodes where a word ends.
    """

    def __init__(self, words: Iterable[str]):
        cleaned = (w.strip().lower() for w in words)
        self.words = frozenset(
            w for w in cleaned if len(w) >= MIN_WORD and w.isascii() and w.isalpha()
        )
        if not self.words:
            raise ValueError("the dictionary has no words of at least 3 letters a-z")
        self.edges: dict[int, int] = {}
        ends = set()
        for word in self.words:
            node = 0
            for ch in word:
                key = node * TREE_WIDTH + ord(ch) - ORD_A
                node = self.edges.setdefault(key, len(self.edges) + 1)
            ends.add(node)
        self.ends = frozenset(ends)
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

    A depth-first walk over the rack's subsequences in both reading directions along the
    dictionary's letter tree, so it never leaves the prefixes of real words.
    """
    edges, ends = dictionary.edges, dictionary.ends
    found: dict[int, list[tuple[int, int]]] = {}
    n = len(rack)

    def step(seq, k, child, bits, blank, q_mode):
        """Record a word ending at ``child`` and walk on from it."""
        if child in ends:
            found.setdefault(bits, []).append((blank, q_mode))
        if k + 1 < n:
            walk(seq, k + 1, child, bits, blank, q_mode)

    def walk(seq, start, node, mask, blank, q_mode):
        base = node * TREE_WIDTH
        for k in range(start, n):
            bit, code = seq[k]
            if code == BLANK:
                for letter in range(26):
                    child = edges.get(base + letter)
                    if child is not None:
                        step(seq, k, child, mask | bit, letter, q_mode)
                continue
            child = edges.get(base + code)
            if child is None:
                continue
            if code != Q:
                step(seq, k, child, mask | bit, blank, q_mode)
                continue
            step(seq, k, child, mask | bit, blank, Q_PLAIN)
            child = edges.get(child * TREE_WIDTH + U)
            if child is not None:
                step(seq, k, child, mask | bit, blank, Q_QU)

    for direction in (0, 1):
        slots = range(n) if direction == 0 else range(n - 1, -1, -1)
        walk([(1 << s, rack[s]) for s in slots], 0, 0, direction << MAX_SLOTS, NO_CHOICE, NO_CHOICE)
    return found
