"""Seers Catalog rules: the rulebook's examples, every artifact, the Bonus, scoring, options,
and the meld generator against the independent detector."""

from __future__ import annotations

import ast
import copy
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from helpers import random_steps
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs import make, seers_catalog_v0
from card_envs.agents.match import win_share
from card_envs.core.errors import IllegalActionError
from card_envs.seers_catalog.rules import SeersCatalogGame, parse_cards, round_score
from card_envs.seers_catalog.rules.cards import (
    ARTIFACT_BASE,
    ARTIFACTS,
    GO_FIRST,
    KIND,
    LENS,
    NUM_KINDS,
    ROD,
    WILD,
    WILD_BASE,
)
from card_envs.seers_catalog.rules.melds import (
    MATCH,
    RUN,
    beats,
    classify,
    legal_plays,
    meld_key,
    plays_from,
    valid_on_table,
)

BLATHERS, LONGCLAW, ZAZ = 0, 1, 2


def setup(hands: list[str], leader: int = 0, **options) -> tuple[SeersCatalogGame, object]:
    game = SeersCatalogGame(len(hands), **options)
    state = game.new_game(np.random.default_rng(0), {"hands": hands, "leader": leader})
    return game, state


def act(game, state, *names: str) -> None:
    """Apply actions by name, checking each is legal (mask and detector agree)."""
    for name in names:
        action = game.actions.ids[name]
        assert action in game.legal_actions(state), (name, legal_names(game, state))
        assert game.illegal_reason(state, action) is None
        game.apply(state, action, np.random.default_rng(1))
        game.check_invariants(state)


def legal_names(game, state) -> list[str]:
    return [game.actions.names[a] for a in game.legal_actions(state)]


def kinds(text: str) -> list[int]:
    return sorted(KIND[c] for c in parse_cards(text))


# -- deal -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_deal_per_player_count(n):
    game = SeersCatalogGame(n)
    for seed in range(5):
        state = game.new_game(np.random.default_rng(seed))
        for hand in state.hands:
            assert sum(c < WILD_BASE for c in hand) == 12
            assert sum(WILD_BASE <= c < ARTIFACT_BASE for c in hand) == 1
            assert sum(c >= ARTIFACT_BASE for c in hand) == 2
        assert GO_FIRST in state.hands[state.leader] and state.turn == state.leader
        assert len(state.removed) == (3 if n == 2 else 0)
        assert len(state.undealt) == 10 - 2 * n
        game.check_invariants(state)


def test_two_seer_deck_is_three_suits_of_2_to_10():
    game = SeersCatalogGame(2)
    suited = [c for c in game.all_codes if c < WILD_BASE]
    assert len(suited) == 27 and max(c % 12 + 2 for c in suited) == 10


def test_go_first_holder_starts_every_round():
    game = SeersCatalogGame(4)
    state = game.new_game(np.random.default_rng(3))
    rng = np.random.default_rng(3)
    rounds_seen = set()
    while not state.over:
        if state.round not in rounds_seen and not state.table and not state.aside:
            assert GO_FIRST in state.hands[state.turn]
            rounds_seen.add(state.round)
        legal = game.legal_actions(state)
        game.apply(state, legal[rng.integers(len(legal))], rng)
    assert rounds_seen == {0, 1, 2, 3}


# -- the rulebook's examples ------------------------------------------------------------------
def test_bonus_example_1():
    """Blathers leads a 5; Longclaw (5 cards: 5 5 7 8 9) must play and lays a 7; Zaz (6 cards)
    and Blathers pass; Longclaw wins the trick."""
    game, state = setup(["5P 2G 3G 4G 2T 3T 4T", "5G 5T 7P 8P 9P", "2P 3P 4P 6T 6G 10T"])
    act(game, state, "add 5P", "play value 5")
    assert state.turn == LONGCLAW
    legal = legal_names(game, state)
    assert "pass" not in legal and legal == ["add 7P", "add 8P", "add 9P"]
    act(game, state, "add 7P", "play value 7")
    assert "pass" in legal_names(game, state)  # Zaz has 6 cards: may pass holding the 10
    act(game, state, "pass", "pass")
    assert state.turn == state.leader == LONGCLAW and not state.table


def test_bonus_example_2():
    """Longclaw leads two 5s; Zaz (6 cards) passes; Blathers (2, 6, Wild) must play 6 + Wild."""
    game, state = setup(["2P 6G W", "5P 5G 9T 10T 11T 12T", "2T 3T 4T 7P 7G 8G"], leader=1)
    act(game, state, "add 5P", "add 5G", "play value 5", "pass")
    assert state.turn == BLATHERS
    assert legal_names(game, state) == ["add 6G"]
    act(game, state, "add 6G")
    assert legal_names(game, state) == ["add wild"]
    act(game, state, "add wild")
    assert legal_names(game, state) == ["play value 6"]
    act(game, state, "play value 6", "pass")
    assert state.turn == state.leader == BLATHERS and state.hands[BLATHERS] == parse_cards("2P")


def test_scoring_example():
    """Blathers plays his last card (a 2); Longclaw (8, 9) scores 6; Zaz (2 2 3 6 6 10) -6."""
    game, state = setup(["2P", "8P 9P", "2G 2T 3P 6P 6G 10T"], num_rounds=1)
    act(game, state, "add 2P", "play value 2")
    assert state.over and state.round_scores == [[0, 6, -6]] and state.totals == [0, 6, -6]
    assert game.winners(state) == [LONGCLAW]


def test_round_score_counts_wilds_and_artifacts_as_zero():
    assert round_score(parse_cards("8P 9P")) == 6
    assert round_score(parse_cards("8P W")) == -2
    assert round_score(parse_cards("13P Crown")) == -2
    assert round_score(parse_cards("13P 13G 12P 11P 10P")) == 10 - 5
    assert round_score(parse_cards("13P 13G 12P 11P 10P 9P")) == -6
    assert round_score([]) == 0


def test_round_ends_the_instant_a_hand_is_empty_and_the_next_is_dealt():
    game, state = setup(["2P", "8P 9P", "2G 2T 3P 6P 6G 10T"], num_rounds=2)
    act(game, state, "add 2P", "play value 2")
    assert not state.over and state.round == 1 and state.totals == [0, 6, -6]
    assert all(len(hand) == 15 for hand in state.hands) and not state.aside


# -- trick mechanics --------------------------------------------------------------------------
def test_follow_same_type_and_size_strictly_higher():
    game, state = setup(["4P 5P 9G", "5G 6G 7G 8T 8G 2T", "2P 3P 4T 6T 7T 9T"])
    act(game, state, "add 4P", "add 5P", "play run to 5")
    legal = legal_names(game, state)
    assert "add 6G" in legal and "add 5G" in legal and "add 8T" not in legal
    act(game, state, "add 5G", "add 6G")
    assert legal_names(game, state) == ["play run to 6"]
    act(game, state, "play run to 6", "add 6T", "add 7T", "play run to 7")
    assert state.table[-1].key == (RUN, 2, 14)


def test_a_passed_seer_is_out_until_the_next_trick():
    game, state = setup(["4P 9P 2G 3G 4G 5G", "5T 6T 7T 8T 9T 10T", "2P 3P 4T 6P 7P 8P"])
    act(game, state, "add 4P", "play value 4", "pass", "add 6P", "play value 6")
    assert state.turn == BLATHERS
    act(game, state, "add 9P", "play value 9")
    assert state.turn == ZAZ  # Longclaw passed: skipped
    act(game, state, "pass")
    assert state.leader == BLATHERS and not any(state.passed)


def test_the_start_seer_cannot_pass():
    game, state = setup(["4P 9P 2G 3G 4G 5G", "5T 6T 7T 8T 9T 10T", "2P 3P 4T 6P 7P 8P"])
    assert "pass" not in legal_names(game, state)
    with pytest.raises(AssertionError):
        act(game, state, "pass")


def test_wild_takes_any_value_and_a_meld_may_be_all_wilds():
    game, state = setup(["W 2P 3P 4P 5P 6P", "W 7G 8G 9G 10G 11G", "2T 3T 4T 5T 6T 7T"])
    act(game, state, "add wild")
    assert legal_names(game, state) == [f"play value {v}" for v in range(2, 14)]
    act(game, state, "play value 13")
    assert "add wild" not in legal_names(game, state)  # nothing beats 13 but a half or Crown
    assert classify([WILD, WILD]) == {(MATCH, v) for v in range(2, 14)} | {
        (RUN, t) for t in range(3, 14)
    }


def test_stuck_start_seer_hands_the_lead_on():
    game, state = setup(["Echo", "5G 6G 7G", "2T 3T 4T"])
    assert legal_names(game, state) == ["pass"]
    act(game, state, "pass")
    assert state.turn == state.leader == LONGCLAW and not state.passed[BLATHERS]


def test_round_ends_when_no_seer_can_lead():
    game, state = setup(["Echo", "Stone", "Lens Prism"], num_rounds=1)
    act(game, state, "pass", "pass", "Lens on seat +1", "pass")
    assert state.over and state.totals == [-1, -1, -1]


# -- artifacts --------------------------------------------------------------------------------
def test_go_first_leads_as_a_single_of_value_1_only():
    game, state = setup(["GoFirst 3P 4P", "2G 9G 10G", "2T 3T 4T"])
    act(game, state, "add GoFirst", "play artifact single")
    assert state.table[-1].key == (MATCH, 1, 2)
    assert "add 2G" in legal_names(game, state)  # every suited single beats it
    game, state = setup(["3P 4P 5P", "GoFirst 9G 10G", "2T 3T 4T"])
    act(game, state, "add 3P", "play value 3")
    assert "add GoFirst" not in legal_names(game, state)


def test_crown_beats_every_single():
    game, state = setup(["13P HalfMoon 2P 3P", "Crown 2G 3G 4G", "W 13T 2T 3T"])
    act(game, state, "add 13P", "add HalfMoon", "play value 13")
    assert state.table[-1].key == (MATCH, 1, 27)
    act(game, state, "add Crown", "play artifact single")
    assert "add wild" not in legal_names(game, state)
    assert not valid_on_table(kinds("W"), (MATCH, 13), state.table[-1].key, False)
    assert classify(kinds("Crown 2G")) == set()  # only as a Single


def test_rod_takes_the_trick_and_leads_and_lifts_the_bonus():
    game, state = setup(["5P 6P 7P 2G 3G 11G", "6G 7G 8G 2T 3T 4T", "Rod 9T 11T 13T 2P"])
    act(game, state, "add 5P", "add 6P", "add 7P", "play run to 7")
    act(game, state, "add 6G", "add 7G", "add 8G", "play run to 8")
    assert state.turn == ZAZ and len(state.hands[ZAZ]) == 5
    assert legal_names(game, state) == ["use Rod"]  # in the Bonus: the Rod is a valid play
    act(game, state, "use Rod")
    assert len(state.hands[ZAZ]) == 4 + 6 and ROD in state.aside
    assert state.turn == state.leader == ZAZ and not state.table
    env = make("seers_catalog_v0", num_players=3)  # everyone saw what Zaz picked up
    views = env.encoding.spec.views(env.encoding.observe(state, BLATHERS))
    assert views["known"][1][KIND[parse_cards("5P")[0]]] == 1  # Zaz: relative seat 2, row 1
    act(game, state, "add 9T", "play value 9", "add 11G", "play value 11", "pass")
    assert "pass" in legal_names(game, state)  # 9 cards: out of the Bonus, may pass holding 13T


def test_rod_needs_a_meld_on_the_table():
    game, state = setup(["Rod 5P", "6G 7G", "2T 3T"])
    assert "use Rod" not in legal_names(game, state)
    assert game.illegal_reason(state, game.actions.ids["use Rod"]) is not None


def test_gift_of_fate_ends_the_trick_and_hands_the_lead():
    game, state = setup(["5P 6P 2G", "Gift 7G 8G", "2T 3T 4T"])
    act(game, state, "add 5P", "play value 5")
    act(game, state, "Gift to seat +1")
    assert state.turn == state.leader == ZAZ and not state.table
    assert sorted(state.aside) == sorted(parse_cards("5P Gift"))


def test_gift_as_the_last_card_ends_the_round():
    game, state = setup(["5P", "Gift 7G", "2T 3T 4T"], num_rounds=1)
    act(game, state, "add 5P", "play value 5")
    assert state.over  # Blathers went out with his 5
    game, state = setup(["5P 6P", "Gift", "2T 3T 4T"], num_rounds=1)
    act(game, state, "add 5P", "play value 5", "Gift to seat +1")
    assert state.over and state.round_scores == [[6 - 1, 0, 2 - 3]]


def test_gift_may_be_used_when_leading():
    game, state = setup(["Gift 5P 6P", "7G 8G 9G", "2T 3T 4T"])
    act(game, state, "Gift to seat +2")
    assert state.turn == ZAZ


def test_cauldron_moves_one_card_one_value():
    game, state = setup(["5P Cauldron 2G", "5G 6G 9G", "2T 3T 4T"])
    act(game, state, "add 2G", "play value 2", "add 5G", "play value 5", "pass")
    legal = legal_names(game, state)
    assert "add 5P" in legal
    act(game, state, "add 5P", "add Cauldron")
    assert legal_names(game, state) == ["play value 6"]
    assert classify(kinds("4P 5G Cauldron")) == {(MATCH, 4), (MATCH, 5)}
    assert classify(kinds("4P 6P Cauldron")) == {(RUN, 5), (RUN, 6)}
    assert (MATCH, 5) not in classify(kinds("5P 5G Cauldron"))  # it must move a card
    assert classify(kinds("W Cauldron")) == set()


def test_prism_lets_one_card_change_suit_in_a_run():
    assert (RUN, 6) in classify(kinds("4P 5G 6P Prism"))
    assert (RUN, 6) not in classify(kinds("4P 5G 6P"))
    assert classify(kinds("5P 5G Prism")) == set()  # never in a set, and runs need distinct values
    game, state = setup(["4P 5G 6P Prism 2G", "7G 8G 9G", "2T 3T 4T"])
    act(game, state, "add 4P", "add 6P", "add 5G", "add Prism", "play run to 6")
    assert state.table[-1].key == (RUN, 3, 12)


def test_half_moon_counts_half_a_value_higher():
    game, state = setup(["5P HalfMoon 2G", "5G 6G 9G", "5T 3T 4T"])
    act(game, state, "add 5P", "add HalfMoon", "play value 5")
    assert state.table[-1].key == (MATCH, 1, 11)
    legal = legal_names(game, state)
    assert "add 6G" in legal and "add 5G" not in legal
    assert beats((MATCH, 1, 11), (MATCH, 1, 10)) and not beats((MATCH, 1, 11), (MATCH, 1, 12))


def test_echo_is_one_more_card_of_a_set():
    assert classify(kinds("7P Echo")) == {(MATCH, 7)}
    assert classify(kinds("Echo")) == set()
    assert meld_key(kinds("7P 7G Echo"), (MATCH, 7)) == (MATCH, 3, 14)
    game, state = setup(["7P Echo 2G", "8G 8T 9G", "2T 3T 4T"])
    act(game, state, "add 7P", "add Echo", "play value 7")
    assert state.table[-1].key == (MATCH, 2, 14)


def test_stepping_stone_fills_a_run():
    assert classify(kinds("4P 6P Stone")) == {(RUN, 6)}
    assert classify(kinds("4P Stone")) == {(RUN, 5), (RUN, 4)}
    assert meld_key(kinds("4P 6P Stone"), (RUN, 6)) == (RUN, 3, 12)
    assert classify(kinds("7P 7G Stone")) == set()


def test_lens_shows_a_hand_and_the_looker_acts_again():
    env = make("seers_catalog_v0", num_players=3)
    env.reset(options={"deal": {"hands": ["Lens 5P 6P", "7G 8G 9G", "2T 3T 4T"], "leader": 0}})
    game, state = env.game, env.game_state
    env.step(game.actions.ids["Lens on seat +2"])
    assert env.agent_selection == "player_0" and LENS in state.aside
    views = env.encoding.spec.views(env.observe("player_0")["observation"])
    assert views["known"][1].sum() == 3 and views["known"][0].sum() == 0
    other = env.encoding.spec.views(env.observe("player_1")["observation"])
    assert other["known"].sum() == 0  # what the looker saw stays private
    assert "known 2T 3T 4T" in game.render_seat(state, 0)
    redrawn = game.resample_hidden(state, 0, np.random.default_rng(5))
    assert redrawn.hands[ZAZ] == state.hands[ZAZ]  # what the Lens showed stays put
    assert np.array_equal(env.encoding.observe(redrawn, 0), env.encoding.observe(state, 0))
    env.step(game.actions.ids["add 5P"])
    env.step(game.actions.ids["play value 5"])
    env.step(game.actions.ids["add 7G"])
    env.step(game.actions.ids["play value 7"])
    env.step(game.actions.ids["pass"])  # Zaz passes holding nothing higher
    views = env.encoding.spec.views(env.observe("player_0")["observation"])
    assert views["known"][1].sum() == 3  # still in Zaz's hand, still known


def test_lens_as_the_last_card_ends_the_round():
    game, state = setup(["Lens", "7G 8G 9G", "2T 3T 4T"], num_rounds=1)
    act(game, state, "Lens on seat +1")
    assert state.over and state.totals[0] == 0


# -- options ----------------------------------------------------------------------------------
def test_artifact_pool_option():
    pool = ["Go First", "Crown", "Echo", "Lens"]
    game = SeersCatalogGame(2, artifact_pool=pool)
    state = game.new_game(np.random.default_rng(0))
    held = sorted(c for hand in state.hands for c in hand if c >= ARTIFACT_BASE)
    assert [ARTIFACTS[c - ARTIFACT_BASE] for c in held] == pool
    for bad in (
        ["Crown", "Echo", "Lens", "Prism"],
        ["Go First", "Crown", "Nope", "Echo"],
        ["Go First", "Crown", "Echo"],
        "Go First",
        ["Go First"] * 4,
    ):
        with pytest.raises(ValueError, match="artifact_pool"):
            SeersCatalogGame(2, artifact_pool=bad)
    with pytest.raises(ValueError, match="num_rounds"):
        make("seers_catalog_v0", num_rounds=0)


def test_ties_go_to_the_final_round_then_are_shared():
    game, state = setup(["2P", "8P 9P", "2G 2T 3P 6P 6G 10T"], num_rounds=1)
    act(game, state, "add 2P", "play value 2")
    state.totals, state.round_scores = [5, 5, 1], [[0, 3, 1], [5, 2, 0]]
    assert game.winners(state) == [0]
    state.round_scores[-1] = [5, 5, 0]
    assert game.winners(state) == [0, 1]


# -- information ------------------------------------------------------------------------------
def test_removed_cards_and_face_down_artifacts_are_hidden():
    env = make("seers_catalog_v0", num_players=2)
    env.reset(seed=7)
    game, state = env.game, env.game_state
    rng = np.random.default_rng(0)
    removed_moved = artifacts_moved = False
    for _ in range(20):
        other = game.resample_hidden(state, 0, rng)
        removed_moved |= other.removed != state.removed
        artifacts_moved |= other.hands[1] != state.hands[1] and [
            c for c in other.hands[1] if c >= ARTIFACT_BASE
        ] != [c for c in state.hands[1] if c >= ARTIFACT_BASE]
        assert np.array_equal(env.encoding.observe(other, 0), env.encoding.observe(state, 0))
    assert removed_moved and artifacts_moved


def seat_views(env, seat: int) -> dict[str, np.ndarray]:
    return env.encoding.spec.views(env.encoding.observe(env.game_state, seat))


def test_a_lens_use_and_a_crown_are_public_to_every_seat():
    """Seat 1 uses the Lens on seat 3, then leads the Crown: every seat sees who looked at
    whom and who played which artifact (seat-relative), never what the Lens showed."""
    env = make("seers_catalog_v0", num_players=4, num_rounds=2)
    hands = [
        "2P 3P 4P 5P 6P 7P",
        "Lens Crown 2G 3G 4G 5G",
        "2T 3T 4T 5T 6T 7T",
        "2A 3A 4A 5A 6A 7A",
    ]
    env.reset(options={"deal": {"hands": hands, "leader": 1}})
    ids = env.game.actions.ids
    env.step(ids["Lens on seat +2"])
    env.step(ids["add Crown"])
    env.step(ids["play artifact single"])
    lens_col, crown_col = LENS - ARTIFACT_BASE, parse_cards("Crown")[0] - ARTIFACT_BASE
    for seat in range(4):
        views = seat_views(env, seat)
        user, target = (1 - seat) % 4, (3 - seat) % 4
        looks = np.zeros((4, 4))
        looks[user, target] = 1
        assert np.array_equal(views["lens_looks"], looks), seat
        played = np.zeros((4, 10))
        played[user, [lens_col, crown_col]] = 1
        assert np.array_equal(views["artifacts_played"], played), seat
        assert views["trick_melds"][user] == 1 and views["trick_melds"].sum() == 1
        assert views["trick_cards"][user][KIND[parse_cards("Crown")[0]]] == 1
        if seat != 1:
            assert not views["known"].any()  # what the Lens showed stays the looker's
    assert seat_views(env, 1)["known"][1].sum() == 6  # seat 3 is relative seat 2, row 1
    assert "Lens looks this round: player_1 on player_3" in env.game.render_seat(env.game_state, 2)
    redrawn = env.game.resample_hidden(env.game_state, 2, np.random.default_rng(0))
    assert np.array_equal(env.encoding.observe(redrawn, 2), env.encoding.observe(env.game_state, 2))
    for _ in range(3):
        env.step(ids["pass"])  # nothing beats the Crown: the trick ends, the history stays
    views = seat_views(env, 2)
    assert not views["trick_melds"].any() and not views["trick_cards"].any()
    assert views["lens_looks"][3, 1] == 1 and views["artifacts_played"][3].sum() == 2
    for name in ("add 2G", "add 3G", "add 4G", "add 5G", "play run to 5"):
        env.step(ids[name])  # seat 1 goes out: round 2 starts with no history
    views = seat_views(env, 2)
    assert views["round"][1] == 1 and not views["lens_looks"].any()
    assert not views["artifacts_played"].any()


def test_earlier_melds_of_the_trick_and_a_replayed_artifact_show_under_their_seats():
    """Seat 0 plays 5P + Half Moon, seat 1 a 6G: both melds show under their seats (not only
    the top one). Seat 0 takes them back with the Rod and plays the Half Moon again: 2."""
    game, state = setup(
        ["5P HalfMoon Rod 2G 3G 4G 8G", "6G 9T 10T 11T 12T 13T", "2T 3T 4T 5T 6T 7T"]
    )
    encoding = make("seers_catalog_v0", num_players=3).encoding
    half = parse_cards("HalfMoon")[0]

    def views(seat):
        return encoding.spec.views(encoding.observe(state, seat))

    act(game, state, "add 5P", "add HalfMoon", "play value 5", "add 6G", "play value 6")
    seen = views(ZAZ)  # Blathers is relative seat 1, Longclaw 2
    assert list(seen["trick_melds"]) == [0, 1, 1] and list(seen["top_owner"]) == [0, 0, 1]
    assert seen["trick_cards"][1][KIND[parse_cards("5P")[0]]] == 1
    assert seen["trick_cards"][1][KIND[half]] == 1 and seen["trick_cards"][2].sum() == 1
    assert np.array_equal(seen["trick_cards"].sum(0), seen["table"])
    assert seen["artifacts_played"][1][half - ARTIFACT_BASE] == 1
    act(game, state, "pass", "use Rod", "add 5P", "add HalfMoon", "play value 5")
    seen = views(LONGCLAW)  # Blathers is relative seat 2
    assert seen["artifacts_played"][2][half - ARTIFACT_BASE] == 2
    assert seen["artifacts_played"][2][ROD - ARTIFACT_BASE] == 1
    assert list(seen["trick_melds"]) == [0, 0, 1]


@pytest.mark.parametrize("n", [2, 5])
def test_trick_and_history_pieces_agree_with_the_state_in_random_play(n):
    env = make("seers_catalog_v0", num_players=n)
    game, encoding = env.game, env.encoding
    rng = np.random.default_rng(n)
    state = game.new_game(rng)
    while not state.over:
        seat = int(rng.integers(n))
        views = encoding.spec.views(encoding.observe(state, seat))
        assert np.array_equal(views["trick_cards"].sum(0), views["table"])
        assert views["trick_melds"].sum() == len(state.table)
        assert views["artifacts_played"].sum() == len(state.artifacts_played)
        assert views["lens_looks"].sum() == len(state.lens_looks) <= 1
        assert views["artifacts_played"].max() <= 2
        legal = game.legal_actions(state)
        game.apply(state, legal[rng.integers(len(legal))], rng)


def test_illegal_build_step_leaves_the_state_intact():
    env = make("seers_catalog_v0", num_players=3)
    env.reset(options={"deal": {"hands": ["5P 6P 7P 2G", "7G 8G 9G", "2T 3T 4T"], "leader": 0}})
    env.step(env.game.actions.ids["add 5P"])
    before = repr(env.game_state)
    for name in ("add 2G", "pass", "play value 7", "add 5P"):
        with pytest.raises(IllegalActionError):
            env.step(env.game.actions.ids[name])
    assert repr(env.game_state) == before


# -- generator against detector ---------------------------------------------------------------
# plum 2-13, green 2-9, teal 2-3, and every artifact: runs, sets and all the modifiers meet
SAMPLE_KINDS = [*range(0, 12), *range(12, 20), 24, 25, *range(61, 71)]


def brute_force(hand: list[int], top, leading: bool) -> dict[tuple[int, ...], set]:
    """Every sub-multiset of ``hand`` the detector accepts as a meld that may be played now."""
    found: dict[tuple[int, ...], set] = {}
    for size in range(1, len(hand) + 1):
        for cards in set(combinations(hand, size)):
            for finish in classify(cards):
                if valid_on_table(cards, finish, top, leading):
                    found.setdefault(cards, set()).add(finish)
    return found


@settings(max_examples=150, deadline=None)
@given(
    cards=st.sets(st.sampled_from(SAMPLE_KINDS), min_size=1, max_size=7),
    wilds=st.integers(0, 2),
    top=st.one_of(
        st.none(),
        st.tuples(st.sampled_from([MATCH, RUN]), st.integers(2, 4), st.integers(2, 27)),
        st.tuples(st.just(MATCH), st.just(1), st.integers(2, 30)),
    ),
)
def test_generator_and_detector_agree(cards, wilds, top):
    hand = sorted([*cards, *[WILD] * wilds])
    plays = legal_plays(hand, top)
    assert plays == brute_force(hand, top, top is None)
    focused = legal_plays(hand, top, focus=True)
    lowest = {cards: f for cards, f in plays.items() if cards[0] == hand[0]}
    assert {c: f for c, f in focused.items() if c[0] == hand[0]} == lowest


@settings(max_examples=150, deadline=None)
@given(
    cards=st.sets(st.sampled_from([*range(0, 36), *range(61, 71)]), min_size=1, max_size=12),
    wilds=st.integers(0, 3),
    top=st.one_of(st.none(), st.tuples(st.just(MATCH), st.just(1), st.integers(2, 30))),
)
def test_melds_from_a_first_card_are_those_of_the_whole_hand(cards, wilds, top):
    """plays_from looks only at the cards that can join the first (joiners): the melds it
    lists with that lowest kind are exactly the whole hand's."""
    hand = tuple(sorted([*cards, *[WILD] * wilds]))
    plays = legal_plays(hand, top)
    for first in {k for k in hand if k <= WILD}:
        lowest = {c: f for c, f in plays.items() if c[0] == first}
        found = plays_from(hand, first, top)
        assert {c: f for c, f in found.items() if c[0] == first} == lowest


def test_kinds_table_is_consistent():
    assert len(set(KIND)) == NUM_KINDS and KIND[WILD_BASE + 4] == WILD


# -- whole games ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_mask_is_exact_at_every_step(n, seed):
    """Mask == detector for every id at every step (the generic test samples every 7th),
    cards conserved, a never-empty mask, and the game-length bound."""
    game = SeersCatalogGame(n)
    rng = np.random.default_rng(seed)
    state = game.new_game(rng)
    steps = 0
    while not game.is_over(state):
        game.check_invariants(state)
        legal = game.legal_actions(state)
        assert legal
        if steps < 120:
            detector = [
                a for a in range(game.actions.size) if game.illegal_reason(state, a) is None
            ]
            assert detector == legal, [game.actions.names[a] for a in set(detector) ^ set(legal)]
        game.apply(state, legal[rng.integers(len(legal))], rng)
        steps += 1
    assert steps <= game.max_steps and len(state.round_scores) == game.num_rounds


def heuristic_win_rate(n: int, games: int) -> float:
    return win_share("seers_catalog_v0", n, "heuristic", games=games)


def test_heuristic_beats_random():
    assert heuristic_win_rate(4, 16) > 0.5  # fair share 0.25; measured about 0.87


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_heuristic_beats_random_at_every_count(n):
    assert heuristic_win_rate(n, 100) > min(0.9, 2 / n)


def test_encode_into_views_of_a_batch_row_matches_observe():
    env = make("seers_catalog_v0", num_players=4)
    env.reset(seed=2)
    batch = np.zeros((3, env.encoding.spec.size), np.float32)
    env.encoding.encode(env.game_state, 1, env.encoding.spec.views(batch[1]))
    assert np.array_equal(batch[1], env.encoding.observe(env.game_state, 1))
    assert not batch[0].any() and not batch[2].any()


# -- the docs page ----------------------------------------------------------------------------
DOC = Path(__file__).resolve().parents[1] / "docs" / "seers_catalog.md"


def test_docs_action_example_ids():
    ids = SeersCatalogGame(4).actions.ids
    assert [ids[n] for n in ("add 7P", "add wild", "play value 7", "add HalfMoon")] == [
        6,
        61,
        74,
        66,
    ]
    assert "`add 7P` (id 6), `add wild` (61), `play value 7` (74)" in DOC.read_text().replace(
        "\n", " "
    )


def test_injected_hands_may_be_lists_of_names():
    """The docs promise hands "as card strings or codes": a list of names works too."""
    game = SeersCatalogGame(3)
    as_text = game.new_game(np.random.default_rng(0), {"hands": ["5P W GoFirst", "6G", "7T"]})
    as_list = game.new_game(
        np.random.default_rng(0), {"hands": [["5P", "W", "GoFirst"], ["6G"], ["7T"]]}
    )
    assert as_list.hands == as_text.hands


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_rule_violation_answers_for_the_rules_behind_the_shared_checks(num_players):
    """The base's ``illegal_reason`` makes the shared checks and decodes ids through the
    ``ActionSpec``; the game's ``rule_violation`` answers for its own rules, with the same
    words, at every step of a game (issue 17)."""
    assert "illegal_reason" not in vars(SeersCatalogGame)
    game = SeersCatalogGame(num_players, num_rounds=1)
    state = game.new_game(np.random.default_rng(5))
    assert game.rule_violation(state, "play_value", 0) == "add the meld's cards before playing it"
    rng = np.random.default_rng(6)
    for _ in range(400):
        if game.is_over(state):
            break
        legal = game.legal_actions(state)
        for action in range(game.actions.size):
            reason = game.rule_violation(state, *game.actions.decode(action))
            assert reason == game.illegal_reason(state, action)
            assert (reason is None) == (action in legal)
        game.apply(state, legal[rng.integers(len(legal))], rng)


def test_the_text_module_does_not_import_the_game():
    """``text`` depends on the state, melds and cards; ``game`` on ``text``, never back."""
    from card_envs.seers_catalog.rules import text

    tree = ast.parse(Path(text.__file__).read_text())
    imported = [
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    ]
    assert not [m for m in imported if m.endswith("rules.game")]


def test_a_new_round_is_exactly_a_fresh_deal():
    """Every field of the state is the next round's deal once a round ends (the round start
    assigns each field by name; a field it forgot would keep the old round's value), but the
    chance log, which holds the whole game's deals."""
    game = SeersCatalogGame(3, num_rounds=2)
    state = game.new_game(np.random.default_rng(7))
    choose, deal_rng = np.random.default_rng(8), np.random.default_rng(9)
    while state.round == 0:
        legal = game.legal_actions(state)
        before = copy.deepcopy(deal_rng)
        game.apply(state, legal[choose.integers(len(legal))], deal_rng)
    fresh = game._start(1, game._shuffle_and_deal(before), None, state.totals, state.round_scores)
    fresh.chance = state.chance  # the game's chance log goes on across rounds
    assert state == fresh
    assert [len(scores) for scores in state.round_scores] == [3]


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_rewards_stay_in_the_range_the_metadata_declares(reward_mode):
    """``metadata`` names the version and each reward mode's range (issue 17)."""
    metadata = seers_catalog_v0.metadata
    assert metadata["version"] == 0
    low, high = metadata["reward_range" if reward_mode == "win" else "score_reward_range"]
    rewards: list[float] = []
    for seed in range(3):
        env = seers_catalog_v0.env(reward_mode=reward_mode)
        env.reset(seed=seed)
        for action in random_steps(env, seed):
            env.step(action)
            rewards += env.rewards.values()
    assert low <= min(rewards) < 0 < max(rewards) <= high


# -- chance as data: every round's hands scripted in deal["chance"]["deal"] ---------------------
# Two seers: 3 suits of 2-10, 3 suited cards removed face down, Go First and 3 other artifacts.
ROUND_A = [
    "2P 3P 4P 5P 6P 7P 8P 9P 10P 2G 3G 4G W Crown Lens",
    "5G 6G 7G 8G 9G 10G 2T 3T 4T 5T 6T 7T W GoFirst Rod",
]  # 8T 9T 10T removed; Gift, Cauldron, Prism, HalfMoon, Echo and Stone undealt
ROUND_B = ROUND_A[::-1]


def codes(hands: list[str]) -> list[list[int]]:
    """A round's hands as the game logs them: ascending codes, one wild code per seat."""
    return [
        sorted(code + seat if code == WILD_BASE else code for code in parse_cards(hand))
        for seat, hand in enumerate(hands)
    ]


def test_a_scripted_second_round_is_dealt_as_written_and_draws_nothing():
    """Round 2's hands are scripted: the suited cards in neither hand are the 3 removed, the
    artifacts in neither undealt, and the Go First holder leads; the generator is not used."""
    game = SeersCatalogGame(2, num_rounds=2)
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    state = game.new_game(rng, {"chance": {"deal": [ROUND_B, ROUND_A]}})
    assert state.hands == codes(ROUND_B) and state.leader == 0
    choose = np.random.default_rng(6)
    while state.round == 0:
        legal = game.legal_actions(state)
        game.apply(state, legal[choose.integers(len(legal))], rng)
    assert state.hands == codes(ROUND_A)
    assert state.removed == parse_cards("8T 9T 10T")
    assert state.undealt == parse_cards("Gift Cauldron Prism HalfMoon Echo Stone")
    assert state.leader == state.turn == 1 and state.known[0][1] == 1 << GO_FIRST
    game.check_invariants(state)
    assert rng.bit_generator.state == before  # every deal came from the script
    assert game.deal_record(state) == {"chance": {"deal": [codes(ROUND_B), codes(ROUND_A)]}}


def test_a_malformed_scripted_round_is_a_clear_error_before_anything_is_dealt():
    game = SeersCatalogGame(2)
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    foreign = [ROUND_A[0], ROUND_A[1].replace("7T", "13T")]  # the 2-seer deck stops at 10
    with pytest.raises(
        ValueError, match=r"deal\['chance'\]\['deal'\]\[1\]\[1\] holds 13T, not in this game's"
    ):
        game.new_game(rng, {"chance": {"deal": [ROUND_A, foreign]}})
    with pytest.raises(ValueError, match=r"deal\['chance'\]\['deal'\]\[0\] must be a list of 2"):
        game.new_game(rng, {"chance": {"deal": [ROUND_A[0]]}})
    with pytest.raises(ValueError, match=r"deal\['chance'\]\['deal'\]\[0\] holds 5G twice"):
        game.new_game(rng, {"chance": {"deal": [[ROUND_A[0] + " 5G", ROUND_A[1]]]}})
    with pytest.raises(ValueError, match="already gives"):
        game.new_game(rng, {"hands": ROUND_A, "chance": {"deal": [ROUND_B]}})
    with pytest.raises(ValueError, match="unknown events"):
        game.new_game(rng, {"chance": {"round": [ROUND_A]}})
    assert rng.bit_generator.state == before


def test_hand_written_hands_are_the_first_deal_of_the_record():
    """A hand-written round 1 is logged as the first ``deal``; its leader, not a chance
    outcome, comes back as the record's ``leader`` and replays with any seed."""
    game = SeersCatalogGame(2)
    state = game.new_game(np.random.default_rng(1), {"hands": ROUND_A, "leader": 0})
    record = game.deal_record(state)
    assert record == {"leader": 0, "chance": {"deal": [codes(ROUND_A)]}}
    replay = game.new_game(np.random.default_rng(2), record)
    replay.chance.script = {}  # the replay's script is used up; the rest is the same game
    assert replay == state and replay.leader == 0


def test_resampled_states_carry_no_chance_log_or_script():
    """The log holds the true hands and the script the future deals: neither is the
    observer's."""
    game = SeersCatalogGame(2)
    state = game.new_game(np.random.default_rng(0), {"chance": {"deal": [ROUND_A, ROUND_B]}})
    resampled = game.resample_hidden(state, 0, np.random.default_rng(0))
    assert resampled.chance.log == {} and resampled.chance.script == {}
    assert state.chance.script["deal"] == [codes(ROUND_B)]  # the original keeps its script
