"""Types of the compiled observation writer (``_encoding.pyx``), the kernel of
:meth:`card_envs.seals.encoding.SealsEncoding.write`."""

from typing import Any

import numpy as np

from card_envs.seals.rules.state import SealsState

class Observer:
    n: int
    size: int
    rounds: int
    taken: bool
    offsets: dict[str, int]
    def __init__(self, n: int, size: int, rounds: int, offsets: dict[str, int]) -> None: ...
    def write(self, state: SealsState, seat: int, out: memoryview[Any] | np.ndarray) -> None: ...
