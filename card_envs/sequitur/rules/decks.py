"""The three goal decks (red, yellow, green): dealing, drawing, discarding and stacking goal
cards, for one goal-card list."""

from __future__ import annotations

import numpy as np

from card_envs.sequitur.rules import events
from card_envs.sequitur.rules.goals import COLOURS, GoalCard
from card_envs.sequitur.rules.state import EMPTY, SequiturState


class GoalDecks:
    """What the rules need to know of the goal cards, precomputed once per game."""

    def __init__(self, goals: tuple[GoalCard, ...]):
        self.goals = goals
        # colour of each goal card (a property is slow on the hot path), and each colour's ids
        self.colour_of = tuple(card.colour_index for card in goals)
        self.ids_of = [
            [g for g, colour in enumerate(self.colour_of) if colour == c]
            for c in range(len(COLOURS))
        ]

    def deal(
        self, state: SequiturState, rng: np.random.Generator, top: dict[int, list[int]]
    ) -> None:
        """Shuffle each colour's deck, with the goal ids of ``top`` (by colour index) on top in
        drawing order: the chance event ``goal_decks``, unless the deal scripts it."""

        def shuffled(rng: np.random.Generator) -> list[list[int]]:
            decks = [[ids[i] for i in rng.permutation(len(ids))] for ids in self.ids_of]
            for colour, ids in top.items():
                decks[colour] = [g for g in decks[colour] if g not in ids] + ids[::-1]
            return [deck[::-1] for deck in decks]

        outcome = state.chance.take(rng, events.GOAL_DECKS, shuffled, lambda given: given)
        state.decks = [deck[::-1] for deck in outcome]
        state.discards = [[] for _ in COLOURS]

    def has_goals(self, state: SequiturState, colour: int) -> bool:
        """A goal card of ``colour`` can be drawn (from the deck, or reshuffled discards)."""
        return bool(
            state.decks[colour]
            or state.discards[colour]
            or any(self.colour_of[g] == colour for g in state.open_discards)
        )

    def draw(self, state: SequiturState, colour: int, rng: np.random.Generator) -> int:
        """Top card of a colour's deck; an empty deck is refilled from its shuffled discards
        (face down and face up): the chance event ``reshuffle``, unless the deal scripts it."""
        deck = state.decks[colour]
        if not deck:
            opened = [g for g in state.open_discards if self.colour_of[g] == colour]
            pool = state.discards[colour] + opened
            if not pool:
                return EMPTY
            index = len(state.chance.log.get(events.RESHUFFLE, []))
            order = state.chance.take(
                rng,
                events.RESHUFFLE,
                lambda rng: [pool[i] for i in rng.permutation(len(pool))][::-1],
                lambda given: events.check_reshuffle(given, index, pool, COLOURS[colour]),
            )
            for g in state.discards[colour]:
                state.own_discards[state.discarder.pop(g)].remove(g)
            state.discards[colour] = []
            state.open_discards = [g for g in state.open_discards if g not in opened]
            deck.extend(order[::-1])
        return deck.pop()

    def discard(self, state: SequiturState, goal: int, seat: int) -> None:
        """``seat`` discards ``goal`` face down (it alone knows the card)."""
        state.discards[self.colour_of[goal]].append(goal)
        state.discarder[goal] = seat
        state.own_discards[seat].append(goal)

    def stack(self, state: SequiturState, seat: int, goal: int) -> None:
        """``seat`` scores ``goal``: it goes on the seat's stack."""
        state.stacks[seat].append(goal)
        state.totals[seat] += self.goals[goal].points

    def hidden_slots(
        self, state: SequiturState, observer: int, colour: int
    ) -> list[tuple[list[int], int]]:
        """(list, index) of each goal card of ``colour`` that ``observer`` has not seen."""

        def hidden(g: int) -> bool:
            return g != EMPTY and self.colour_of[g] == colour

        slots = [(state.decks[colour], i) for i in range(len(state.decks[colour]))]
        discards = state.discards[colour]
        slots += [(discards, i) for i, g in enumerate(discards) if state.discarder[g] != observer]
        for holder in (state.secret, state.kept):
            slots += [(holder, p) for p, g in enumerate(holder) if p != observer and hidden(g)]
        if state.actor != observer:
            slots += [(state.drawn, i) for i, g in enumerate(state.drawn) if hidden(g)]
        return slots

    def resample_hidden(
        self, state: SequiturState, observer: int, rng: np.random.Generator
    ) -> None:
        """Redraw in place what ``observer`` cannot see: the bag order (and a ball another seat
        is placing), and the hidden goal cards of each colour among their hidden places (decks,
        face-down discards of others, others' secret, drawn and face-down public goals)."""
        placing = state.ball != EMPTY and state.actor != observer
        balls = list(state.bag) + ([state.ball] if placing else [])
        balls = [balls[i] for i in rng.permutation(len(balls))]
        if placing:
            state.ball = balls.pop()
        state.bag = balls
        owners = [[state.discarder[g] for g in pile] for pile in state.discards]
        for colour in range(len(COLOURS)):
            slots = self.hidden_slots(state, observer, colour)
            cards = [holder[i] for holder, i in slots]
            for (holder, i), j in zip(slots, rng.permutation(len(cards)), strict=True):
                holder[i] = cards[j]
        state.discarder = {
            g: owners[c][i] for c, pile in enumerate(state.discards) for i, g in enumerate(pile)
        }
        state.own_discards = [[] for _ in range(state.num_players)]
        for g, seat in state.discarder.items():
            state.own_discards[seat].append(g)
