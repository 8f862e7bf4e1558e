"""Types of the compiled observation writer (``_encoding.pyx``)."""

from typing import Any

import numpy as np

class Observer:
    """Flat offsets of every piece for one configuration, and the rules' constants the
    observation needs."""

    offsets: dict[str, int]
    facts: dict[str, int]
    colours: tuple[int, ...]
    ball_letter: tuple[int, ...]

    def __init__(
        self,
        offsets: dict[str, int],
        facts: dict[str, int],
        colours: tuple[int, ...],
        ball_letter: tuple[int, ...],
    ) -> None: ...
    def write(self, out: memoryview[Any] | np.ndarray, state: Any, seat: int) -> None:
        """Set every entry of the float32 ``out`` (streamed past the cache)."""
    def write_zeroed(self, out: memoryview[Any] | np.ndarray, state: Any, seat: int) -> None:
        """Set what ``seat`` may know of ``state`` in the zeroed float32 ``out``, in place."""
