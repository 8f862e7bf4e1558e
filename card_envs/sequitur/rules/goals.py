"""Goal cards as data: each card names a predicate (``kind`` + ``params``) on the spelled word.

The word is the final lower-case text: a blank reads as the letter its owner named and the Q ball
as "q" or "qu", so "qu" counts as two letters, U is a vowel and Q a consonant. Vowels are A, E, I,
O, U; consonants are the other letters except Y, which is neither (the published card "3
consonants in a row (Y not included)"), except for ``alternating``, where Y counts as a consonant.
A word meets a card when it has at least ``min_length`` letters and the predicate holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from card_envs.sequitur.rules.words import DATA_DIR, Dictionary

DEFAULT_GOALS = DATA_DIR / "goals.json"
COLOURS = ("red", "yellow", "green")
POINTS = {"red": 3, "yellow": 2, "green": 1}
VOWELS = frozenset("aeiou")
CONSONANTS = frozenset("bcdfghjklmnpqrstvwxz")


@dataclass(frozen=True)
class GoalCard:
    """One goal card: colour, points, minimum length and its predicate."""

    id: int
    colour: str
    points: int
    min_length: int
    goal: str
    description: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    examples: tuple[str, ...] = ()
    counter: str = ""

    @property
    def colour_index(self) -> int:
        return COLOURS.index(self.colour)

    def met_by(self, word: str, dictionary: Dictionary) -> bool:
        """True when ``word`` (final text, Qu and blank resolved) meets this card."""
        return len(word) >= self.min_length and PREDICATES[self.kind](
            word, dictionary, **self.params
        )


def _run(word: str, letters: frozenset[str]) -> int:
    """The longest block of consecutive letters from ``letters``."""
    best = current = 0
    for ch in word:
        current = current + 1 if ch in letters else 0
        best = max(best, current)
    return best


def _double_letters(word: str) -> int:
    """Separate double letters: ``"balloon"`` has 2, ``"aaa"`` has 1."""
    count, i = 0, 0
    while i < len(word) - 1:
        if word[i] == word[i + 1]:
            count += 1
            i += 2
        else:
            i += 1
    return count


def _removals(word: str) -> Iterable[str]:
    return (word[:i] + word[i + 1 :] for i in range(len(word)))


def _sorted(word: str) -> bool:
    return all(a <= b for a, b in pairwise(word))


PREDICATES: dict[str, Callable[..., bool]] = {
    "any": lambda w, d: True,
    "vowel_run": lambda w, d, n: _run(w, VOWELS) >= n,
    "consonant_run": lambda w, d, n: _run(w, CONSONANTS) >= n,
    "alphabetical": lambda w, d: _sorted(w),
    "reverse_alphabetical": lambda w, d: _sorted(w[::-1]),
    "alphabetical_prefix": lambda w, d, n: _sorted(w[:n]),
    "palindrome": lambda w, d: w == w[::-1],
    "reversible": lambda w, d: w[::-1] in d,
    "anagram": lambda w, d: d.has_anagram(w),
    "drop_any": lambda w, d: any(r in d for r in _removals(w)),
    "drop_first": lambda w, d: w[1:] in d,
    "drop_last": lambda w, d: w[:-1] in d,
    "double_letters": lambda w, d, n: _double_letters(w) >= n,
    "ends_double": lambda w, d: len(w) >= 2 and w[-1] == w[-2],
    "repeated_letter": lambda w, d, n, letters="abcdefghijklmnopqrstuvwxyz": any(
        w.count(ch) >= n for ch in set(w) if ch in letters
    ),
    "distinct_vowels": lambda w, d, n: len(VOWELS.intersection(w)) >= n,
    "vowels_at_least": lambda w, d, n: sum(ch in VOWELS for ch in w) >= n,
    "vowels_at_most": lambda w, d, n: sum(ch in VOWELS for ch in w) <= n,
    "consonants_at_least": lambda w, d, n: sum(ch in CONSONANTS for ch in w) >= n,
    "no_repeat": lambda w, d: len(set(w)) == len(w),
    "alternating": lambda w, d: all((a in VOWELS) != (b in VOWELS) for a, b in pairwise(w)),
    "starts_with": lambda w, d, options: w.startswith(tuple(options)),
    "ends_with": lambda w, d, options: w.endswith(tuple(options)),
    "starts_consonants": lambda w, d, n: all(ch in CONSONANTS for ch in w[:n]),
    "ends_consonants": lambda w, d, n: all(ch in CONSONANTS for ch in w[-n:]),
    "same_first_last": lambda w, d: w[0] == w[-1],
    "vowel_both_ends": lambda w, d: w[0] in VOWELS and w[-1] in VOWELS,
    "contains_any": lambda w, d, options: any(o in w for o in options),
    "contains_all": lambda w, d, letters: all(ch in w for ch in letters),
    "letter_count": lambda w, d, letters, n: sum(ch in letters for ch in w) >= n,
    "letters_within": lambda w, d, low, high: all(low <= ch <= high for ch in w),
}


def _card(raw: object, index: int) -> GoalCard:
    """Validate one card's data (a clear error names the card and the field)."""
    try:
        if not isinstance(raw, dict):
            raise ValueError('a card is a dict with "colour" and "kind"')
        colour, kind = raw["colour"], raw["kind"]
        if colour not in COLOURS or kind not in PREDICATES:
            raise ValueError(f"colour must be one of {COLOURS}, kind one of {sorted(PREDICATES)}")
        card = GoalCard(
            id=index,
            colour=colour,
            points=_whole(raw, "points", POINTS[colour]),
            min_length=_whole(raw, "min_length", 3),
            goal=str(raw.get("goal", kind)),
            description=str(raw.get("description", raw.get("goal", kind))),
            kind=kind,
            params=dict(raw.get("params", {})),
            examples=tuple(raw.get("examples", ())),
            counter=str(raw.get("counter", "")),
        )
        card.met_by("test", Dictionary(["test"]))  # the params fit the predicate
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"goal card {index} ({raw!r:.80}) is not valid: {error}") from error
    return card


def _whole(raw: dict[str, Any], name: str, default: int) -> int:
    """A card's integer field (``points``, ``min_length``): a float such as 2.5 is an error
    rather than rounded down."""
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return value


def load_goals(source: str | Path | Iterable[dict[str, Any]] | None = None) -> tuple[GoalCard, ...]:
    """The default 72 cards, a JSON file (``{"cards": [...]}``) or a list of card dicts."""
    if source is None:
        source = DEFAULT_GOALS
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"{str(source)!r} is not a goal-card JSON file")
        source = json.loads(path.read_text())["cards"]
    if isinstance(source, dict) or not isinstance(source, Iterable):
        raise ValueError(
            "expected None (the bundled cards), a goal-card JSON file or a list of card dicts, "
            f"got {source!r:.60}"
        )
    cards = tuple(_card(raw, i) for i, raw in enumerate(source))
    if not cards:
        raise ValueError("the goal deck is empty")
    return cards
