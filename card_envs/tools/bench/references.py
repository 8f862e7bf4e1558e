"""The references measured beside the games: PettingZoo's Leduc and Texas Hold'em (through
rlcard), as users make them and unwrapped, and OpenSpiel's C++ hearts for the rules-only
figures. Each is skipped with a message when its package is missing."""

from __future__ import annotations

import importlib
import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from gymnasium.error import DependencyNotInstalled

from card_envs.core.extras import install_hint, require
from card_envs.tools.bench.measure import (
    RESET_SHARE,
    SEED,
    aec_speed,
    peak_memory,
    reset_time,
    time_games,
)
from card_envs.tools.bench.results import Measurement, RulesReference

# PettingZoo reference env -> the rlcard game it wraps (for the rules-only figure).
REFERENCES = {"leduc_holdem_v4": "leduc-holdem", "texas_holdem_v4": "limit-holdem"}
RAW_SUFFIX = " (raw_env)"
HEARTS = "open_spiel hearts (C++)"


def reference_module(name: str) -> Any:
    """The PettingZoo reference module, or an ``ImportError`` saying what to install."""
    try:
        with warnings.catch_warnings():  # PettingZoo's notice about its old creation API
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(f"pettingzoo.classic.{name}")
    except (ImportError, DependencyNotInstalled) as error:
        raise ImportError(
            f"{name} needs rlcard and pygame-ce ({error}); install them with "
            f"`{install_hint('bench')}`"
        ) from error


def measure_reference(name: str, seconds: float, raw: bool) -> Measurement:
    """A PettingZoo reference as users make it (``env()``, with PettingZoo's wrappers) or
    unwrapped (``raw_env()``, its fastest form)."""
    module = reference_module(name)
    build = module.raw_env if raw else module.env
    env = build()
    steps, games = aec_speed(env, seconds)
    return Measurement(
        env=name + RAW_SUFFIX * raw,
        players=len(env.possible_agents),
        reference=True,
        agent_steps_per_s=steps,
        games_per_s=games,
        rules_steps_per_s=rlcard_rules_speed(REFERENCES[name], seconds),
        reset_us=reset_time(env, seconds * RESET_SHARE),
        peak_kib=peak_memory(build),
    )


def measure_references(seconds: float, log: Callable[[str], None]) -> list[Measurement]:
    """Both references in both forms, or none with a clear message when rlcard is missing."""
    try:
        return [
            measure_reference(name, seconds, raw) for raw in (False, True) for name in REFERENCES
        ]
    except ImportError as error:
        log(f"bench: PettingZoo references skipped: {error}")
        return []


def rlcard_rules_speed(game_name: str, seconds: float) -> float:
    """The rules-only figure for a reference: its rlcard game driven directly."""
    with require("bench"):
        import rlcard

    game, rand = rlcard.make(game_name, config={"seed": SEED}).game, random.Random(SEED)

    def one() -> int:
        game.init_game()
        steps = 0
        while not game.is_over():
            legal = game.get_legal_actions()
            game.step(legal[rand.randrange(len(legal))])
            steps += 1
        return steps

    return time_games(one, seconds)[0]


def set_ratios(rows: Sequence[Measurement], references: Sequence[Measurement]) -> None:
    """Each game's AEC agent-steps/s over the faster reference's, as users make both
    (``ratio``: our ``env()`` against PettingZoo's ``env()``) and against the unwrapped
    references (``ratio_raw``)."""
    wrapped = [r.agent_steps_per_s for r in references if not r.env.endswith(RAW_SUFFIX)]
    raw = [r.agent_steps_per_s for r in references if r.env.endswith(RAW_SUFFIX)]
    for row in rows:
        row.ratio = row.agent_steps_per_s / max(wrapped) if wrapped else None
        row.ratio_raw = row.agent_steps_per_s / max(raw) if raw else None


def hearts_speed(seconds: float) -> RulesReference:
    """OpenSpiel's C++ hearts driven from Python: decisions/s of uniformly random legal moves
    (``legal_actions``, ``apply_action``; chance nodes, the deal, are sampled and not counted),
    alone and with the observation of the player to act every step through the pyspiel observer
    API (``make_observation`` with perfect recall, hearts' only tensor: ``set_from`` fills its
    numpy buffer, copied out as our ``observe`` returns a fresh vector). An ``ImportError``
    without ``open_spiel``."""
    with require("bench"):
        import pyspiel
        from open_spiel.python.observation import make_observation

    game, rand = pyspiel.load_game("hearts"), random.Random(SEED)
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))

    def play(observe: bool) -> int:
        state, steps = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rand.randrange(len(outcomes))][0])
                continue
            if observe:
                observer.set_from(state, state.current_player())
                observer.tensor.copy()
            legal = state.legal_actions()
            state.apply_action(legal[rand.randrange(len(legal))])
            steps += 1
        return steps

    return RulesReference(
        env=HEARTS,
        players=game.num_players(),
        rules_steps_per_s=time_games(lambda: play(False), seconds)[0],
        rules_observed_steps_per_s=time_games(lambda: play(True), seconds)[0],
    )


def measure_hearts(seconds: float, log: Callable[[str], None]) -> RulesReference | None:
    """OpenSpiel's hearts, or None with a clear message when open_spiel is missing."""
    try:
        return hearts_speed(seconds)
    except ImportError as error:
        log(f"bench: OpenSpiel's hearts skipped ({error})")
        return None
