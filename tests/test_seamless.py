"""Seamless rules: every rulebook example, the rulings, and scripted deals."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_steps

from card_envs import seamless_v0
from card_envs.core.cards import card_name, parse_card, parse_cards
from card_envs.core.errors import IllegalActionError
from card_envs.seamless.rules import (
    ACTIONS,
    CLAIM,
    RowScore,
    SeamlessGame,
    SeamlessState,
    score_row,
)
from card_envs.seamless.rules.cards import EMPTY, trick_winner_index

RNG = np.random.default_rng(0)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def row_of(text: str) -> list[int]:
    """A 13-slot row from card names, e.g. ``"2H 3H 4H"``."""
    row = [EMPTY] * 13
    for code in parse_cards(text):
        row[code % 13] = code // 13
    return row


def deal_from(hands_text: list[str], trump_card: str, dealer: int = 0) -> dict:
    return {
        "hands": [parse_cards(h) for h in hands_text],
        "trump_card": parse_card(trump_card),
        "dealer": dealer,
    }


# Every card once: seat 0 has all clubs, seat 1 diamonds, seat 2 hearts, seat 3 spades.
BY_SUIT = [" ".join(card_name(suit * 13 + rank) for rank in range(13)) for suit in range(4)]


def mixed_deal() -> list[str]:
    """Seat p holds every card whose code % 4 == p: every seat has every suit; J♠ is seat 0's."""
    return [" ".join(card_name(c) for c in range(p, 52, 4)) for p in range(4)]


# -- the rulebook's worked examples -----------------------------------------------------------


def test_claim_example_trump_king_wins_and_any_card_may_be_claimed():
    """Trick 2♦ 9♦ J♣ K♦ with ♦ trump: K♦ wins; the winner may claim any of the four."""
    trick = parse_cards("2D 9D JC KD")
    assert trick_winner_index(trick, DIAMONDS) == 3
    game = SeamlessGame()
    state = _claim_state(game, trick, winner_row="")
    assert game.legal_actions(state) == sorted(ACTIONS.encode("claim", c) for c in trick)


def test_claim_example_place_when_rank_is_new():
    game = SeamlessGame()
    state = _claim_state(game, parse_cards("2D 9D JC KD"), winner_row="")
    game.apply(state, ACTIONS.encode("claim", parse_card("JC")), RNG)
    assert state.rows[0] == row_of("JC")
    assert sorted(state.discard) == sorted(parse_cards("2D 9D KD"))


def test_claim_example_replace_swaps_suit_and_discards_old_card():
    """Holding J♥, the winner may Replace it with J♣ to chase a club suit run."""
    game = SeamlessGame()
    state = _claim_state(game, parse_cards("2D 9D JC KD"), winner_row="JH")
    game.apply(state, ACTIONS.encode("claim", parse_card("JC")), RNG)
    assert state.rows[0] == row_of("JC")
    assert parse_card("JH") in state.discard


def test_claim_is_mandatory_even_when_every_rank_is_owned():
    game = SeamlessGame()
    state = _claim_state(game, parse_cards("2D 9D JC KD"), winner_row="2H 9H JH KH")
    legal = game.legal_actions(state)
    assert len(legal) == 4 and all(ACTIONS.decode(a)[0] == "claim" for a in legal)
    assert game.illegal_reason(state, parse_card("AS")) is not None  # no playing instead


def test_scoring_example_follows_the_definition_not_the_printed_total():
    """Row 2♥3♥4♥ 6♦7♦ 10♠ K♦A♦: the rulebook prints 11 (counting 6-7 as a run) but its own
    definition needs 3 ranks, so 6-7 and K-A are not runs: 8 + 1 + 1 = 10 (the ruling)."""
    result = score_row(row_of("2H 3H 4H 6D 7D 10S KD AD"))
    assert (result.cards, result.rank_runs, result.suit_runs) == (8, 1, 1)
    assert result.points == 10
    # The book's reading (2-card blocks as runs) would also count K-A, giving 12, not 11:
    # the printed example is inconsistent under either reading.
    assert result.points != 11


def test_cap_example_four_rank_runs_score_three():
    row = row_of("2C 3D 4H 6C 7D 8H 10C JD QH")  # three rank runs, no suit runs
    assert score_row(row).rank_runs == 3
    four = RowScore(cards=12, rank_runs=4, suit_runs=4)
    assert four.points == 12 + 3 + 3


def test_cap_example_four_separate_suit_runs_still_cap_at_three():
    # 2-4♥, 5-7♠, 8-10♦, Q-A♣: two rank runs (2..10 and Q..A), four suit runs
    result = score_row(row_of("2H 3H 4H 5S 6S 7S 8D 9D 10D QC KC AC"))
    assert (result.rank_runs, result.suit_runs) == (2, 4)
    assert result.points == 12 + 2 + 3


def test_counting_notes_one_long_block_counts_once():
    result = score_row(row_of("2H 3H 4H 5H 6H"))
    assert (result.rank_runs, result.suit_runs, result.points) == (1, 1, 7)
    mixed = score_row(row_of("2H 3H 4H 5S 6S 7S"))
    assert (mixed.rank_runs, mixed.suit_runs) == (1, 2)


def test_separate_blocks_are_split_by_a_missing_rank():
    result = score_row(row_of("2C 3C 4C 6C 7C 8C"))
    assert (result.rank_runs, result.suit_runs) == (2, 2)


def test_no_wrap_from_ace_to_two():
    assert score_row(row_of("KC AC 2C")).rank_runs == 0


# -- tricks -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        ("5H AH 2S 3H", SPADES, 2),  # a low trump beats the led ace
        ("5H AH KS AS", SPADES, 3),  # highest trump
        ("5H 9H AC 3H", SPADES, 1),  # off-suit ace does not win
        ("AD 2D 3D 4D", CLUBS, 0),  # aces high
    ],
)
def test_trick_winner(trick, trump, winner):
    assert trick_winner_index(parse_cards(trick), trump) == winner


def test_follow_suit_when_able_else_anything():
    game = SeamlessGame()
    env = _env_with(mixed_deal(), "JS")
    state = env.game_state
    leader = state.leader
    lead = next(c for c in state.hands[leader] if c // 13 != state.trump)
    env.step(lead)
    follower = game.current_player(state)
    hand = state.hands[follower]
    same = [c for c in hand if c // 13 == lead // 13]
    legal = game.legal_actions(state)
    assert legal == (same or hand)
    off_suit = next((c for c in hand if c // 13 != lead // 13), None)
    if same and off_suit is not None:
        with pytest.raises(IllegalActionError, match="follow the led suit"):
            env.step(off_suit)


def test_trick_one_trump_lead_ruling_and_option():
    hands = [
        "2C 3C 4C 5C 6C 7C 8C 2S 3S 4S 5S 6S 7S",  # seat 0, dealer: clubs and spades
        "2D 3D 4D 5D 6D 7D 8D 9D 10D JD 8S 9S 10S",  # seat 1 leads: void in clubs and hearts
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
        "9C 10C JC QC KC AC QD KD AD JS QS KS AS",
    ]
    ruling = SeamlessGame()
    state = ruling.new_game(RNG, deal_from(hands, "2S"))
    assert state.trump == SPADES and state.leader == 1
    assert parse_card("8S") not in ruling.legal_actions(state)
    assert "trick 1" in ruling.illegal_reason(state, parse_card("8S"))
    option = SeamlessGame(trick_one_trump_lead="void_in_a_suit")
    state = option.new_game(RNG, deal_from(hands, "2S"))
    assert parse_card("8S") in option.legal_actions(state)


def test_all_trump_hand_may_lead_trump_on_trick_one():
    """Under the ruling only a hand of nothing but trump may lead it on trick 1."""
    game = SeamlessGame()
    state = _play_state(game, "2S 3S", leader=0, trick_number=0, trump=SPADES)
    assert game.legal_actions(state) == parse_cards("2S 3S")
    state = _play_state(game, "2S 3S 4H", leader=0, trick_number=0, trump=SPADES)
    assert game.legal_actions(state) == parse_cards("4H")


def test_trump_may_be_led_after_trick_one():
    game = SeamlessGame()
    state = _play_state(game, "2C 3S", leader=0, trick_number=1, trump=SPADES)
    assert parse_card("3S") in game.legal_actions(state)


# -- deal, dealer, trump card ----------------------------------------------------------------


def test_random_deal_trump_is_dealers_last_card_and_public_until_played():
    env = seamless_v0.env()
    env.reset(seed=7)
    state = env.game_state
    assert state.dealer == 0 and state.leader == 1
    assert state.trump_card in state.hands[0]
    assert state.trump == state.trump_card // 13
    for seat in range(4):
        obs = env.encoding.spec.views(env.encoding.observe(state, seat))
        assert obs["trump_card"][state.trump_card] == 1
        assert obs["trump_suit"][state.trump] == 1


def test_dealer_rotates_and_rows_clear_each_round():
    env = seamless_v0.env()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    dealers = [env.game_state.dealer]
    while not env.game.is_over(env.game_state):
        legal = env.game.legal_actions(env.game_state)
        round_before = env.game_state.round
        env.step(legal[rng.integers(len(legal))])
        if env.game_state.round != round_before and not env.game.is_over(env.game_state):
            dealers.append(env.game_state.dealer)
            assert all(s == EMPTY for row in env.game_state.rows for s in row)
            assert env.game_state.leader == (env.game_state.dealer + 1) % 4
    assert dealers == [i % 4 for i in range(len(dealers))]


def test_injected_deal_is_validated():
    game = SeamlessGame()
    bad = deal_from(BY_SUIT, "2D", dealer=0)  # trump card not in the dealer's hand
    with pytest.raises(ValueError, match="dealer's hand"):
        game.new_game(RNG, bad)
    short = {"hands": [parse_cards(h)[:12] for h in BY_SUIT], "trump_card": 0}
    with pytest.raises(ValueError, match="13"):
        game.new_game(RNG, short)
    with pytest.raises(TypeError, match="dict"):
        game.new_game(RNG, [1, 2, 3])


# -- end of game and tie-breakers ------------------------------------------------------------


def test_game_ends_after_a_round_reaching_fifteen():
    game = SeamlessGame()
    state = _last_claim_state(game, totals=[14, 0, 0, 0], round_index=0)
    game.apply(state, game.legal_actions(state)[0], RNG)
    assert state.over and max(state.totals) >= 15
    assert game.winners(state) == [0]


def test_game_goes_on_below_fifteen_and_ends_after_round_five():
    game = SeamlessGame()
    state = _last_claim_state(game, totals=[0, 0, 0, 0], round_index=3)
    game.apply(state, game.legal_actions(state)[0], RNG)
    assert not state.over and state.round == 4 and state.dealer == 0
    state = _last_claim_state(game, totals=[0, 0, 0, 0], round_index=4)
    game.apply(state, game.legal_actions(state)[0], RNG)
    assert state.over


@pytest.mark.parametrize(
    ("final", "dealer", "winner"),
    [
        ([RowScore(5, 2, 0), RowScore(5, 1, 1), RowScore(0), RowScore(0)], 0, 0),  # rank runs
        ([RowScore(5, 1, 0), RowScore(5, 1, 1), RowScore(0), RowScore(0)], 0, 1),  # suit runs
        ([RowScore(6, 1, 1), RowScore(5, 1, 1), RowScore(0), RowScore(0)], 0, 0),  # cards
        ([RowScore(5, 1, 1), RowScore(5, 1, 1), RowScore(0), RowScore(0)], 0, 1),  # after dealer
        ([RowScore(5, 1, 1), RowScore(5, 1, 1), RowScore(0), RowScore(0)], 1, 0),  # seat 2,3,0..
    ],
)
def test_tie_breakers(final, dealer, winner):
    game = SeamlessGame()
    state = _play_state(game, "2C", leader=0, trick_number=0, trump=SPADES)
    state.totals, state.last_round, state.dealer, state.over = [20, 20, 3, 3], final, dealer, True
    assert game.winners(state) == [winner]


def test_win_rewards_are_zero_sum():
    env = seamless_v0.env()
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while env.agents and not env.terminations[env.agent_selection]:
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    winner = env.game.winners(env.game_state)[0]
    rewards = env._cumulative_rewards
    assert rewards[f"player_{winner}"] == 1.0
    assert sum(rewards.values()) == pytest.approx(0.0)


# -- observation ------------------------------------------------------------------------------


def test_observation_shows_my_hand_rows_and_claim_flag_but_not_other_hands():
    game = SeamlessGame()
    env = seamless_v0.env()
    state = _claim_state(game, parse_cards("2D 9D JC KD"), winner_row="JH")
    env.reset(seed=0)
    env.game_state = state
    views = env.encoding.spec.views(env.encoding.observe(state, 0))
    assert views["claiming"][0] == 1
    assert views["rows"][0, parse_card("JH")] == 1
    assert views["trick"].sum() == 4
    other = env.encoding.spec.views(env.encoding.observe(state, 1))
    assert other["claiming"][0] == 0
    assert other["rows"][3, parse_card("JH")] == 1  # seat 0 is seat 1's relative seat 3
    assert np.array_equal(views["hand"].nonzero()[0], sorted(state.hands[0]))


# -- helpers ----------------------------------------------------------------------------------


def _env_with(hands: list[str], trump_card: str, dealer: int = 0):
    env = seamless_v0.env()
    env.reset(seed=0, options={"deal": deal_from(hands, trump_card, dealer)})
    return env


def _claim_state(game: SeamlessGame, trick: list[int], winner_row: str) -> SeamlessState:
    """Seat 0 has won ``trick`` (led by seat 0) and must claim; other cards spread over hands."""
    rest = [c for c in range(52) if c not in trick and c not in parse_cards(winner_row)]
    hands = [rest[i::4][:12] for i in range(4)]
    state = SeamlessState(
        round=0,
        dealer=3,
        trump=DIAMONDS,
        trump_card=EMPTY,
        hands=hands,
        rows=[row_of(winner_row), *[[EMPTY] * 13 for _ in range(3)]],
        leader=0,
        trick=list(trick),
        trick_number=1,
        phase=CLAIM,
        winner=0,
        totals=[0] * 4,
    )
    return state


def _play_state(game, hand: str, leader: int, trick_number: int, trump: int) -> SeamlessState:
    return SeamlessState(
        round=0,
        dealer=(leader - 1) % 4,
        trump=trump,
        trump_card=EMPTY,
        hands=[parse_cards(hand) if p == leader else [] for p in range(4)],
        rows=[[EMPTY] * 13 for _ in range(4)],
        leader=leader,
        trick_number=trick_number,
        totals=[0] * 4,
    )


def _last_claim_state(game, totals: list[int], round_index: int) -> SeamlessState:
    """The claim of trick 13 of a round, seat 0 winning, with the given totals."""
    state = _claim_state(game, parse_cards("2D 9D JC KD"), winner_row="")
    state.hands = [[] for _ in range(4)]
    state.discard = [c for c in range(52) if c not in parse_cards("2D 9D JC KD")]
    state.trick_number = 12
    state.totals = list(totals)
    state.round = round_index
    state.dealer = round_index % 4
    return state


def test_injected_dealer_must_be_a_seat():
    deal = deal_from(BY_SUIT, "2C", dealer=0)
    deal["dealer"] = 5
    with pytest.raises(ValueError, match="dealer"):
        SeamlessGame().new_game(RNG, deal)


@pytest.mark.parametrize(("rounds", "target", "bound"), [(5, 15, 33), (40, 1000, 760), (1, 15, 19)])
def test_totals_bound_follows_the_options(rounds, target, bound):
    """The observation space must contain every reachable total, whatever the options."""
    env = seamless_v0.env(max_rounds=rounds, target_score=target)
    assert env.game.max_total == bound
    space = env.observation_space("player_0")["observation"]
    assert space.high[env.encoding.spec.offsets["totals"]] == bound


# -- the package layout shared by every game ----------------------------------------------------


def test_rules_are_a_package_of_the_shared_modules():
    """cards, state, actions, deal, hidden, game and text, like every other game; the player
    count is declared once, on the game class."""
    from card_envs.seamless.rules import actions, cards, deal, game, hidden, state, text  # noqa: F401

    assert SeamlessGame.player_counts == (SeamlessGame.default_players,) == (4,)
    assert not hasattr(game, "NUM_PLAYERS") and not hasattr(game, "CLAIM_BASE")


def test_illegal_reason_is_the_shared_check_then_the_rules():
    """The shared checks (game over, id range) live in the base class; the game's own
    ``rule_violation`` names what breaks the rules."""
    assert "illegal_reason" not in SeamlessGame.__dict__
    game = SeamlessGame()
    state = game.new_game(np.random.default_rng(3))
    assert game.illegal_reason(state, ACTIONS.size) == f"no such action (ids 0..{ACTIONS.size - 1})"
    card = state.hands[state.leader][0]
    assert game.rule_violation(state, "claim", card) == "no trick to claim from: play a card"
    assert game.illegal_reason(state, ACTIONS.encode("claim", card)) == (
        "no trick to claim from: play a card"
    )
    state.over = True
    assert game.illegal_reason(state, ACTIONS.encode("play", card)) == "the game is over"


def test_next_round_keeps_totals_and_clears_the_round():
    """A round start sets the round's fields and keeps the totals and last round's scores."""
    game = SeamlessGame()
    state = _last_claim_state(game, totals=[3, 0, 0, 0], round_index=0)
    totals = state.totals
    game.apply(state, ACTIONS.encode("claim", parse_card("JC")), RNG)
    assert state.round == 1 and state.totals is totals and totals == [4, 0, 0, 0]
    assert state.last_round[0].cards == 1 and state.trick_number == 0
    assert state.played == state.discard == state.trick == [] and state.phase != CLAIM
    assert [len(hand) for hand in state.hands] == [13] * 4
    assert state.rows == [[EMPTY] * 13 for _ in range(4)] and state.dealer == 1


def test_metadata_declares_version_and_reward_ranges():
    """The version is the ``_v0``; score-mode rewards stay inside the declared range."""
    metadata = seamless_v0.raw_env.metadata
    assert metadata["version"] == 0 and metadata["reward_range"] == (-1.0, 1.0)
    low, high = metadata["score_reward_range"]
    env = seamless_v0.env(reward_mode="score", max_rounds=2)
    env.reset(seed=5)
    seen = []
    for action in random_steps(env, 5):
        env.step(action)
        seen += env.rewards.values()
    assert low <= min(seen) and max(seen) <= high and max(seen) > 0


# -- chance as data: every round's deal scripted in deal["chance"]["deal"] ---------------------


def round_deal(hands_text: list[str], trump_card: str) -> list:
    """One outcome of the ``deal`` event: the four hands and the dealer's revealed card."""
    return [[parse_cards(h) for h in hands_text], parse_card(trump_card)]


def test_a_scripted_second_round_is_dealt_as_written_and_draws_nothing():
    """Round 2 is dealt by seat 1: script it (seat 1 holds the diamonds) and play round 1 out."""
    first, second = round_deal(mixed_deal(), "2C"), round_deal(BY_SUIT, "5D")
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    game = SeamlessGame(max_rounds=2)
    state = game.new_game(rng, {"chance": {"deal": [first, second]}})
    assert state.hands == first[0] and state.trump == CLUBS and state.dealer == 0
    while state.round == 0:
        game.apply(state, game.legal_actions(state)[0], rng)
    assert state.dealer == 1 and state.trump == DIAMONDS and state.trump_card == parse_card("5D")
    assert state.hands == second[0]
    assert rng.bit_generator.state == before  # every deal came from the script
    assert game.deal_record(state) == {"chance": {"deal": [first, second]}}


def test_a_hand_written_round_one_is_the_first_round_outcome_of_the_record():
    deal = deal_from(BY_SUIT, "2S", dealer=3)
    game = SeamlessGame()
    record = game.deal_record(game.new_game(np.random.default_rng(1), deal))
    assert record["dealer"] == 3
    assert record["chance"]["deal"] == [[deal["hands"], deal["trump_card"]]]
    replayed = game.new_game(np.random.default_rng(2), record)
    assert replayed.hands == game.new_game(np.random.default_rng(3), deal).hands


def test_a_malformed_scripted_round_is_a_clear_error_before_anything_is_dealt():
    game = SeamlessGame()
    first = round_deal(BY_SUIT, "2C")
    wrong_trump = round_deal(mixed_deal(), "2C")  # round 2's dealer is seat 1, 2C is seat 0's
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(
        ValueError,
        match=r"deal\['chance'\]\['deal'\]\[1\]\[1\] must"
        r" be in the dealer's hand \(seat 1\)",
    ):
        game.new_game(rng, {"chance": {"deal": [first, wrong_trump]}})
    with pytest.raises(ValueError, match=r"deal\['chance'\]\['deal'\]\[0\] must be a round's"):
        game.new_game(rng, {"chance": {"deal": [first[0]]}})
    with pytest.raises(
        ValueError, match=r"deal\['chance'\]\['deal'\]\[0\]\[0\]\[0\] must be a list of 13"
    ):
        game.new_game(rng, {"chance": {"deal": [[BY_SUIT, first[1]]]}})
    with pytest.raises(ValueError, match="already give"):
        game.new_game(rng, {**deal_from(BY_SUIT, "2C"), "chance": {"deal": [first]}})
    with pytest.raises(ValueError, match="unknown events"):
        game.new_game(rng, {"chance": {"round": []}})
    assert rng.bit_generator.state == before


def test_resampled_states_carry_no_chance_log_or_script():
    """The log holds the true hands and the script the future deals: neither is the observer's."""
    game = SeamlessGame()
    script = [round_deal(BY_SUIT, "2C"), round_deal(BY_SUIT, "2D")]
    state = game.new_game(RNG, {"chance": {"deal": script}})
    resampled = game.resample_hidden(state, 0, np.random.default_rng(0))
    assert resampled.chance.log == {} and resampled.chance.script == {}
    assert state.chance.script["deal"]  # the original keeps its script
