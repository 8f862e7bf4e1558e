"""Sequitur as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.sequitur.encoding import SequiturEncoding
from card_envs.sequitur.rules import SequiturGame


class raw_env(CardEnv):
    """Sequitur, 1-5 players (default 4). Options: ``dictionary`` (a word-list file, one word a
    line, or a collection of words; default the bundled SCOWL list), ``goals`` (a goal-card JSON
    file or a list of card dicts; default the bundled 72 cards), ``claim_pass`` (``True``: a claim
    turn also offers ``pass``; default ``False``, claiming is forced), ``reward_mode`` (``"win"`` or
    ``"score"``; use ``"score"`` for solo), ``render_mode`` (``"ansi"``/``"human"``)."""

    game_class = SequiturGame
    encoding_class = SequiturEncoding
    metadata: ClassVar[dict[str, Any]] = {**CardEnv.metadata, "name": "sequitur_v0"}


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)
