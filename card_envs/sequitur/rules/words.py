"""Sequitur's dictionary and the search for every word a rack can spell.

The default list (``data/words.txt``, 63,271 words) is generated from Debian's ``scowl`` package by
``scripts/build_wordlist.py``: plain English, American and British words of SCOWL sizes 10-50,
lower-case, with inflections, without proper names, abbreviations or contractions, without the
informal spellings of ``data/informal.txt`` (gonna, dunno, tho), at least 3 letters. It is loaded
once per process and shared by every environment.

Letters are codes ``0..25`` for a..z; :data:`BLANK` (26) is the blank ball. A spelling reads a
subset of the rack's balls in rack order, left to right or right to left (the rack turns freely);
the blank names any letter and the Q ball reads "q" or "qu".
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from card_envs.core.kernels import compiled

if TYPE_CHECKING:
    from card_envs.sequitur.rules._spelling import LetterTree

DATA_DIR = Path(__file__).parents[1] / "data"
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
Z = ALPHABET.index("z")
Q_BALL = BLANK + 1  # the Q ball's code inside find_spellings: like the blank, not a plain letter
ALL_LETTERS = (1 << len(ALPHABET)) - 1  # a bit set of letters: what a blank may be
MAX_DEPTH = 1 << 30  # "no word end below" in the tree's shortest-completion table


class Dictionary:
    """A fixed word set, its letter tree (for pruned search) and anagram classes.

    The tree is stored flat for speed: node ids are ints (0 the root) and ``steps[node * 32 +
    letter]`` is everything a search needs on entering that child, in one lookup: its node id,
    whether a word ends there, the bit set of its own children's letters and the fewest letters
    from it to a word end below it. ``root_kids`` is the root's bit set of children's letters.
    """

    def __init__(self, words: Iterable[str], source: str = "entry"):
        self.words = frozenset(w for w in normalised(words, source) if len(w) >= MIN_WORD)
        if not self.words:
            raise ValueError(
                f"dictionary has no words of at least {MIN_WORD} letters a-z: "
                "nothing could ever be spelled"
            )
        edges: dict[int, int] = {}
        ends = set()
        shortest: dict[int, int] = {}  # node -> fewest letters to a word end below it
        for word in self.words:
            node = 0
            for depth, ch in enumerate(word):
                if shortest.get(node, MAX_DEPTH) > len(word) - depth:
                    shortest[node] = len(word) - depth
                key = node * TREE_WIDTH + ord(ch) - ORD_A
                node = edges.setdefault(key, len(edges) + 1)
            ends.add(node)
        kids = [0] * (len(edges) + 1)
        for key in edges:
            kids[key // TREE_WIDTH] |= 1 << key % TREE_WIDTH
        self.root_kids = kids[0]
        self.steps = {
            key: (node, node in ends, kids[node], shortest.get(node, MAX_DEPTH))
            for key, node in edges.items()
        }
        self._anagrams = Counter("".join(sorted(w)) for w in self.words)
        self.tree = _compiled_tree(self.steps, self.root_kids)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def has_anagram(self, word: str) -> bool:
        """True when another dictionary word uses exactly the same letters."""
        return self._anagrams.get("".join(sorted(word)), 0) > (word in self.words)


def normalised(words: Iterable[str], source: str = "entry") -> list[str]:
    """Each word stripped of surrounding spaces and lower-cased; blank entries are skipped. A
    ``ValueError`` names the first entry that is then not letters a-z (``source`` says how
    entries are counted: ``"entry"`` of a list, ``"line"`` of a file)."""
    out = []
    for number, raw in enumerate(words, start=1):
        word = raw.strip().lower()
        if word and not (word.isascii() and word.isalpha()):
            raise ValueError(
                f"dictionary {source} {number} is {raw!r}: a word must be letters a-z "
                "(spaces around it and capitals are allowed)"
            )
        if word:
            out.append(word)
    return out


def _compiled_tree(
    steps: dict[int, tuple[int, bool, int, int]], root_kids: int
) -> LetterTree | None:
    """The letter tree as the compiled search's C arrays, or ``None`` when the extension is not
    built here or ``CARD_ENVS_PURE_PYTHON=1`` asks for the Python reference."""
    tree = compiled("card_envs.sequitur.rules._spelling", "LetterTree")
    return None if tree is None else tree(steps, root_kids)


def check_dictionary(dictionary: Any) -> None:
    """A ``ValueError`` unless the option is the bundled list, a file or a collection of words
    (whose loader would otherwise fail on, say, a number with "not iterable")."""
    if dictionary is None or isinstance(dictionary, str | Path | Dictionary):
        return
    if not isinstance(dictionary, Collection) or not all(isinstance(w, str) for w in dictionary):
        raise ValueError(
            "dictionary must be None (the bundled list), a word-list file path or a collection "
            f"of words (strings), got {dictionary!r:.60}"
        )


@functools.lru_cache(maxsize=4)
def _load_file(path: str) -> Dictionary:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"dictionary={path!r} is not a text word list (one word a line)") from None
    try:
        return Dictionary(lines, source="line")
    except ValueError as error:
        raise ValueError(f"dictionary={path!r}: {error}") from None


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
    """Every dictionary word in ``rack`` (at most 10 ball codes): spelling key -> its ``(blank
    letter, Q mode)`` choices, by the compiled search where it is built (about 9x faster), else
    by :func:`spellings_reference`, which it matches key for key and in order."""
    tree = dictionary.tree
    if tree is None:
        return spellings_reference(rack, dictionary)
    return tree.spellings(rack)


def write_spelling_keys(
    rack: tuple[int, ...], dictionary: Dictionary, out: memoryview[int], offset: int
) -> int:
    """Set ``out[offset + key]`` to 1 for each spelling key of ``rack`` and return how many
    there are: a legal mask's spelling block, written without the choices' dict. The block must
    be 0 beforehand. By the compiled search where it is built, else by
    :func:`spelling_keys_reference`."""
    tree = dictionary.tree
    if tree is None:
        return spelling_keys_reference(rack, dictionary, out, offset)
    return tree.write_keys(rack, out, offset)


def spelling_keys_reference(
    rack: tuple[int, ...], dictionary: Dictionary, out: memoryview[int], offset: int
) -> int:
    """:func:`write_spelling_keys` in Python, its spec and fallback: the keys of
    :func:`find_spellings`."""
    found = find_spellings(rack, dictionary)
    for key in found:
        out[offset + key] = 1
    return len(found)


def spellings_reference(
    rack: tuple[int, ...], dictionary: Dictionary
) -> dict[int, list[tuple[int, int]]]:
    """:func:`find_spellings` in Python: the spec of the compiled search, and its fallback.

    A depth-first walk over the rack's subsequences in both reading directions along the
    dictionary's letter tree, so it never leaves the prefixes of real words. It is the hot spot
    of a game's rules, hence flat tuples per position and bit sets: a child is entered only if
    one of its letters is still ahead in the rack (``after``: all letters once a blank is ahead)
    and a word can end below it within the letters the balls ahead can give (``room``: two for
    the Q ball read as qu); one ``steps`` lookup per child.
    """
    if BLANK not in rack and Q not in rack:
        return _plain_spellings(rack, dictionary)
    steps = dictionary.steps
    found: dict[int, list[tuple[int, int]]] = {}
    n = len(rack)
    tails: list[list[tuple[int, int, int, int, int]]] = []

    def walk(start: int, node: int, letters: int, mask: int, blank: int, q_mode: int) -> None:
        """Every word through ``node`` (children ``letters``) that goes on with the balls at
        positions ``start..``."""
        base = node * TREE_WIDTH
        for k, code, bit, after, room in tails[start]:
            if letters >> code & 1:
                child, end, kids, short = steps[base + code]
                if end:
                    found.setdefault(mask | bit, []).append((blank, q_mode))
                if kids & after and short <= room:
                    walk(k + 1, child, kids, mask | bit, blank, q_mode)
            elif code > Z:
                special(k, code, base, letters, mask | bit, blank, q_mode)

    def special(k: int, code: int, base: int, letters: int, mask: int, blank: int, q_mode: int):
        """The blank at position ``k`` (each child letter) or the Q ball (as q, then qu)."""
        after, room = tails[k][0][3], tails[k][0][4]
        if code == BLANK:
            while letters:  # each child letter, in alphabetical order
                low = letters & -letters
                letters ^= low
                letter = low.bit_length() - 1
                child, end, kids, short = steps[base + letter]
                if end:
                    found.setdefault(mask, []).append((letter, q_mode))
                if kids & after and short <= room:
                    walk(k + 1, child, kids, mask, letter, q_mode)
        elif letters >> Q & 1:
            q_child, end, kids, short = steps[base + Q]
            if end:
                found.setdefault(mask, []).append((blank, Q_PLAIN))
            if kids & after and short <= room:
                walk(k + 1, q_child, kids, mask, blank, Q_PLAIN)
            if kids >> U & 1:
                child, end, kids, short = steps[q_child * TREE_WIDTH + U]
                if end:
                    found.setdefault(mask, []).append((blank, Q_QU))
                if kids & after and short <= room:
                    walk(k + 1, child, kids, mask, blank, Q_QU)

    for direction in (0, 1):
        slots = list(range(n)) if direction == 0 else list(range(n - 1, -1, -1))
        codes = [Q_BALL if rack[s] == Q else rack[s] for s in slots]
        ahead, room = [0] * (n + 1), [0] * (n + 1)  # letters at positions k.., how many
        for k in range(n - 1, -1, -1):
            ahead[k] = ahead[k + 1] | (ALL_LETTERS if codes[k] == BLANK else 1 << rack[slots[k]])
            room[k] = room[k + 1] + (2 if codes[k] == Q_BALL else 1)
        row = [(k, codes[k], 1 << slots[k], ahead[k + 1], room[k + 1]) for k in range(n)]
        tails[:] = [row[k:] for k in range(n + 1)]
        walk(0, 0, dictionary.root_kids, direction << MAX_SLOTS, NO_CHOICE, NO_CHOICE)
    return found


def _plain_spellings(
    rack: tuple[int, ...], dictionary: Dictionary
) -> dict[int, list[tuple[int, int]]]:
    """:func:`spellings_reference` for a rack without the blank and the Q ball (most racks): the
    same walk without their choices, a third faster. Each spelling has the one choice ``(NO_CHOICE,
    NO_CHOICE)`` and is found once."""
    steps = dictionary.steps
    found: dict[int, list[tuple[int, int]]] = {}
    n = len(rack)
    tails: list[list[tuple[int, int, int, int, int]]] = []

    def walk(start: int, node: int, letters: int, mask: int) -> None:
        base = node * TREE_WIDTH
        for k, code, bit, after, left in tails[start]:
            if letters >> code & 1:
                child, end, kids, short = steps[base + code]
                if end:
                    found[mask | bit] = [(NO_CHOICE, NO_CHOICE)]
                if kids & after and short < left:
                    walk(k + 1, child, kids, mask | bit)

    for direction in (0, 1):
        slots = range(n) if direction == 0 else range(n - 1, -1, -1)
        row, after = [], 0
        for k in range(n - 1, -1, -1):
            row.append((k, rack[slots[k]], 1 << slots[k], after, n - k))
            after |= 1 << rack[slots[k]]
        row.reverse()
        tails[:] = [row[k:] for k in range(n + 1)]
        walk(0, 0, dictionary.root_kids, direction << MAX_SLOTS)
    return found
