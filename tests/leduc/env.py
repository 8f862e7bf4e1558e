"""Leduc Hold'em as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from leduc.encoding import LeducEncoding
from leduc.rules import LeducGame
from leduc.rules.game import ANTE, MAX_RAISES, RAISE_SIZES

# The most chips a seat can win or lose with the default options: the ante and every raise.
MAX_STAKE = ANTE + MAX_RAISES * sum(RAISE_SIZES)


class raw_env(CardEnv):
    """Leduc Hold'em, 2 players. Options: ``first_raise`` (2), ``second_raise`` (4),
    ``max_raises`` (2), ``reward_mode`` (``"win"`` or ``"score"``), ``render_mode``
    (``"ansi"``/``"human"``).

    Rewards: ``"win"`` gives -1, 0 (a split pot) or 1 at the end; ``"score"`` gives the chips
    won or lost at the end, -13..13 with the default options (``score_reward_range``)."""

    game_class = LeducGame
    encoding_class = LeducEncoding
    metadata: ClassVar[dict[str, Any]] = {
        **CardEnv.metadata,
        "name": "leduc_v0",
        "version": 0,
        "reward_range": (-1.0, 1.0),
        "score_reward_range": (-float(MAX_STAKE), float(MAX_STAKE)),
    }


def env(**options: Any) -> raw_env:
    """The environment; the base enforces order and checks every action."""
    return raw_env(**options)
