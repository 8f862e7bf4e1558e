"""Fit a game's value network for luck adjustment from heuristic self-play.

    python -m card_envs.evaluation.fit seals_v0 --games 4000 --workers 2 --write

The game's heuristic plays every seat of ``--games`` games (each move, with probability
``--epsilon``, a random legal one instead, so that positions the heuristic would avoid are seen
too). Every seat's observation is kept at the positions right after chance, where the luck
estimator asks for values (``--after-chance`` of them), and at a ``--sample`` share of the
others, labelled with the win share and score that seat finished with. A small MLP, the same
for every seat, is fitted (Adam) to both: a softmax over the seats of its first output to the
win shares (cross-entropy), its second to the final score over the scores' spread (squared
error). The epoch best on the held-out last tenth of the games is kept. The weights are written
as plain numpy arrays (the evaluation needs no torch), with a JSON beside them of the run and
its held-out fit, to ``--out`` (default a fresh folder under ``runs/``); ``--write`` replaces
the shipped ``card_envs/evaluation/data/<env>.npz``.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents import make_agent
from card_envs.agents.match import decisions
from card_envs.agents.pool import in_processes
from card_envs.core.extras import require
from card_envs.evaluation.luck import chance_taken
from card_envs.evaluation.protocol import derived_seed
from card_envs.evaluation.values import LAYERS, network_path, round_table
from card_envs.registry import make
from card_envs.training.runs import new_run_dir

FIT_SEED = 7_042  # the fit's games are seeded apart from every evaluation set
CHUNK = 50  # games per task of a worker


def collect(
    env_name: str, epsilon: float, sample: float, after_chance: float, games: range
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations ``(rows, seats, size)``, final win shares and scores ``(rows, seats)``: a
    position right after chance with probability ``after_chance`` (where the estimate is
    asked), any other with ``sample``."""
    env = make(env_name)
    info = env.describe()
    seats = info.num_players
    observations, wins, scores = [], [], []
    for game_index in games:
        rng = np.random.default_rng(derived_seed(FIT_SEED, game_index))
        players = [make_agent("heuristic", info, int(rng.integers(2**31))) for _ in range(seats)]
        env.reset(seed=int(rng.integers(2**31)))
        kept = []
        for name, observation in decisions(env):
            seat = env.possible_agents.index(name)
            if rng.random() < epsilon:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            else:
                action = players[seat].act_at(env, observation)
            before = chance_taken(env.game_state)
            env.step(action)
            state = env.game_state
            keep = after_chance if chance_taken(state) > before else sample
            if rng.random() < keep:
                kept.append([env.encoding.observe_underived(state, s) for s in range(seats)])
        game, state = env.game, env.game_state
        winners = game.winners(state) if game.is_over(state) else []
        win = [1 / len(winners) if s in winners else 0.0 for s in range(seats)]
        observations += kept
        wins += [win] * len(kept)
        scores += [[float(x) for x in game.scores(state)]] * len(kept)
    return (
        np.asarray(observations, np.float32).reshape(-1, seats, info.obs_spec.size),
        np.asarray(wins, np.float32).reshape(-1, seats),
        np.asarray(scores, np.float32).reshape(-1, seats),
    )


def fit(
    x: np.ndarray, win: np.ndarray, score: np.ndarray, width: int, epochs: int, seed: int
) -> tuple[list[np.ndarray], dict[str, Any]]:
    """The MLP's numpy weights (input to output, ``W`` as ``inputs x outputs``) and its best
    held-out epoch's figures; the last tenth of the rows (the last games) is held out."""
    with require("train"):
        import torch
        from torch import nn

    torch.manual_seed(seed)
    net = nn.Sequential(
        nn.Linear(x.shape[-1], width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.ReLU(),
        nn.Linear(width, 2),
    )
    optimiser = torch.optim.Adam(net.parameters(), 1e-3)
    tx, tw, ts = (torch.as_tensor(a) for a in (x, win, score))
    cut = int(len(x) * 0.9)

    def losses(rows: Any) -> tuple[Any, Any]:
        out = net(tx[rows])
        cross = -(tw[rows] * torch.log_softmax(out[..., 0], -1)).sum(-1).mean()
        return cross, ((out[..., 1] - ts[rows]) ** 2).mean()

    held = torch.arange(cut, len(x))
    best: tuple[float, list[np.ndarray], dict[str, Any]] | None = None
    for epoch in range(epochs):
        order = torch.randperm(cut)
        for start in range(0, cut, 256):
            optimiser.zero_grad()
            cross, squared = losses(order[start : start + 256])
            (cross + squared).backward()
            optimiser.step()
        with torch.no_grad():
            cross, squared = losses(held)
            shares = torch.softmax(net(tx[held])[..., 0], -1)
            r2_win = 1 - float(((shares - tw[held]) ** 2).mean() / tw[held].var())
            r2_score = 1 - float(squared / ts[held].var())
        total = float(cross + squared)
        if best is None or total < best[0]:
            weights = [p.detach().numpy().copy() for p in net.parameters()]
            facts = {
                "epoch": epoch,
                "held_out_r2_win": round(r2_win, 4),
                "held_out_r2_score": round(r2_score, 4),
                "held_out_rows": len(held),
            }
            best = (total, [w.T if w.ndim == 2 else w for w in weights], facts)
    assert best is not None
    return best[1], best[2]


def fit_value(
    env_name: str,
    games: int,
    epsilon: float,
    sample: float,
    after_chance: float,
    width: int,
    epochs: int,
    workers: int,
    out: Path,
    table: bool = False,
) -> dict[str, Any]:
    """Collect, fit and write the network and its JSON; returns what the JSON says."""
    started = time.perf_counter()
    chunks = [range(s, min(s + CHUNK, games)) for s in range(0, games, CHUNK)]
    job = functools.partial(collect, env_name, epsilon, sample, after_chance)
    parts = list(in_processes(job, chunks, workers))
    x, win, score = (np.concatenate([p[i] for p in parts]) for i in range(3))
    spec = make(env_name).encoding.spec
    scale = np.maximum(np.abs(np.asarray(spec.high, np.float32)), 1.0)
    scale = np.broadcast_to(scale, (spec.size,)).astype(np.float32)
    score_scale = float(max(score.std(), 1e-6))
    inputs = round_table(x / scale) if table else x / scale
    weights, facts = fit(inputs, win, score / score_scale, width, epochs, seed=0)
    arrays: dict[str, Any] = {
        f"{kind}{i}": weights[2 * i + (kind == "b")] for i in range(LAYERS) for kind in "Wb"
    }
    arrays |= {"scale": scale, "score_scale": np.float32(score_scale), "table": np.bool_(table)}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)
    meta = {
        "env": env_name,
        "config": {
            "games": games,
            "epsilon": epsilon,
            "sample": sample,
            "after_chance": after_chance,
            "width": width,
            "table": table,
            "epochs": epochs,
            "fit_seed": FIT_SEED,
        },
        "rows": len(x),
        **facts,
        "seconds": round(time.perf_counter() - started, 1),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
    }
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--sample", type=float, default=0.02)
    parser.add_argument("--after-chance", type=float, default=1.0)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--out", type=Path, default=None, help="the .npz to write (default: runs/value-GAME-TIME/)"
    )
    parser.add_argument(
        "--write", action="store_true", help="replace the shipped network of the game"
    )
    parser.add_argument(
        "--table", action="store_true", help="read every seat's observation, not one seat's"
    )
    args = parser.parse_args(argv)
    if args.write and args.out:
        parser.error("give --write (the shipped network) or --out (a path), not both")
    out = network_path(args.game) if args.write else args.out or default_out(args.game)
    meta = fit_value(
        args.game,
        args.games,
        args.epsilon,
        args.sample,
        args.after_chance,
        args.width,
        args.epochs,
        args.workers,
        out,
        args.table,
    )
    print(json.dumps(meta))
    return 0


def default_out(game: str) -> Path:
    """A fresh run folder's ``<game>.npz``: a default run never replaces the shipped network."""
    return new_run_dir(Path("runs"), f"value-{game}") / f"{game}.npz"


if __name__ == "__main__":
    raise SystemExit(main())
