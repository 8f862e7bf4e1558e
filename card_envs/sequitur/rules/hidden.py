"""Putting what a seat cannot see into a fixed order before it is redrawn, so that
:meth:`SequiturGame.resample_hidden` depends only on what the seat knows; undoing what other
seats chose earlier in the current simultaneous step (hidden until it ends) and choosing it
again by chance; and redrawing the balls other seats drew in that step."""

from __future__ import annotations

import numpy as np

from card_envs.core.spec import ActionSpec
from card_envs.sequitur.rules.cards import BALL_LETTER, LEFT, NUM_BALLS, PLACED_BALLS, RIGHT
from card_envs.sequitur.rules.decks import GoalDecks
from card_envs.sequitur.rules.goals import COLOURS
from card_envs.sequitur.rules.rack import card_actions, place_ball, play_card
from card_envs.sequitur.rules.spelling import spelled_balls, spelled_words
from card_envs.sequitur.rules.state import ACTION, EMPTY, GOAL, SETUP, SPELL, SequiturState
from card_envs.sequitur.rules.words import Dictionary


def acted_this_step(state: SequiturState, observer: int) -> list[int]:
    """The other seats that finished their turn in the current simultaneous step: what they
    chose stays hidden from ``observer`` until the step ends."""
    if state.phase not in (SETUP, GOAL, ACTION, SPELL):
        return []
    return [seat for seat in range(state.actor) if seat != observer]


def forget_step_choices(
    state: SequiturState,
    seats: list[int],
    decks: GoalDecks,
    observer: int,
    rng: np.random.Generator,
) -> list[int]:
    """In place: undo this step's hidden choices of ``seats``: racks and played cards back as
    shown at the step's start (balls drawn go back to the bag; a ball exchanged away comes out
    of the bag, or out of the draw that took it), a secret goal back on top of its deck, a
    goal-step card discarded taken back as if kept face down, a word unspelled. What is left
    depends only on what ``observer`` can see. Returns the seats to choose again: ``seats``
    but those whose exchange ``observer`` can tell from the letters (:func:`pin_exchange`)."""
    true_racks = {seat: state.racks[seat] for seat in seats}
    for seat in seats:
        state.racks[seat] = list(state.shown_racks[seat])
    pinned = [seat for seat in seats if not settle_returned_ball(state, seat, observer)]
    for seat in pinned:
        pin_exchange(state, seat, true_racks[seat], rng)
    refill_hidden_draws(state, observer)
    for seat in seats:
        if seat not in pinned:
            forget_other_choices(state, seat, decks)
    return [seat for seat in seats if seat not in pinned]


def forget_other_choices(state: SequiturState, seat: int, decks: GoalDecks) -> None:
    """In place: ``seat``'s cards played, secret goal, goal-step discard and word of this step
    undone (:func:`forget_step_choices` restores its rack)."""
    state.used[seat] = list(state.shown_used[seat])
    if state.phase == SETUP and state.secret[seat] != EMPTY:
        card, state.secret[seat] = state.secret[seat], EMPTY
        state.decks[decks.colour_of[card]].append(card)
    elif state.phase == GOAL and state.kept[seat] == EMPTY:
        pile = state.discards[state.goal_step]
        mine = [i for i, g in enumerate(pile) if state.discarder[g] == seat]
        if mine:  # the seat's last discard of this colour is this step's card
            card = state.kept[seat] = pile.pop(mine[-1])
            del state.discarder[card]
            state.own_discards[seat].remove(card)
    elif state.phase == SPELL:
        state.words[seat], state.word_balls[seat], state.scores[seat] = "", [], 0


def seen_balls(state: SequiturState, observer: int) -> set[int]:
    """The balls in places ``observer`` sees: its own rack and the ball it is placing, and the
    other racks' balls shown at the step's start (a restored rack is all of them)."""
    seen = {
        b
        for seat, rack in enumerate(state.racks)
        for b in rack
        if seat == observer or b in state.shown_racks[seat]
    }
    if state.ball != EMPTY and state.actor == observer:
        seen.add(state.ball)
    return seen


def settle_returned_ball(state: SequiturState, seat: int, observer: int) -> bool:
    """``seat``'s rack is restored; if ``observer`` drew one of its balls this step (after
    ``seat`` exchanged it away), that draw takes another ball of the same letter that
    ``observer`` cannot see. ``False`` when there is none: the letters then tell ``observer``
    of the exchange."""
    own, shown = state.racks[observer], state.shown_racks[seat]
    drawn: list[tuple[list[int] | None, int]] = [(own, i) for i, b in enumerate(own) if b in shown]
    if state.ball in shown and state.actor == observer:
        drawn.append((None, 0))
    if not drawn:
        return True
    holder, index = drawn[0]
    ball = state.ball if holder is None else holder[index]
    on_show = {b for rack in state.shown_racks for b in rack}
    seen = seen_balls(state, observer)
    same = [
        b
        for b in range(NUM_BALLS)
        if BALL_LETTER[b] == BALL_LETTER[ball] and b not in seen and b not in on_show
    ]
    if not same:
        return False
    if holder is None:
        state.ball = same[0]
    else:
        holder[index] = same[0]
    return True


def pin_exchange(
    state: SequiturState, seat: int, true_rack: list[int], rng: np.random.Generator
) -> None:
    """``seat`` keeps the exchange ``observer`` can tell from the letters: its rack as shown, but
    one of the places showing the exchanged letter (drawn uniformly) holds the ball it drew
    instead, which :func:`redraw_new_balls` redraws."""
    shown = state.shown_racks[seat]
    gone = next(b for b in shown if b not in true_rack)
    drawn = next(b for b in true_rack if b not in shown)
    slots = [i for i, b in enumerate(shown) if BALL_LETTER[b] == BALL_LETTER[gone]]
    kept = [b for b in shown if b != gone and BALL_LETTER[b] == BALL_LETTER[gone]]
    emptied = slots[int(rng.integers(len(slots)))]
    rack = list(shown)
    for i in slots:
        rack[i] = drawn if i == emptied else kept.pop(0)
    state.racks[seat] = rack


def refill_hidden_draws(state: SequiturState, observer: int) -> None:
    """In place: the balls other seats drew this step that ``observer`` has not seen each get a
    ball of their own (a draw that took a ball now back on a restored rack takes a spare one),
    and the bag is every ball in no place."""
    seen = seen_balls(state, observer)
    on_show = {b for rack in state.shown_racks for b in rack}
    hidden = [
        (rack, i)
        for seat, rack in enumerate(state.racks)
        if seat != observer
        for i, b in enumerate(rack)
        if b not in state.shown_racks[seat]
    ]
    placing = state.ball != EMPTY and state.actor != observer
    balls = [rack[i] for rack, i in hidden] + ([state.ball] if placing else [])
    taken = set(seen)
    spare = (b for b in range(NUM_BALLS) if b not in seen and b not in on_show)
    for k, ball in enumerate(balls):
        if ball in taken:
            balls[k] = next(b for b in spare if b not in taken and b not in balls)
        taken.add(balls[k])
    for (rack, i), ball in zip(hidden, balls, strict=False):
        rack[i] = ball
    if placing:
        state.ball = balls[-1]
    state.bag = [b for b in range(NUM_BALLS) if b not in taken]


def replay_step_choices(
    state: SequiturState,
    seats: list[int],
    rng: np.random.Generator,
    decks: GoalDecks,
    dictionary: Dictionary,
    actions: ActionSpec,
) -> None:
    """In place, after :func:`forget_step_choices` and the redraw: ``seats`` choose again. A
    secret goal's colour, each ball's end, keeping a goal card and the Sequitur card played are
    drawn uniformly; the word is the best-scoring one (the rack is on show in the spell step)."""
    for seat in seats:
        if state.phase == SETUP:
            colours = [c for c in range(len(COLOURS)) if decks.has_goals(state, c)]
            if colours:
                state.secret[seat] = decks.draw(
                    state, colours[int(rng.integers(len(colours)))], rng
                )
            for _ in range(PLACED_BALLS):
                place_ball(state.racks[seat], state.bag.pop(), (LEFT, RIGHT)[int(rng.integers(2))])
        elif state.phase == GOAL and state.kept[seat] != EMPTY and rng.random() < 0.5:
            decks.discard(state, state.kept[seat], seat)
            state.kept[seat] = EMPTY
        elif state.phase == ACTION:
            _play_any_card(state, seat, rng, actions)
        elif state.phase == SPELL:
            _spell_best_word(state, seat, dictionary)


def _play_any_card(
    state: SequiturState, seat: int, rng: np.random.Generator, actions: ActionSpec
) -> None:
    """``seat`` plays a uniformly drawn Sequitur card placement (or passes); the actor, its
    decision and a ball it is placing are left as they were."""
    actor, decision, ball = state.actor, state.decision, state.ball
    state.actor = seat
    legal = card_actions(state, actions.start)
    block, k = actions.decode(legal[int(rng.integers(len(legal)))])
    if not play_card(state, block, k, rng):  # Extend drew a ball to place
        place_ball(state.racks[seat], state.ball, (LEFT, RIGHT)[int(rng.integers(2))])
    state.actor, state.decision, state.ball = actor, decision, ball


def _spell_best_word(state: SequiturState, seat: int, dictionary: Dictionary) -> None:
    """``seat`` spells its best-scoring word (the first such in key order), or nothing."""
    rack = state.racks[seat]
    letters = tuple(BALL_LETTER[b] for b in rack)
    # sorted by key alone (a stable sort): each key's choices stay in turn
    spelled = sorted(spelled_words(letters, dictionary), key=lambda s: s[0])
    if not spelled:
        state.scores[seat], state.words[seat], state.word_balls[seat] = 0, "", []
        return
    key, _, _, word, score = max(spelled, key=lambda s: s[4])  # the first of the highest
    state.scores[seat], state.words[seat] = score, word
    state.word_balls[seat] = spelled_balls(rack, key)


def sort_hidden(state: SequiturState, decks: GoalDecks, observer: int) -> None:
    """In place: the bag (with a ball another seat is placing) and each colour's unseen goal
    cards sorted into their places, keeping who discarded each face-down position."""
    if state.ball != EMPTY and state.actor != observer:
        balls = sorted([*state.bag, state.ball])
        state.ball, state.bag = balls.pop(), balls
    else:
        state.bag.sort()
    owners = [[state.discarder[g] for g in pile] for pile in state.discards]
    for colour in range(len(COLOURS)):
        slots = decks.hidden_slots(state, observer, colour)
        for (holder, i), card in zip(slots, sorted(h[i] for h, i in slots), strict=True):
            holder[i] = card
    state.discarder = {
        g: owners[c][i] for c, pile in enumerate(state.discards) for i, g in enumerate(pile)
    }


def redraw_new_balls(state: SequiturState, observer: int, rng: np.random.Generator) -> None:
    """In place: the balls other seats put on their racks in this step (not on the racks shown
    at its start), which ``observer`` has not seen, redrawn with the bag; they keep their
    places on the racks. A ball shown on a rack is never drawn into one of those places."""
    shown = {ball for rack in state.shown_racks for ball in rack}
    slots = [
        (rack, i)
        for seat, rack in enumerate(state.racks)
        if seat != observer
        for i, ball in enumerate(rack)
        if ball not in shown
    ]
    if not slots:
        return
    pool = sorted([*state.bag, *(rack[i] for rack, i in slots)])
    fresh = [ball for ball in pool if ball not in shown]
    fresh = [fresh[int(i)] for i in rng.permutation(len(fresh))]
    for rack, i in slots:
        rack[i] = fresh.pop()
    rest = sorted([*fresh, *(ball for ball in pool if ball in shown)])
    state.bag = [rest[int(i)] for i in rng.permutation(len(rest))]
