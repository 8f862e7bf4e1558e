"""Chance outcomes as OpenSpiel chance actions: a generator that draws from a list of choices.

Every random event of a game is ``sample(rng)`` inside ``ChanceLog.take`` (chance as data), and
every sample draws through two primitives: ``integers(k)``, one uniform choice among ``k``, and
``permutation(n)`` (or ``shuffle``), ``n - 1`` uniform choices, each among the items still left,
which is uniform over permutations as numpy's is. :class:`ChoiceRng` takes each of those choices
from a list: when the list runs out it raises :class:`NeedChance` with the probabilities of the
outcomes of the choice asked for, which is the chance node OpenSpiel sees. A choice among one is
no choice and takes nothing from the list. Anything continuous is refused: it has no finite
outcomes.

A choice among more than [`MAX_CHANCE_OUTCOMES`][] (no game here draws one: its largest deck is
smaller) is two chance actions, a block of that many outcomes weighted by its size, then an
outcome in the block, so the bound OpenSpiel is told holds for any game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# The most outcomes one chance action has (OpenSpiel's max_chance_outcomes).
MAX_CHANCE_OUTCOMES = 128


class NeedChance(Exception):
    """The transition needs one more chance action, whose outcome ``i`` has ``probabilities[i]``;
    ``then`` lists the sizes of the uniform choices that surely follow it (the rest of a
    permutation), so they need no new probe."""

    def __init__(self, probabilities: list[float], then: Sequence[int] = ()):
        super().__init__(f"the next chance action has {len(probabilities)} outcomes")
        self.probabilities = probabilities
        self.then = list(then)


class ChoiceRng:
    """A stand-in for ``numpy.random.Generator`` whose draws are the given ``choices``, in order.

    ``choices[i]`` is the outcome of the ``i``-th chance action (choices among one take none)."""

    def __init__(self, choices: Sequence[int]):
        self._choices = choices
        self._next = 0

    @property
    def used(self) -> int:
        """How many of the choices the draws so far took."""
        return self._next

    def _take(self, probabilities: list[float], then: Sequence[int] = ()) -> int:
        """The next choice, whose outcomes have ``probabilities``; raises NeedChance if none."""
        if self._next == len(self._choices):
            raise NeedChance(probabilities, then)
        choice = int(self._choices[self._next])
        if not 0 <= choice < len(probabilities):
            raise ValueError(f"chance choice {choice} is out of range 0..{len(probabilities) - 1}")
        self._next += 1
        return choice

    def _choose(self, outcomes: int, then: Sequence[int] = ()) -> int:
        """One uniform choice among ``outcomes``: one chance action, or two past the bound.
        ``then``: the sizes of the uniform choices that surely follow (see NeedChance)."""
        if outcomes <= 0:
            raise ValueError(f"a chance choice needs at least one outcome, got {outcomes}")
        if outcomes == 1:
            return 0
        if outcomes <= MAX_CHANCE_OUTCOMES:
            return self._take([1.0 / outcomes] * outcomes, then)
        width = MAX_CHANCE_OUTCOMES
        sizes = [min(width, outcomes - start) for start in range(0, outcomes, width)]
        block = self._take([size / outcomes for size in sizes])
        return block * width + (
            self._take([1.0 / sizes[block]] * sizes[block]) if sizes[block] > 1 else 0
        )

    def integers(self, low: int, high: int | None = None, size: Any = None, **kwargs: Any) -> int:
        """One uniform integer in ``[low, high)`` (``[0, low)`` when ``high`` is omitted)."""
        if size is not None or kwargs:
            raise TypeError("ChoiceRng.integers draws one integer: no size, dtype or endpoint")
        low, high = (0, low) if high is None else (low, high)
        return int(low) + self._choose(int(high) - int(low))

    def permutation(self, x: int | Sequence[Any]) -> np.ndarray:
        """A uniform permutation of ``range(x)``, or of the items of ``x``."""
        items = list(range(x)) if isinstance(x, int | np.integer) else list(x)
        size = len(items)
        # A permutation within the bound announces its later choices: one probe a permutation.
        later = range(size - 1, 1, -1) if size <= MAX_CHANCE_OUTCOMES else range(0)
        order = [items.pop(self._choose(size - i, later[i:])) for i in range(size - 1)]
        return np.asarray(order + items)

    def shuffle(self, x: list[Any]) -> None:
        """Shuffle the list ``x`` in place, uniformly."""
        order = self.permutation(len(x))
        x[:] = [x[int(i)] for i in order]

    def __getattr__(self, name: str) -> Any:
        raise TypeError(
            f"a game's chance sample called rng.{name}, which OpenSpiel's chance nodes cannot "
            "express: only integers(k), permutation(n) and shuffle(list) have finite, uniform "
            "outcomes. Write the sample with those."
        )
