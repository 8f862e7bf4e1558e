"""The luck-adjusted estimate is unbiased whatever its value estimate: shown by simulation on
many games of known agents (random agents, whose decisions are luck too, and the heuristic,
whose are not), with the game's standing, a value estimate turned upside down and one that is
noise. And the parts: what each kind of randomness is charged to."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from card_envs import make
from card_envs.agents import make_agent
from card_envs.agents.match import decisions
from card_envs.core.env import CardEnv
from card_envs.evaluation.luck import PARTS, chance_taken, game_luck, known_policy
from card_envs.evaluation.stats import t_quantile
from card_envs.evaluation.streams import deal_streamed
from card_envs.evaluation.values import Standing, ValueEstimate

GAMES = 100
SAMPLES = 2  # alternatives a random transition: few, to keep the test quick


class UpsideDown(Standing):
    """The standing reversed: a seat ahead is valued as behind (a deliberately bad estimate)."""

    def estimate(self, env: CardEnv, states: Sequence[Any]) -> np.ndarray:
        return 1 - super().estimate(env, states)


class Noise(ValueEstimate):
    """Values drawn from a hash of the whole table: a deterministic estimate that knows
    nothing and moves at every transition."""

    def estimate(self, env: CardEnv, states: Sequence[Any]) -> np.ndarray:
        out = []
        for state in states:
            seed = zlib.crc32(env.encoding.observe_underived(state, 0).tobytes())
            out.append(np.random.default_rng(seed).random((env.game.num_players, 2)) * 3)
        return np.array(out)


def played(env_name: str, kinds: Sequence[str], games: int) -> list[tuple[Any, ...]]:
    """Games of ``kinds`` (one a seat): seat 0's win share, the deal, moves and chance counts."""
    env = make(env_name)
    info = env.describe()
    out = []
    for game in range(games):
        agents = [make_agent(kind, info, 1000 * game + seat) for seat, kind in enumerate(kinds)]
        deal_streamed(env, 10_000 + game)
        actions, counts = [], [chance_taken(env.game_state)]
        for name, observation in decisions(env):
            actions.append(agents[env.possible_agents.index(name)].act(observation))
            env.step(actions[-1])
            counts.append(chance_taken(env.game_state))
        winners = env.game.winners(env.game_state) if env.game.is_over(env.game_state) else []
        win = 1 / len(winners) if 0 in winners else 0.0
        out.append((win, env.deal_record(), actions, counts))
    return out


def adjusted(
    env_name: str, games: list[tuple[Any, ...]], kinds: Sequence[str], value: ValueEstimate
) -> tuple[np.ndarray, np.ndarray]:
    """Seat 0's plain win shares and its luck by part (games x parts)."""
    env = make(env_name)
    policies = [known_policy(kind) for kind in kinds]
    plain, luck = [], []
    for index, (win, deal, actions, counts) in enumerate(games):
        measured = game_luck(env, deal, actions, policies, value, SAMPLES, index, counts)
        plain.append(win)
        luck.append(measured.win[:, 0])
    return np.array(plain), np.array(luck)


@pytest.fixture(scope="module")
def random_games():
    return played("seals_v0", ["random"] * 4, GAMES)


@pytest.fixture(scope="module")
def heuristic_games():
    return played("seals_v0", ["heuristic"] * 4, GAMES)


def assert_unbiased(plain: np.ndarray, luck: np.ndarray) -> None:
    """The adjusted mean equals the plain mean within its interval: the luck's mean, game by
    game the difference, is zero within its 99.9% t-interval (a 95% one would fail one run in
    twenty of an unbiased estimator, and the test runs several)."""
    total = luck.sum(axis=1)
    half = t_quantile(0.9995, len(total) - 1) * total.std(ddof=1) / np.sqrt(len(total))
    assert abs(total.mean()) <= half
    assert abs(float(plain.mean()) - float((plain - total).mean())) <= half


@pytest.mark.parametrize(
    "value", [Standing(), UpsideDown(), Noise()], ids=lambda v: type(v).__name__
)
def test_random_agents_luck_has_mean_zero(random_games, value):
    kinds = ["random"] * 4
    plain, luck = adjusted("seals_v0", random_games, kinds, value)
    assert_unbiased(plain, luck)
    assert np.abs(luck[:, PARTS.index("decisions")]).sum() > 0


@pytest.mark.parametrize("value", [Standing(), Noise()], ids=lambda v: type(v).__name__)
def test_heuristic_agents_luck_has_mean_zero_and_no_decision_part(heuristic_games, value):
    kinds = ["heuristic"] * 4
    plain, luck = adjusted("seals_v0", heuristic_games, kinds, value)
    assert_unbiased(plain, luck)
    assert not luck[:, PARTS.index("decisions")].any()


def test_noise_is_unbiased_but_wider(random_games):
    """A bad estimate keeps the mean and widens the interval: the weight of the correction is
    what a game's declaration sets by measurement."""
    kinds = ["random"] * 4
    plain, luck = adjusted("seals_v0", random_games, kinds, Noise())
    assert (plain - luck.sum(axis=1)).std() > 2 * plain.std()


def test_the_first_deal_is_the_same_luck_at_every_seating():
    """The seatings of a deal share its first deal and its alternatives, so that part of the
    luck cancels over them whenever the estimate's win shares add up to one."""
    env = make("seamless_v0")
    info = env.describe()
    value = Standing()
    parts = []
    for seating in range(4):
        kinds = ["heuristic"] * 4
        agents = [make_agent(kind, info, seating * 10 + s) for s, kind in enumerate(kinds)]
        deal_streamed(env, 3)
        actions, counts = [], [chance_taken(env.game_state)]
        for name, observation in decisions(env):
            actions.append(agents[env.possible_agents.index(name)].act(observation))
            env.step(actions[-1])
            counts.append(chance_taken(env.game_state))
        luck = game_luck(env, env.deal_record(), actions, [None] * 4, value, 4, 3, counts)
        parts.append(luck.win[PARTS.index("deal")])
    assert all(np.array_equal(parts[0], p) for p in parts)
    assert parts[0].sum() == pytest.approx(0.0, abs=1e-12)


def test_a_record_alone_gives_the_same_luck(heuristic_games):
    """Without the chance counts of play (a record's deal and moves only), a replay finds them."""
    env = make("seals_v0")
    value = Standing()
    for index, (_, deal, actions, counts) in enumerate(heuristic_games[:5]):
        given = game_luck(env, deal, actions, [None] * 4, value, 2, index, counts)
        found = game_luck(env, deal, actions, [None] * 4, value, 2, index)
        assert np.array_equal(given.win, found.win) and np.array_equal(given.score, found.score)
