"""Types of the compiled meld generator (``_melds.pyx``), the kernel of
:func:`card_envs.seers_catalog.rules.melds.legal_plays_py`, and of the legal mask built on it,
the kernel of :meth:`card_envs.seers_catalog.rules.game.SeersCatalogGame.legal_mask_py`."""

from collections.abc import Sequence
from typing import Any

import numpy as np

from card_envs.seers_catalog.rules.melds import Finish, Key, Plays
from card_envs.seers_catalog.rules.state import SeersCatalogState

def legal_plays(hand: Sequence[int], top: Key | None, focus: bool = False) -> Plays: ...

class LegalMask:
    size: int
    def __init__(
        self,
        size: int,
        adds: dict[int, int],
        finishes: dict[Finish, int],
        pass_id: int,
        rod_id: int,
        gift_ids: tuple[int, ...],
        lens_ids: tuple[int, ...],
    ) -> None: ...
    def mask(self, state: SeersCatalogState) -> np.ndarray: ...
    def write(self, state: SeersCatalogState, out: memoryview[Any] | np.ndarray) -> None: ...
