"""Types of the compiled observation writer (``_encoding.pyx``), the kernel of
:meth:`card_envs.seamless.encoding.SeamlessEncoding.observe`."""

from collections.abc import Sequence
from typing import Any

import numpy as np

from card_envs.seamless.encoding import SeatTables
from card_envs.seamless.rules.state import SeamlessState

class Observer:
    def __init__(
        self,
        n: int,
        size: int,
        rounds: int,
        tables: Sequence[SeatTables],
        history: tuple[int, int, bool] | None = None,
    ) -> None: ...
    def observe(self, state: SeamlessState, seat: int) -> np.ndarray: ...
    def write(self, state: SeamlessState, seat: int, out: memoryview[Any] | np.ndarray) -> None: ...
