"""Seamless as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.seamless.encoding import SeamlessEncoding, SeamlessEncodingV1
from card_envs.seamless.rules import SeamlessGame
from card_envs.seamless.rules.scoring import MAX_ROUND_POINTS


class raw_env(CardEnv):
    """Seamless, 4 players. Options: ``trick_one_trump_lead`` (``"no_other_suit"`` or
    ``"void_in_a_suit"``), ``max_rounds`` (5), ``target_score`` (15), ``reward_mode``
    (``"win"`` or ``"score"``), ``render_mode`` (``"ansi"``/``"human"``).

    Rewards: ``"win"`` gives each seat -1..1 once the game ends (``reward_range``); ``"score"``
    gives the points a seat's row scored at each round end, 0..19 (``score_reward_range``)."""

    game_class = SeamlessGame
    encoding_class = SeamlessEncoding
    metadata: ClassVar[dict[str, Any]] = {
        **CardEnv.metadata,
        "name": "seamless_v0",
        "version": 0,
        "reward_range": (-1.0, 1.0),
        "score_reward_range": (0.0, float(MAX_ROUND_POINTS)),
    }


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)


class raw_env_v1(raw_env):
    """Seamless, version 1: version 0's game, options, rewards and action ids, with this round's
    plays by seat and the voids they show appended to the observation (docs/seamless_v1.md)."""

    encoding_class = SeamlessEncodingV1
    metadata: ClassVar[dict[str, Any]] = {**raw_env.metadata, "name": "seamless_v1", "version": 1}


def env_v1(**options: Any) -> raw_env_v1:
    """Version 1's environment (as :func:`env`)."""
    return raw_env_v1(**options)
