"""Saving trained policies in the safe checkpoint format (``.safetensors`` + JSON), and
converting a trusted Stable-Baselines3 zip to it. Loading them is the agents layer's
(:mod:`card_envs.agents.policy`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from card_envs.agents.policy import (
    ACTIVATIONS,
    FORMAT,
    FORMAT_VERSION,
    HASH_KEY,
    POLICY_CLASSES,
    SAFE_SUFFIX,
    activations,
    build_policy,
    load_checked_sb3_zip,
    metadata_path,
    policy_classes,
    read_metadata,
    tensors_digest,
)
from card_envs.core.env import EnvInfo
from card_envs.core.extras import require

# The keys of the JSON that this module writes; the rest (config, evaluations ...) is a record.
FORMAT_KEYS = ("format", "format_version", "env", "num_players", "policy", HASH_KEY)


def describe_policy(policy) -> dict[str, Any]:
    """What rebuilds ``policy``'s network (the JSON's ``"policy"``, less the advisor); a
    ValueError when :func:`build_policy` would build a different one (a custom extractor ...)."""
    name = type(policy).__name__
    activation = {cls: key for key, cls in activations().items()}.get(policy.activation_fn)
    if policy_classes().get(name) is not type(policy) or activation is None:
        raise ValueError(
            f"cannot save a {name} with {policy.activation_fn.__name__}: the checkpoint format "
            f"rebuilds {', '.join(POLICY_CLASSES)} with {', '.join(ACTIVATIONS)}"
        )
    network = {
        "class": name,
        "observation_size": int(policy.observation_space.shape[0]),
        "num_actions": int(policy.action_space.n),
        "net_arch": policy.net_arch,
        "activation": activation,
    }
    if repr(build_policy(network)) != repr(policy):  # every layer's type and size
        raise ValueError(f"cannot save this {name}: its layers are not the ones it would rebuild")
    return network


def save_policy(
    policy,
    path: str | Path,
    *,
    env: str,
    num_players: int,
    advisor: str | None,
    record: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write ``path`` (the policy's tensors) and the JSON beside it; ``record`` (training config,
    evaluations ...) is kept in the JSON after the format's own keys. Returns the JSON."""
    with require("train"):
        from safetensors.torch import save_file

    path = Path(path)
    check_out(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {key: value.detach().cpu().contiguous() for key, value in policy.state_dict().items()}
    save_file(tensors, path)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "env": env,
        "num_players": num_players,
        "policy": {**describe_policy(policy), "advisor": advisor},
        HASH_KEY: tensors_digest(path),
    }
    meta |= {key: value for key, value in (record or {}).items() if key not in FORMAT_KEYS}
    metadata_path(path).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def kept_evaluation(record: dict[str, Any]) -> dict[str, Any] | None:
    """How the policy a run kept scored, from its record (a checkpoint's JSON or a run's
    result): its evaluation at ``best_timesteps``, else its clone's (no evaluation after the warm
    start beat the clone), else ``None``."""
    steps = record.get("best_timesteps", 0)
    rows = [row for row in record.get("evaluations", []) if row["timesteps"] == steps]
    rows = rows or record.get("cloning", {}).get("rounds", [])
    return rows[-1] if rows else None


def copy_curve(source: Path, out: Path) -> None:
    """Put ``source``'s learning curve (the PNG beside it), if it has one, beside ``out``: a
    network chosen or refitted from a run keeps the curve of the run it came from."""
    if source.with_suffix(".png").is_file():
        shutil.copyfile(source.with_suffix(".png"), out.with_suffix(".png"))


def check_out(path: Path) -> None:
    """Where a trained policy is written: a ``.safetensors`` path (its JSON and PNG go beside)."""
    if path.suffix != SAFE_SUFFIX:
        raise ValueError(
            f"output {path}: name the {SAFE_SUFFIX} file to write (its .json goes beside it)"
        )


def convert_checkpoint(
    source: str | Path, out: str | Path, info: EnvInfo, advisor: str | None, *, trust: bool
) -> dict[str, Any]:
    """Rewrite a trusted SB3 zip as the safe format at ``out``: the same policy, loadable
    without unpickling. The JSON beside the zip, when there is one, is kept as the record.
    Returns the new JSON."""
    source, out = Path(source), Path(out)
    check_out(out)
    meta = read_metadata(source)
    model = load_checked_sb3_zip(source, meta, advisor, info, trust=trust)
    return save_policy(
        model.policy, out, env=info.name, num_players=info.num_players, advisor=advisor, record=meta
    )
