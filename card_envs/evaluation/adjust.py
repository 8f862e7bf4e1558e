"""The arena's luck-adjusted win share, beside its plain one: a played game's result with each
seat's luck attached (:func:`with_luck`, in the worker that played it), and the adjusted share
of an entry with its interval over deals (:func:`adjusted_share`). Only games that declare how
their luck is measured (``EVALUATION`` in their agents module) are adjusted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from card_envs.agents.match import GameResult
from card_envs.agents.plugins import declaration
from card_envs.core.env import CardEnv
from card_envs.evaluation.luck import game_luck, known_policy
from card_envs.evaluation.run import LuckSettings
from card_envs.evaluation.stats import mean_interval
from card_envs.evaluation.values import ValueEstimate, make_value

_VALUES: dict[tuple[str, int], ValueEstimate] = {}


@dataclass(frozen=True)
class LuckyResult(GameResult):
    """A game's result and each seat's luck in win share, weighted as its game declares."""

    luck: tuple[float, ...] = ()


def with_luck(
    env: CardEnv, result: GameResult, actions: Sequence[int], kinds: Sequence[str], seed: int
) -> GameResult:
    """``result`` of the game just played on ``env`` (by ``actions``, with the agent ``kinds``
    in its seats) with its luck attached, or as it is where the game declares no estimate.
    ``seed`` seeds the alternatives (the deal's, so its seatings share them)."""
    name = env.metadata["name"]
    if not declaration(name, "EVALUATION"):
        return result
    settings = LuckSettings.of(name)
    key = (name, env.game.num_players)
    if key not in _VALUES:
        _VALUES[key] = make_value(settings.value, env)
    policies = [known_policy(kind) for kind in kinds]
    luck = game_luck(
        env, env.deal_record(), actions, policies, _VALUES[key], settings.samples, seed
    )
    weighted = tuple(settings.weight * float(v) for v in luck.win.sum(axis=0))
    return LuckyResult(result.winners, result.scores, result.rewards, result.steps, weighted)


def adjusted_share(
    wins: Sequence[float], luck: Sequence[float], games_per_deal: int
) -> tuple[float, float, float]:
    """An entry's luck-adjusted win share a seat-game and its 95% t-interval over deals, from
    its wins and its luck summed deal by deal."""
    interval = mean_interval([(w - lk) / games_per_deal for w, lk in zip(wins, luck, strict=True)])
    return interval.value, interval.low, interval.high
