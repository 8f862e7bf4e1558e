"""Scorecards (``card-envs.scorecard/1``): one evaluation as the JSON a paper reports, checked
against the schema shipped as ``card_envs/schemas/scorecard-1.json`` (``docs/evaluation.md``
lists the fields)."""

from __future__ import annotations

import hashlib
import json
import math
import platform
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, requires, version
from pathlib import Path
from typing import Any

from card_envs.agents import TRAINED_KINDS, shipped_checkpoint
from card_envs.evaluation.protocol import Protocol
from card_envs.evaluation.run import Evaluation, LuckSettings, Side
from card_envs.evaluation.stats import Interval, games_for_width, mean_interval

FORMAT = "card-envs.scorecard/1"
SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "scorecard-1.json"
# Besides the library's own dependencies, the packages a trained agent plays through.
PLAYING_PACKAGES = ("torch", "safetensors")


class ScorecardError(ValueError):
    """A scorecard that fails the schema: ``field`` is the JSON path of the first fault."""

    def __init__(self, message: str, field: str):
        super().__init__(f"scorecard field {field!r}: {message}")
        self.field = field


def checkpoint_sha256(kind: str, env_name: str) -> str | None:
    """The SHA-256 of the checkpoint an agent kind plays (a shipped trained kind or a file
    path), or None for an agent without one."""
    path = shipped_checkpoint(env_name, kind) if kind in TRAINED_KINDS else Path(kind)
    if not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def versions() -> dict[str, str]:
    """The library's version, its dependencies' and Python's (and torch's where installed)."""
    out = {"card-envs": version("card-envs"), "python": platform.python_version()}
    core = [line for line in requires("card-envs") or [] if "extra ==" not in line]
    for name in [re.split(r"[\s<>=!~;\[]", line)[0] for line in core] + list(PLAYING_PACKAGES):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def env_version(env_name: str) -> str:
    """``v0`` for ``seals_v0``: the env's version, bumped when its rules or observation change."""
    match = re.search(r"_(v\d+)$", env_name)
    return match.group(1) if match else "v0"


def estimate(interval: Interval) -> dict[str, Any]:
    """``{"value", "ci"}``, an unbounded end (one deal) as null."""
    ends = [end if math.isfinite(end) else None for end in (interval.low, interval.high)]
    return {"value": interval.value, "ci": ends}


def finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def build(
    side: Side,
    env_name: str,
    num_players: int,
    protocol: Protocol,
    field: Sequence[str],
    luck: LuckSettings,
    *,
    reference: Side | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """The scorecard of an agent's seat-games (at least one whole deal) against ``field``,
    with the gain over a ``reference`` played on the same games."""
    plain, adjusted = side.interval(), side.interval("win", luck.weight)
    games_cpu, luck_cpu = side.cpu()
    card: dict[str, Any] = {
        "format": FORMAT,
        "env": env_name,
        "env_version": env_version(env_name),
        "players": num_players,
        "agent": {"kind": side.kind, "checkpoint_sha256": checkpoint_sha256(side.kind, env_name)},
        "protocol": {
            "name": protocol.name,
            "deals": len(side.deals),
            "seatings": len(side.deals[0]),
            "fingerprint": protocol.fingerprint(env_name, num_players),
        },
        "field": list(field),
        "games": side.games,
        "win_share": estimate(plain),
        "adjusted": estimate(adjusted),
        "score": estimate(side.interval("score")),
        "adjusted_score": estimate(side.interval("score", luck.weight)),
        "games_for_plain": finite(games_for_width(side.games, plain, adjusted)),
        "luck": {
            "value": luck.value,
            "samples": luck.samples,
            "weight": luck.weight,
            "parts": {part: finite(w) for part, w in side.part_widths(luck.weight).items()},
            "equal_cpu_half_width": finite(side.equal_cpu_half(luck.weight)),
        },
        "ms_per_decision": side.ms_per_decision(),
        "cpu_seconds": {"games": games_cpu, "adjustment": luck_cpu},
        "versions": versions(),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if reference is not None:
        mine, theirs = side.values(), reference.values()
        adjusted_mine = side.values("win", luck.weight)
        adjusted_theirs = reference.values("win", luck.weight)
        card |= {
            "reference": reference.kind,
            "gain": estimate(mean_interval([a - b for a, b in zip(mine, theirs, strict=True)])),
            "adjusted_gain": estimate(
                mean_interval([a - b for a, b in zip(adjusted_mine, adjusted_theirs, strict=True)])
            ),
        }
    if error is not None:
        card["error"] = error
    return card


def of_evaluation(run: Evaluation) -> dict[str, Any]:
    """The scorecard of ``card-envs evaluate``'s run."""
    return build(
        run.agent,
        run.env_name,
        run.num_players,
        run.protocol,
        run.field,
        run.luck,
        reference=run.reference,
        error=run.error,
    )


def validate(card: Any) -> None:
    """Raise :class:`ScorecardError` naming the field at fault unless ``card`` fits the
    schema (the ``jsonschema`` library, Draft 2020-12)."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    error = jsonschema.exceptions.best_match(validator.iter_errors(card))
    if error is not None:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        missing = re.match(r"'([^']+)' is a required property", error.message)
        if missing:
            path += f".{missing.group(1)}"
        raise ScorecardError(error.message, path.lstrip(".") or "(the scorecard)")


def write(card: dict[str, Any], path: Path) -> None:
    """Validate ``card`` and write it (a refused one is never written)."""
    validate(card)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(card, indent=2) + "\n")


def read(path: Path) -> dict[str, Any]:
    """A scorecard from ``path``, validated."""
    card = json.loads(Path(path).read_text())
    validate(card)
    return card
