"""Catastrophic Card Game rules: legal moves, transitions and results (no Gymnasium/PettingZoo).

A turn: draw (pile or discard), optionally lay one owed set, discard. Discarding an attacking
special card (Olaf's Eye, Burning House, Mr. Poe) adds decisions to the turn: its target, for
Burning House the set to burn, then the target's Lemony Snicket reaction. A round is won by
discarding the last card with every owed set on the table; the winner takes a Victory card.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.game import ROUNDS_LIMIT, Game, check_int_option, check_option
from card_envs.core.kernels import compiled
from card_envs.core.options import Option
from card_envs.core.spec import ActionSpec
from card_envs.unfortunate_events.rules.actions import (
    ALLOW,
    CANCEL,
    DRAW_DISCARD,
    DRAW_PILE,
    action_spec,
)
from card_envs.unfortunate_events.rules.cards import (
    ATTACKS,
    BURN,
    COPIES,
    DECK_SIZE,
    EYE,
    HAND_SIZE,
    NUM_KINDS,
    POE,
    SET_COUNTS,
    SETS,
    SNICKET,
    SPECIALS,
    VICTORY_CARDS,
    counts_of,
    holds,
    layable_sets,
)
from card_envs.unfortunate_events.rules.deal import (
    DEAL,
    RESHUFFLE,
    checked_deal,
    checked_reshuffle,
    checked_round,
    completed_round,
)
from card_envs.unfortunate_events.rules.hidden import redeal_hidden, show_redealt_hands
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
from card_envs.unfortunate_events.rules.text import render_table

if TYPE_CHECKING:
    from card_envs.unfortunate_events.rules._moves import LegalMask

LEGAL_MASK: type[LegalMask] | None = compiled(
    "card_envs.unfortunate_events.rules._moves", "LegalMask"
)

POE_DRAW = 3
MAJORITY = VICTORY_CARDS // 2 + 1
TURN_CAP = 300
TURN_CAP_LIMIT = 10_000  # the largest turn_cap option: it bounds the game's length
MAX_ROUNDS = 20
# The longest turn: draw, lay, discard, target, burn set, Snicket reaction.
MAX_DECISIONS_PER_TURN = 6
# The rulings' reading (a majority or an empty centre ends the game) and the rulebook's literal
# one (only the centre running out does).
GAME_ENDS = ("majority_or_empty", "centre_empty")
# Who is asked to react to an attack: only a Snicket holder (as the rulings say; the question
# shows the table that the target holds one) or every target (a non-holder may only allow).
SNICKET_PROMPTS = ("holder", "always")
# The action blocks each phase allows.
PHASE_BLOCKS: dict[int, tuple[str, ...]] = {
    DRAW: ("draw",),
    MAIN: ("lay", "discard"),
    DISCARD: ("lay", "discard"),
    TARGET: ("target",),
    BURN_SET: ("burn",),
    REACT: ("react",),
    VICTORY: ("victory",),
}

# bytes.translate table: a count of cards as a mask bit (0 -> 0, more -> 1).
_HELD = bytes([0]) + bytes([1]) * 255


class UnfortunateEventsGame(Game[UnfortunateEventsState]):
    """The Catastrophic Card Game for 2-6 players; see ``docs/unfortunate_events.md``."""

    name = "unfortunate_events"
    title = "A Series of Unfortunate Events: The Catastrophic Card Game"
    options = (
        Option(
            "turn_cap",
            "turns in a round with no winner before the game is stopped",
            low=1,
            high=TURN_CAP_LIMIT,
        ),
        Option("max_rounds", "rounds before the game is stopped", low=1, high=ROUNDS_LIMIT),
        Option(
            "game_end",
            "end when someone holds 4 Victory cards or the centre is empty, or only when the "
            "centre is empty",
            choices=GAME_ENDS,
        ),
        Option(
            "snicket_prompt",
            "ask only a target holding Lemony Snicket to react, or every target",
            choices=SNICKET_PROMPTS,
        ),
    )
    player_counts = (2, 3, 4, 5, 6)
    default_players = 4

    def __init__(
        self,
        num_players: int = default_players,
        turn_cap: int = TURN_CAP,
        max_rounds: int = MAX_ROUNDS,
        game_end: str = "majority_or_empty",
        snicket_prompt: str = "holder",
    ):
        super().__init__(num_players)
        self.turn_cap = check_int_option("turn_cap", turn_cap, 1, TURN_CAP_LIMIT)
        self.max_rounds = check_int_option("max_rounds", max_rounds, 1, ROUNDS_LIMIT)
        check_option("game_end", game_end, GAME_ENDS)
        check_option("snicket_prompt", snicket_prompt, SNICKET_PROMPTS)
        self.game_end, self.snicket_prompt = game_end, snicket_prompt
        self._actions = action_spec(self.num_players)
        size, start = self._actions.size, self._actions.start
        self._mask = None if LEGAL_MASK is None else LEGAL_MASK(self.num_players, size, start)

    @property
    def actions(self) -> ActionSpec:
        return self._actions

    @property
    def max_steps(self) -> int:
        return self.max_rounds * (self.turn_cap * MAX_DECISIONS_PER_TURN + 1)

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> UnfortunateEventsState:
        """Round 1 dealt by seat 0. ``deal={"hands": [[7 cards] x n], "discard": [..., top],
        "pile": [next drawn, ...], "dealer": seat}`` (cards as kinds or names; only ``hands``
        required; other keys are an error) fixes the first deal; unlisted cards are shuffled
        under the given pile. ``deal["chance"]`` scripts every deal (then ``hands`` is not
        required) and reshuffle (checks:
        :func:`~card_envs.unfortunate_events.rules.deal.checked_deal`)."""
        written, dealer, script = checked_deal(deal, self.num_players)
        n = self.num_players
        state = UnfortunateEventsState(
            hands=[],
            pile=[],
            discard=[],
            discard_counts=[],
            laid=[],
            owed3=[],
            owed4=[],
            victory=[0] * n,
            centre=VICTORY_CARDS,
            dealer=0,
            turn_player=0,
            actor=0,
            chance=ChanceLog(script),
        )
        if written is None:
            self._deal(state, rng, dealer)
        else:  # logged as the first deal, so the record replays it
            hands, top, discard = written
            outcome = state.chance.take(
                rng, DEAL, lambda r: completed_round(hands, top, discard, r), lambda given: given
            )
            self._start_round(state, dealer, *outcome)
        return state

    def deal_record(self, state: UnfortunateEventsState) -> dict[str, Any]:
        """Every deal and reshuffle of the game, and the first dealer when it was not seat 0."""
        record: dict[str, Any] = {"chance": state.chance.record()}
        first_dealer = (state.dealer - state.round) % self.num_players
        if first_dealer:
            record["dealer"] = first_dealer
        return record

    def _deal(self, state: UnfortunateEventsState, rng: np.random.Generator, dealer: int) -> None:
        """The next round's deal: scripted, or shuffled and dealt from ``rng``."""
        key = f"deal['chance']['deal'][{len(state.chance.log.get(DEAL, []))}]"
        outcome = state.chance.take(
            rng,
            DEAL,
            self._shuffled_deal,
            lambda given: checked_round(given, key, self.num_players),
        )
        self._start_round(state, dealer, *outcome)

    def _shuffled_deal(self, rng: np.random.Generator) -> list[list[Any]]:
        """Seven cards to each seat from a shuffled deck, the next card turned up. The outcome:
        ``[hands (ascending), discard, pile (next drawn first)]``."""
        deck = [k for k in range(NUM_KINDS) for _ in range(COPIES[k])]
        deck = [deck[i] for i in rng.permutation(DECK_SIZE)]
        hands = [sorted(deck[HAND_SIZE * p : HAND_SIZE * (p + 1)]) for p in range(self.num_players)]
        rest = deck[HAND_SIZE * self.num_players :]
        return [hands, [rest[-1]], rest[-2::-1]]

    def _start_round(
        self,
        state: UnfortunateEventsState,
        dealer: int,
        hands: list[list[int]],
        discard: list[int],
        pile: list[int],
    ) -> None:
        """A round dealt as ``hands``, ``discard`` (top card last) and ``pile`` (next drawn
        first), copied: play must not edit the logged outcome."""
        n = self.num_players
        state.hands = [counts_of(hand) for hand in hands]
        state.pile, state.discard = pile[::-1], list(discard)
        state.discard_counts = counts_of(discard)
        state.laid = [[] for _ in range(n)]
        state.owed3, state.owed4 = [1] * n, [1] * n
        state.known = [[0] * NUM_KINDS for _ in range(n)]
        state.seen = [[None] * n for _ in range(n)]
        state.eye_known = {}
        state.dealer = dealer
        state.turn_player = state.actor = (dealer + 1) % n
        state.phase, state.turns = DRAW, 0
        state.pending = state.target = state.burn_set = state.round_winner = NONE
        state.last_attack = None

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: UnfortunateEventsState) -> int:
        return state.actor

    def legal_actions(self, state: UnfortunateEventsState) -> list[int]:
        if state.over or state.truncated:
            return []
        phase, start = state.phase, self._actions.start
        if phase == DRAW:
            draw = start["draw"]
            return [draw + a for a in (DRAW_PILE, DRAW_DISCARD) if self._can_draw(state, a)]
        hand = state.hands[state.actor]
        if phase in (MAIN, DISCARD):
            lay, discard = start["lay"], start["discard"]
            lays = [lay + s for s in self._layable(state)] if phase == MAIN else []
            return lays + [discard + k for k in range(NUM_KINDS) if hand[k]]
        if phase == TARGET:
            return [
                start["target"] + k - 1
                for k in range(1, self.num_players)
                if self._targetable(state, (state.turn_player + k) % self.num_players)
            ]
        if phase == BURN_SET:
            burn = start["burn"]
            return [burn + s for s in sorted(set(state.laid[state.target]))]
        if phase == REACT:
            react = start["react"]
            return [react + CANCEL] * bool(hand[SNICKET]) + [react + ALLOW]
        victory = start["victory"]
        centre = [victory] if state.centre else []
        steal = [
            victory + k
            for k in range(1, self.num_players)
            if state.victory[(state.actor + k) % self.num_players]
        ]
        return centre + steal

    def legal_mask(self, state: UnfortunateEventsState) -> np.ndarray:
        """The compiled mask (``rules/_moves.pyx``) when it is built, else
        :meth:`legal_mask_py`: the same bytes either way."""
        if self._mask is None:
            return self.legal_mask_py(state)
        return self._mask.mask(state)

    def write_legal_mask(self, state: UnfortunateEventsState, out: memoryview[Any]) -> None:
        """The compiled mask written straight into ``out`` when it is built, else
        :meth:`legal_mask_py` copied in."""
        if self._mask is None:
            out[:] = self.legal_mask_py(state).data
        else:
            self._mask.write(state, out)

    def legal_mask_py(self, state: UnfortunateEventsState) -> np.ndarray:
        """The reference mask. The two phases most moves are made in (draw; lay or discard)
        are written into a ``bytearray`` without the list of ids; the other phases from that
        list."""
        phase = state.phase
        if state.over or state.truncated or phase not in (DRAW, MAIN, DISCARD):
            return super().legal_mask(state)
        mask, start = bytearray(self._actions.size), self._actions.start
        if phase == DRAW:
            draw = start["draw"]
            mask[draw + DRAW_PILE] = self._can_draw(state, DRAW_PILE)
            mask[draw + DRAW_DISCARD] = self._can_draw(state, DRAW_DISCARD)
        else:
            if phase == MAIN:
                lay = start["lay"]
                for set_id in self._layable(state):
                    mask[lay + set_id] = 1
            discard = start["discard"]
            mask[discard : discard + NUM_KINDS] = bytes(state.hands[state.actor]).translate(_HELD)
        return np.frombuffer(mask, np.int8)

    def _layable(self, state: UnfortunateEventsState) -> list[int]:
        """The sets the actor may lay now (one it owes and holds), ascending: every 3-set id is
        below every 4-set id."""
        p = state.actor
        threes, fours = layable_sets(state.hands[p])
        if state.owed3[p]:
            return threes + fours if state.owed4[p] else threes
        return fours if state.owed4[p] else []

    def _can_draw(self, state: UnfortunateEventsState, source: int) -> bool:
        if source == DRAW_PILE:
            return bool(state.pile) or len(state.discard) > 1
        return bool(state.discard) and state.discard[-1] not in SPECIALS

    def _targetable(self, state: UnfortunateEventsState, seat: int) -> bool:
        return state.pending != BURN or bool(state.laid[seat])

    def rule_violation(self, state: UnfortunateEventsState, block: str, index: int) -> str | None:
        """Why the ``index``-th action of ``block`` breaks the rules now: each phase allows
        its own blocks, and each block has its own conditions."""
        allowed = PHASE_BLOCKS[state.phase]
        if block not in allowed:
            return f"now is the time to {' or '.join(allowed)}, not to {block}"
        match block:
            case "draw":
                return self._why_not_draw(state, index)
            case "lay":
                return self._why_not_lay(state, index)
            case "discard":
                return self._why_not_discard(state, index)
            case "target":
                return self._why_not_target(state, index)
            case "burn":
                return self._why_not_burn(state, index)
            case "react":
                return self._why_not_react(state, index)
            case _:
                return self._why_not_victory(state, index)

    def _why_not_draw(self, state: UnfortunateEventsState, source: int) -> str | None:
        if source == DRAW_PILE and not state.pile and len(state.discard) < 2:
            return "the pile is empty and the discard has no cards to reshuffle"
        if source == DRAW_DISCARD:
            if not state.discard:
                return "the discard pile is empty"
            if state.discard[-1] >= EYE:
                return "a special card cannot be taken from the discard"
        return None

    def _why_not_lay(self, state: UnfortunateEventsState, set_id: int) -> str | None:
        p = state.actor
        if state.phase == DISCARD:
            return "only one set may be laid per turn"
        size = SETS[set_id].size
        if (state.owed3 if size == 3 else state.owed4)[p] == 0:
            return f"you owe no {size}-card set"
        if not holds(state.hands[p], set_id):
            return "you do not hold those cards"
        return None

    def _why_not_discard(self, state: UnfortunateEventsState, kind: int) -> str | None:
        return None if state.hands[state.actor][kind] else "you hold no such card"

    def _why_not_target(self, state: UnfortunateEventsState, offset: int) -> str | None:
        seat = (state.turn_player + offset + 1) % self.num_players
        if state.pending == BURN and not state.laid[seat]:
            return "that player has no set on the table to burn"
        return None

    def _why_not_burn(self, state: UnfortunateEventsState, set_id: int) -> str | None:
        return None if set_id in state.laid[state.target] else "the target has no such set laid"

    def _why_not_react(self, state: UnfortunateEventsState, choice: int) -> str | None:
        if choice == CANCEL and not state.hands[state.actor][SNICKET]:
            return "you hold no Lemony Snicket"
        return None

    def _why_not_victory(self, state: UnfortunateEventsState, offset: int) -> str | None:
        if offset == 0:
            return None if state.centre else "the centre has no Victory card left"
        if not state.victory[(state.actor + offset) % self.num_players]:
            return "that player holds no Victory card"
        return None

    # -- transitions --------------------------------------------------------------------------
    def apply(self, state: UnfortunateEventsState, action: int, rng: np.random.Generator) -> None:
        """Play ``action``. A scripted reshuffle can only be checked when it happens (it holds the
        discard of that moment), mid-move: a bad one is a ``ValueError`` that leaves the game as
        it was before the move."""
        if not state.chance.script.get(RESHUFFLE):
            self._apply(state, action, rng)
            return
        before = self.clone(state)
        try:
            self._apply(state, action, rng)
        except ValueError:
            for name in (f.name for f in fields(state)):
                setattr(state, name, getattr(before, name))
            raise

    def _apply(self, state: UnfortunateEventsState, action: int, rng: np.random.Generator) -> None:
        block, index = self._actions.decode(action)
        match block:
            case "draw":
                self._draw_step(state, index, rng)
            case "lay":
                self._lay(state, index)
            case "discard":
                self._discard(state, index, rng)
            case "target":
                state.target = (state.turn_player + index + 1) % self.num_players
                if state.pending == BURN:
                    state.phase = BURN_SET
                else:
                    self._ask_target(state, rng)
            case "burn":
                state.burn_set = index
                self._ask_target(state, rng)
            case "react":
                if index == CANCEL:
                    self._cancel(state, rng)
                else:
                    self._resolve(state, rng)
            case _:
                self._take_victory(state, index, rng)

    def _draw_step(
        self, state: UnfortunateEventsState, source: int, rng: np.random.Generator
    ) -> None:
        p = state.turn_player
        if source == DRAW_DISCARD:
            kind = state.discard.pop()
            state.discard_counts[kind] -= 1
            state.hands[p][kind] += 1
            _seen_change(state, p, kind, 1)
        elif not self._draw(state, p, 1, rng):
            return
        state.phase = MAIN

    def _draw(
        self, state: UnfortunateEventsState, seat: int, count: int, rng: np.random.Generator
    ) -> bool:
        """Draw ``count`` from the pile. The draw that empties the pile reshuffles the discard
        but its top into a new pile at once (mid-effect too); if the discard then had no card
        to spare, the next draw from the empty pile reshuffles instead; with nothing at all to
        draw the round stalls and the game is truncated."""
        hand = state.hands[seat]
        for _ in range(count):
            if not state.pile and not self._reshuffle(state, rng):
                state.truncated = state.stalled = True
                return False
            hand[state.pile.pop()] += 1
            if not state.pile:
                self._reshuffle(state, rng)
        return True

    def _reshuffle(self, state: UnfortunateEventsState, rng: np.random.Generator) -> bool:
        """The discard but its top card, shuffled, becomes the pile (if it has a card to spare):
        the chance event ``reshuffle``, whose outcome lists the new pile next drawn first."""
        if len(state.discard) < 2:
            return False
        rest = state.discard[:-1]
        key = f"deal['chance']['reshuffle'][{len(state.chance.log.get(RESHUFFLE, []))}]"
        pile = state.chance.take(
            rng,
            RESHUFFLE,
            lambda r: [rest[i] for i in r.permutation(len(rest))][::-1],
            lambda given: checked_reshuffle(given, rest, key),
        )
        state.pile = pile[::-1]
        state.discard = state.discard[-1:]
        state.discard_counts = counts_of(state.discard)
        return True

    def _lay(self, state: UnfortunateEventsState, set_id: int) -> None:
        p = state.actor
        hand = state.hands[p]
        for kind, count in SET_COUNTS[set_id]:
            hand[kind] -= count
            _seen_change(state, p, kind, -count)
        state.laid[p].append(set_id)
        if SETS[set_id].size == 3:
            state.owed3[p] -= 1
        else:
            state.owed4[p] -= 1
        state.phase = DISCARD

    def _discard(self, state: UnfortunateEventsState, kind: int, rng: np.random.Generator) -> None:
        p = state.actor
        state.hands[p][kind] -= 1
        _seen_change(state, p, kind, -1)
        state.discard.append(kind)
        state.discard_counts[kind] += 1
        if not state.owed3[p] and not state.owed4[p] and not any(state.hands[p]):
            state.round_winner = p
            state.phase = VICTORY
            return
        if kind in ATTACKS and (kind != BURN or self._any_laid_by_others(state, p)):
            state.pending = kind
            state.phase = TARGET
            return
        self._end_turn(state)

    def _any_laid_by_others(self, state: UnfortunateEventsState, seat: int) -> bool:
        return any(state.laid[q] for q in range(self.num_players) if q != seat)

    def _ask_target(self, state: UnfortunateEventsState, rng: np.random.Generator) -> None:
        """The target reacts if asked (a Snicket holder, or anyone with ``"always"``)."""
        target = state.target
        holds_snicket = state.hands[target][SNICKET] > 0
        if holds_snicket or self.snicket_prompt == "always":
            if holds_snicket and self.snicket_prompt == "holder":
                _seen_change(state, target, SNICKET, 0, at_least=1)
            state.actor = target
            state.phase = REACT
        else:
            self._resolve(state, rng)

    def _cancel(self, state: UnfortunateEventsState, rng: np.random.Generator) -> None:
        """Snicket cancels the attack: both cards lie on the discard, the target draws one."""
        target = state.target
        state.last_attack = (state.pending, state.turn_player, target, state.burn_set, True)
        state.hands[target][SNICKET] -= 1
        _seen_change(state, target, SNICKET, -1)
        state.discard.append(SNICKET)
        state.discard_counts[SNICKET] += 1
        if self._draw(state, target, 1, rng):
            self._end_turn(state)

    def _resolve(self, state: UnfortunateEventsState, rng: np.random.Generator) -> None:
        target, kind = state.target, state.pending
        state.last_attack = (kind, state.turn_player, target, state.burn_set, False)
        if kind == EYE:
            state.seen[state.turn_player][target] = list(state.hands[target])
            state.eye_known[state.turn_player, target] = list(state.hands[target])
        elif kind == POE:
            state.owed3[target] += 1
            if not self._draw(state, target, POE_DRAW, rng):
                return
        else:
            set_id = state.burn_set
            laid = state.laid[target]
            del laid[len(laid) - 1 - laid[::-1].index(set_id)]
            for kind_burnt in SETS[set_id].cards:
                state.discard.append(kind_burnt)
                state.discard_counts[kind_burnt] += 1
            size = SETS[set_id].size
            if size == 3:
                state.owed3[target] += 1
            else:
                state.owed4[target] += 1
            if not self._draw(state, target, size, rng):
                return
        self._end_turn(state)

    def _end_turn(self, state: UnfortunateEventsState) -> None:
        """Play passes left of the player whose turn it was; the turn cap truncates the round."""
        state.pending = state.target = state.burn_set = NONE
        state.turns += 1
        state.turn_player = state.actor = (state.turn_player + 1) % self.num_players
        state.phase = DRAW
        if state.turns >= self.turn_cap:
            state.truncated = True
        elif not (self._can_draw(state, DRAW_PILE) or self._can_draw(state, DRAW_DISCARD)):
            state.truncated = state.stalled = True

    def _take_victory(
        self, state: UnfortunateEventsState, offset: int, rng: np.random.Generator
    ) -> None:
        winner = state.actor
        if offset == 0:
            state.centre -= 1
        else:
            state.victory[(winner + offset) % self.num_players] -= 1
        state.victory[winner] += 1
        if state.centre == 0 or (
            self.game_end == "majority_or_empty" and max(state.victory) >= MAJORITY
        ):
            state.over = True
        elif state.round + 1 >= self.max_rounds:
            state.truncated = True
        else:
            state.round += 1
            self._deal(state, rng, (state.dealer + 1) % self.num_players)

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: UnfortunateEventsState) -> bool:
        return state.over

    def is_truncated(self, state: UnfortunateEventsState) -> bool:
        return state.truncated

    def scores(self, state: UnfortunateEventsState) -> list[int]:
        return state.victory

    def round_index(self, state: UnfortunateEventsState) -> int:
        return state.round

    def winners(self, state: UnfortunateEventsState) -> list[int]:
        """Most Victory cards; ties share the win."""
        if not state.over:
            return []
        best = max(state.victory)
        return [p for p, v in enumerate(state.victory) if v == best]

    # -- checks and views ---------------------------------------------------------------------
    def check_invariants(self, state: UnfortunateEventsState) -> None:
        """The 112 cards are conserved; between turns each hand holds exactly the cards its
        owed sets need (the draw-one/discard-one turn keeps that balance)."""
        total = counts_of(state.pile)
        for kinds in [state.discard, *(SETS[s].cards for laid in state.laid for s in laid)]:
            for kind in kinds:
                total[kind] += 1
        for hand in state.hands:
            assert min(hand) >= 0, "negative card count"
            total = [t + h for t, h in zip(total, hand, strict=True)]
        assert total == list(COPIES), "the 105 playing cards are not conserved"
        assert state.centre + sum(state.victory) == VICTORY_CARDS, "Victory cards not conserved"
        assert state.discard_counts == counts_of(state.discard), "discard counts drifted"
        for p, laid in enumerate(state.laid):
            fours = sum(SETS[s].size == 4 for s in laid)
            assert fours + state.owed4[p] == 1, "a seat owes or has laid exactly one 4-set"
        for p, hand in enumerate(state.hands):
            assert all(k <= h for k, h in zip(state.known[p], hand, strict=True)), "known > hand"
            if state.phase == DRAW and not (state.truncated or state.over):
                owed = 3 * state.owed3[p] + 4 * state.owed4[p]
                assert sum(hand) == owed, f"seat {p} holds {sum(hand)} cards but owes {owed}"
        for (_, p), held in state.eye_known.items():
            bounds = zip(state.known[p], held, state.hands[p], strict=True)
            assert all(k <= e <= h for k, e, h in bounds), "eye_known not within known..hand"

    def resample_hidden(
        self, state: UnfortunateEventsState, observer: int, rng: np.random.Generator
    ) -> UnfortunateEventsState:
        """Redeal the cards the observer cannot see (other hands beyond what it knows they
        hold, and the pile) among those places, keeping every hand size. It knows a hand holds
        its publicly known cards or, if its Olaf's Eye looked at that hand this round, what the
        look showed less what the hand has visibly given up since (``eye_known``); what another
        seat's look at a redealt hand showed is hidden too, and becomes that new hand. The
        copy's chance log starts empty: the deals it logged show the true hands, and its script
        the future, neither of which ``observer`` may know (later chance is drawn)."""
        new = self.clone_without_chance(state)
        redeal_hidden(new, observer, rng)
        show_redealt_hands(new, observer)
        return new

    def render(self, state: UnfortunateEventsState) -> str:
        return render_table(state, range(self.num_players), self.turn_cap, self.winners(state))

    def render_seat(self, state: UnfortunateEventsState, seat: int) -> str:
        return render_table(state, (seat,), self.turn_cap, self.winners(state))


def _seen_change(
    state: UnfortunateEventsState, seat: int, kind: int, change: int, at_least: int = 0
) -> None:
    """Everyone sees ``seat``'s hand gain ``change`` cards of ``kind`` (taken from the discard;
    negative: laid, discarded or spent, the copies unknown) or learns it holds at least
    ``at_least`` (asked for a Snicket): ``known`` and every Eye's ``eye_known`` of that hand,
    lower bounds on it, move alike."""
    known = state.known[seat]
    known[kind] = max(known[kind] + change, at_least)
    if state.eye_known:  # empty in most rounds: the common path allocates nothing
        for (_, p), held in state.eye_known.items():
            if p == seat:
                held[kind] = max(held[kind] + change, at_least)
