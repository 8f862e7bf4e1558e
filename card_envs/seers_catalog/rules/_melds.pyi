"""Types of the compiled meld generator (``_melds.pyx``), the kernel of
:func:`card_envs.seers_catalog.rules.melds.legal_plays_py`."""

from collections.abc import Sequence

from card_envs.seers_catalog.rules.melds import Key, Plays

def legal_plays(hand: Sequence[int], top: Key | None, focus: bool = False) -> Plays: ...
