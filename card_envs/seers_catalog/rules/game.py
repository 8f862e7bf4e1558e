"""Seers Catalog rules: whose turn, legal moves (their tables in ``moves``), transitions and
scoring.

2-5 seers each hold 12 suited cards, a wild and 2 face-down artifacts. Tricks of Singles,
Matching Sets or Suited Runs climb until all but one seer has passed; that seer leads the next.
A round ends the instant a hand is empty; a seer with 5 or fewer cards scores their lowest
card, then every seer loses 1 per card held. Highest total after 4 rounds wins.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.game import ROUNDS_LIMIT, Game, check_int_option
from card_envs.core.kernels import compiled
from card_envs.core.options import Option
from card_envs.core.spec import ActionSpec
from card_envs.seers_catalog.rules.actions import MELD_KINDS, action_finish, action_spec
from card_envs.seers_catalog.rules.cards import (
    ARTIFACT_BASE,
    ARTIFACTS,
    ARTIFACTS_PER_SEER,
    BONUS_LIMIT,
    DECKS,
    GIFT,
    GO_FIRST,
    KIND,
    LENS,
    MAX_VALUE,
    NUM_CODES,
    ROD,
    WILD,
    WILD_BASE,
    bits,
    score_value,
)
from card_envs.seers_catalog.rules.deal import DEAL, checked_deal, checked_hands
from card_envs.seers_catalog.rules.hidden import redraw_hidden
from card_envs.seers_catalog.rules.melds import (
    Finish,
    Key,
    classify,
    completable,
    meld_key,
    valid_on_table,
)
from card_envs.seers_catalog.rules.moves import MoveTables
from card_envs.seers_catalog.rules.state import Meld, SeersCatalogState
from card_envs.seers_catalog.rules.text import render_table

if TYPE_CHECKING:
    from card_envs.seers_catalog.rules._melds import LegalMask

LEGAL_MASK: type[LegalMask] | None = compiled("card_envs.seers_catalog.rules._melds", "LegalMask")

NUM_ROUNDS = 4

# The lowest and highest round score: no hand holds more than every card; the best is a lone 13.
ROUND_SCORE_RANGE = (-NUM_CODES, MAX_VALUE - 1)


def round_score(hand: Sequence[int]) -> int:
    """Lowest card value if 5 or fewer cards (wilds and artifacts are 0), minus 1 per card."""
    bonus = min(score_value(c) for c in hand) if 0 < len(hand) <= BONUS_LIMIT else 0
    return bonus - len(hand)


def check_artifact_pool(pool: Any, num_players: int) -> tuple[str, ...]:
    """The pool as a tuple of names, or a ``ValueError`` naming the option."""
    allowed = f"choose distinct names from {list(ARTIFACTS)!r}"
    if not isinstance(pool, list | tuple | set | frozenset) or not all(
        isinstance(name, str) for name in pool
    ):
        raise ValueError(
            f"artifact_pool must be a list of artifact names, got {pool!r:.60}; {allowed}"
        )
    pool = tuple(pool)
    unknown = [name for name in pool if name not in ARTIFACTS]
    if unknown or len(set(pool)) != len(pool):
        raise ValueError(f"artifact_pool={list(pool)!r} is not allowed; {allowed}")
    if "Go First" not in pool or len(pool) < ARTIFACTS_PER_SEER * num_players:
        raise ValueError(
            f"artifact_pool must include 'Go First' and hold at least "
            f"{ARTIFACTS_PER_SEER * num_players} artifacts for {num_players} seers"
        )
    return pool


class SeersCatalogGame(Game[SeersCatalogState]):
    """Seers Catalog for 2-5 seers; see ``docs/seers_catalog.md`` for rules and rulings."""

    name = "seers_catalog"
    title = "Seers Catalog"
    options = (
        Option("num_rounds", "rounds in a game", low=1, high=ROUNDS_LIMIT),
        Option(
            "artifact_pool",
            "the artifacts dealt from: Go First and at least two per seer",
            choices=ARTIFACTS,
            many=True,
        ),
    )
    player_counts = (2, 3, 4, 5)
    default_players = 4

    def __init__(
        self,
        num_players: int = default_players,
        num_rounds: int = NUM_ROUNDS,
        artifact_pool: Sequence[str] = ARTIFACTS,
    ):
        super().__init__(num_players)
        self.num_rounds = check_int_option("num_rounds", num_rounds, 1, ROUNDS_LIMIT)
        self.artifact_pool = check_artifact_pool(artifact_pool, self.num_players)
        self.deck = DECKS[self.num_players]
        self.pool_codes = sorted(ARTIFACT_BASE + ARTIFACTS.index(a) for a in self.artifact_pool)
        self.all_codes = sorted(
            self.deck.suited()
            + list(range(WILD_BASE, WILD_BASE + self.num_players))
            + self.pool_codes
        )
        self._actions = action_spec(self.num_players)
        start, others = self._actions.start, range(self.num_players - 1)
        self._pass_id, self._rod_id = start["pass"], start["rod"]
        self._gift_ids = [start["gift"] + i for i in others]
        self._lens_ids = [start["lens"] + i for i in others]
        self._tables = MoveTables(self._actions)
        self._mask = None if LEGAL_MASK is None else LEGAL_MASK(*self._mask_config())

    @property
    def actions(self) -> ActionSpec:
        return self._actions

    @property
    def max_steps(self) -> int:
        """Per round: each card leaves a hand at most twice (the Rod returns one trick), so at
        most 2C adds and 2C finishes; each of the at most 2C + 3 tricks (plays, Rod, Gift,
        Lens) has at most n - 1 passes and n - 1 leads handed on."""
        n = self.num_players
        cards = len(self.all_codes)
        per_round = 4 * cards + 3 + (2 * cards + 3) * 2 * (n - 1)
        return self.num_rounds * per_round

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> SeersCatalogState:
        """Round 1 from ``rng``, or from ``deal={"hands": [...], "leader": seat}``: each hand a
        list of codes or a string such as ``"5P 7G W Crown"``; cards in no hand are out of the
        round; the leader defaults to the Go First holder. ``deal["chance"]["deal"]`` scripts
        every round's hands instead (checks:
        :func:`~card_envs.seers_catalog.rules.deal.checked_deal`)."""
        written, leader, script = checked_deal(
            deal, self.num_players, self.all_codes, self.artifact_pool
        )
        chance = ChanceLog(script)
        if written is None:
            hands = self._round_hands(chance, rng)
        else:  # logged as the first round's outcome, so the record replays it
            hands = _fresh(chance.take(rng, DEAL, lambda _: written, lambda given: given))
        state = self._start(0, hands, leader, [0] * self.num_players, [])
        state.chance, state.first_leader = chance, leader
        return state

    def deal_record(self, state: SeersCatalogState) -> dict[str, Any]:
        """Every round's hands, and round 1's leader when the deal wrote one."""
        record: dict[str, Any] = {"chance": state.chance.record()}
        if state.first_leader is not None:
            record["leader"] = state.first_leader
        return record

    def _round_hands(self, chance: ChanceLog, rng: np.random.Generator) -> list[list[int]]:
        """The next round's hands: scripted, or shuffled and dealt from ``rng``."""
        key = f"deal['chance']['deal'][{len(chance.log.get(DEAL, []))}]"
        outcome = chance.take(
            rng,
            DEAL,
            self._shuffle_and_deal,
            lambda given: checked_hands(
                given, key, self.num_players, self.all_codes, self.artifact_pool
            ),
        )
        return _fresh(outcome)

    def _shuffle_and_deal(self, rng: np.random.Generator) -> list[list[int]]:
        """Shuffle and deal a round: suited cards evenly (after removing some for 2 seers), one
        wild each, and Go First with ``2n - 1`` other artifacts, two each. The outcome: the
        hands, ascending (the cards in none are out of the round)."""
        n = self.num_players
        suited = self.deck.suited()
        suited = [suited[i] for i in rng.permutation(len(suited))]
        suited = suited[self.deck.removed :]  # the first few removed (2 seers): in no hand
        others = [c for c in self.pool_codes if c != GO_FIRST]
        others = [others[i] for i in rng.permutation(len(others))]
        dealt = [GO_FIRST, *others[: ARTIFACTS_PER_SEER * n - 1]]
        dealt = [dealt[i] for i in rng.permutation(len(dealt))]
        per = len(suited) // n
        return [
            sorted(
                [
                    *suited[p * per : (p + 1) * per],
                    WILD_BASE + p,
                    *dealt[p * ARTIFACTS_PER_SEER : (p + 1) * ARTIFACTS_PER_SEER],
                ]
            )
            for p in range(n)
        ]

    def _start(
        self,
        round_index: int,
        hands: list[list[int]],
        leader: int | None,
        totals: list[int],
        history: list[list[int]],
    ) -> SeersCatalogState:
        """A round dealt as ``hands``: the suited cards in no hand are removed, the artifacts
        undealt; ``leader`` ``None`` is the Go First holder (seat 0 if no one holds it)."""
        n = self.num_players
        out = sorted(set(self.all_codes).difference(*hands))
        if leader is None:
            leader = next((p for p in range(n) if GO_FIRST in hands[p]), 0)
        known = [[0] * n for _ in range(n)]
        if GO_FIRST in hands[leader]:  # the start seer holds Go First: everyone knows it
            for seat in range(n):
                if seat != leader:
                    known[seat][leader] = 1 << GO_FIRST
        return SeersCatalogState(
            round=round_index,
            hands=hands,
            removed=[c for c in out if c < ARTIFACT_BASE],
            undealt=[c for c in out if c >= ARTIFACT_BASE],
            leader=leader,
            turn=leader,
            passed=[False] * n,
            known=known,
            totals=totals,
            round_scores=history,
        )

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: SeersCatalogState) -> int:
        return state.turn

    def legal_actions(self, state: SeersCatalogState) -> list[int]:
        if state.over:
            return []
        top = state.table[-1].key if state.table else None
        if state.pending:
            return self._tables.built(state, top).after(tuple(map(KIND.__getitem__, state.pending)))
        hand = state.hands[state.turn]
        held = hand[bisect_left(hand, ARTIFACT_BASE) :]  # the artifacts: the ascending codes' last
        starts = self._tables.first_steps(hand, top)
        rod = ROD in held and top is not None
        gift = GIFT in held
        can_play = bool(starts) or rod or gift
        may_pass = not (can_play and len(hand) <= BONUS_LIMIT) if top else not can_play
        actions = [self._pass_id, *starts] if may_pass else [*starts]  # starts may be kept
        if rod:
            actions.append(self._rod_id)
        if gift:
            actions += self._gift_ids
        if LENS in held:
            actions += self._lens_ids
        return actions

    def legal_mask(self, state: SeersCatalogState) -> np.ndarray:
        """The compiled mask (``rules/_melds.pyx``) when it is built, else
        :meth:`legal_mask_py`: the same bytes either way."""
        if self._mask is None:
            return self.legal_mask_py(state)
        return self._mask.mask(state)

    def write_legal_mask(self, state: SeersCatalogState, out: memoryview[Any]) -> None:
        """The compiled mask written straight into ``out`` when it is built, else
        :meth:`legal_mask_py` copied in."""
        if self._mask is None:
            out[:] = self.legal_mask_py(state).data
        else:
            self._mask.write(state, out)

    def _mask_config(self) -> tuple[Any, ...]:
        """The compiled mask's arguments: the ids of every step, pass, Rod, Gift and Lens."""
        ids = self._tables.step_ids
        return (
            self._actions.size,
            ids.adds,
            ids.finishes,
            self._pass_id,
            self._rod_id,
            tuple(self._gift_ids),
            tuple(self._lens_ids),
        )

    def legal_mask_py(self, state: SeersCatalogState) -> np.ndarray:
        """The reference mask: as the base's, filled through a ``bytearray`` (cheaper than
        numpy's fancy indexing for a few dozen ids); a build step copies its kept mask."""
        if state.pending and not state.over:
            top = state.table[-1].key if state.table else None
            prefix = tuple(map(KIND.__getitem__, state.pending))
            mask = bytearray(self._tables.built(state, top).mask_after(prefix))
        else:
            mask = bytearray(self._actions.size)
            for action in self.legal_actions(state):
                mask[action] = 1
        return np.frombuffer(mask, np.int8)

    def rule_violation(self, state: SeersCatalogState, block: str, index: int) -> str | None:
        """Why the ``index``-th action of ``block`` breaks the rules now: a meld is built card
        by card, then played; the other actions wait until it is."""
        hand = state.hands[state.turn]
        top = state.table[-1].key if state.table else None
        pending = [KIND[c] for c in state.pending]
        rest = [KIND[c] for c in hand]
        for kind in pending:
            rest.remove(kind)
        match block:
            case "add":
                return self._add_reason(MELD_KINDS[index], pending, rest, top)
            case "play_value" | "play_run" | "play_artifact":
                finish = action_finish(block, index)
                if not pending:
                    return "add the meld's cards before playing it"
                if finish not in classify(pending):
                    return "the chosen cards do not form that meld"
                if not valid_on_table(pending, finish, top, top is None):
                    return "that meld does not beat the table (or Go First is not leading)"
                return None
        if pending:
            return "finish the meld you are building first"
        return self._other_reason(block, hand, top)

    def _add_reason(
        self, kind: int, pending: list[int], rest: list[int], top: Key | None
    ) -> str | None:
        if pending and (kind < pending[-1] or (kind == pending[-1] and kind != WILD)):
            return "cards are added in ascending kind order"
        if kind not in rest:
            return "you hold no such card (beyond those already chosen)"
        rest = list(rest)
        rest.remove(kind)
        if not completable(rest, [*pending, kind], top, top is None):
            return "no valid meld that beats the table can be built from these cards"
        return None

    def _other_reason(self, block: str, hand: list[int], top: Key | None) -> str | None:
        """Why passing or using the Rod, Gift or Lens breaks the rules now."""
        match block:
            case "pass":
                kinds = [KIND[c] for c in hand]
                can_meld = completable(kinds, [], top, top is None)
                can_play = can_meld or GIFT in hand or (ROD in hand and top is not None)
                if top is None and can_play:
                    return "the start seer must lead (pass only hands on a lead you cannot make)"
                if can_play and len(hand) <= BONUS_LIMIT:
                    return "in the Bonus (5 or fewer cards) you cannot pass while you can play"
                return None
            case "rod":
                if ROD not in hand:
                    return "you do not hold the Rod of Reincarnation"
                return "the Rod needs a meld on the table" if top is None else None
            case "gift":
                return None if GIFT in hand else "you do not hold the Gift of Fate"
            case _:
                return None if LENS in hand else "you do not hold the Lens"

    # -- transitions --------------------------------------------------------------------------
    def apply(self, state: SeersCatalogState, action: int, rng: np.random.Generator) -> None:
        block, index = self._actions.decode(action)
        match block:
            case "pass":
                self._pass(state, rng)
            case "add":
                self._add(state, MELD_KINDS[index])
            case "play_value" | "play_run" | "play_artifact":
                self._play(state, action_finish(block, index), rng)
            case "rod":
                self._rod(state)
            case "gift":
                self._gift(state, (state.turn + index + 1) % self.num_players, rng)
            case _:
                self._lens(state, (state.turn + index + 1) % self.num_players, rng)

    def _add(self, state: SeersCatalogState, kind: int) -> None:
        """The card of ``kind`` joins the meld: a wild not yet chosen, else the one card of
        that kind (its code: a suited kind is its code, an artifact's is 4 below it)."""
        if kind == WILD:
            hand = state.hands[state.turn]
            code = next(c for c in hand if KIND[c] == WILD and c not in state.pending)
        else:
            code = kind if kind < WILD else kind + ARTIFACT_BASE - WILD - 1
        state.pending.append(code)

    def _play(self, state: SeersCatalogState, finish: Finish, rng: np.random.Generator) -> None:
        seat, cards = state.turn, state.pending
        kinds = [KIND[c] for c in cards]
        state.table.append(Meld(seat, cards, meld_key(kinds, finish)))
        if cards[-1] >= ARTIFACT_BASE:  # built in ascending kind order: artifacts come last
            state.artifacts_played += [(seat, c) for c in cards if c >= ARTIFACT_BASE]
        state.pending = []
        state.stuck = 0
        self._discard(state, seat, cards)
        if not state.hands[seat]:
            self._end_round(state, rng)
            return
        state.turn = self._next_in(state, seat)

    def _pass(self, state: SeersCatalogState, rng: np.random.Generator) -> None:
        n, seat = self.num_players, state.turn
        if not state.table:  # a start seer with no lead hands the lead on
            state.stuck += 1
            if state.stuck == n:
                self._end_round(state, rng)
                return
            state.leader = state.turn = (seat + 1) % n
            return
        state.passed[seat] = True
        if state.passed.count(False) == 1:
            self._new_trick(state, state.passed.index(False))
        else:
            state.turn = self._next_in(state, seat)

    def _rod(self, state: SeersCatalogState) -> None:
        seat = state.turn
        taken = [c for meld in state.table for c in meld.cards]
        state.table = []
        self._discard(state, seat, [ROD])
        state.aside.append(ROD)
        state.artifacts_played.append((seat, ROD))
        state.hands[seat] = sorted(state.hands[seat] + taken)
        for row in state.known:
            row[seat] |= bits(taken)
        self._new_trick(state, seat)

    def _gift(self, state: SeersCatalogState, target: int, rng: np.random.Generator) -> None:
        self._discard(state, state.turn, [GIFT])
        state.aside.append(GIFT)
        state.artifacts_played.append((state.turn, GIFT))
        if not state.hands[state.turn]:
            self._end_round(state, rng)
        else:
            self._new_trick(state, target)

    def _lens(self, state: SeersCatalogState, target: int, rng: np.random.Generator) -> None:
        seat = state.turn
        self._discard(state, seat, [LENS])
        state.aside.append(LENS)
        state.artifacts_played.append((seat, LENS))
        state.lens_looks.append((seat, target))
        state.known[seat][target] = bits(state.hands[target])
        if not state.hands[seat]:
            self._end_round(state, rng)

    def _discard(self, state: SeersCatalogState, seat: int, cards: list[int]) -> None:
        """Cards leave ``seat``'s hand; no one knows them to be there any more."""
        hand = state.hands[seat]
        for card in cards:
            hand.remove(card)
        gone = ~bits(cards)
        for row in state.known:
            row[seat] &= gone

    def _new_trick(self, state: SeersCatalogState, leader: int) -> None:
        for meld in state.table:
            state.aside.extend(meld.cards)
        state.table = []
        state.passed = [False] * self.num_players
        state.leader = state.turn = leader
        state.stuck = 0

    def _next_in(self, state: SeersCatalogState, seat: int) -> int:
        n = self.num_players
        for step in range(1, n):
            other = (seat + step) % n
            if not state.passed[other]:
                return other
        return seat

    def _end_round(self, state: SeersCatalogState, rng: np.random.Generator) -> None:
        scores = [round_score(hand) for hand in state.hands]
        totals = [t + s for t, s in zip(state.totals, scores, strict=True)]
        history = [*state.round_scores, scores]
        if state.round + 1 >= self.num_rounds:
            state.totals, state.round_scores, state.over = totals, history, True
            state.pending = []
            return
        hands = self._round_hands(state.chance, rng)
        self._next_round(state, self._start(state.round + 1, hands, None, totals, history))

    @staticmethod
    def _next_round(state: SeersCatalogState, fresh: SeersCatalogState) -> None:
        """``state`` becomes the freshly dealt round ``fresh``, field by named field (the
        game's totals and score history came with the deal; this round's history starts empty)."""
        state.round, state.hands = fresh.round, fresh.hands
        state.removed, state.undealt = fresh.removed, fresh.undealt
        state.leader, state.turn, state.passed = fresh.leader, fresh.turn, fresh.passed
        state.known, state.totals, state.round_scores = (
            fresh.known,
            fresh.totals,
            fresh.round_scores,
        )
        state.table, state.aside, state.pending = fresh.table, fresh.aside, fresh.pending
        state.stuck, state.over = fresh.stuck, fresh.over
        state.artifacts_played, state.lens_looks = fresh.artifacts_played, fresh.lens_looks

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: SeersCatalogState) -> bool:
        return state.over

    def scores(self, state: SeersCatalogState) -> list[int]:
        return state.totals

    def round_index(self, state: SeersCatalogState) -> int:
        return state.round

    def projected_scores(self, state: SeersCatalogState) -> list[float]:
        """The totals if the round ended now: every card held costs a point."""
        return [t - len(h) for t, h in zip(state.totals, state.hands, strict=True)]

    def winners(self, state: SeersCatalogState) -> list[int]:
        """Most points; ties: most points in the final round, then a shared win."""
        if not state.over:
            return []
        final = state.round_scores[-1]
        best = max((state.totals[p], final[p]) for p in range(self.num_players))
        return [p for p in range(self.num_players) if (state.totals[p], final[p]) == best]

    # -- checks and views ---------------------------------------------------------------------
    def check_invariants(self, state: SeersCatalogState) -> None:
        table = [c for meld in state.table for c in meld.cards]
        held = [c for hand in state.hands for c in hand]
        everything = sorted(held + table + state.aside + state.removed + state.undealt)
        assert everything == self.all_codes, "the cards are not conserved"
        hand = state.hands[state.turn]
        assert all(c in hand for c in state.pending), "a chosen card is not in the hand"
        for row in state.known:
            for seat, mask in enumerate(row):
                assert mask & ~bits(state.hands[seat]) == 0, "a known card is not in the hand"
        if not state.over:
            assert all(state.hands) and not state.passed[state.turn], "turn or hand sizes"

    def resample_hidden(
        self, state: SeersCatalogState, observer: int, rng: np.random.Generator
    ) -> SeersCatalogState:
        """Redraw the cards ``observer`` cannot see, kind for kind: suited among other hands and
        the removed cards, artifacts among other hands and the undealt ones. Known cards (Go
        First at the start, Rod pick-ups, Lens looks) and a builder's chosen cards stay. The
        copy's chance log starts empty: the deals it logged show the true hands, and its script
        the future, neither of which ``observer`` may know (later rounds are drawn)."""
        new = self.clone_without_chance(state)
        redraw_hidden(new, observer, rng)
        return new

    def render(self, state: SeersCatalogState) -> str:
        return render_table(state, range(self.num_players), self.num_rounds, self.winners(state))

    def render_seat(self, state: SeersCatalogState, seat: int) -> str:
        return render_table(state, (seat,), self.num_rounds, self.winners(state))


def _fresh(hands: list[list[int]]) -> list[list[int]]:
    """Copies of a round's hands: play must not edit the logged outcome."""
    return [list(hand) for hand in hands]
