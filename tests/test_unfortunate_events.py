"""Catastrophic Card Game rules: the deck, every set type, each special card, Snicket, going
out, Victory cards, game end, caps, and what each seat may see."""

from __future__ import annotations

import ast
import pickle
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np
import pytest
from helpers import random_steps
from hypothesis import given, settings
from hypothesis import strategies as st

from card_envs import make, unfortunate_events_v0
from card_envs.core.errors import IllegalActionError
from card_envs.unfortunate_events.encoding import UnfortunateEventsEncoding
from card_envs.unfortunate_events.rules import SETS, UnfortunateEventsGame, parse_kinds, text
from card_envs.unfortunate_events.rules.cards import (
    BEATRICE,
    COPIES,
    DECK_SIZE,
    NUM_KINDS,
    SET_SIZES,
    TOTAL_CARDS,
    VICTORY_CARDS,
    WILD_BASE,
    colour_of,
    counts_of,
    holds,
    layable,
)
from card_envs.unfortunate_events.rules.state import (
    BURN_SET,
    DISCARD,
    DRAW,
    MAIN,
    NONE,
    REACT,
    TARGET,
    VICTORY,
    UnfortunateEventsState,
)

SET_ID = {s.name: i for i, s in enumerate(SETS)}
FILLER = ["Violet", "Monty", "Stephano", "Hook-Handed Man", "Klaus", "Josephine", "Bald Man"]


def build(
    hands: list[list[str]],
    laid: list[list[str]] | None = None,
    discard: tuple[str, ...] = ("Sunny",),
    pile: tuple[str, ...] = (),
    turn: int = 0,
    victory: list[int] | None = None,
    poe: tuple[int, ...] = (),
    **options,
) -> tuple[UnfortunateEventsGame, UnfortunateEventsState]:
    """A mid-round table: hands and laid sets by name, ``pile`` drawn first to last, the rest
    of the deck (sorted) below it; each seat owes what it has not laid of a 3-set and a 4-set,
    plus ``poe[seat]`` 3-sets."""
    n = len(hands)
    game = UnfortunateEventsGame(n, **options)
    laid_ids = [[SET_ID["+".join(s)] if not isinstance(s, str) else SET_ID[s] for s in row]
                for row in (laid or [[] for _ in range(n)])]  # fmt: skip
    used = [k for h in hands for k in parse_kinds(h)] + parse_kinds(discard) + parse_kinds(pile)
    used += [k for row in laid_ids for s in row for k in SETS[s].cards]
    rest = [k for k in range(NUM_KINDS) for _ in range(COPIES[k] - used.count(k))]
    state = UnfortunateEventsState(
        hands=[counts_of(parse_kinds(h)) for h in hands],
        pile=rest + parse_kinds(pile)[::-1],
        discard=parse_kinds(discard),
        discard_counts=counts_of(parse_kinds(discard)),
        laid=laid_ids,
        owed3=[
            int(not any(SETS[s].size == 3 for s in row)) + (poe[p] if p < len(poe) else 0)
            for p, row in enumerate(laid_ids)
        ],
        owed4=[int(not any(SETS[s].size == 4 for s in row)) for row in laid_ids],
        victory=victory or [0] * n,
        centre=VICTORY_CARDS - sum(victory or []),
        dealer=(turn - 1) % n,
        turn_player=turn,
        actor=turn,
        known=[[0] * NUM_KINDS for _ in range(n)],
        seen=[[None] * n for _ in range(n)],
    )
    game.check_invariants(state)
    return game, state


def act(
    game: UnfortunateEventsGame, state: UnfortunateEventsState, name: str, seed: int = 0
) -> None:
    """Apply the action named ``name``, checking that the mask and the detector allow it."""
    action = game.actions.ids[name]
    assert game.illegal_reason(state, action) is None, game.illegal_reason(state, action)
    assert action in game.legal_actions(state)
    game.apply(state, action, np.random.default_rng(seed))
    game.check_invariants(state)


def legal_names(game: UnfortunateEventsGame, state: UnfortunateEventsState) -> list[str]:
    return [game.actions.names[a] for a in game.legal_actions(state)]


def is_illegal(game: UnfortunateEventsGame, state: UnfortunateEventsState, name: str) -> str:
    action = game.actions.ids[name]
    assert action not in game.legal_actions(state)
    reason = game.illegal_reason(state, action)
    assert reason
    return reason


# -- the deck and the set table -----------------------------------------------------------------


def test_the_box_holds_112_cards():
    assert DECK_SIZE == 105 and TOTAL_CARDS == 112 and VICTORY_CARDS == 7
    assert sum(COPIES[:WILD_BASE]) == 4 * 3 * 7 and sum(COPIES[WILD_BASE:16]) == 12
    assert sum(COPIES[16:]) == 9 and COPIES[BEATRICE] == 1
    for colour in range(4):  # each colour category holds 24 cards: 3 characters x 7 + 3 wilds
        assert sum(c for k, c in enumerate(COPIES[:16]) if colour_of(k) == colour) == 24


def _is_set(cards: tuple[int, ...]) -> bool:
    """Independent detector: try every way the wilds could stand for characters."""
    naturals = [k for k in cards if k < WILD_BASE]
    if not naturals:
        return False
    colour = colour_of(naturals[0])
    if any(colour_of(k) != colour for k in cards if k < 16):
        return False
    if any(k >= 16 and k != BEATRICE for k in cards) or cards.count(BEATRICE) > 1:
        return False
    characters = range(3 * colour, 3 * colour + 3)
    fillers = len(cards) - len(naturals)
    for extra in combinations_with_replacement(characters, fillers):
        full = sorted(naturals + list(extra))
        kinds = sorted(set(full))
        counts = sorted(full.count(k) for k in kinds)
        if len(full) == 3 and (counts == [3] or counts == [1, 1, 1]):
            return True
        if len(full) == 4 and (counts == [4] or counts == [2, 2]):
            return True
    return False


@pytest.mark.parametrize("size", SET_SIZES)
def test_set_table_is_exactly_the_valid_multisets(size):
    """Every multiset of ``size`` cards the deck can supply is in the table iff it is a set."""
    table = {tuple(sorted(s.cards)) for s in SETS if s.size == size}
    valid = {
        cards
        for cards in combinations_with_replacement(range(NUM_KINDS), size)
        if all(cards.count(k) <= COPIES[k] for k in cards) and _is_set(cards)
    }
    assert table == valid
    assert len(table) == {3: 88, 4: 168}[size]


@pytest.mark.parametrize(
    ("cards", "ok"),
    [
        ("Klaus Klaus Klaus", True),  # the rulebook's 3-card group example
        ("Violet Klaus Sunny", True),  # the rulebook's sequence example
        ("Klaus Klaus Klaus Klaus", True),  # the rulebook's 4-card group example
        ("Klaus Klaus Sunny Sunny", True),  # the rulebook's two-pair example
        ("Klaus Klaus Sunny", False),
        ("Violet Klaus Monty", False),  # two colours
        ("Klaus Klaus Klaus Sunny", False),
        ("Klaus Klaus Monty Monty", False),  # pairs of different colours
        ("Klaus Klaus green wild", True),
        ("Klaus Sunny green wild", True),
        ("Klaus green wild green wild", True),
        ("Klaus Klaus blue wild", False),  # a colour wild serves only its colour
        ("Klaus Klaus Beatrice", True),
        ("Monty Quagmire Beatrice", True),
        ("Klaus green wild Beatrice", True),
        ("green wild green wild Beatrice", False),  # no all-wild set
        ("green wild green wild green wild", False),
        ("Klaus Sunny green wild green wild", True),  # -> Klaus Klaus Sunny Sunny
        ("Klaus Klaus Sunny Beatrice", True),
        ("Violet Klaus Sunny green wild", False),  # three characters cannot make two pairs
        ("Bald Man purple wild purple wild purple wild", True),
        ("Bald Man purple wild purple wild Beatrice", True),
        ("Bald Man Lemony Snicket Beatrice", False),
    ],
)
def test_set_examples(cards, ok):
    kinds = tuple(sorted(parse_kinds(_split(cards))))
    assert any(tuple(sorted(s.cards)) == kinds for s in SETS) is ok


def _split(text: str) -> list[str]:
    """Names with spaces: 'green wild', 'Bald Man', 'Lemony Snicket' are one card each."""
    words, out = text.split(), []
    while words:
        for size in (3, 2, 1):
            name = " ".join(words[:size])
            try:
                parse_kinds([name])
            except ValueError:
                continue
            out.append(name)
            words = words[size:]
            break
        else:
            raise ValueError(text)
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, NUM_KINDS - 1), min_size=0, max_size=14))
def test_fast_lay_generator_agrees_with_the_obvious_check(cards):
    hand = counts_of(c for c in cards)
    hand = [min(h, c) for h, c in zip(hand, COPIES, strict=True)]
    for size in SET_SIZES:
        expected = [i for i, s in enumerate(SETS) if s.size == size and holds(hand, i)]
        assert layable(hand, size) == expected


# -- a turn -------------------------------------------------------------------------------------

HAND_A = ["Klaus", "Klaus", "Klaus", "Sunny", "Sunny", "green wild", "Monty"]
HAND_B = ["Violet", "Monty", "Josephine", "Stephano", "Bald Man", "Bald Man", "Quagmire"]


def test_draw_from_the_discard_is_public_and_play_passes_left():
    game, state = build([HAND_A, HAND_B, FILLER], discard=("Sunny",))
    assert legal_names(game, state) == ["draw from the pile", "take the discard's top"]
    act(game, state, "take the discard's top")
    assert state.hands[0][parse_kinds(["Sunny"])[0]] == 3 and state.phase == MAIN
    assert state.known[0] == counts_of(parse_kinds(["Sunny"]))
    act(game, state, "discard Monty")
    assert (state.turn_player, state.actor, state.phase, state.turns) == (1, 1, DRAW, 1)


def test_a_special_card_cannot_be_taken_from_the_discard():
    game, state = build([HAND_A, HAND_B], discard=("Sunny", "Mr. Poe"))
    assert legal_names(game, state) == ["draw from the pile"]
    assert "special" in is_illegal(game, state, "take the discard's top")


def test_at_most_one_set_a_turn_and_only_owed_sizes():
    game, state = build([HAND_A, HAND_B], discard=("Sunny",))
    act(game, state, "take the discard's top")
    names = legal_names(game, state)
    assert {"lay Klaus+Klaus+Klaus", "lay Sunny+Sunny+Sunny", "lay Klaus+Sunny+green wild"} <= {
        *names
    }
    assert "lay Klaus+Klaus+Sunny+Sunny" in names and "lay Klaus+Klaus+Klaus+green wild" in names
    act(game, state, "lay Klaus+Klaus+Klaus")
    assert state.phase == DISCARD and state.owed3 == [0, 1]
    assert "one set" in is_illegal(game, state, "lay Sunny+Sunny+Sunny")
    assert all(name.startswith("discard") for name in legal_names(game, state))
    act(game, state, "discard Monty")
    act(game, state, "draw from the pile")  # seat 1's turn passes
    act(game, state, "discard Violet")
    act(game, state, "draw from the pile")
    assert "owe no 3-card set" in is_illegal(game, state, "lay Sunny+Sunny+Sunny")
    assert "do not hold" in is_illegal(game, state, "lay Violet+Violet+Violet+Violet")


def test_wilds_and_beatrice_complete_sets():
    hand = ["Monty", "Quagmire", "Beatrice", "Bald Man", "purple wild", "purple wild", "Klaus"]
    game, state = build([hand, HAND_B], discard=("Sunny",), pile=("Violet",))
    act(game, state, "draw from the pile")
    names = legal_names(game, state)
    assert "lay Monty+Quagmire+Beatrice" in names  # a sequence with Beatrice
    assert "lay Bald Man+purple wild+purple wild" in names  # a group with two colour wilds
    assert "lay Bald Man+purple wild+purple wild+Beatrice" in names
    assert "lay Monty+Quagmire+purple wild" not in game.actions.ids  # never a set
    act(game, state, "lay Bald Man+purple wild+purple wild+Beatrice")
    assert state.owed4 == [0, 1] and state.hands[0][BEATRICE] == 0


def test_beatrice_and_snicket_discarded_have_no_effect():
    hand = ["Beatrice", "Lemony Snicket", "Klaus", "Klaus", "Monty", "Monty", "Sunny"]
    game, state = build([hand, HAND_B], discard=("Sunny",))
    for card in ("Beatrice", "Lemony Snicket"):
        act(game, state, "draw from the pile")
        act(game, state, f"discard {card}")
        assert state.phase == DRAW and state.pending == NONE
        act(game, state, "draw from the pile")
        act(game, state, "discard Violet" if card == "Beatrice" else "discard Monty")


# -- special cards ------------------------------------------------------------------------------


def test_olafs_eye_shows_a_hand_as_of_then():
    game, state = build([["Olaf's Eye", *HAND_A[1:]], HAND_B, FILLER], pile=("Sunny", "Violet"))
    act(game, state, "draw from the pile")
    act(game, state, "discard Olaf's Eye")
    assert state.phase == TARGET and legal_names(game, state) == [
        "target the player 1 to my left",
        "target the player 2 to my left",
    ]
    act(game, state, "target the player 2 to my left")
    assert state.seen[0][2] == counts_of(parse_kinds(FILLER))
    encoding = UnfortunateEventsEncoding(game)
    before = encoding.spec.views(encoding.observe(state, 0))["seen"].copy()
    assert before[2].tolist() == counts_of(parse_kinds(FILLER))  # relative seat 2 = seat 2
    act(game, state, "draw from the pile")  # seat 1
    act(game, state, "discard Violet")
    act(game, state, "draw from the pile")  # seat 2 draws Violet and discards Stephano
    act(game, state, "discard Stephano")
    assert state.hands[2] != counts_of(parse_kinds(FILLER))
    after = encoding.spec.views(encoding.observe(state, 0))["seen"]
    assert np.array_equal(before, after), "the memory is the hand as it was when seen"
    assert not encoding.spec.views(encoding.observe(state, 1))["seen"].any()


def test_olafs_eye_bounds_the_viewers_determinisations():
    """A search's redraw keeps what the viewer's Eye showed, less what that hand has visibly
    given up since; a seat that did not look knows nothing of the hand (issue 19)."""
    game, state = build([["Olaf's Eye", *HAND_A[1:]], HAND_B, FILLER], pile=("Sunny", "Violet"))
    act(game, state, "draw from the pile")
    act(game, state, "discard Olaf's Eye")
    act(game, state, "target the player 2 to my left")
    shown = counts_of(parse_kinds(FILLER))
    rng = np.random.default_rng(0)
    worlds = [game.resample_hidden(state, 0, rng) for _ in range(20)]
    assert all(world.hands[2] == shown for world in worlds)
    assert len({tuple(world.hands[1]) for world in worlds}) > 1  # seat 1's hand is redrawn
    blind = [game.resample_hidden(state, 1, rng) for _ in range(20)]
    assert any(world.hands[2] != shown for world in blind)
    # what seat 0 saw is hidden from seat 1 too: in its redraws seat 0 saw the redealt hand
    assert all(world.seen[0][2] == world.eye_known[0, 2] == world.hands[2] for world in blind)
    act(game, state, "draw from the pile")  # seat 1
    act(game, state, "discard Violet")
    act(game, state, "draw from the pile")  # seat 2 draws Violet, unseen, and gives up Stephano
    act(game, state, "discard Stephano")
    still = counts_of(parse_kinds(FILLER[:2] + FILLER[3:]))
    assert state.eye_known[0, 2] == still
    for _ in range(20):
        world = game.resample_hidden(state, 0, rng)
        game.check_invariants(world)
        assert sum(world.hands[2]) == len(FILLER)
        assert all(h >= k for h, k in zip(world.hands[2], still, strict=True))
    game.apply(state, game.actions.ids["draw from the pile"], rng)  # seat 0's turn: the round
    assert state.eye_known[0, 2] == still  # goes on, and the bound with it


def _burn_table(**options):
    """Seat 1 has laid both sets and owes a Mr. Poe 3-set; seat 0 holds a Burning House."""
    game, state = build(
        [["Burning House", *HAND_A[1:]], ["Violet", "Monty", "Monty"], FILLER],
        laid=[[], ["Sunny+Sunny+green wild", "Stephano+Stephano+Captain Sham+Captain Sham"], []],
        pile=("Bald Man", "Quagmire", "Quagmire", "Quagmire", "Josephine"),
        poe=(0, 1, 0),
        **options,
    )
    return game, state


def test_burning_house_on_a_player_who_laid_both_sets():
    game, state = _burn_table()
    act(game, state, "draw from the pile")
    act(game, state, "discard Burning House")
    assert legal_names(game, state) == ["target the player 1 to my left"]  # seat 2 laid nothing
    assert "no set" in is_illegal(game, state, "target the player 2 to my left")
    act(game, state, "target the player 1 to my left")
    assert state.phase == BURN_SET
    assert legal_names(game, state) == [
        "burn Sunny+Sunny+green wild",
        "burn Stephano+Stephano+Captain Sham+Captain Sham",
    ]
    act(game, state, "burn Stephano+Stephano+Captain Sham+Captain Sham")
    assert state.laid[1] == [SET_ID["Sunny+Sunny+green wild"]]
    assert state.discard[-5:] == parse_kinds(
        ["Burning House", "Stephano", "Stephano", "Captain Sham", "Captain Sham"]
    )
    assert (state.owed3[1], state.owed4[1]) == (1, 1)
    assert state.hands[1] == counts_of(
        parse_kinds(["Violet", "Monty", "Monty", "Quagmire", "Quagmire", "Quagmire", "Josephine"])
    )
    assert (state.turn_player, state.phase) == (1, DRAW)


def test_burning_house_with_nothing_to_burn_is_a_plain_discard():
    game, state = build([["Burning House", *HAND_A[1:]], HAND_B, FILLER])
    act(game, state, "draw from the pile")
    act(game, state, "discard Burning House")
    assert (state.turn_player, state.phase, state.pending) == (1, DRAW, NONE)


def test_mr_poe_stacks():
    hand = ["Mr. Poe", "Mr. Poe", "Klaus", "Klaus", "Klaus", "Sunny", "Sunny"]
    game, state = build([hand, HAND_B], pile=("Sunny", "Violet", "Violet", "Violet", "Bald Man"))
    act(game, state, "draw from the pile")
    act(game, state, "discard Mr. Poe")
    act(game, state, "target the player 1 to my left")
    assert state.owed3[1] == 2 and sum(state.hands[1]) == 10
    assert state.hands[1][parse_kinds(["Violet"])[0]] == 4  # drew the three Violets
    act(game, state, "draw from the pile")
    act(game, state, "discard Bald Man")
    act(game, state, "draw from the pile")
    act(game, state, "discard Mr. Poe")
    act(game, state, "target the player 1 to my left")
    assert state.owed3[1] == 3 and sum(state.hands[1]) == 3 * 3 + 4


ATTACKS = {
    "Olaf's Eye": lambda s: s.seen[0][1] is not None,
    "Mr. Poe": lambda s: s.owed3[1] == 1 and len(s.laid[1]) == 1,
    "Burning House": lambda s: s.owed3[1] == 1 and len(s.laid[1]) == 0,
}


def _attack_on_snicket_holder(card: str, **options):
    target_hand = ["Lemony Snicket", "Violet", "Monty", "Monty"]
    game, state = build(
        [[card, *HAND_A[1:]], target_hand, FILLER],
        laid=[[], ["Sunny+Sunny+green wild"], []],
        pile=("Sunny", "Josephine", "Quagmire", "Quagmire", "Quagmire"),
        **options,
    )
    act(game, state, "draw from the pile")
    act(game, state, f"discard {card}")
    act(game, state, "target the player 1 to my left")
    if card == "Burning House":
        act(game, state, "burn Sunny+Sunny+green wild")
    return game, state


@pytest.mark.parametrize("card", ATTACKS)
def test_snicket_cancels_each_attack(card):
    game, state = _attack_on_snicket_holder(card)
    assert (state.phase, state.actor) == (REACT, 1), "the target acts next, out of turn"
    assert legal_names(game, state) == ["Snicket: cancel", "Snicket: allow"]
    assert state.known[1][parse_kinds(["Lemony Snicket"])[0]] == 1, "being asked is public"
    hand_before = sum(state.hands[1])
    act(game, state, "Snicket: cancel")
    assert not ATTACKS[card](state)
    assert state.discard[-2:] == parse_kinds([card, "Lemony Snicket"])
    assert sum(state.hands[1]) == hand_before and state.hands[1][parse_kinds(["Josephine"])[0]]
    assert state.laid[1] == [SET_ID["Sunny+Sunny+green wild"]] and state.owed3[1] == 0
    assert (state.turn_player, state.actor, state.phase) == (1, 1, DRAW)


@pytest.mark.parametrize("card", ATTACKS)
def test_snicket_holder_may_allow_the_attack(card):
    game, state = _attack_on_snicket_holder(card)
    act(game, state, "Snicket: allow")
    assert ATTACKS[card](state)
    assert state.hands[1][parse_kinds(["Lemony Snicket"])[0]] == 1


def test_play_resumes_left_of_the_attacker_not_the_target():
    game, state = build(
        [["Mr. Poe", *HAND_A[1:]], HAND_B, ["Lemony Snicket", *FILLER[1:]]], pile=("Sunny",)
    )
    act(game, state, "draw from the pile")
    act(game, state, "discard Mr. Poe")
    act(game, state, "target the player 2 to my left")
    assert state.actor == 2
    act(game, state, "Snicket: cancel")
    assert (state.turn_player, state.actor) == (1, 1)


def test_no_snicket_means_no_question_unless_always_asked():
    game, state = build([["Mr. Poe", *HAND_A[1:]], HAND_B], pile=("Sunny",))
    act(game, state, "draw from the pile")
    act(game, state, "discard Mr. Poe")
    act(game, state, "target the player 1 to my left")
    assert state.phase == DRAW and state.owed3[1] == 2
    game, state = build(
        [["Mr. Poe", *HAND_A[1:]], HAND_B], pile=("Sunny",), snicket_prompt="always"
    )
    act(game, state, "draw from the pile")
    act(game, state, "discard Mr. Poe")
    act(game, state, "target the player 1 to my left")
    assert state.phase == REACT and legal_names(game, state) == ["Snicket: allow"]
    assert "no Lemony Snicket" in is_illegal(game, state, "Snicket: cancel")
    assert not any(state.known[1])


def test_snicket_holder_is_asked_silently_with_always():
    _, state = _attack_on_snicket_holder("Mr. Poe", snicket_prompt="always")
    assert state.phase == REACT and not any(state.known[1])


# -- going out, Victory cards, game end ---------------------------------------------------------


def _going_out(victory=None, **options):
    """Seat 0 has laid its 3-set and holds a 4-set; the pile gives it a Monty to discard."""
    hands = [["Klaus", "Klaus", "Sunny", "Sunny"], HAND_B, FILLER]
    game, state = build(
        hands, laid=[["Violet+Violet+Violet"], [], []], pile=("Monty",), victory=victory, **options
    )
    act(game, state, "draw from the pile")
    act(game, state, "lay Klaus+Klaus+Sunny+Sunny")
    act(game, state, "discard Monty")
    return game, state


def test_going_out_wins_the_round_and_a_victory_card():
    game, state = _going_out()
    assert (state.phase, state.actor, state.round_winner) == (VICTORY, 0, 0)
    assert legal_names(game, state) == ["Victory card from the centre"]
    act(game, state, "Victory card from the centre")
    assert (state.victory, state.centre) == ([1, 0, 0], 6)
    assert (state.round, state.dealer, state.turn_player, state.phase) == (1, 0, 1, DRAW)
    assert [sum(h) for h in state.hands] == [7, 7, 7] and state.laid == [[], [], []]
    assert state.seen == [[None] * 3] * 3 and not any(map(any, state.known))


def test_a_special_as_the_last_card_wins_without_effect():
    hands = [["Klaus", "Klaus", "Sunny", "Sunny"], HAND_B, FILLER]
    game, state = build(hands, laid=[["Violet+Violet+Violet"], [], []], pile=("Mr. Poe",))
    act(game, state, "draw from the pile")
    act(game, state, "lay Klaus+Klaus+Sunny+Sunny")
    act(game, state, "discard Mr. Poe")
    assert state.phase == VICTORY and state.owed3 == [0, 1, 1]


def test_victory_card_may_be_stolen_from_any_holder():
    game, state = _going_out(victory=[0, 2, 0])
    assert legal_names(game, state) == [
        "Victory card from the centre",
        "steal a Victory card from +1",
    ]
    assert "holds no Victory" in is_illegal(game, state, "steal a Victory card from +2")
    act(game, state, "steal a Victory card from +1")
    assert (state.victory, state.centre, state.over) == ([1, 1, 0], 5, False)
    assert game.scores(state) == [1, 1, 0]


def test_four_victory_cards_end_the_game():
    game, state = _going_out(victory=[3, 0, 0])
    act(game, state, "Victory card from the centre")
    assert state.over and game.winners(state) == [0] and game.legal_actions(state) == []
    assert game.illegal_reason(state, 0) == "the game is over"


def test_centre_empty_reading_plays_on_past_a_majority():
    game, state = _going_out(victory=[3, 0, 0], game_end="centre_empty")
    act(game, state, "Victory card from the centre")
    assert not state.over and state.round == 1 and state.victory == [4, 0, 0]


def test_empty_centre_ends_the_game_and_ties_share():
    game, state = _going_out(victory=[2, 3, 1], game_end="centre_empty")
    act(game, state, "steal a Victory card from +1")
    assert not state.over  # 3-2-1 with one card left in the centre
    game, state = _going_out(victory=[2, 3, 1])
    act(game, state, "Victory card from the centre")
    assert state.over and state.centre == 0 and game.winners(state) == [0, 1]


def test_max_rounds_truncates():
    game, state = _going_out(max_rounds=1)
    act(game, state, "Victory card from the centre")
    assert state.truncated and not state.over and game.winners(state) == []


# -- the pile, caps, stalls ---------------------------------------------------------------------


def test_empty_pile_reshuffles_the_discard_but_its_top():
    game, state = build([HAND_A, HAND_B], discard=("Sunny",))
    state.discard = [*state.pile, *state.discard]  # everything but the hands is face up
    state.discard_counts, state.pile = counts_of(state.discard), []
    game.check_invariants(state)
    act(game, state, "draw from the pile", seed=3)
    assert state.discard == parse_kinds(["Sunny"]) and len(state.pile) == DECK_SIZE - 14 - 2


def _thin_pile(state: UnfortunateEventsState, keep: int) -> int:
    """Move all but the pile's next ``keep`` cards face up under the discard's top; returns
    how many discard cards a reshuffle would then use (all but the top)."""
    state.discard = [*state.pile[:-keep], *state.discard]
    state.discard_counts, state.pile = counts_of(state.discard), state.pile[-keep:]
    return len(state.discard) - 1


def test_the_draw_that_empties_the_pile_reshuffles_at_once():
    """The rulebook: "When the DRAW pile is emptied, reshuffle the DISCARD pile"."""
    game, state = build([HAND_A, HAND_B], discard=("Sunny",), pile=("Violet",))
    spare = _thin_pile(state, 1)
    game.check_invariants(state)
    act(game, state, "draw from the pile")
    assert state.hands[0][parse_kinds(["Violet"])[0]] == 1
    assert state.discard == parse_kinds(["Sunny"]) and len(state.pile) == spare
    assert state.discard_counts == counts_of(state.discard)


@pytest.mark.parametrize("left", [1, 2, 3])
def test_mr_poes_three_cards_reshuffle_as_the_pile_empties(left):
    """With 1 or 2 cards left the three draws straddle the reshuffle; with 3 the third draw
    has it happen at once; the discard's top (Mr. Poe) stays face up."""
    pile = ("Sunny", "Violet", "Monty", "Josephine")[: 1 + left]
    game, state = build([["Mr. Poe", *HAND_A[1:]], HAND_B], pile=pile)
    spare = _thin_pile(state, 1 + left)
    act(game, state, "draw from the pile")
    act(game, state, "discard Mr. Poe")
    act(game, state, "target the player 1 to my left")
    assert state.discard == parse_kinds(["Mr. Poe"])
    assert sum(state.hands[1]) == 10 and len(state.pile) == spare + 1 + left - 3
    assert all(state.hands[1][k] >= 1 for k in parse_kinds(pile[1:]))


def test_burning_house_draws_reshuffle_the_burnt_set_but_the_top():
    game, state = _burn_table()
    spare = _thin_pile(state, 5)
    act(game, state, "draw from the pile")
    act(game, state, "discard Burning House")
    act(game, state, "target the player 1 to my left")
    act(game, state, "burn Stephano+Stephano+Captain Sham+Captain Sham")
    assert state.discard == parse_kinds(["Captain Sham"])
    assert len(state.pile) == spare + 1 + 1 + 3  # the old top, the Burning House, 3 burnt
    assert state.hands[1][parse_kinds(["Quagmire"])[0]] == 3


def test_turn_cap_truncates_the_game():
    env = make("unfortunate_events_v0", num_players=2, turn_cap=3)
    env.reset(seed=0)
    turns = 0
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert truncated and not terminated and reward == 0
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        discards = [a for a in legal if env.game.actions.names[a].startswith("discard")]
        turns += bool(discards)
        env.step(int(discards[0]) if discards else int(legal[0]))
    assert env.game_state.turns == 3 and env.game_state.truncated and turns == 3


def test_nothing_left_to_draw_stalls_and_truncates():
    """Seat 1 holds all the cards but seat 0's; the pile's last card goes to seat 0, then Mr.
    Poe finds nothing to draw (the discard holds only itself)."""
    game = UnfortunateEventsGame(2)
    poe = parse_kinds(["Mr. Poe"])[0]
    hand0 = counts_of(parse_kinds(["Mr. Poe", "Klaus", "Klaus", "Sunny"]))
    rest = [c - h for c, h in zip(COPIES, hand0, strict=True)]
    pile = [parse_kinds(["Monty"])[0]]
    rest[pile[0]] -= 1
    state = UnfortunateEventsState(
        hands=[hand0, rest],
        pile=pile,
        discard=[],
        discard_counts=[0] * NUM_KINDS,
        laid=[[SET_ID["Violet+Violet+Violet"]], []],
        owed3=[0, 31],
        owed4=[1, 1],
        victory=[0, 0],
        centre=VICTORY_CARDS,
        dealer=1,
        turn_player=0,
        actor=0,
    )
    state.laid[0], state.hands[1][0] = [SET_ID["Violet+Violet+Violet"]], rest[0] - 3
    state.known, state.seen = [[0] * NUM_KINDS, [0] * NUM_KINDS], [[None] * 2, [None] * 2]
    game.check_invariants(state)
    act(game, state, "draw from the pile")
    act(game, state, "discard Mr. Poe")
    act(game, state, "target the player 1 to my left")
    act(game, state, "Snicket: allow")  # seat 1 holds both Snickets
    assert state.truncated and state.stalled and game.is_truncated(state)
    assert state.discard == [poe] and state.pile == []
    game.check_invariants(state)


# -- the environment: injected deals, out-of-turn reactions, what a seat sees -------------------

SNICKET_DEAL = {
    "hands": [["Lemony Snicket", *FILLER[1:]], ["Mr. Poe", *HAND_A[1:]], HAND_B],
    "discard": ["Sunny"],
    "pile": ["Violet", "Monty", "Monty", "Monty"],
}


def _env_after_poe(seed: int = 0, **options):
    """Seat 1 (left of dealer 0) draws, plays Mr. Poe on seat 0, who holds a Snicket."""
    env = make("unfortunate_events_v0", num_players=3, **options)
    env.reset(seed=seed, options={"deal": SNICKET_DEAL})
    names = env.game.actions.ids
    assert env.agent_selection == "player_1"
    for name in ("draw from the pile", "discard Mr. Poe", "target the player 2 to my left"):
        env.step(names[name])
    return env


def test_the_snicket_holder_is_the_next_agent_and_play_resumes_left_of_the_attacker():
    env = _env_after_poe()
    assert env.agent_selection == "player_0"
    mask = env.observe("player_0")["action_mask"]
    names = env.game.actions.names
    assert [names[a] for a in np.flatnonzero(mask)] == ["Snicket: cancel", "Snicket: allow"]
    assert not env.observe("player_1")["action_mask"].any()
    env.step(env.game.actions.ids["Snicket: cancel"])
    assert env.agent_selection == "player_2"
    assert env.game_state.hands[0][parse_kinds(["Monty"])[0]] == 2  # drew the next pile card


def test_injected_deals_are_checked():
    env = make("unfortunate_events_v0", num_players=3)
    with pytest.raises(ValueError, match="hands"):
        env.reset(options={"deal": {"hands": [HAND_A, HAND_B]}})
    with pytest.raises(ValueError, match="copies"):
        env.reset(options={"deal": {"hands": [HAND_A, HAND_A, HAND_A]}})
    with pytest.raises(ValueError, match="not a card"):
        env.reset(options={"deal": {"hands": [HAND_A, HAND_B, ["Olaf", *FILLER[1:]]]}})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"deal": {**SNICKET_DEAL, "dealer": 3}})
    with pytest.raises(ValueError, match="'piles'"):
        env.reset(options={"deal": {**SNICKET_DEAL, "piles": ["Violet"]}})


def test_illegal_actions_name_the_rule_and_change_nothing():
    env = _env_after_poe()
    before = pickle.dumps((env.game_state, env.agent_selection))
    with pytest.raises(IllegalActionError, match="react"):
        env.step(env.game.actions.ids["discard Sunny"])
    assert pickle.dumps((env.game_state, env.agent_selection)) == before


def test_render_seat_shows_only_that_seats_hand():
    env = _env_after_poe(render_mode="ansi")
    game, state = env.game, env.game_state
    mine = game.render_seat(state, 2)
    assert "hand: Violet, Monty, Josephine" in mine and "Lemony Snicket" in mine  # public ask
    assert "hand: Klaus" not in mine and "cards (known:" in mine
    assert "player_0 Victory 0" in env.render()


def test_observation_hides_other_hands_and_the_pile():
    env = _env_after_poe()
    game, encoding, state = env.game, env.encoding, env.game_state
    rng = np.random.default_rng(1)
    for _ in range(5):
        other = game.resample_hidden(state, 2, rng)
        assert np.array_equal(encoding.observe(other, 2), encoding.observe(state, 2))
        assert other.hands[2] == state.hands[2]
        assert other.hands[0][parse_kinds(["Lemony Snicket"])[0]] >= 1, "known cards stay"
    views = encoding.spec.views(encoding.observe(state, 2))
    assert views["hand"].tolist() == state.hands[2]
    assert views["known"][1].tolist() == state.known[0]  # seat 0 is relative seat 1 of seat 2
    assert views["seats"][1, 0] == sum(state.hands[0])


@pytest.mark.parametrize(
    "options", [{}, {"snicket_prompt": "always"}, {"game_end": "centre_empty"}]
)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), num_players=st.integers(2, 6))
def test_options_keep_masks_exact_and_cards_conserved(options, seed, num_players):
    env = make("unfortunate_events_v0", num_players=num_players, turn_cap=120, **options)
    env.reset(seed=seed)
    game, rng, steps = env.game, np.random.default_rng(seed), 0
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        game.check_invariants(env.game_state)
        detector = [
            game.illegal_reason(env.game_state, a) is None for a in range(game.actions.size)
        ]
        assert obs["action_mask"].tolist() == [int(d) for d in detector] and any(detector)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    assert steps <= game.max_steps


def _views(
    game: UnfortunateEventsGame, state: UnfortunateEventsState, seat: int
) -> dict[str, np.ndarray]:
    encoding = UnfortunateEventsEncoding(game)
    return encoding.spec.views(encoding.observe(state, seat))


@pytest.mark.parametrize("target", [1, 2])
def test_every_seat_sees_who_olafs_eye_targeted(target):
    """The Eye resolves within the attacker's step, yet the whole table saw the choice."""
    game, state = build([["Olaf's Eye", *HAND_A[1:]], HAND_B, FILLER], pile=("Sunny",))
    act(game, state, "draw from the pile")
    act(game, state, "discard Olaf's Eye")
    act(game, state, f"target the player {target} to my left")
    assert state.phase == DRAW and state.target == NONE
    for seat in range(3):
        views = _views(game, state, seat)
        made, hit = views["seats"][:, 9], views["seats"][:, 10]
        assert made.tolist() == [int((0 - seat) % 3 == r) for r in range(3)]
        assert hit.tolist() == [int((target - seat) % 3 == r) for r in range(3)]
        assert views["last_attack"].tolist() == [1, 0, 0] and views["last_cancelled"] == 0


def test_every_seat_sees_a_snicket_cancel_and_the_set_it_saved():
    game, state = _attack_on_snicket_holder("Burning House")
    act(game, state, "Snicket: cancel")
    assert not any(state.known[1])  # the Snicket left the hand: only the new pieces tell
    views = _views(game, state, 2)
    assert views["seats"][1, 9] == 1 and views["seats"][2, 10] == 1  # seat 0 hit seat 1
    assert views["last_attack"].tolist() == [0, 1, 0] and views["last_cancelled"] == 1
    assert views["last_burn_set"].tolist() == counts_of(
        SETS[SET_ID["Sunny+Sunny+green wild"]].cards
    )
    act(game, state, "draw from the pile")  # seat 1's turn: the memory stays
    assert _views(game, state, 2)["last_cancelled"] == 1


def test_a_new_round_forgets_the_last_attack():
    game, state = _going_out()
    state.last_attack = (parse_kinds(["Mr. Poe"])[0], 1, 0, NONE, False)
    act(game, state, "Victory card from the centre")
    assert state.round == 1 and state.last_attack is None
    assert not _views(game, state, 0)["last_attack"].any()


def test_each_laid_set_is_observed_not_just_their_cards():
    """Two tables with the same laid cards but different sets (and so different Burning House
    choices) must look different."""
    tables = [
        ["Violet+Klaus+Sunny", "Violet+Violet+green wild", "Monty+Monty+Josephine+Josephine"],
        ["Violet+Violet+Violet", "Klaus+Sunny+green wild", "Monty+Monty+Josephine+Josephine"],
    ]
    observations = []
    for table in tables:
        game, state = build(
            [HAND_A, ["Stephano", "Stephano", "Bald Man"], FILLER],
            laid=[[], table, []],
            poe=(0, 1, 0),  # two Mr. Poes: two of three 3-sets laid, one owed
        )
        views = _views(game, state, 0)
        fours = counts_of(SETS[SET_ID[table[2]]].cards)
        assert views["laid4"][1].tolist() == fours and not views["laid4"][[0, 2]].any()
        assert np.flatnonzero(views["laid3"][1]).tolist() == sorted(SET_ID[s] for s in table[:2])
        observations.append(_views(game, state, 0))
    assert not np.array_equal(observations[0]["laid3"], observations[1]["laid3"])


def test_one_encoding_follows_every_state_it_is_given():
    """The encoding keeps the laid pieces between calls (they rarely change): they must follow
    the state given, also when the same laid lists are changed in place."""
    table = ["Violet+Klaus+Sunny", "Violet+Violet+green wild", "Monty+Monty+Josephine+Josephine"]
    game, laid = build(
        [HAND_A, ["Stephano", "Stephano", "Bald Man"], FILLER], laid=[[], table, []], poe=(0, 1, 0)
    )
    _, bare = build([HAND_A, HAND_B, FILLER])
    encoding = UnfortunateEventsEncoding(game)
    for state in (laid, bare, laid, laid, bare):
        for seat in range(3):
            fresh = UnfortunateEventsEncoding(game).observe(state, seat)
            assert np.array_equal(encoding.observe(state, seat), fresh)
    laid.laid[1].pop()  # in place: the kept copy must not be the state's own list
    assert not _views(game, laid, 0)["laid4"].any()
    assert not encoding.spec.views(encoding.observe(laid, 0))["laid4"].any()


def test_max_steps_bounds_the_longest_game():
    game = UnfortunateEventsGame(4, turn_cap=10, max_rounds=3)
    assert game.max_steps == 3 * (10 * 6 + 1)


def test_fast_observation_equals_the_piece_by_piece_one():
    """``observe`` packs bytes for speed; it must equal filling the named views, past 255 turns."""
    env = make("unfortunate_events_v0", num_players=5, turn_cap=400)
    env.reset(seed=2)
    encoding, turns = env.encoding, 0
    for steps, action in enumerate(random_steps(env, 2)):
        turns = max(turns, env.game_state.turns)
        if steps % 5 == 0:
            for seat in range(5):
                buffer, views = encoding.spec.new()
                encoding.encode(env.game_state, seat, views)
                assert np.array_equal(encoding.observe(env.game_state, seat), buffer)
        env.step(action)
    assert turns > 255


def test_golden_seeded_random_game():
    """A regression anchor: seed 8, three players, random legal moves from the same seed."""
    env = make("unfortunate_events_v0", num_players=3)
    env.reset(seed=8)
    played = []
    for action in random_steps(env, 8):
        env.step(action)
        played.append(action)
    state = env.game_state
    assert (len(played), state.round, state.turns, state.victory, state.centre) == (
        4591,
        15,
        283,
        [3, 2, 2],
        0,
    )
    assert env.game.winners(state) == [0]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), observer=st.integers(0, 3), cut=st.integers(0, 300))
def test_resampling_keeps_what_is_known_and_conserves_cards(seed, observer, cut):
    env = make("unfortunate_events_v0", num_players=4)
    env.reset(seed=seed)
    for _, action in zip(range(cut), random_steps(env, seed), strict=False):
        env.step(action)
    game, state = env.game, env.game_state
    other = game.resample_hidden(state, observer, np.random.default_rng(seed))
    game.check_invariants(other)
    assert other.hands[observer] == state.hands[observer] and other.discard == state.discard
    assert [sum(h) for h in other.hands] == [sum(h) for h in state.hands]
    assert len(other.pile) == len(state.pile)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_rule_violation_answers_for_the_rules_behind_the_shared_checks(num_players):
    """The base's ``illegal_reason`` makes the shared checks and decodes ids through the
    ``ActionSpec``; the game's ``rule_violation`` answers for its own rules, with the same
    words, at every step of a game (issue 17)."""
    assert "illegal_reason" not in vars(UnfortunateEventsGame)
    game = UnfortunateEventsGame(num_players, turn_cap=40)
    state = game.new_game(np.random.default_rng(3))
    assert game.rule_violation(state, "lay", 0) == "now is the time to draw, not to lay"
    rng = np.random.default_rng(4)
    for _ in range(300):
        if game.is_over(state) or game.is_truncated(state):
            break
        legal = game.legal_actions(state)
        mask = game.legal_mask(state)  # written apart from the list in the busiest phases
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
        for action in range(game.actions.size):
            reason = game.rule_violation(state, *game.actions.decode(action))
            assert reason == game.illegal_reason(state, action)
            assert (reason is None) == (action in legal)
        game.apply(state, legal[rng.integers(len(legal))], rng)


def test_the_text_module_does_not_import_the_game():
    """``text`` depends on the state and the cards, ``game`` on ``text``, never back."""
    tree = ast.parse(Path(text.__file__).read_text())
    imported = [
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    ]
    assert not [m for m in imported if m.endswith("rules.game")]


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_rewards_stay_in_the_range_the_metadata_declares(reward_mode):
    """``metadata`` names the version and each reward mode's range (issue 17)."""
    metadata = unfortunate_events_v0.metadata
    assert metadata["version"] == 0
    low, high = metadata["reward_range" if reward_mode == "win" else "score_reward_range"]
    rewards: list[float] = []
    for seed in range(3):
        env = unfortunate_events_v0.env(reward_mode=reward_mode)
        env.reset(seed=seed)
        for action in random_steps(env, seed):
            env.step(action)
            rewards += env.rewards.values()
    assert low <= min(rewards) < 0 < max(rewards) <= high


# -- chance as data: deals and reshuffles scripted in deal["chance"] ----------------------------
DECK = [kind for kind in range(NUM_KINDS) for _ in range(COPIES[kind])]  # sorted by kind
# Seat 0 holds the seven of kind 0, seat 1 of kind 1; one card (kind 2) is left in the pile and
# the rest lie face up on the discard, Beatrice (the last kind) on top.
THIN_ROUND = [[DECK[:7], DECK[7:14]], DECK[15:], DECK[14:15]]
RESHUFFLED = sorted(DECK[15:-1], reverse=True)  # next drawn first: a Lemony Snicket


def _draw(game: UnfortunateEventsGame) -> int:
    return game.actions.ids["draw from the pile"]


def test_a_scripted_reshuffle_is_the_new_pile_and_draws_nothing():
    """The rulebook: "When the DRAW pile is emptied, reshuffle the DISCARD pile" (all but its
    top card). Script that reshuffle: the next draw is its first card."""
    game = UnfortunateEventsGame(2)
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    state = game.new_game(rng, {"chance": {"deal": [THIN_ROUND], "reshuffle": [RESHUFFLED]}})
    assert state.actor == 1 and state.pile == [2] and state.discard[-1] == BEATRICE
    game.apply(state, _draw(game), rng)  # seat 1 draws the pile's last card: reshuffle at once
    assert state.discard == [BEATRICE] and state.pile == RESHUFFLED[::-1]
    game.apply(state, game.actions.encode("discard", 1), rng)
    game.apply(state, _draw(game), rng)  # seat 0 draws the reshuffled pile's first card
    assert state.hands[0][parse_kinds(["Lemony Snicket"])[0]] == 1
    game.check_invariants(state)
    assert rng.bit_generator.state == before  # the deal and the reshuffle came from the script
    assert game.deal_record(state) == {"chance": {"deal": [THIN_ROUND], "reshuffle": [RESHUFFLED]}}


def test_a_scripted_reshuffle_of_other_cards_is_an_error_that_changes_nothing():
    """A reshuffle is checked when it happens, mid-move: the game stays as before the move."""
    game = UnfortunateEventsGame(2)
    rng = np.random.default_rng(5)
    short = RESHUFFLED[1:]
    state = game.new_game(rng, {"chance": {"deal": [THIN_ROUND], "reshuffle": [short]}})
    before = pickle.dumps((state, rng.bit_generator.state))
    with pytest.raises(
        ValueError,
        match=r"deal\['chance'\]\['reshuffle'\]\[0\] must be the 89 cards reshuffled from the "
        r"discard \(all but its top card\), next drawn first: .*Lemony Snicket x2",
    ):
        game.apply(state, _draw(game), rng)
    assert pickle.dumps((state, rng.bit_generator.state)) == before


def test_a_malformed_scripted_deal_is_a_clear_error_before_anything_is_dealt():
    game = UnfortunateEventsGame(2)
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    hands, discard, pile = THIN_ROUND

    def rejected(chance: dict, *pattern: str) -> None:
        with pytest.raises(ValueError, match="".join(pattern)):
            game.new_game(rng, {"chance": chance})

    rejected({"deal": [[hands, discard]]}, r"deal\['chance'\]\['deal'\]\[0\] must be a round's")
    rejected(
        {"deal": [THIN_ROUND, [hands, discard, []]]},
        r"deal\['chance'\]\['deal'\]\[1\] must deal the whole deck of 105 cards",
        r".*deals Sunny 6 times \(the deck holds 7\)",
    )
    rejected({"deal": [[hands, [], pile + discard]]}, r"\[0\]\[1\] must hold the face-up card")
    rejected({"deal": [[[hands[0], hands[1][1:]], discard, pile]]}, r"\[0\]\[0\]\[1\] must be")
    rejected({"reshuffle": [["Olaf"]]}, r"deal\['chance'\]\['reshuffle'\]\[0\]\[0\] is not")
    rejected({"shuffle": []}, "unknown events")
    with pytest.raises(ValueError, match="already gives"):
        game.new_game(rng, {"hands": hands, "chance": {"deal": [THIN_ROUND]}})
    assert rng.bit_generator.state == before


def test_a_hand_written_round_one_is_the_first_deal_of_the_record():
    """Written by hand, round 1 is logged whole (the cards it leaves out as shuffled) as the
    first ``deal``; the dealer comes back as the record's ``dealer`` and replays it exactly."""
    game = UnfortunateEventsGame(3)
    state = game.new_game(np.random.default_rng(1), {**SNICKET_DEAL, "dealer": 2})
    record = game.deal_record(state)
    assert record["dealer"] == 2 and list(record["chance"]) == ["deal"]
    _, discard, pile = record["chance"]["deal"][0]
    assert discard == parse_kinds(SNICKET_DEAL["discard"])
    assert pile[:4] == parse_kinds(SNICKET_DEAL["pile"]) and len(pile) == DECK_SIZE - 21 - 1
    replay = game.new_game(np.random.default_rng(2), record)
    replay.chance.script = {}  # the replay's script is used up; the rest is the same game
    assert replay == state


def test_resampled_states_carry_no_chance_log_or_script():
    """The log holds the true hands and pile, the script the future: neither is the
    observer's."""
    game = UnfortunateEventsGame(2)
    chance = {"deal": [THIN_ROUND], "reshuffle": [RESHUFFLED]}
    state = game.new_game(np.random.default_rng(0), {"chance": chance})
    resampled = game.resample_hidden(state, 0, np.random.default_rng(0))
    assert resampled.chance.log == {} and resampled.chance.script == {}
    assert state.chance.script["reshuffle"] == [RESHUFFLED]  # the original keeps its script
