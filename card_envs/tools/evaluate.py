"""``card-envs evaluate``: one agent alone against a field on the published evaluation set,
every seat in turn, with plain and luck-adjusted win share and score (``docs/evaluation.md``).
``--json`` writes the scorecard (``card-envs.scorecard/1``), checked against its schema."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from card_envs.agents import make_agent
from card_envs.evaluation import scorecard
from card_envs.evaluation.protocol import CURRENT, load_protocol
from card_envs.evaluation.run import Evaluation, LuckSettings, evaluate
from card_envs.evaluation.stats import Interval
from card_envs.evaluation.values import KINDS
from card_envs.registry import make
from card_envs.tools.arena import Progress
from card_envs.tools.arena.command import default_workers
from card_envs.tools.selection import default_players

DEFAULT_DEALS = 100
HEURISTIC = "heuristic"


def check_agent(kind: str, env_name: str, num_players: int, trust: bool) -> None:
    """Fail before play on an agent that cannot sit at this table, naming it."""
    info = make(env_name, num_players=num_players).describe()
    try:
        make_agent(kind, info, 0, trust=trust)
    except (ValueError, FileNotFoundError) as error:
        text = str(error)
        raise ValueError(text if repr(kind) in text else f"agent {kind!r}: {text}") from None


def field_of(given: Sequence[str] | None, num_players: int) -> list[str]:
    """``--field``: one kind for every other seat, or one kind each (from the agent's left)."""
    kinds = list(given or [HEURISTIC])
    if len(kinds) == 1:
        return kinds * (num_players - 1)
    if len(kinds) != num_players - 1:
        raise ValueError(
            f"--field names one kind or {num_players - 1} (one a seat); got {len(kinds)}"
        )
    return kinds


def interval_text(interval: Interval, digits: int = 3) -> str:
    if not math.isfinite(interval.half):
        return f"{interval.value:.{digits}f}  (one deal: no interval)"
    return (
        f"{interval.value:.{digits}f}  [{interval.low:.{digits}f}, {interval.high:.{digits}f}]"
        f"  ±{interval.half:.{digits}f}"
    )


def times(part: float, whole: float) -> str:
    """``part / whole`` as ``0.91x``, or ``n/a`` where the whole is zero (no spread to narrow)."""
    return f"{part / whole:.2f}x" if whole else "n/a"


def report(run: Evaluation) -> str:
    """The run as text: plain and adjusted estimates, the parts, the CPU and the gain."""
    field = ", ".join(dict.fromkeys(run.field))
    plain, adjusted = run.interval(), run.interval(adjusted=True)
    games_cpu, luck_cpu = run.agent.cpu()
    weight = run.luck.weight
    equal_cpu = run.agent.equal_cpu_half(weight)
    lines = [
        f"{run.env_name}, {run.num_players} players: {run.agent.kind} alone against the field "
        f"({field}), {run.protocol.name} deals 0-{run.deals - 1}: {run.deals} deals x "
        f"{run.num_players} seats = {run.games} games",
        f"win share            {interval_text(plain)}",
        f"  luck-adjusted      {interval_text(adjusted)}  ({times(adjusted.half, plain.half)} "
        f"the width: a plain estimate needs {run.games_for_plain():,.0f} games for it)",
        f"score                {interval_text(run.interval('score'), 2)}",
        f"  luck-adjusted      {interval_text(run.interval('score', adjusted=True), 2)}",
        f"luck: the {run.luck.value} value, {run.luck.samples} alternatives a random transition, "
        f"weight {run.luck.weight:g}; each part alone narrows the width to "
        + ", ".join(f"{part} {w:.2f}x" for part, w in run.agent.part_widths(weight).items()),
        f"CPU: games {games_cpu:.1f} s, adjustment {luck_cpu:.1f} s "
        f"({times(luck_cpu, games_cpu)}); at equal CPU time the adjusted half-width is "
        f"{equal_cpu:.3f} ({times(equal_cpu, plain.half)} the plain)",
        f"{run.agent.kind}: {run.agent.ms_per_decision():.3f} ms of CPU a decision",
    ]
    gain, adjusted_gain = run.gain(), run.gain(adjusted=True)
    if gain is not None and adjusted_gain is not None and run.reference is not None:
        lines += [
            f"gain over {run.reference.kind} (same games)  {interval_text(gain)}",
            f"  luck-adjusted      {interval_text(adjusted_gain)}",
        ]
    return "\n".join(lines)


def cmd_evaluate(args: argparse.Namespace) -> int:
    env_name = args.game
    num_players = args.players or default_players(env_name)
    make(env_name, num_players=num_players)  # an unsupported count fails here, named
    field = field_of(args.field, num_players)
    kinds = [args.agent, *field, *([args.reference] if args.reference else [])]
    for kind in dict.fromkeys(kinds):
        check_agent(kind, env_name, num_players, args.trust_checkpoint)
    protocol = load_protocol(args.protocol)
    luck = LuckSettings.of(env_name, args.value)
    progress = Progress(sys.stderr)
    progress.start("evaluate")
    run = evaluate(
        env_name,
        num_players,
        args.agent,
        field,
        args.deals,
        reference=args.reference,
        luck=luck,
        protocol=protocol,
        workers=args.workers,
        trust=args.trust_checkpoint,
        progress=lambda done, total: progress.update(done, total, done, total - done),
    )
    progress.close()
    if run.deals:
        print(report(run))
        if args.json:
            scorecard.write(scorecard.of_evaluation(run), Path(args.json))
            print(f"scorecard: {args.json}")
    if run.error is not None:
        kept = f"the {run.deals} deals before it are kept" if run.deals else "no deal finished"
        print(f"card-envs: error: {run.error}; {kept}", file=sys.stderr)
        return 2
    return 0


DESCRIPTION = (
    "Evaluate one agent on the published evaluation set: it plays each deal once in every "
    "seat, alone against the field, and the report gives its win share and score with 95% "
    "intervals over deals, plain and luck-adjusted (AIVAT), and the games a plain estimate "
    "would need for the adjusted width. See docs/evaluation.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs evaluate``."""
    parser = subparsers.add_parser(
        "evaluate",
        help="one agent against a field on the evaluation set, with luck-adjusted intervals",
        description=DESCRIPTION,
    )
    parser.add_argument(
        "agent",
        help="an agent kind the arena takes (card-envs list --agents), a checkpoint path or "
        "package.module:ClassName",
    )
    parser.add_argument("--game", required=True, help="the env id (card-envs list)")
    parser.add_argument(
        "--field",
        nargs="+",
        default=None,
        help="the opponents: one kind for every other seat or one each (default: heuristic)",
    )
    parser.add_argument(
        "--reference", default=None, help="a second agent played on the same games: the gain"
    )
    parser.add_argument(
        "--deals", type=int, default=DEFAULT_DEALS, help="deals, each played in every seat"
    )
    parser.add_argument("--players", type=int, default=None, help="default: the game's")
    parser.add_argument(
        "--value", choices=KINDS, default=None, help="the value estimate (default: the game's)"
    )
    parser.add_argument("--protocol", default=CURRENT, help=f"the evaluation set ({CURRENT})")
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="processes (default: cores)"
    )
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="allow checkpoints that unpickle (they can run code)",
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="write the scorecard")
    parser.set_defaults(func=cmd_evaluate)
