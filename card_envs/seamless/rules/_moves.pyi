"""Types of the compiled legal mask and moves (``_moves.pyx``), the kernels of
:meth:`card_envs.seamless.rules.game.SeamlessGame.legal_mask` and ``apply``."""

from typing import Any

import numpy as np

from card_envs.seamless.rules.state import SeamlessState

class Moves:
    n: int
    play: int
    claim: int
    size: int
    void_rule: bool
    def __init__(self, n: int, play: int, claim: int, size: int, void_rule: bool) -> None: ...
    def mask(self, state: SeamlessState) -> np.ndarray: ...
    def write(self, state: SeamlessState, out: memoryview[Any] | np.ndarray) -> None: ...
    def apply(self, state: SeamlessState, action: int) -> bool: ...
