"""Types of the compiled observation writer (``_encoding.pyx``), the kernel of
:meth:`card_envs.seers_catalog.encoding.SeersCatalogEncoding.write`."""

from typing import Any

import numpy as np

from card_envs.seers_catalog.encoding import SeatTables
from card_envs.seers_catalog.rules.state import SeersCatalogState

class Observer:
    def __init__(
        self,
        seat: int,
        n: int,
        size: int,
        tables: SeatTables,
        table: tuple[int, ...],
        at: dict[str, int],
    ) -> None: ...
    def write(self, state: SeersCatalogState, out: memoryview[Any] | np.ndarray) -> None: ...
