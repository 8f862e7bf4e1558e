"""The safe checkpoint format: ``<stem>.safetensors`` (the policy's tensors) with ``<stem>.json``
beside it (the network to rebuild, the game and player count it was trained for, its advisor,
the tensors' SHA-256, and how it was trained). Its constants, its checks, building the network
it describes, loading, saving and converting a trusted Stable-Baselines3 zip all live here.

Loading unpickles nothing and imports nothing the files name: the policy class and activation are
looked up by name in fixed tables and the advisor must be one of the game's built-in agents. A
Stable-Baselines3 ``.zip`` stores its settings with cloudpickle, so loading one can run any code
it carries: it loads only with ``trust=True``, and :func:`convert_checkpoint`
(``card-envs export-checkpoint``) rewrites a trusted zip in the safe format.
"""

from __future__ import annotations

import hashlib
import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.builtin import builtin_kinds
from card_envs.core.env import EnvInfo
from card_envs.core.extras import require

FORMAT = "card-envs-policy"  # the JSON's "format" tag


FORMAT_VERSION = 1


SAFE_SUFFIX = ".safetensors"


HASH_KEY = "tensors_sha256"  # the JSON's record of the tensors file, checked on loading


# The networks a checkpoint may describe, by name (the classes: :func:`policy_classes`).
POLICY_CLASSES = ("MaskableActorCriticPolicy", "AdvisedPolicy", "ActionFeaturePolicy")


ACTIVATIONS = ("tanh", "relu")


# What an ActionFeaturePolicy's JSON adds: features per action and the count steps it reads.
FEATURE_KEYS = ("features", "levels")


class PickleCheckpointWarning(UserWarning):
    """A trusted checkpoint is being unpickled (it could run code)."""


class UncheckedCheckpointWarning(UserWarning):
    """A checkpoint's JSON records no hash of its tensors (written before they were recorded),
    so damage to the tensors file cannot be detected."""


def tensors_digest(path: Path) -> str:
    """The SHA-256 of a tensors file, as hex: recorded in its JSON when saved."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_tensors_digest(path: Path, meta: dict[str, Any]) -> None:
    """The tensors file must be the one its JSON recorded: flipped bytes inside a tensor keep
    the safetensors header valid and would load. A JSON without a hash warns."""
    recorded = meta.get(HASH_KEY)
    if recorded is None:
        warnings.warn(
            f"checkpoint {path}: its JSON records no {HASH_KEY}, so damage to the tensors "
            "cannot be detected; saving it again (card-envs export-checkpoint) records one",
            UncheckedCheckpointWarning,
            stacklevel=3,
        )
        return
    actual = tensors_digest(path)
    if actual != recorded:
        raise ValueError(
            f"checkpoint {path} is damaged: its SHA-256 is {actual}, but "
            f"{metadata_path(path).name} records {recorded}"
        )


def load_checked_sb3_zip(
    path: Path, meta: dict[str, Any], advisor: str | None, info: EnvInfo, *, trust: bool
):
    """A trusted SB3 zip's model, checked against this game: the game and seats its JSON names
    (``meta``, when there is one) before unpickling, then the advisor and the sizes."""
    if meta:
        check_fits(path, meta.get("env"), meta.get("num_players"), info)
    check_advisor(path, advisor, info)
    model = load_sb3_zip(path, trust=trust)
    check_sizes(path, (model.observation_space.shape[0], model.action_space.n), advisor, info)
    return model


def check_checkpoint_path(path: Path, trust: bool) -> None:
    """A loadable checkpoint path: a ``.safetensors`` file, or an SB3 ``.zip`` when trusted."""
    if path.suffix not in (SAFE_SUFFIX, ".zip"):
        raise ValueError(
            f"checkpoint {path}: expected a {SAFE_SUFFIX} file (its .json beside it) or a "
            "Stable-Baselines3 .zip"
        )
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    if path.suffix == ".zip" and not trust:
        raise ValueError(
            untrusted_message(path, "a Stable-Baselines3 zip")
            + f"; or convert it once: card-envs export-checkpoint {path} "
            f"{path.with_suffix(SAFE_SUFFIX)} --trust-checkpoint"
        )


def untrusted_message(path: Path, what: str) -> str:
    """Why a checkpoint that unpickles is refused, and how to opt in."""
    return (
        f"checkpoint {path} is {what}: loading it unpickles it, which can run any code the file "
        "carries. Load it only if you trust where it came from: trust=True "
        "(--trust-checkpoint on the command line)"
    )


def warn_unpickling(path: Path, what: str) -> None:
    warnings.warn(
        f"unpickling {what} {path}: it can run any code it carries; load only files you trust",
        PickleCheckpointWarning,
        stacklevel=3,
    )


def load_sb3_zip(path: str | Path, *, trust: bool, **load_kwargs: Any):
    """A trusted Stable-Baselines3 MaskablePPO zip (``load_kwargs`` go to ``MaskablePPO.load``).
    A ValueError without ``trust``: SB3 unpickles the zip's settings."""
    with require("train"):
        from sb3_contrib import MaskablePPO

    path = Path(path)
    check_checkpoint_path(path, trust)
    warn_unpickling(path, "the Stable-Baselines3 zip")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"checkpoint {path} is corrupt: not a zip archive saved by MaskablePPO")
    try:
        return MaskablePPO.load(path, device="cpu", **load_kwargs)
    except Exception as error:  # SB3 raises many types for a damaged archive
        raise ValueError(
            f"checkpoint {path} is corrupt or not a MaskablePPO model: {error}"
        ) from None


def load_policy(path: str | Path, info: EnvInfo) -> tuple[Any, dict[str, Any]]:
    """The policy of a safe checkpoint and its JSON. The JSON is checked against the game before
    the tensors are read; the network is rebuilt from it and must take every tensor exactly."""
    with require("train"):
        from safetensors import SafetensorError
        from safetensors.torch import load_file

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    meta = read_checkpoint_json(path)
    network = meta["policy"]
    check_fits(path, meta["env"], meta["num_players"], info)
    check_advisor(path, network["advisor"], info)
    sizes = (network["observation_size"], network["num_actions"])
    check_sizes(path, sizes, network["advisor"], info)
    try:
        tensors = load_file(path, device="cpu")
    except (SafetensorError, OSError) as error:
        raise ValueError(
            f"checkpoint {path} is damaged: not a safetensors file ({error})"
        ) from None
    check_tensors_digest(path, meta)
    policy = build_policy(network)
    try:
        policy.load_state_dict(tensors)
    except RuntimeError as error:
        raise ValueError(
            f"checkpoint {path} does not hold the network its JSON describes: {error}"
        ) from None
    return policy, meta


def policy_classes() -> dict[str, type[Any]]:
    """The policy classes a checkpoint may name: MaskablePPO's MLP policy, the advised one and
    the one that scores actions by their features."""
    with require("train"):
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from card_envs.agents.action_feature_policy import ActionFeaturePolicy
    from card_envs.agents.advised_policy import AdvisedPolicy

    classes = (MaskableActorCriticPolicy, AdvisedPolicy, ActionFeaturePolicy)
    return dict(zip(POLICY_CLASSES, classes, strict=True))


def activations() -> dict[str, type]:
    with require("train"):
        from torch import nn

    return dict(zip(ACTIVATIONS, (nn.Tanh, nn.ReLU), strict=True))


def build_policy(network: dict[str, Any]):
    """A fresh policy of the network a checkpoint's JSON describes, in evaluation mode."""
    import gymnasium

    space = gymnasium.spaces.Box(-np.inf, np.inf, (network["observation_size"],), np.float32)
    extra = {key: network[key] for key in FEATURE_KEYS if key in network}
    policy = policy_classes()[network["class"]](
        space,
        gymnasium.spaces.Discrete(network["num_actions"]),
        lambda _: 0.0,  # the optimizer's learning rate: the policy only plays
        net_arch=network["net_arch"],
        activation_fn=activations()[network["activation"]],
        ortho_init=False,  # the loaded tensors replace the initial weights: skip the QR work
        **extra,
    )
    policy.set_training_mode(False)
    return policy


def check_fits(path: Path, env: Any, num_players: Any, info: EnvInfo) -> None:
    if (env, num_players) != (info.name, info.num_players):
        raise ValueError(
            f"checkpoint {path} was trained for {env} with {num_players} players, "
            f"not {info.name} with {info.num_players}"
        )


def advisor_kinds(info: EnvInfo) -> list[str]:
    """The agent kinds a policy may be advised by: the game's built-in agents, never a path or
    a ``module:Class`` (a checkpoint naming one would choose what gets loaded or imported)."""
    return builtin_kinds(info)


def check_advisor(path: Path, advisor: Any, info: EnvInfo) -> None:
    if advisor is not None and advisor not in advisor_kinds(info):
        raise ValueError(
            f"checkpoint {path} names the advisor {advisor!r}; an advisor is one of "
            f"{info.name}'s built-in agents: {', '.join(advisor_kinds(info))}"
        )


def check_sizes(path: Path, sizes: tuple[int, int], advisor: str | None, info: EnvInfo) -> None:
    """The network's input and output sizes against the game's (with the advice appended)."""
    expected = info.obs_spec.size + (info.num_actions if advisor else 0)
    if tuple(sizes) != (expected, info.num_actions):
        raise ValueError(
            f"checkpoint {path} expects observations of {sizes[0]} and {sizes[1]} actions; "
            f"{info.name} with {info.num_players} players has {expected} and "
            f"{info.num_actions}"
        )


def advisor_of(meta: dict[str, Any]) -> str | None:
    """The advisor a checkpoint's JSON records (the safe format's, else the training config's)."""
    if isinstance(meta.get("policy"), dict):
        return meta["policy"].get("advisor")
    return meta.get("config", {}).get("advisor")


def metadata_path(checkpoint: Path) -> Path:
    return checkpoint.with_suffix(".json")


def read_metadata(checkpoint: Path) -> dict:
    """The JSON beside a checkpoint ({} when absent; a clear error when corrupt)."""
    side = metadata_path(checkpoint)
    if not side.exists():
        return {}
    try:
        meta = json.loads(side.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"checkpoint metadata {side} is corrupt: {error}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"checkpoint metadata {side} is corrupt: not a JSON object")
    return meta


def read_checkpoint_json(path: Path) -> dict[str, Any]:
    """The JSON beside a safe checkpoint, checked field by field."""
    side = metadata_path(path)
    if not side.is_file():
        raise ValueError(
            f"checkpoint {path} has no {side.name} beside it: it describes the network and "
            "the game the tensors are for"
        )
    meta = read_metadata(path)
    problem = format_problem(meta)
    if problem:
        raise ValueError(f"checkpoint metadata {side} is not a {FORMAT} description: {problem}")
    return meta


def format_problem(meta: dict[str, Any]) -> str | None:
    """What is wrong with a safe checkpoint's JSON (None when nothing is)."""
    if meta.get("format") != FORMAT:
        return f"format is {meta.get('format')!r}, not {FORMAT!r}"
    if meta.get("format_version") != FORMAT_VERSION:
        return f"format_version is {meta.get('format_version')!r}; this reads {FORMAT_VERSION}"
    if not isinstance(meta.get("env"), str) or not _positive_int(meta.get("num_players")):
        return "env must be a game name and num_players a positive integer"
    network = meta.get("policy")
    if not isinstance(network, dict):
        return "policy must be an object describing the network"
    if network.get("class") not in POLICY_CLASSES:
        return f"policy.class {network.get('class')!r} is not one of {', '.join(POLICY_CLASSES)}"
    sizes = (network.get("observation_size"), network.get("num_actions"))
    if not all(_positive_int(size) for size in sizes):
        return "policy.observation_size and policy.num_actions must be positive integers"
    if not _layers(network.get("net_arch")):
        return "policy.net_arch must be a list of layer widths or {'pi': [...], 'vf': [...]}"
    if network.get("activation") not in ACTIVATIONS:
        return f"policy.activation {network.get('activation')!r} is not one of {ACTIVATIONS}"
    scoring = network["class"] == "ActionFeaturePolicy"
    if any((key in network) != scoring for key in FEATURE_KEYS):
        return "policy.features and policy.levels are given for an ActionFeaturePolicy and no other"
    if scoring and not all(_positive_int(network[key]) for key in FEATURE_KEYS):
        return "policy.features and policy.levels must be positive integers"
    if not (network.get("advisor") is None or isinstance(network.get("advisor"), str)):
        return "policy.advisor must be an agent kind or null"
    if HASH_KEY in meta and not _hex_digest(meta[HASH_KEY]):
        return f"{HASH_KEY} must be the tensors file's SHA-256 as 64 hex digits"
    return None


def _hex_digest(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _layers(arch: Any) -> bool:
    """A net_arch SB3 builds: a list of widths, or separate ones for the actor and critic."""
    if isinstance(arch, dict):
        return set(arch) == {"pi", "vf"} and all(_layers(widths) for widths in arch.values())
    return isinstance(arch, list) and all(_positive_int(width) for width in arch)


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
    if name == "ActionFeaturePolicy":
        network |= {key: getattr(policy, key) for key in FEATURE_KEYS}
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
