"""Types of the compiled legal mask (``_moves.pyx``), the kernel of
:meth:`card_envs.unfortunate_events.rules.game.UnfortunateEventsGame.legal_mask`."""

import numpy as np

from card_envs.unfortunate_events.rules.state import UnfortunateEventsState

class LegalMask:
    n: int
    size: int
    start: dict[str, int]
    def __init__(self, n: int, size: int, start: dict[str, int]) -> None: ...
    def mask(self, state: UnfortunateEventsState) -> np.ndarray: ...
