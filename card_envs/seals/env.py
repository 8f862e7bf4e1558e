"""Seals as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.seals.encoding import SealsEncoding
from card_envs.seals.rules.game import SealsGame


class raw_env(CardEnv):
    """Seals, 2-4 players (default 4). Options: ``minor_major_series``
    (``"four_of_a_kind"`` or ``"any_four"``), ``empty_pile`` (``"play_out"`` or
    ``"end_round"``), ``remember_takes`` (False), ``skip_forced_stop`` (False),
    ``tie_rounds`` (3), ``reward_mode`` (``"win"`` or ``"score"``), ``render_mode``
    (``"ansi"``/``"human"``)."""

    game_class = SealsGame
    encoding_class = SealsEncoding
    metadata: ClassVar[dict[str, Any]] = {**CardEnv.metadata, "name": "seals_v0"}


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)
