"""The Sequitur table as text: whole (``render``) or as one seat may see it (``render_seat``)."""

from __future__ import annotations

from card_envs.sequitur.rules.cards import CARD_LETTERS, ball_text
from card_envs.sequitur.rules.goals import COLOURS, GoalCard
from card_envs.sequitur.rules.state import (
    ACTION,
    DECISIONS,
    EMPTY,
    GOAL,
    NUM_ROUNDS,
    OVER,
    PHASES,
    SequiturState,
)


def table(
    state: SequiturState, goals: tuple[GoalCard, ...], seat: int | None, winners: list[int]
) -> str:
    """The table as text; with a ``seat``, only what that seat may see (``winners``: of a
    finished game)."""
    mine = range(state.num_players) if seat is None else (seat,)
    lines = [
        f"Sequitur round {min(state.round + 1, NUM_ROUNDS)}/{NUM_ROUNDS}, "
        + ("game over (last round's words shown)" if state.phase == OVER else "")
        + (f"{PHASES[state.phase]} step" if state.phase != OVER else "")
        + (f" ({COLOURS[state.goal_step]})" if state.phase in (GOAL, ACTION) else ""),
        "public goals: " + (", ".join(goal_text(goals, g) for g in state.public) or "-"),
    ]
    for p in range(state.num_players):
        rack = state.racks[p] if p in mine else state.shown_racks[p]
        used = state.used[p] if p in mine else state.shown_used[p]
        cards = "".join(c if not u else "." for c, u in zip(CARD_LETTERS, used, strict=True))
        balls = " ".join(map(ball_text, rack)) or "-"
        line = f"player_{p} goals {state.totals[p]:2d} | rack {balls}"
        line += f" | cards {cards}"
        if p in mine and state.secret[p] != EMPTY:
            line += f" | secret {goal_text(goals, state.secret[p])}"
        elif state.shown_secret[p]:
            line += f" | secret {COLOURS[goals[state.secret[p]].colour_index]}"
        if p in mine and state.kept[p] != EMPTY:
            line += f" | face down {goal_text(goals, state.kept[p])}"
        if state.words_shown or (p in mine and state.words[p]):
            line += f" | word {state.words[p].upper() or '-'} ({state.scores[p]})"
        lines.append(line)
    lines.append(_prompt(state, goals, mine, winners))
    return "\n".join(lines)


def _prompt(
    state: SequiturState,
    goals: tuple[GoalCard, ...],
    mine: range | tuple[int, ...],
    winners: list[int],
) -> str:
    if state.phase == OVER:
        return "game over: winners " + ", ".join(f"player_{p}" for p in winners)
    if state.actor not in mine:  # another seat's kind of decision could give it away
        return f"to act: player_{state.actor}"
    text = f"to act: player_{state.actor} ({DECISIONS[state.decision]})"
    if state.ball != EMPTY:
        text += f", drew ball {ball_text(state.ball)}"
    if state.drawn:
        text += ", drew " + ", ".join(goal_text(goals, g) for g in state.drawn)
    return text


def goal_text(goals: tuple[GoalCard, ...], goal: int) -> str:
    """``"#12 red palindrome (4+)"``: a goal card's id, colour, goal and minimum length."""
    card = goals[goal]
    return f"#{goal} {card.colour} {card.goal} ({card.min_length}+)"
