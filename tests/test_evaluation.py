"""card-envs evaluate: the published protocol (determinism, fingerprints), the t-interval, the
scorecard and its schema, the command and its errors on bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from card_envs import make
from card_envs.agents import Agent
from card_envs.cli import main
from card_envs.evaluation import scorecard
from card_envs.evaluation.protocol import load_protocol, published, seatings
from card_envs.evaluation.run import LuckSettings, evaluate
from card_envs.evaluation.stats import games_for_width, mean_interval, t_quantile
from card_envs.evaluation.streams import StreamedChance, deal_streamed
from card_envs.registry import env_names

STANDING = LuckSettings("standing", 2, 1.0)


# -- the protocol ---------------------------------------------------------------------------------
def test_the_shipped_protocol_matches_the_rules_of_every_game():
    """A rules change that changes a game of the set fails here: publish eval-v2."""
    protocol = load_protocol("eval-v1")
    fresh = published(protocol.name, protocol.seed, protocol.deals)
    assert fresh["envs"] == protocol.fingerprints, (
        "the rules changed what the evaluation set plays: publish the next protocol version"
    )
    assert set(protocol.fingerprints) == set(env_names())


def test_an_unknown_protocol_is_refused_with_those_published():
    with pytest.raises(ValueError, match=r"unknown protocol 'eval-v9'.*eval-v1"):
        load_protocol("eval-v9")


def test_seatings_put_the_agent_in_every_seat_once():
    tables = seatings(4)
    assert [t.index(0) for t in tables] == [0, 1, 2, 3]
    assert all(sorted(t) == [0, 1, 1, 1] for t in tables)


def test_the_same_evaluation_twice_gives_the_same_numbers():
    first = evaluate("seals_v0", 4, "random", ["heuristic"] * 3, 2, luck=STANDING)
    second = evaluate("seals_v0", 4, "random", ["heuristic"] * 3, 2, luck=STANDING)
    assert first.agent.values() == second.agent.values()
    assert first.agent.values("win", 1.0) == second.agent.values("win", 1.0)
    assert first.agent.values("score") == second.agent.values("score")


def test_streams_keep_later_chance_the_same_whatever_the_players_do():
    """Two tables of one deal played differently draw the same k-th outcome of each event."""
    logs = []
    for seed in (1, 2):
        env = make("seals_v0")
        deal_streamed(env, 5)
        assert isinstance(env.game_state.chance, StreamedChance)
        rng = np.random.default_rng(seed)
        while not env.game.is_over(env.game_state):
            env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
        logs.append(env.deal_record()["chance"]["shuffle"])
    shared = min(len(log) for log in logs)
    assert shared >= 2
    assert logs[0][:shared] == logs[1][:shared]


def test_a_streamed_game_replays_from_its_record():
    env = make("unfortunate_events_v0")
    deal_streamed(env, 11)
    rng = np.random.default_rng(0)
    actions = []
    while not (env.game.is_over(env.game_state) or env.game.is_truncated(env.game_state)):
        actions.append(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
        env.step(actions[-1])
    replay = make("unfortunate_events_v0")
    replay.reset(seed=99, options={"deal": env.deal_record()})
    for action in actions:
        replay.step(action)
    assert np.array_equal(replay.state(), env.state())


# -- statistics -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("df", "quantile"),
    [(1, 12.7062047), (2, 4.3026527), (10, 2.2281389), (49, 2.0095752), (399, 1.9659273)],
)
def test_t_quantiles_match_the_tables(df, quantile):
    assert t_quantile(0.975, df) == pytest.approx(quantile, abs=1e-6)


def test_the_t_interval_of_a_mean_over_deals():
    interval = mean_interval([0.0, 0.5, 0.25, 0.25])
    assert interval.value == 0.25
    half = t_quantile(0.975, 3) * math.sqrt(0.125 / 3 / 4)
    assert interval.half == pytest.approx(half)
    assert math.isinf(mean_interval([0.3]).half)


def test_games_for_the_width_scale_with_the_variance():
    plain, adjusted = mean_interval([0.0, 1.0] * 10), mean_interval([0.25, 0.75] * 10)
    assert games_for_width(80, plain, adjusted) == pytest.approx(320)


# -- the scorecard --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def card():
    run = evaluate("seals_v0", 4, "heuristic", ["random"] * 3, 2, luck=STANDING, reference="random")
    return scorecard.of_evaluation(run)


def test_a_scorecard_has_the_issue_s_keys_and_validates(card):
    scorecard.validate(card)
    for key in (
        "format",
        "env",
        "env_version",
        "agent",
        "protocol",
        "field",
        "games",
        "win_share",
        "adjusted",
        "ms_per_decision",
        "versions",
        "date",
        "cpu_seconds",
        "gain",
    ):
        assert key in card
    assert card["format"] == "card-envs.scorecard/1" and card["env_version"] == "v0"
    assert card["games"] == 8 and card["protocol"]["name"] == "eval-v1"
    assert set(card["cpu_seconds"]) == {"games", "adjustment"}
    assert len(card["win_share"]["ci"]) == 2 and card["reference"] == "random"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda c: c.pop("adjusted"), "adjusted"),
        (lambda c: c["win_share"].update(ci=[0.1]), "win_share.ci"),
        (lambda c: c.update(games="eight"), "games"),
        (lambda c: c["cpu_seconds"].pop("adjustment"), "cpu_seconds.adjustment"),
        (lambda c: c["agent"].update(checkpoint_sha256="not a hash"), "agent.checkpoint_sha256"),
        (lambda c: c.update(format="card-envs.scorecard/2"), "format"),
    ],
)
def test_a_scorecard_that_fails_its_schema_is_refused_naming_the_field(
    card, change, field, tmp_path
):
    broken = json.loads(json.dumps(card))
    change(broken)
    with pytest.raises(scorecard.ScorecardError) as error:
        scorecard.write(broken, tmp_path / "card.json")
    assert error.value.field == field
    assert f"field {field!r}" in str(error.value)
    assert not (tmp_path / "card.json").exists()


def test_a_shipped_trained_agent_s_scorecard_names_its_checkpoint_hash():
    digest = scorecard.checkpoint_sha256("ppo_advised", "seals_v0")
    assert digest is not None and len(digest) == 64
    assert scorecard.checkpoint_sha256("heuristic", "seals_v0") is None


# -- the command ----------------------------------------------------------------------------------
def test_evaluate_writes_a_scorecard_that_validates(tmp_path, capsys):
    path = tmp_path / "card.json"
    code = main(
        [
            "evaluate",
            "random",
            "--game",
            "seals_v0",
            "--deals",
            "2",
            "--workers",
            "1",
            "--value",
            "standing",
            "--json",
            str(path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "luck-adjusted" in out and "win share" in out
    card = scorecard.read(path)
    assert card["agent"]["kind"] == "random" and card["field"] == ["heuristic"] * 3


def test_evaluate_an_unknown_agent_names_it(capsys):
    assert main(["evaluate", "nobody", "--game", "seals_v0", "--deals", "1"]) == 2
    assert "'nobody'" in capsys.readouterr().err


def test_evaluate_a_checkpoint_for_another_game_names_it(capsys):
    from card_envs.agents import shipped_checkpoint

    path = str(shipped_checkpoint("seamless_v0", "ppo"))
    assert main(["evaluate", path, "--game", "seals_v0", "--deals", "1"]) == 2
    assert path in capsys.readouterr().err


class IllegalOnThirdDeal(Agent):
    """Plays random legal moves, but an illegal one in its first game of the third deal."""

    games = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        IllegalOnThirdDeal.games += 1

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if IllegalOnThirdDeal.games == 9:
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])
        return int(legal[self.rng.integers(len(legal))])


def test_an_agent_that_plays_an_illegal_move_is_named_and_the_finished_deals_kept(tmp_path, capsys):
    IllegalOnThirdDeal.games = 0
    path = tmp_path / "card.json"
    kind = f"{__name__}:IllegalOnThirdDeal"
    code = main(
        [
            "evaluate",
            kind,
            "--game",
            "seals_v0",
            "--deals",
            "4",
            "--workers",
            "1",
            "--value",
            "standing",
            "--json",
            str(path),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert kind in err and "cannot play" in err and "2 deals before it are kept" in err
    card = scorecard.read(path)
    assert card["protocol"]["deals"] == 2 and "error" in card


# -- the arena's luck-adjusted win rate -----------------------------------------------------------
def arena_rates(tmp_path, *luck: str) -> list[dict]:
    """Run a small seeded arena pool on a game that declares its luck: its agents' figures."""
    path = tmp_path / f"arena{len(luck)}.json"
    argv = ["arena", "--game", "seals_v0", "--agents", "heuristic", "random", "--episodes", "3"]
    assert main([*argv, "--workers", "1", "--json", str(path), *luck]) == 0
    return json.loads(path.read_text())["agents"]


def test_arena_luck_is_opt_in_and_plays_the_same_games(tmp_path, capsys):
    """``arena --luck`` adds the adjusted win rates and changes no game: the plain figures and
    ratings are those of a run without it."""
    plain = arena_rates(tmp_path)
    assert "luck-adjusted" not in capsys.readouterr().out
    lucky = arena_rates(tmp_path, "--luck")
    out = capsys.readouterr().out
    assert "luck-adjusted win rate" in out and "random" in out.split("luck-adjusted")[1]
    assert plain == lucky
