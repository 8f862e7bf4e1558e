"""``card-envs distill CHECKPOINT --out PATH``: one step of expert iteration on a trained
network. The network plays one seat (rotated) against ``--opponent`` in the others; at each of
its decisions a search agent (``ismcts`` at the game's default budget) says what it would play;
the network is then fitted to those moves, on the positions its own play reaches (DAgger's
states, the search's labels). The teacher may be any agent kind; with ``--temperature`` one that
rates its moves (``Agent.rated_act_at``: a search's visit shares, a heuristic's values) gives
the softmax of its values as the target, as the self-play warm start's ``--clone-temperature``
does. A second round starts from the first's network, on new deals (``--first-deal``).

Why: a network trained by self-play stops improving once its play is locally consistent, while
a search from the same positions looks ahead with playouts and may win more
(docs/training-results.md, Distilling search: measured, has what it gained on each game tried,
and why). The search runs only while training: the distilled network still acts on its
observation alone.
"""

from __future__ import annotations

import argparse
import functools
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from card_envs import make
from card_envs.agents import make_agent
from card_envs.agents.checkpoint import (
    FORMAT_KEYS,
    check_out,
    load_policy,
    read_checkpoint_json,
    save_policy,
)
from card_envs.training.config import at_least, check_types, shares
from card_envs.training.runs import copy_curve

DISTILL_SEED = 2_000_000  # deals of neither the clone (1,000,000 on) nor the arena's reports


@dataclass(frozen=True)
class DistillConfig:
    """``card-envs distill``'s settings (its flags), checked when built: a bad value is a
    ``ValueError`` naming its field."""

    teacher: str = "ismcts"
    opponent: str = "heuristic"
    games: int = 100
    epochs: int = 4
    learning_rate: float = 1e-4
    smoothing: float = 0.1
    temperature: float = 0.0
    first_deal: int = DISTILL_SEED
    seed: int = 0

    def __post_init__(self) -> None:
        check_types(self)
        at_least(self, 1, "games", "epochs")
        at_least(self, 0, "seed", "first_deal")
        shares(self, "smoothing")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate={self.learning_rate!r}: more than 0")
        if not self.temperature >= 0:
            raise ValueError(f"temperature={self.temperature!r}: 0 or more")


HELP = {
    "teacher": "the agent that labels (a search's budget after a colon allowed)",
    "opponent": "who plays the other seats",
    "games": "games labelled (one network seat each)",
    "epochs": "passes of the fit over the labels",
    "learning_rate": "the fit's Adam step size",
    "smoothing": "share of the target spread over the legal moves",
    "temperature": "above 0, the target is the softmax of the teacher's values at this "
    "temperature, not only its move (a search rates by the log of its visit shares, so 1 fits "
    "its distribution)",
    "first_deal": "the first game's seed; a second round on new deals starts past the first's",
    "seed": "the fit's batch order",
}


def distill(
    checkpoint: Path, out: Path, workers: int = 1, progress: bool = True, **settings: Any
) -> dict[str, Any]:
    """Label ``checkpoint``'s own games with the teacher, fit the network to the labels and
    write it to ``out``; returns its JSON, the source's record with a ``distillation`` entry
    (the settings, the labelled rows, the network's agreement with the teacher before and
    after) and, from a distilled source, its rounds in ``earlier_distillations``."""
    from card_envs.training.imitation import (  # torch
        check_rated,
        clone,
        collect_demonstrations,
        fit_report,
    )

    unknown = set(settings) - {field.name for field in fields(DistillConfig)}
    if unknown:
        raise ValueError(f"unknown distillation settings: {', '.join(sorted(unknown))}")
    config = DistillConfig(**settings)
    check_out(out)
    if not checkpoint.is_file():
        raise FileNotFoundError(f"no checkpoint at {checkpoint}")
    meta = read_checkpoint_json(checkpoint)
    info = make(meta["env"], num_players=meta["num_players"]).describe()
    policy, meta = load_policy(checkpoint, info)
    start = time.perf_counter()
    demos = collect_demonstrations(
        info.name,
        info.num_players,
        config.games,
        student=functools.partial(make_agent, str(checkpoint)),
        teacher=config.teacher,
        first_seed=config.first_deal,
        progress=progress,
        workers=workers,
        others=config.opponent,
        rated=config.temperature > 0,
    )
    check_rated(demos, config.temperature, config.teacher, f"temperature={config.temperature}")
    before = fit_report(policy, demos)
    after = clone(
        policy,
        demos,
        epochs=config.epochs,
        learning_rate=config.learning_rate,
        smoothing=config.smoothing,
        seed=config.seed,
        progress=progress,
        temperature=config.temperature,
    )
    record = {key: value for key, value in meta.items() if key not in FORMAT_KEYS}
    if "distillation" in record:  # a later round: the earlier rounds' records stay, in order
        record["earlier_distillations"] = [
            *record.get("earlier_distillations", []),
            record.pop("distillation"),
        ]
    record["distillation"] = {
        **asdict(config),
        "source": str(checkpoint),
        "rows": len(demos.actions),
        "before": before,
        "after": after,
        "seconds": round(time.perf_counter() - start, 1),
    }
    saved = save_policy(
        policy, out, env=info.name, num_players=info.num_players, advisor=None, record=record
    )
    copy_curve(checkpoint, out)
    return saved


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs distill``."""
    parser = subparsers.add_parser(
        "distill",
        help="fit a trained network to a search agent's moves on its own games",
        description="Play the network in one seat (rotated) against --opponent, ask --teacher "
        "(a search agent) at each of its decisions, fit the network to the teacher's moves and "
        "write it to --out. The search runs only here: the written network acts alone.",
    )
    parser.add_argument("checkpoint", type=Path, help="the network's .safetensors")
    parser.add_argument("--out", type=Path, required=True, help="the .safetensors to write")
    for field in fields(DistillConfig):
        flag, value = "--" + field.name.replace("_", "-"), field.default
        parser.add_argument(
            flag, type=type(value), default=value, help=f"{HELP[field.name]} ({value})"
        )
    parser.add_argument("--workers", type=int, default=1, help="labelling processes (1)")
    parser.set_defaults(func=cmd_distill)


def cmd_distill(args: argparse.Namespace) -> int:
    settings = {field.name: getattr(args, field.name) for field in fields(DistillConfig)}
    meta = distill(args.checkpoint, args.out, args.workers, **settings)
    report = meta["distillation"]
    print(
        f"{report['rows']} labelled decisions; agreement with {report['teacher']} "
        f"{report['before']['teacher_agreement']:.3f} -> {report['after']['teacher_agreement']:.3f}"
        f" -> {args.out}"
    )
    return 0
