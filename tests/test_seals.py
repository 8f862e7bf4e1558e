"""Seals rules: the deck, the turn, every series and its blasons, the round counter, game end,
tie rounds, the empty pile, the options, and what each seat may see."""

from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest
from helpers import random_steps
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from card_envs import seals_v0
from card_envs.core.errors import IllegalActionError
from card_envs.seals.rules.cards import (
    COIN,
    COLOUR,
    DECK_SIZE,
    FACE,
    RED,
    SYMBOL,
    card_name,
    parse_cards,
    symbol_counts,
)
from card_envs.seals.rules.game import MAX_BLASONS, ROW_SIZE, SealsGame
from card_envs.seals.rules.series import (
    ANY_FOUR,
    BLASONS,
    COINS,
    KIND,
    MAJOR,
    MINOR,
    NUM_SERIES,
    STRAIGHT,
    best_reveal,
    fits,
    series_for,
)
from card_envs.seals.rules.state import REVEAL, ROUND_COUNTER, TAKE, SealsState

STRAIGHT_MIXED = "R1 Y2 G3 B4 P5 R6 Y7 G8 B9 P10"  # a 1-10 straight in every colour


def start(
    n: int = 2, seed: int = 0, **deal_and_options
) -> tuple[SealsGame, SealsState, np.random.Generator]:
    """A game from an injected deal (keys of ``SealsGame.new_game``) and game options."""
    deal_keys = {"pile", "row", "hands", "blasons", "counter", "starter"}
    deal = {k: v for k, v in deal_and_options.items() if k in deal_keys}
    options = {k: v for k, v in deal_and_options.items() if k not in deal_keys}
    game, rng = SealsGame(n, **options), np.random.default_rng(seed)
    return game, game.new_game(rng, deal), rng


def play(game: SealsGame, state: SealsState, rng: np.random.Generator, *moves: str) -> None:
    """Apply actions by name, checking the mask and the detector agree that each is legal."""
    for move in moves:
        action = game.actions.ids[move]
        assert action in game.legal_actions(state), f"{move} should be legal"
        assert game.illegal_reason(state, action) is None
        game.apply(state, action, rng)
        game.check_invariants(state)


def legal_names(game: SealsGame, state: SealsState) -> list[str]:
    return [game.actions.names[a] for a in game.legal_actions(state)]


def place(state: SealsState, seat: int, hand: str, row: str = "") -> None:
    """Move the named cards into ``seat``'s hand (and make them the row) from anywhere."""
    state.hands[seat].extend(_gather(state, hand))
    if row:
        state.pile[:0] = state.row  # the old face-up cards go to the bottom of the pile
        state.row = _gather(state, row)
    state.symbols = [symbol_counts(h) for h in state.hands]


def _gather(state: SealsState, names: str) -> list[int]:
    """Pull one card of each named face out of the pile, the row or a hand."""
    codes = []
    for name in names.split():
        face = FACE[parse_cards(name)[0]]
        for area in (state.pile, state.row, *state.hands):
            code = next((c for c in area if FACE[c] == face and c not in codes), None)
            if code is not None:
                area.remove(code)
                codes.append(code)
                break
    return codes


def pass_round(game: SealsGame, state: SealsState, rng: np.random.Generator) -> int:
    """Everyone takes the first legal take and shows nothing until the round ends; turns."""
    start_round, turns = state.round, 0
    while state.round == start_round and not state.over:
        game.apply(state, game.legal_actions(state)[0], rng)
        if state.phase == REVEAL:
            game.apply(state, game.actions.ids["end turn"], rng)
        turns += 1
    return turns


# -- the deck ---------------------------------------------------------------------------------


def test_deck_has_57_cards_five_colours_values_and_seven_coins():
    faces = [(COLOUR[c], SYMBOL[c]) for c in range(DECK_SIZE)]
    assert DECK_SIZE == 57
    for colour in range(5):
        symbols = sorted(s for col, s in faces if col == colour)
        extra = [COIN, COIN] if colour == RED else []
        assert symbols == sorted([*range(10), COIN, *extra])
    assert sum(s == COIN for _, s in faces) == 7
    assert all(sum(s == v for _, s in faces) == 5 for v in range(10))


def test_card_names_round_trip_and_red_coins_get_distinct_codes():
    assert [card_name(c) for c in parse_cards("R1 Y10 Bc")] == ["R1", "Y10", "Bc"]
    coins = parse_cards("Rc Rc Rc")
    assert len(set(coins)) == 3 and all(card_name(c) == "Rc" for c in coins)
    with pytest.raises(ValueError, match="no red coin left"):
        parse_cards("Rc Rc Rc Rc")
    with pytest.raises(ValueError, match="not a Seals card"):
        parse_cards("X7")


# -- a turn -----------------------------------------------------------------------------------


def test_row_is_refilled_to_four_from_the_top_of_the_pile():
    _, state, _ = start(pile="B7 B8 B9 G1 G2", row="R1")
    assert [card_name(c) for c in state.row] == ["R1", "B7", "B8", "B9"]
    assert card_name(state.pile[-1]) == "G1"


def test_take_a_colour_takes_every_card_of_it_and_nothing_else():
    game, state, rng = start(row="B1 B7 R7 Yc")
    assert legal_names(game, state) == [
        "take red",
        "take yellow",
        "take blue",
        "take 1s",
        "take 7s",
        "take coins",
    ]
    play(game, state, rng, "take blue")
    assert sorted(card_name(c) for c in state.hands[0]) == ["B1", "B7"]
    assert sorted(card_name(c) for c in state.row) == ["R7", "Yc"]


def test_take_a_symbol_takes_every_card_of_it():
    game, state, rng = start(row="Rc Bc B7 Gc")
    play(game, state, rng, "take coins")
    assert sorted(card_name(c) for c in state.hands[0]) == ["Bc", "Gc", "Rc"]


def test_taking_is_mandatory_and_absent_colours_or_symbols_are_illegal():
    game, state, _ = start(row="B1 B7 R7 Yc")
    for move in ("take green", "take 2s", "end turn", "reveal four 1s"):
        assert game.illegal_reason(state, game.actions.ids[move]) is not None
        assert game.actions.ids[move] not in game.legal_actions(state)


def test_after_taking_only_reveals_or_end_turn():
    game, state, rng = start(row="B1 B7 R7 Yc")
    play(game, state, rng, "take blue")
    assert state.phase == REVEAL and legal_names(game, state) == ["end turn"]
    assert "taken" in game.illegal_reason(state, game.actions.ids["take red"])
    play(game, state, rng, "end turn")
    assert state.player == 1 and state.phase == TAKE and len(state.row) == ROW_SIZE


# -- series and blasons -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "row", "take", "series", "blasons"),
    [
        ("R3 Y3 G3", "B3 P9 P8 Rc", "take 3s", "reveal four 3s", 1),
        ("R5 Y5", "G5 B5 P9 P8", "take 5s", "reveal four 5s", 1),
        ("R6 Y6 G6", "B6 P9 P8 Rc", "take 6s", "reveal four 6s", 2),
        ("R10 Y10 G10", "P10 P9 P8 Y1", "take purple", "reveal four 10s", 2),
        ("Rc Rc Gc", "Bc P9 P8 Y1", "take coins", "reveal four coins", 3),
        ("R1 Y2 G3 B4 P5 R6 Y7 G8 B9", "P10 R2 R3 R4", "take 10s", "reveal straight 1-10", 4),
    ],
)
def test_each_series_wins_the_round_and_its_blasons(hand, row, take, series, blasons):
    game, state, rng = start(hands=[hand, ""], row=row)
    play(game, state, rng, take, series, "end turn")
    assert state.blasons == [blasons, 0]
    assert state.counter == ROUND_COUNTER - 1 and state.round == 1
    assert state.last.winner == 0 and state.last.blasons == blasons


def test_blason_table():
    assert BLASONS[KIND : KIND + 5] == (1,) * 5 and BLASONS[KIND + 5 : KIND + 10] == (2,) * 5
    assert (BLASONS[MINOR], BLASONS[MAJOR], BLASONS[COINS], BLASONS[STRAIGHT]) == (1, 2, 3, 4)


def test_a_straight_mixes_colours_but_needs_every_value():
    game, state, rng = start(hands=["R1 R2 R3 R4 R5 R6 R7 R8 R9", ""], row="Y1 G1 B9 Pc")
    play(game, state, rng, "take 1s")
    assert "reveal straight 1-10" not in legal_names(game, state)
    assert "cannot show straight" in game.illegal_reason(
        state, game.actions.ids["reveal straight 1-10"]
    )


def test_several_series_at_once_add_up_and_one_card_serves_one_series():
    """Four 7s and a straight need five 7s: with four, showing one forbids the other."""
    hand = STRAIGHT_MIXED + " R7 G7 B7 Rc Yc Gc"
    game, state, rng = start(hands=[hand, ""], row="Bc P1 P2 P3")
    play(game, state, rng, "take coins")
    assert legal_names(game, state) == [
        "reveal four 7s",
        "reveal four coins",
        "reveal straight 1-10",
        "end turn",
    ]
    play(game, state, rng, "reveal straight 1-10")
    assert legal_names(game, state) == ["reveal four coins", "end turn"]
    assert "beside" in game.illegal_reason(state, game.actions.ids["reveal four 7s"])
    play(game, state, rng, "reveal four coins", "end turn")
    assert state.blasons == [7, 0] and state.over and game.winners(state) == [0]


def test_four_of_a_kind_and_a_straight_with_five_of_that_value():
    hand = STRAIGHT_MIXED + " R7 G7 B7 P7"
    game, state, rng = start(hands=[hand, ""], row="P1 P2 P3 P4")
    play(game, state, rng, "take purple", "reveal four 7s", "reveal straight 1-10", "end turn")
    assert state.blasons == [6, 0]


def test_choosing_not_to_reveal_passes_the_turn_and_keeps_the_hand():
    game, state, rng = start(hands=["R3 Y3 G3", ""], row="B3 P9 P8 Rc")
    play(game, state, rng, "take 3s", "end turn")
    assert state.player == 1 and state.blasons == [0, 0] and len(state.hands[0]) == 4


# -- the round counter, rotation and game end -------------------------------------------------


def test_round_counter_gives_the_first_blason_and_counts_rounds():
    game, state, rng = start(hands=["R6 Y6 G6", ""], row="B6 P9 P8 Rc", blasons=[0, 3], counter=3)
    play(game, state, rng, "take 6s", "reveal four 6s", "end turn")
    assert state.counter == 2 and state.blasons == [2, 3] and not state.over
    assert state.hands == [[], []] and len(state.pile) + len(state.row) == DECK_SIZE


def test_starting_player_rotates_each_round():
    game, state, rng = start(n=3)
    firsts = []
    for _ in range(3):
        firsts.append(state.player)
        pass_round(game, state, rng)
    assert firsts == [0, 1, 2]


def test_game_ends_at_the_end_of_a_round_with_five_blasons():
    game, state, rng = start(hands=["R1 Y1 G1", ""], row="B1 P9 P8 Rc", blasons=[4, 4])
    play(game, state, rng, "take 1s", "reveal four 1s", "end turn")
    assert state.over and state.blasons == [5, 4] and game.winners(state) == [0]
    assert state.counter == ROUND_COUNTER - 1 and game.legal_actions(state) == []


def test_game_ends_after_round_five_with_a_single_leader():
    game, state, rng = start(hands=["", "R6 Y6 G6"], row="B6 P9 P8 Rc", blasons=[3, 2], counter=1)
    play(game, state, rng, "take purple", "end turn", "take 6s", "reveal four 6s", "end turn")
    assert state.over and state.counter == 0 and state.blasons == [3, 4]
    assert game.winners(state) == [1]


def test_a_round_with_no_card_left_has_no_winner_and_still_counts():
    game, state, rng = start(n=2)
    turns = pass_round(game, state, rng)
    assert turns > DECK_SIZE // ROW_SIZE
    assert state.counter == ROUND_COUNTER - 1 and state.blasons == [0, 0] and state.round == 1
    assert state.last.winner == -1


def test_empty_pile_play_out_takes_the_last_face_up_cards():
    game, state, rng = start(n=2)
    short_rows = []
    while state.round == 0:
        if state.phase == TAKE:
            short_rows.append(not state.pile and len(state.row) < ROW_SIZE)
        game.apply(state, game.legal_actions(state)[0], rng)
        if state.phase == REVEAL:
            game.apply(state, game.actions.ids["end turn"], rng)
    assert any(short_rows)


def test_empty_pile_end_round_option_stops_when_the_row_cannot_be_refilled():
    game, state, rng = start(n=2, empty_pile="end_round")
    while state.round == 0:
        assert state.phase != TAKE or len(state.row) == ROW_SIZE
        last_pile = len(state.pile)
        game.apply(state, game.legal_actions(state)[0], rng)
        if state.phase == REVEAL:
            game.apply(state, game.actions.ids["end turn"], rng)
    assert last_pile < ROW_SIZE and state.last.winner == -1 and state.counter == 4


# -- tie rounds -------------------------------------------------------------------------------


def tied_after_round_five(
    n: int = 3, **options
) -> tuple[SealsGame, SealsState, np.random.Generator]:
    """Seats 0 and 1 tied on 3 after seat 2 wins round 5 with four 1s (seat 2 ends on 1)."""
    game, state, rng = start(
        n,
        hands=["", "", "R1 Y1 G1"],
        row="B1 P9 P8 P7",
        blasons=[3, 3, 0],
        counter=1,
        starter=2,
        **options,
    )
    play(game, state, rng, "take 1s", "reveal four 1s", "end turn")
    return game, state, rng


def test_tied_leaders_play_a_tie_round_among_themselves():
    game, state, rng = tied_after_round_five()
    assert not state.over and state.tie_round == 1 and state.counter == 0
    assert state.active == [True, True, False]
    # the start passes from seat 2 to seat 0; seat 2 never acts and never takes
    assert state.player == 0
    seen = set()
    while state.round == ROUND_COUNTER and not state.over:
        seen.add(state.player)
        game.apply(state, game.legal_actions(state)[0], rng)
        if state.phase == REVEAL and state.revealed == [0] * NUM_SERIES:
            game.apply(state, game.actions.ids["end turn"], rng)
        game.check_invariants(state)
    assert seen == {0, 1} and state.hands[2] == []


def test_a_tie_round_starts_with_the_next_tied_seat_after_the_rotating_starter():
    """Seat 1 wins round 5 but trails; the start rotates to seat 1, who sits out: seat 2."""
    game, state, rng = start(
        3, hands=["", "R1 Y1 G1", ""], row="B1 P9 P8 P7", blasons=[3, 0, 3], counter=1
    )
    play(game, state, rng, "take purple", "end turn", "take 1s", "reveal four 1s", "end turn")
    assert state.tie_round == 1 and state.active == [True, False, True]
    assert state.starter == 1 and state.player == 2
    play(game, state, rng, game.actions.names[game.legal_actions(state)[0]], "end turn")
    assert state.player == 0


def test_the_tie_round_winner_wins_the_game():
    game, state, rng = tied_after_round_five()
    place(state, 0, "R9 Y9 G9", row="B9 P1 P2 P3")
    play(game, state, rng, "take 9s", "reveal four 9s", "end turn")
    assert state.over and state.blasons == [5, 3, 1] and game.winners(state) == [0]
    assert state.counter == 0


def test_tied_after_every_tie_round_share_the_win():
    game, state, rng = tied_after_round_five()
    for tie_round in (1, 2, 3):
        assert state.tie_round == tie_round and not state.over
        pass_round(game, state, rng)
    assert state.over and game.winners(state) == [0, 1]
    env = seals_v0.env(num_players=3)
    env.reset(seed=0)
    env.game_state = state
    env._settle()
    assert env.rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}


def test_tie_rounds_option_zero_shares_the_win_at_once():
    game, state, _ = tied_after_round_five(tie_rounds=0)
    assert state.over and game.winners(state) == [0, 1]


# -- the "four minor/major cards" reading -----------------------------------------------------


def test_any_four_reading_takes_mixed_minor_and_major_cards():
    game, state, rng = start(
        hands=["R1 Y2 G3 R6 Y7 G8", ""], row="B4 B9 P10 Pc", minor_major_series=ANY_FOUR
    )
    play(game, state, rng, "take blue")
    assert legal_names(game, state) == [
        "reveal four minor cards",
        "reveal four major cards",
        "end turn",
    ]
    assert "not a series" in game.illegal_reason(state, game.actions.ids["reveal four 1s"])
    play(game, state, rng, "reveal four minor cards", "reveal four major cards", "end turn")
    assert state.blasons == [3, 0]


def test_default_reading_needs_four_of_a_kind():
    game, state, rng = start(hands=["R1 Y2 G3 R6 Y7 G8", ""], row="B4 B9 P10 Pc")
    play(game, state, rng, "take blue")
    assert legal_names(game, state) == ["end turn"]
    assert "not a series" in game.illegal_reason(state, game.actions.ids["reveal four minor cards"])


def brute_fits(symbols: list[int], series: list[int]) -> bool:
    """Search every way to pick each series' cards, one series at a time."""
    if not series:
        return True
    for use in _ways(series[0]):
        rest = [c - u for c, u in zip(symbols, use, strict=True)]
        if min(rest) >= 0 and brute_fits(rest, series[1:]):
            return True
    return False


def _ways(series: int) -> list[list[int]]:
    if series < 10:
        return [[4 if s == series else 0 for s in range(11)]]
    if series == COINS:
        return [[0] * 10 + [4]]
    if series == STRAIGHT:
        return [[1] * 10 + [0]]
    values = range(5) if series == MINOR else range(5, 10)
    ways = []
    for pick in itertools.combinations_with_replacement(values, 4):
        ways.append([pick.count(s) for s in range(11)])
    return ways


@settings(max_examples=300, deadline=None)
@given(
    symbols=st.lists(st.integers(0, 5), min_size=10, max_size=10).map(lambda v: [*v, 0]),
    coins=st.integers(0, 7),
    series=st.lists(st.integers(0, NUM_SERIES - 1), max_size=4),
)
def test_disjoint_series_check_matches_brute_force(symbols, coins, series):
    symbols[COIN] = coins
    counts = [series.count(s) for s in range(NUM_SERIES)]
    assert fits(symbols, counts) == brute_fits(symbols, series)


def brute_best(symbols: list[int], reading: str, shown: tuple[int, ...] = ()) -> int:
    """Most blasons over every set of series the hand can show together."""
    best = sum(BLASONS[s] for s in shown)
    for series in series_for(reading):
        if not shown or series >= shown[-1]:
            counts = [(*shown, series).count(s) for s in range(NUM_SERIES)]
            if fits(symbols, counts):
                best = max(best, brute_best(symbols, reading, (*shown, series)))
    return best


@settings(max_examples=150, deadline=None)
@given(
    hand=st.sets(st.integers(0, DECK_SIZE - 1), max_size=40),
    reading=st.sampled_from(["four_of_a_kind", ANY_FOUR]),
)
def test_best_reveal_is_the_most_blasons_the_hand_can_show(hand, reading):
    symbols = symbol_counts(sorted(hand))
    plan = best_reveal(symbols, reading)
    assert fits(symbols, [plan.count(s) for s in range(NUM_SERIES)])
    assert sum(BLASONS[s] for s in plan) == brute_best(symbols, reading)


@settings(max_examples=150, deadline=None)
@given(
    hand=st.sets(st.integers(0, DECK_SIZE - 1), max_size=30),
    shown=st.lists(st.integers(0, NUM_SERIES - 1), max_size=3),
    reading=st.sampled_from(["four_of_a_kind", ANY_FOUR]),
)
def test_reveal_mask_matches_the_detector(hand, shown, reading):
    game, state, _ = start(minor_major_series=reading)
    state.hands[0] = sorted(hand)
    state.pile = [c for c in state.pile if c not in hand]
    state.row = [c for c in state.row if c not in hand]
    state.symbols[0] = symbol_counts(state.hands[0])
    state.phase = REVEAL
    state.revealed = [shown.count(s) if s in game.series else 0 for s in range(NUM_SERIES)]
    if not fits(state.symbols[0], state.revealed):
        state.revealed = [0] * NUM_SERIES
    legal = [a for a in range(game.actions.size) if game.illegal_reason(state, a) is None]
    assert game.legal_actions(state) == legal


# -- options, environment, observation --------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.sampled_from([2, 3, 4]),
    reading=st.sampled_from(["four_of_a_kind", ANY_FOUR]),
    empty_pile=st.sampled_from(["play_out", "end_round"]),
    skip=st.booleans(),
)
def test_random_play_under_every_option(seed, n, reading, empty_pile, skip):
    """57 cards conserved, mask == detector, bounded length, under every combination."""
    game = SealsGame(n, minor_major_series=reading, empty_pile=empty_pile, skip_forced_stop=skip)
    rng = np.random.default_rng(seed)
    state, steps = game.new_game(rng), 0
    while not game.is_over(state):
        game.check_invariants(state)
        legal = game.legal_actions(state)
        assert legal == [
            a for a in range(game.actions.size) if game.illegal_reason(state, a) is None
        ]
        game.apply(state, legal[rng.integers(len(legal))], rng)
        steps += 1
    game.check_invariants(state)
    assert steps <= game.max_steps and 0 <= max(state.blasons) <= MAX_BLASONS


def test_skip_forced_stop_passes_the_turn_when_no_series_can_be_shown():
    game, state, rng = start(row="B1 B7 R7 Yc", skip_forced_stop=True)
    play(game, state, rng, "take blue")
    assert state.player == 1 and state.phase == TAKE
    game, state, rng = start(hands=["R3 Y3 G3", ""], row="B3 P9 P8 Rc", skip_forced_stop=True)
    play(game, state, rng, "take 3s", "reveal four 3s")
    assert state.blasons == [1, 0] and state.round == 1


def test_illegal_actions_raise_and_leave_the_env_bit_identical():
    env = seals_v0.env(num_players=2)
    env.reset(seed=0, options={"deal": {"hands": ["R3 Y3", ""], "row": "B3 P9 P8 Rc"}})
    before = pickle.dumps((env.game_state, env._rng.bit_generator.state))
    with pytest.raises(IllegalActionError, match="no green card is face up"):
        env.step(env.game.actions.ids["take green"])
    env.step(env.game.actions.ids["take 3s"])
    before = pickle.dumps((env.game_state, env._rng.bit_generator.state))
    with pytest.raises(IllegalActionError, match="cannot show four 3s"):
        env.step(env.game.actions.ids["reveal four 3s"])
    assert pickle.dumps((env.game_state, env._rng.bit_generator.state)) == before


def test_bad_options_and_deals_name_the_problem():
    for option, value in [
        ("minor_major_series", "pairs"),
        ("empty_pile", "reshuffle"),
        ("remember_takes", 1),
        ("tie_rounds", -1),
    ]:
        with pytest.raises(ValueError, match=option):
            seals_v0.env(**{option: value})
    env = seals_v0.env(num_players=2)
    with pytest.raises(ValueError, match="hands"):
        env.reset(options={"deal": {"hands": ["R1"]}})
    with pytest.raises(ValueError, match="no red 1 left"):
        env.reset(options={"deal": {"hands": ["R1", "R1"]}})
    with pytest.raises(ValueError, match="keys"):
        env.reset(options={"deal": {"discard": []}})


def observe(game: SealsGame, state: SealsState, seat: int) -> dict[str, np.ndarray]:
    from card_envs.seals.encoding import SealsEncoding

    encoding = SealsEncoding(game)
    return encoding.spec.views(encoding.observe(state, seat))


def test_observation_shows_my_hand_the_row_and_public_counts_only():
    game, state, _ = start(n=3, hands=["R3 Rc Rc", "G5 G6", "Y1"], row="B3 P9 P8 Rc")
    views = observe(game, state, 0)
    assert views["hand"][RED, 2] == 1 and views["hand"][RED, COIN] == 2
    assert views["row"][RED, COIN] == 1 and views["row"].sum() == 4
    assert list(views["hand_sizes"]) == [3, 2, 1]
    assert views["pile_size"][0] == DECK_SIZE - 10
    other = observe(game, state, 1)
    assert list(other["hand_sizes"]) == [2, 1, 3] and other["to_act"][2] == 1
    # another hand of the same size leaves my view unchanged
    state.hands[1] = [c for c in state.pile[:2]]
    assert all(np.array_equal(observe(game, state, 0)[k], v) for k, v in views.items())


def test_remember_takes_shows_what_others_took():
    game, state, _ = start(n=3, hands=["R3", "G5 G6", "Y1"], remember_takes=True)
    views = observe(game, state, 0)
    assert views["taken"][0].sum() == 2 and views["taken"][0][2, 4] == 1
    assert views["taken"][1].sum() == 1
    before = pickle.dumps(state.hands)
    resampled = game.resample_hidden(state, 0, np.random.default_rng(1))
    assert pickle.dumps(resampled.hands) == before and resampled.pile != state.pile


def test_render_seat_hides_other_hands():
    game, state, _ = start(n=2, hands=["R3", "G5 G6"])
    text = game.render_seat(state, 0)
    assert "R3" in text and "G5" not in text and "2 cards" in text
    assert "G5" in game.render(state)


GOLDEN_SEED_7 = """\
Seals round 1, round counter 5/5, pile 47, face up: G10 R6 G4 G2
player_0 blasons 0 | 3 cards | R3 Y1 Yc
player_1 blasons 0 | 3 cards | B2 B9 Bc
to act: player_0 (take)"""


def test_golden_opening_of_a_seeded_game():
    """A fixed seed replays the same deal and moves (numpy is pinned): catches rule drift."""
    env = seals_v0.env(num_players=2, render_mode="ansi")
    env.reset(seed=7)
    rng, names = np.random.default_rng(7), []
    for _ in range(12):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        names.append(env.game.actions.names[action])
        env.step(action)
    takes = ["take coins", "take 2s", "take 3s", "take coins", "take 1s", "take 9s"]
    assert names == [move for take in takes for move in (take, "end turn")]
    assert env.render() == GOLDEN_SEED_7


def test_clone_and_pickle_replay_identically():
    game, state, rng = start(n=3)
    for _ in range(20):
        game.apply(state, game.legal_actions(state)[0], rng)
    copies = [game.clone(state), pickle.loads(pickle.dumps(state))]
    runs = []
    for copy in [state, *copies]:
        replay = np.random.default_rng(5)
        for _ in range(200):
            if game.is_over(copy):
                break
            legal = game.legal_actions(copy)
            game.apply(copy, legal[replay.integers(len(legal))], replay)
        runs.append(pickle.dumps(copy))
    assert runs[0] == runs[1] == runs[2]


OPTION_SETS = [
    {"remember_takes": True},
    {"skip_forced_stop": True},
    {"minor_major_series": ANY_FOUR, "empty_pile": "end_round", "tie_rounds": 1},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(o))
def test_pettingzoo_api_under_options(options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(seals_v0.env(num_players=3, **options), num_cycles=200)


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(o))
def test_no_information_leak_under_options(options):
    """Redrawing what a seat cannot see leaves its observation and its render unchanged."""
    env = seals_v0.env(num_players=3, **options)
    game, rng, changed = env.game, np.random.default_rng(0), 0
    for seed in range(4):
        env.reset(seed=seed)
        for step, action in enumerate(random_steps(env, seed)):
            if step % 5 == 0:
                for seat in range(3):
                    other = game.resample_hidden(env.game_state, seat, rng)
                    changed += pickle.dumps(other) != pickle.dumps(env.game_state)
                    observed = env.encoding.observe(env.game_state, seat)
                    assert np.array_equal(env.encoding.observe(other, seat), observed)
                    assert game.render_seat(other, seat) == game.render_seat(env.game_state, seat)
            env.step(action)
    assert changed > 0


# -- the package layout shared by every game ----------------------------------------------------


def test_rules_are_a_package_of_the_shared_modules():
    """cards, state, actions, deal, hidden, game and text (plus series), like every other
    game; the player counts are declared once, on the game class."""
    from card_envs.seals.rules import (  # noqa: F401
        actions,
        cards,
        deal,
        game,
        hidden,
        series,
        state,
        text,
    )

    assert SealsGame.player_counts == (2, 3, 4) and SealsGame.default_players == 4
    assert not hasattr(game, "PLAYER_COUNTS") and not hasattr(game, "REVEAL_SERIES")


def test_illegal_reason_is_the_shared_check_then_the_rules():
    """The shared checks (game over, id range) live in the base class; the game's own
    ``rule_violation`` names what breaks the rules, block by block."""
    assert "illegal_reason" not in SealsGame.__dict__
    game, state, _ = start(2, row="R1 R2 Y3 Gc", pile="B5")
    size = game.actions.size
    assert game.illegal_reason(state, size) == f"no such action (ids 0..{size - 1})"
    assert game.rule_violation(state, "take_colour", 4) == "no purple card is face up"
    assert game.rule_violation(state, "take_symbol", 3) == "no 4 is face up"
    assert game.rule_violation(state, "take_colour", 0) is None
    assert game.rule_violation(state, "stop", 0) == "take cards from the face-up row first"
    state.phase = REVEAL
    assert "you have taken" in game.rule_violation(state, "take_symbol", 0)
    assert game.rule_violation(state, "stop", 0) is None
    state.over = True
    assert game.illegal_reason(state, game.actions.encode("stop")) == "the game is over"


def test_metadata_declares_version_and_reward_ranges():
    """The version is the ``_v0``; score-mode rewards stay inside the declared range."""
    metadata = seals_v0.raw_env.metadata
    assert metadata["version"] == 0 and metadata["reward_range"] == (-1.0, 1.0)
    low, high = metadata["score_reward_range"]
    seen = []
    for seed in range(3):
        env = seals_v0.env(num_players=2, reward_mode="score")
        env.reset(seed=seed)
        for action in random_steps(env, seed):
            env.step(action)
            seen += env.rewards.values()
    assert low <= min(seen) and max(seen) <= high and max(seen) > 0


# -- chance as data: every shuffle scripted in deal["chance"]["shuffle"] ----------------------

SIXES = {"hands": ["R6 Y6 G6", ""], "row": "B6 P9 P8 Rc"}  # seat 0 shows four 6s at once


def left_out(*names: str) -> list[int]:
    """The codes of every card not named, in code order (a shuffle outcome, top card first)."""
    named = parse_cards(" ".join(names))
    return [c for c in range(DECK_SIZE) if c not in named]


def test_a_scripted_second_shuffle_deals_the_next_round_as_written_and_draws_nothing():
    """Seat 0 wins round 1; round 2 is started by seat 1 from the scripted pile, whose four top
    cards (Y1 Y2 Y3 Y4) fill the row: every card is yellow, so 'take yellow' takes all four."""
    first = left_out("R6 Y6 G6 B6 P9 P8 Rc")  # round 1 shuffles what the deal leaves out
    second = parse_cards("Y1 Y2 Y3 Y4") + left_out("Y1 Y2 Y3 Y4")
    game, rng = SealsGame(2), np.random.default_rng(0)
    before = rng.bit_generator.state
    state = game.new_game(rng, {**SIXES, "chance": {"shuffle": [first, second]}})
    assert state.pile[::-1][:3] == first[:3]  # the pile's top is the LAST element
    play(game, state, rng, "take 6s", "reveal four 6s", "end turn")
    assert state.round == 1 and state.player == 1
    assert state.row == parse_cards("Y1 Y2 Y3 Y4") and state.pile == second[4:][::-1]
    play(game, state, rng, "take yellow")
    assert state.hands[1] == parse_cards("Y1 Y2 Y3 Y4") and rng.bit_generator.state == before
    record = game.deal_record(state)
    assert record["chance"] == {"shuffle": [first, second]}
    assert record["hands"] == [parse_cards("R6 Y6 G6"), []] and "blasons" not in record


def test_a_malformed_scripted_shuffle_is_a_clear_error_before_anything_is_dealt():
    game, rng = SealsGame(2), np.random.default_rng(0)
    before = rng.bit_generator.state
    first = left_out("R6 Y6 G6 B6 P9 P8 Rc")
    for shuffles, message in [
        (
            [first, left_out("Y4")],
            r"deal\['chance'\]\['shuffle'\]\[1\] must list each of the 57"
            r" cards shuffled into the pile once, top card first; missing: Y4",
        ),
        ([[*first, parse_cards("B6")[0]]], r"deal\['chance'\]\['shuffle'\]\[0\]\[50\]: card"),
        ([first, 7], r"deal\['chance'\]\['shuffle'\]\[1\] must be a list of card names"),
        ([first, "R1 X7"], r"deal\['chance'\]\['shuffle'\]\[1\]"),
    ]:
        with pytest.raises(ValueError, match=message):
            game.new_game(rng, {**SIXES, "chance": {"shuffle": shuffles}})
    with pytest.raises(ValueError, match="unknown events"):
        game.new_game(rng, {"chance": {"pile": []}})
    assert rng.bit_generator.state == before


def test_a_whole_game_record_replays_from_a_hand_written_deal():
    deal = {**SIXES, "pile": ["Rc", "G2"], "blasons": [1, 0], "starter": 1, "counter": 4}
    game, rng = SealsGame(2), np.random.default_rng(3)
    state, states, actions = game.new_game(rng, deal), [], []
    while not state.over:
        actions.append(game.legal_actions(state)[rng.integers(len(game.legal_actions(state)))])
        game.apply(state, actions[-1], rng)
        states.append(repr(state))
    record = game.deal_record(state)
    assert len(record["chance"]["shuffle"]) > 1  # round 1's and the later rounds' shuffles
    assert record["pile"] == parse_cards("Rc G2", parse_cards("Rc")) and record["counter"] == 4
    replay = game.new_game(np.random.default_rng(4), record)
    for action, seen in zip(actions, states, strict=True):
        game.apply(replay, action, np.random.default_rng(5))
        assert repr(replay).split("chance=")[0] == seen.split("chance=")[0]
    assert game.deal_record(replay) == record


def test_resampled_states_carry_no_chance_log_script_or_written_deal():
    """They show the true pile and hands, and the scripted future: none is the observer's."""
    game, state, _ = start(n=2, **SIXES)
    state.chance.script["shuffle"] = [left_out()]
    resampled = game.resample_hidden(state, 0, np.random.default_rng(0))
    assert resampled.chance.log == {} and resampled.chance.script == {}
    assert resampled.setup.hands is None and state.setup.hands is not None
