"""Fingerprints of seeded play, to show that a refactor or a speed-up plays move for move as
before: ``python scripts/play_fingerprints.py --write before.json`` on the old code, then
``--check before.json`` on the new.

Covered: every env at every player count, every agent kind it lists (random, heuristics,
shipped networks) and the two search agents on a small budget, each in a rotating seat beside
the heuristic; and one batched self-play cycle per env (its rollout and the updated weights).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from card_envs import env_names, make, player_counts
from card_envs.agents import agent_kinds, make_agent
from card_envs.agents.match import decisions

GAMES = 2
SEARCHES = ("ismcts:iterations=8,horizon=round,depth=8", "pimc:iterations=4,horizon=round,depth=8")
SEARCH_MOVES = 40  # a search agent's game is cut after this many moves: enough to show a change


def play_hash(name: str, players: int, kind: str, max_moves: int | None) -> str:
    """Moves and rewards of ``GAMES`` seeded games, ``kind`` in a rotating seat."""
    env = make(name, num_players=players)
    info = env.describe()
    field = "heuristic" if "heuristic" in agent_kinds(info) else "random"
    digest = hashlib.sha256()
    for game in range(GAMES):
        seat = game % players
        agents = [
            make_agent(kind if s == seat else field, info, 31 * game + s) for s in range(players)
        ]
        env.reset(seed=game)
        moves: list[int] = []
        rewards: dict[str, float] = {}
        for agent, observation in decisions(env, rewards):
            action = agents[env.possible_agents.index(agent)].act_at(env, observation)
            moves.append(int(action))
            env.step(action)
            if max_moves is not None and len(moves) >= max_moves:
                break
        digest.update(json.dumps([moves, sorted(rewards.items())]).encode())
    return digest.hexdigest()[:16]


def selfplay_hash(name: str) -> str:
    """One small self-play cycle: the rollout's arrays and the weights after the update."""
    from card_envs.training.config import default_config
    from card_envs.training.selfplay_ppo import SelfPlayTrainer

    config = default_config(name, tables=4, rollout=64, batch_size=32, seed=3)
    trainer = SelfPlayTrainer(config)
    rollout = trainer.collector.collect(trainer.policy, 64)
    digest = hashlib.sha256()
    for array in (rollout.observations, rollout.legal, rollout.slots, rollout.rewards):
        digest.update(np.ascontiguousarray(array).tobytes())
    trainer.cycle()
    for tensor in trainer.policy.state_dict().values():
        digest.update(tensor.detach().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def fingerprints(selfplay: bool) -> dict[str, str]:
    found = {}
    for name in env_names():
        for players in player_counts(name):
            kinds = agent_kinds(make(name, num_players=players).describe())
            for kind in [*kinds, *SEARCHES]:
                cap = SEARCH_MOVES if kind in SEARCHES else None
                found[f"{name}/{players}/{kind}"] = play_hash(name, players, kind, cap)
                print(f"{name}/{players}/{kind}", found[f"{name}/{players}/{kind}"], flush=True)
        if selfplay:
            found[f"{name}/selfplay"] = selfplay_hash(name)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path, help="write the fingerprints here")
    group.add_argument("--check", type=Path, help="compare with fingerprints written before")
    parser.add_argument("--no-selfplay", action="store_true", help="skip self-play (no torch)")
    args = parser.parse_args()
    found = fingerprints(selfplay=not args.no_selfplay)
    if args.write:
        args.write.write_text(json.dumps(found, indent=1) + "\n")
        return 0
    before = json.loads(args.check.read_text())
    changed = sorted(k for k in before.keys() | found.keys() if before.get(k) != found.get(k))
    for key in changed:
        print(f"changed: {key}: {before.get(key)} -> {found.get(key)}")
    print(f"{len(found) - len(changed)} of {len(found)} fingerprints unchanged")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
