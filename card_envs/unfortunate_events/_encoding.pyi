"""Types of the compiled observation writer (``_encoding.pyx``), the kernel of
:meth:`card_envs.unfortunate_events.encoding.UnfortunateEventsEncoding.write`."""

from typing import Any

import numpy as np

from card_envs.unfortunate_events.rules.state import UnfortunateEventsState

class Observer:
    n: int
    size: int
    offsets: dict[str, int]
    def __init__(self, n: int, size: int, offsets: dict[str, int]) -> None: ...
    def write(
        self, state: UnfortunateEventsState, seat: int, out: memoryview[Any] | np.ndarray
    ) -> None: ...
