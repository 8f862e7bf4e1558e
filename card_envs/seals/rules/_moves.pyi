"""Types of the compiled legal mask (``_moves.pyx``), the kernel of
:meth:`card_envs.seals.rules.game.SealsGame.legal_mask`."""

from typing import Any

import numpy as np

from card_envs.seals.rules.state import SealsState

class LegalMask:
    size: int
    take_colour: int
    take_symbol: int
    reveal: int
    stop: int
    of_a_kind: bool
    def __init__(
        self, size: int, take_colour: int, take_symbol: int, reveal: int, stop: int, of_a_kind: bool
    ) -> None: ...
    def mask(self, state: SealsState) -> np.ndarray: ...
    def write(self, state: SealsState, out: memoryview[Any] | np.ndarray) -> None: ...
