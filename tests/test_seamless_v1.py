"""``seamless_v1``: version 0's game with ``played_by`` and ``voids``, this round's plays by seat
and the suits they show a seat lacks (docs/seamless_v1.md)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from test_seamless import BY_SUIT, deal_from

from card_envs import seamless_v0, seamless_v1, vector
from card_envs.agents.match import decisions
from card_envs.core.cards import parse_card
from card_envs.seamless.encoding import SeamlessEncoding
from card_envs.seamless.rules import SeamlessGame
from card_envs.seamless.rules.cards import NUM_RANKS, trick_winner_index

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
CLAIM = 52  # the first id of the claim block


def by_hand(state, seat: int, n: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """The two pieces worked out trick by trick from the round's plays, as ``seat`` sees them."""
    played_by, voids = np.zeros((n, 52), np.float32), np.zeros((n, 4), np.float32)
    leader = (state.dealer + 1) % n
    for start in range(0, len(state.played), n):
        trick = state.played[start : start + n]
        for i, card in enumerate(trick):
            relative = (leader + i - seat) % n
            played_by[relative, card] = 1
            if card // NUM_RANKS != trick[0] // NUM_RANKS:
                voids[relative, trick[0] // NUM_RANKS] = 1
        if len(trick) == n:
            leader = (leader + trick_winner_index(trick, state.trump)) % n
    return played_by, voids


def test_v1_is_v0_with_two_pieces_appended():
    old, new = seamless_v0.env(), seamless_v1.env()
    old.reset(seed=5)
    new.reset(seed=5)
    rng = np.random.default_rng(5)
    size = old.describe().obs_spec.size
    assert new.describe().obs_spec.size == size + 4 * 52 + 4 * 4
    assert new.metadata["name"] == "seamless_v1" and new.metadata["version"] == 1
    for (_, seen), (_, seen_new) in zip(decisions(old), decisions(new), strict=True):
        assert np.array_equal(seen["observation"], seen_new["observation"][:size])
        assert np.array_equal(seen["action_mask"], seen_new["action_mask"])
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        old.step(action)
        new.step(action)


def test_a_trick_of_one_suit_per_hand_shows_three_voids():
    """Seat p holds one suit each (clubs, the dealer's, are trump): seat 1 leads 2D, nobody else
    can follow, seat 0 trumps and wins. Seat 1 sees each play under its player, relative to
    itself, and the three others void in diamonds."""
    env = seamless_v1.env()
    env.reset(seed=0, options={"deal": deal_from(BY_SUIT, "AC", dealer=0)})
    for card in ("2D", "2H", "2S", "3C"):
        env.step(parse_card(card))
    assert env.agent_selection == "player_0"  # the winner claims
    views = env.describe().obs_spec.views(env.observe("player_1")["observation"])
    for relative, card in enumerate(("2D", "2H", "2S", "3C")):
        assert views["played_by"][relative].nonzero()[0].tolist() == [parse_card(card)]
    assert views["voids"][:, DIAMONDS].tolist() == [0, 1, 1, 1]
    assert views["voids"].sum() == 3
    env.step(CLAIM + parse_card("2D"))
    env.step(parse_card("4C"))  # seat 0 leads trump: the three others cannot follow clubs
    seen = env.describe().obs_spec.views(env.observe("player_2")["observation"])
    assert seen["voids"][:, CLUBS].tolist() == [0, 0, 0, 0]  # nobody has had to follow yet
    for card in ("3D", "3H", "3S"):
        env.step(parse_card(card))
    seen = env.describe().obs_spec.views(env.observe("player_2")["observation"])
    assert seen["voids"][:, CLUBS].tolist() == [1, 1, 0, 1]  # seats 2, 3 and 1; not seat 0
    assert seen["voids"][:, DIAMONDS].tolist() == [1, 1, 1, 0]
    assert seen["played_by"][2].nonzero()[0].tolist() == sorted(map(parse_card, ["3C", "4C"]))


@pytest.mark.parametrize("rule", ["no_other_suit", "void_in_a_suit"])
def test_every_seat_sees_the_plays_and_voids_worked_out_by_hand(rule):
    """Random games, every seat's observation at every step (one encoding reading the rounds
    play by play, across rounds and games), against the trick-by-trick count."""
    env = seamless_v1.env(trick_one_trump_lead=rule, max_rounds=2)
    spec = env.describe().obs_spec
    rng = np.random.default_rng(3)
    for seed in range(6):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            state = env.unwrapped.game_state
            for seat in range(4):
                views = spec.views(env.observe(f"player_{seat}")["observation"])
                played_by, voids = by_hand(state, seat)
                assert np.array_equal(views["played_by"], played_by), (seed, agent, seat)
                assert np.array_equal(views["voids"], voids), (seed, agent, seat)
            legal = np.flatnonzero(observation["action_mask"])
            env.step(None if terminated or truncated else int(rng.choice(legal)))


@pytest.mark.parametrize("rule", ["no_other_suit", "void_in_a_suit"])
def test_the_compiled_writer_writes_the_reference(rule):
    """Every seat's vector at every step of random games: the compiled writers' (version 0's
    pieces, then the history) against the references, entry for entry."""
    env = seamless_v1.env(trick_one_trump_lead=rule, max_rounds=1)
    encoding = env.unwrapped.encoding
    if encoding._observer is None:
        pytest.skip("the compiled writer is not built")
    rng = np.random.default_rng(8)
    for seed in range(4):
        env.reset(seed=seed)
        for _, seen in decisions(env):
            state = env.unwrapped.game_state
            for seat in range(4):
                expected = np.zeros(encoding.spec.size, np.float32)
                SeamlessEncoding.write_reference(encoding, state, seat, expected.data)
                encoding.write_history_reference(state, seat, expected.data)
                assert np.array_equal(encoding.observe(state, seat), expected)
                row = np.zeros(encoding.spec.size, np.float32)
                encoding.write(state, seat, row.data)
                assert np.array_equal(row, expected)
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))


def test_the_compiled_history_refuses_a_bad_state_or_layout():
    """A card code out of range, or pieces that do not fit, are a ValueError, never a write
    outside the vector."""
    env = seamless_v1.env()
    env.reset(seed=1)
    encoding, state = env.unwrapped.encoding, env.unwrapped.game_state
    if encoding._observer is None:
        pytest.skip("the compiled writer is not built")
    at, size = encoding.spec.offsets, encoding.spec.size
    observer_class = type(encoding._observer)
    with pytest.raises(ValueError, match="do not fit"):
        observer_class(4, 700, 5, encoding._tables, (at["played_by"], 0, True))
    with pytest.raises(ValueError, match="do not fit"):
        observer_class(4, size, 5, encoding._tables, (at["played_by"], size - 1, True))
    broken = copy.deepcopy(state)
    broken.played = [3, 99]
    row = np.zeros(size, np.float32)
    with pytest.raises(ValueError, match="card code 99"):
        encoding.write(broken, 0, row.data)


def test_a_copied_encoding_observes_as_the_original():
    """A copy (a search agent's, a pickle) writes the same vectors."""
    env = seamless_v1.env()
    env.reset(seed=11)
    encoding, game = env.unwrapped.encoding, env.unwrapped.game
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    state = env.unwrapped.game_state
    later = copy.deepcopy(state)
    for _ in range(6):
        game.apply(later, int(rng.choice(np.flatnonzero(game.legal_mask(later)))), rng)
    for clone in (copy.deepcopy(encoding), pickle.loads(pickle.dumps(encoding))):
        for seat in range(4):
            assert np.array_equal(clone.observe(later, seat), encoding.observe(later, seat))
        assert np.array_equal(clone.observe(state, 1), encoding.observe(state, 1))


def test_the_pieces_hold_no_hidden_card():
    """Redealing what player_0 cannot see (the other hands) leaves the two pieces as they were."""
    env = seamless_v1.env()
    env.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(21):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    state, game = env.unwrapped.game_state, SeamlessGame()
    before = env.observe("player_0")["observation"]
    redealt = game.resample_hidden(copy.deepcopy(state), 0, np.random.default_rng(9))
    assert redealt.hands[1:] != state.hands[1:]
    assert np.array_equal(env.unwrapped.encoding.observe(redealt, 0), before)


def test_a_vector_env_keeps_each_tables_round_apart():
    """Tables stepped in turn through one encoding: each row holds its own table's plays."""
    venv = vector.make("seamless_v1", 3, seed=4, max_rounds=1)
    venv.reset()
    spec, rng = venv.encoding.spec, np.random.default_rng(4)
    for _ in range(150):
        venv.step(vector.random_actions(venv.masks, rng))
        for i in range(3):
            views = spec.views(venv.observations[i])
            played_by, voids = by_hand(venv.states[i], int(venv.current_player[i]))
            assert np.array_equal(views["played_by"], played_by)
            assert np.array_equal(views["voids"], voids)
