"""Sequitur as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.sequitur.encoding import SequiturEncoding, SequiturEncodingV1
from card_envs.sequitur.rules import SequiturGame
from card_envs.sequitur.rules.goals import POINTS


class raw_env(CardEnv):
    """Sequitur, 1-5 players (default 4). Options: ``dictionary`` (a word-list file, one word a
    line, or a collection of words; default the bundled SCOWL list), ``goals`` (a goal-card JSON
    file or a list of card dicts; default the bundled 72 cards), ``claim_pass`` (``True``: a claim
    turn also offers ``pass``; default ``False``, claiming is forced), ``reward_mode`` (``"win"`` or
    ``"score"``; use ``"score"`` for solo), ``render_mode`` (``"ansi"``/``"human"``).

    Rewards: ``"win"`` gives each seat -1..1 once the game ends (``reward_range``); ``"score"``
    gives the points of the goal card a seat scores at a step (a seat scores at most one card per
    step: its secret goal, or a claim), 0..3 with the bundled cards (``score_reward_range``; with
    custom ``goals``, up to their highest ``points``)."""

    game_class = SequiturGame
    encoding_class = SequiturEncoding
    metadata: ClassVar[dict[str, Any]] = {
        **CardEnv.metadata,
        "name": "sequitur_v0",
        "version": 0,
        "reward_range": (-1.0, 1.0),
        "score_reward_range": (0.0, float(max(POINTS.values()))),
    }


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)


class raw_env_v1(raw_env):
    """Sequitur, version 1: version 0's game, options, rewards and action ids, with each action's
    value appended to the observation (the ``action_values`` piece, docs/sequitur.md)."""

    encoding_class = SequiturEncodingV1
    metadata: ClassVar[dict[str, Any]] = {**raw_env.metadata, "name": "sequitur_v1", "version": 1}


def env_v1(**options: Any) -> raw_env_v1:
    """Version 1's environment (as :func:`env`)."""
    return raw_env_v1(**options)
