"""What every seat knows about the hands it cannot see, and deals consistent with it: who
played each card this round and the voids that shows (a seat that did not follow the led suit
holds none of it; a trump lead to trick 1 shows the leader's hand), which
:meth:`SeamlessGame.resample_hidden` keeps."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from card_envs.seamless.rules.cards import NUM_RANKS, NUM_SUITS, trick_winner_index
from card_envs.seamless.rules.state import SeamlessState


def round_plays(
    state: SeamlessState, num_players: int, trump_lead_rule: str
) -> tuple[list[int], list[set[int]]]:
    """This round's plays read in order: the seat that played each card of ``state.played``
    (the dealer's left leads trick 1, each trick's winner the next), and the suits each seat
    has shown it holds none of. A seat that does not follow the led suit shows it lacks it. A
    trump lead to trick 1 shows a hand of trumps only (rule ``"no_other_suit"``) or, under
    ``"void_in_a_suit"``, a void in some other suit: one the leader has not played, chosen
    later by the deal (see :func:`lead_void_suits`)."""
    n, played, trump = num_players, state.played, state.trump
    seats: list[int] = []
    voids: list[set[int]] = [set() for _ in range(n)]
    for k, card in enumerate(played):
        place = k % n
        if k == 0:
            seat = (state.dealer + 1) % n
        elif place == 0:
            seat = (seats[k - n] + trick_winner_index(played[k - n : k], trump)) % n
        else:
            seat = (seats[k - place] + place) % n
        lead = played[k - place] // NUM_RANKS
        if card // NUM_RANKS != lead:
            voids[seat].add(lead)
        if k == 0 and lead == trump and trump_lead_rule == "no_other_suit":
            voids[seat] |= set(range(NUM_SUITS)) - {trump}
        seats.append(seat)
    return seats, voids


def shown_voids(state: SeamlessState, num_players: int, trump_lead_rule: str) -> list[set[int]]:
    """The suits each seat has shown it holds none of this round (:func:`round_plays`)."""
    return round_plays(state, num_players, trump_lead_rule)[1]


def lead_void_suits(state: SeamlessState, num_players: int) -> tuple[int, list[int]] | None:
    """Under ``"void_in_a_suit"``: the seat that led trump to trick 1 and the other suits it
    may have been void in (none of them played by it this round), or None."""
    if not state.played or state.played[0] // NUM_RANKS != state.trump:
        return None
    seats = round_plays(state, num_players, "void_in_a_suit")[0]
    leader = seats[0]
    played = {card // NUM_RANKS for card, p in zip(state.played, seats, strict=True) if p == leader}
    return leader, [s for s in range(NUM_SUITS) if s != state.trump and s not in played]


def deal_unseen(
    state: SeamlessState,
    observer: int,
    pool: list[int],
    sizes: dict[int, int],
    trump_lead_rule: str,
    rng: np.random.Generator,
) -> dict[int, list[int]]:
    """The unseen ``pool`` dealt to the other seats (``sizes``: cards each takes) keeping every
    void shown; a trump lead to trick 1 under ``"void_in_a_suit"`` gets a void drawn among the
    suits that fit."""
    n = len(state.hands)
    voids = shown_voids(state, n, trump_lead_rule)
    lead = lead_void_suits(state, n) if trump_lead_rule == "void_in_a_suit" else None
    if lead is None or lead[0] == observer or voids[lead[0]] & set(lead[1]):
        return constrained_deal(pool, sizes, voids, rng)
    seat, suits = lead
    for i in rng.permutation(len(suits)):
        shown = [v | {suits[int(i)]} if p == seat else v for p, v in enumerate(voids)]
        try:
            return constrained_deal(pool, sizes, shown, rng)
        except ValueError:
            continue
    raise ValueError("no deal of the unseen cards fits the trump lead to trick 1")


def constrained_deal(
    pool: list[int],
    sizes: dict[int, int],
    voids: list[set[int]],
    rng: np.random.Generator,
) -> dict[int, list[int]]:
    """``pool`` (already in a fixed order) dealt at random to the seats of ``sizes`` (how many
    cards each takes), no seat a card of a suit it is void in. Each card goes to a seat drawn
    by its room left, among those that leave the rest dealable (Hall's condition over the
    seats), so a deal exists whenever the true hands do."""
    seats = sorted(sizes)
    order = [pool[int(i)] for i in rng.permutation(len(pool))]
    if not any(voids[s] for s in seats):
        return {
            s: order[sum(sizes[t] for t in seats[:k]) :][: sizes[s]] for k, s in enumerate(seats)
        }
    room = dict(sizes)
    left = [0] * NUM_SUITS
    for card in pool:
        left[card // NUM_RANKS] += 1
    allowed = [[s for s in seats if suit not in voids[s]] for suit in range(NUM_SUITS)]
    halls = _halls(seats, allowed)
    slack = [sum(room[s] for s in group) - sum(left[x] for x in only) for group, only in halls]
    if any(gap < 0 for gap in slack):
        raise ValueError("no deal of the unseen cards fits the voids shown")
    # Dealing a card of suit x to seat s changes each group's slack by (x only there) - (s in it).
    change = {
        (s, x): [(h, (x in only) - (s in group)) for h, (group, only) in enumerate(halls)]
        for s in seats
        for x in range(NUM_SUITS)
    }
    hands: dict[int, list[int]] = {s: [] for s in seats}
    for card, draw in zip(order, rng.random(len(order)), strict=True):
        suit = card // NUM_RANKS
        for seat in _by_room([s for s in allowed[suit] if room[s]], room, draw):
            if all(slack[h] + delta >= 0 for h, delta in change[seat, suit]):
                break
        else:
            raise ValueError("no deal of the unseen cards fits the voids shown")
        for h, delta in change[seat, suit]:
            slack[h] += delta
        room[seat] -= 1
        hands[seat].append(card)
    return hands


def _halls(seats: list[int], allowed: list[list[int]]) -> list[tuple[list[int], list[int]]]:
    """The groups of seats (short of all) that some suits may go to only, with those suits:
    Hall's condition asks each to have room for those suits' cards."""
    halls = []
    for k in range(1, len(seats)):
        for group in combinations(seats, k):
            only = [suit for suit, who in enumerate(allowed) if set(who) <= set(group)]
            if only:
                halls.append((list(group), only))
    return halls


def _by_room(options: list[int], room: dict[int, int], draw: float) -> list[int]:
    """``options`` with one drawn first (``draw`` in [0, 1)) in proportion to its room, the
    rest after in order."""
    pick = draw * sum(room[s] for s in options)
    for k, seat in enumerate(options):
        pick -= room[seat]
        if pick < 0:
            return [seat, *options[:k], *options[k + 1 :]]
    return options
