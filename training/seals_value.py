"""Fit the afterstate value of :mod:`card_envs.agents.seals_value` from heuristic self-play.

    python -m card_envs.training.seals_value --games 24000 --workers 2

Four heuristics play ``--games`` games; at every take, with probability ``--epsilon`` the taker
takes a random legal take instead (so that takes the heuristic would not choose are seen too). Each
take's afterstate features are labelled with the blason margin the taker made in that round (its
blasons won minus the others' mean): a round is decided within a few turns, a far less noisy label
than the game's winner. An MLP is fitted by mean squared error (Adam, held-out 5% reported) and
saved as numpy weights for :class:`card_envs.agents.seals_value.AfterstateValue`, in a new run
folder unless ``--out`` names the file (``--out agents/checkpoints/seals_v0_value.npz`` replaces the
shipped weights).
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path

import numpy as np

from card_envs import make
from card_envs.agents.match import decisions
from card_envs.agents.seals import HeuristicAgent
from card_envs.agents.seals_value import LAYERS, WEIGHTS, take_features
from card_envs.core.extras import require
from card_envs.training.runs import new_run_dir


def collect(games: int, seed: int, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Afterstate features of every take in ``games`` self-play games, and their round margins."""
    env = make("seals_v0")
    info = env.describe()
    rng = np.random.default_rng(seed)
    features: list[np.ndarray] = []
    margins: list[float] = []
    for _ in range(games):
        env.reset(seed=int(rng.integers(2**31)))
        players = [HeuristicAgent(info, int(rng.integers(2**31))) for _ in range(4)]
        takes: list[tuple[int, int, list[int]]] = []  # seat, round, blasons before
        round_end: dict[int, list[int]] = {}  # round -> blasons once it is over
        for name, observation in decisions(env):
            seat, state = env.possible_agents.index(name), env.game_state
            views = info.obs_spec.views(observation["observation"])
            action = players[seat].act(observation)
            if not views["revealing"][0]:
                if rng.random() < epsilon:
                    action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
                features.append(take_features(views, action))
                takes.append((seat, state.round, list(state.blasons)))
            round_before = state.round
            env.step(action)
            if env.game_state.round != round_before or env.game_state.over:
                round_end[round_before] = list(env.game_state.blasons)
        for seat, round_, before in takes:
            end = round_end.get(round_, env.game_state.blasons)  # a truncated game: as it stands
            gains = [after - start for after, start in zip(end, before, strict=True)]
            margins.append(gains[seat] - (sum(gains) - gains[seat]) / (len(gains) - 1))
    return np.stack(features), np.array(margins, np.float32)


def fit(x: np.ndarray, y: np.ndarray, width: int, epochs: int, seed: int) -> tuple[list, dict]:
    """An MLP regressor of ``y`` on ``x``; returns numpy weights and the held-out error."""
    with require("train"):
        import torch
        from torch import nn

    torch.manual_seed(seed)
    net = nn.Sequential(
        nn.Linear(x.shape[1], width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.ReLU(),
        nn.Linear(width, 1),
    )
    optimiser = torch.optim.Adam(net.parameters(), 1e-3)
    inputs, targets = torch.as_tensor(x), torch.as_tensor(y)
    order = torch.randperm(len(inputs))
    held, train = order[: len(order) // 20], order[len(order) // 20 :]
    report = {"rows": len(inputs), "label_variance": float(targets[held].var())}
    for epoch in range(epochs):
        for batch in train[torch.randperm(len(train))].split(1024):
            loss = nn.functional.mse_loss(net(inputs[batch]).squeeze(-1), targets[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        with torch.no_grad():
            held_loss = nn.functional.mse_loss(net(inputs[held]).squeeze(-1), targets[held])
        report[f"held_out_mse_epoch_{epoch}"] = round(float(held_loss), 4)
    linear = [m for m in net if isinstance(m, nn.Linear)]
    assert len(linear) == LAYERS
    weights = [
        t.detach().numpy().T if t.dim() == 2 else t.detach().numpy()
        for m in linear
        for t in (m.weight, m.bias)
    ]
    return weights, report


def save(weights: list[np.ndarray], report: dict, out: Path) -> None:
    names = [f"{kind}{layer}" for layer in range(LAYERS) for kind in "Wb"]
    arrays = dict(zip(names, weights, strict=True))
    out.parent.mkdir(parents=True, exist_ok=True)
    # numpy's stub also matches **arrays against savez's allow_pickle: bool
    np.savez(out, **arrays)  # type: ignore[arg-type]
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")


def output_path(out: Path | None, now: datetime | None = None) -> Path:
    """``out``, or a new run folder's ``seals_v0_value.npz``: never the shipped weights unless
    named."""
    return out or new_run_dir(Path("runs"), "seals_v0_value", now) / WEIGHTS.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m card_envs.training.seals_value", description=__doc__
    )
    parser.add_argument("--games", type=int, default=24_000)
    parser.add_argument("--epsilon", type=float, default=0.15)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="default: runs/seals_v0_value-<time>/seals_v0_value.npz; the shipped weights "
        "change only when named here",
    )
    args = parser.parse_args(argv)
    args.out = output_path(args.out)
    started = time.perf_counter()
    share = -(-args.games // args.workers)
    seeds = [args.seed * 1000 + w for w in range(args.workers)]
    with ProcessPoolExecutor(args.workers) as pool:
        epsilons = [args.epsilon] * args.workers
        parts = list(pool.map(collect, [share] * args.workers, seeds, epsilons))
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    weights, report = fit(x, y, args.width, args.epochs, args.seed)
    report["seconds"] = round(time.perf_counter() - started, 1)
    save(weights, {"config": vars(args) | {"out": args.out.name}, **report}, args.out)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
