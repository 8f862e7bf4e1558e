"""Types of the compiled word search (``_spelling.pyx``)."""

from collections.abc import Callable

class LetterTree:
    """A dictionary's letter tree (``Dictionary.steps``, ``root_kids``) as flat C arrays."""

    steps: dict[int, tuple[int, bool, int, int]]
    root_kids: int

    def __init__(self, steps: dict[int, tuple[int, bool, int, int]], root_kids: int) -> None: ...
    def spellings(self, rack: tuple[int, ...]) -> dict[int, list[tuple[int, int]]]:
        """Spelling key -> its ``(blank letter, Q mode)`` choices, as the reference finds them."""
    def write_keys(self, rack: tuple[int, ...], out: memoryview[int], offset: int) -> int:
        """Set ``out[offset + key]`` to 1 for each spelling key; how many there are."""
    def words(
        self, rack: tuple[int, ...], points: tuple[int, ...]
    ) -> list[tuple[int, int, int, str, int]]:
        """``(key, blank letter, Q mode, word, word score)`` of every spelling, in order."""
    def best(
        self,
        rack: tuple[int, ...],
        points: tuple[int, ...],
        earned_by: dict[str, int],
        earn: Callable[[str], int],
        score_weight: float,
    ) -> tuple[float, int, int, int, int]:
        """``(value, key, blank, Q mode, spellings)`` of the first most valuable spelling."""
