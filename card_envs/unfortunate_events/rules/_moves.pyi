"""Types of the compiled legal mask (``_moves.pyx``), the kernel of
:meth:`card_envs.unfortunate_events.rules.game.UnfortunateEventsGame.legal_mask`."""

from typing import Any

import numpy as np

from card_envs.unfortunate_events.rules.state import UnfortunateEventsState

class LegalMask:
    n: int
    size: int
    start: dict[str, int]
    def __init__(self, n: int, size: int, start: dict[str, int]) -> None: ...
    def mask(self, state: UnfortunateEventsState) -> np.ndarray: ...
    def write(self, state: UnfortunateEventsState, out: memoryview[Any] | np.ndarray) -> None: ...
