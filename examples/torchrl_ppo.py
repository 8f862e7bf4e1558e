"""PPO from TorchRL's parts on card_envs.vector, in one file: 2-player Seals against random.

TorchRL supplies the policy (``ProbabilisticActor`` over a ``MaskedCategorical``, so illegal
actions get no probability), the critic (``ValueOperator``), the advantages (``GAE``) and the
loss (``ClipPPOLoss``); the rollout steps ``vector.single_agent`` (one learner seat per table,
the opponents played inside) and stores each step in a ``TensorDict``. Then the greedy policy
plays fresh deals and the win share is printed. Every hyperparameter is in ``Args``, each also a
flag (``--max-seconds 300``). Needs the ``torchrl`` extra. Run: ``python examples/torchrl_ppo.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from dataclasses import dataclass

import numpy as np

from card_envs import vector
from card_envs.core.extras import require

with require("torchrl"):
    import torch
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE


@dataclass
class Args:
    env_id: str = "seals_v0"
    num_players: int = 2
    opponents: str = "random"  # the built-in agent kind in every other seat
    seed: int = 1
    torch_threads: int = 1  # more only contend on a busy machine: the networks are small
    max_seconds: float = 120.0  # wall-clock budget of the training loop
    num_envs: int = 64  # tables stepped together
    num_steps: int = 64  # decisions per table per rollout
    learning_rate: float = 1e-3
    gamma: float = 1.0  # rewards are terminal: no discount within a game
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_epsilon: float = 0.2
    entropy_coef: float = 0.01
    hidden: int = 256
    eval_games: int = 1_000  # on deals training never sees
    eval_envs: int = 100
    eval_seed: int = 10**9
    json: str = ""  # also write the final figures to this path


def parse_args(argv: list[str] | None = None) -> Args:
    """Each field of ``Args`` as a ``--flag`` of its type."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        parser.add_argument("--" + field.name.replace("_", "-"), type=type(field.default))
    given = {k: v for k, v in vars(parser.parse_args(argv)).items() if v is not None}
    return Args(**given)


def build(obs_size: int, num_actions: int, hidden: int):
    """The actor (a masked categorical over the legal actions) and the critic."""
    logits = TensorDictModule(
        MLP(
            in_features=obs_size,
            out_features=num_actions,
            num_cells=[hidden, hidden],
            activation_class=nn.Tanh,
        ),
        in_keys=["observation"],
        out_keys=["logits"],
    )
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    critic = ValueOperator(
        MLP(
            in_features=obs_size,
            out_features=1,
            num_cells=[hidden, hidden],
            activation_class=nn.Tanh,
        ),
        in_keys=["observation"],
    )
    return actor, critic


def rollout(envs, actor, args: Args, first: TensorDict, stats: dict) -> TensorDict:
    """``num_steps`` decisions at every table: a TensorDict of shape ``(num_envs, num_steps)``
    with TorchRL's ``next`` convention (the next observation, reward, done)."""
    steps, current = [], first
    for _ in range(args.num_steps):
        with torch.no_grad():
            current = actor(current)
        seen, reward, terminated, truncated, _ = envs.step(current["action"].numpy())
        done = terminated | truncated
        stats["games"] += int(done.sum())
        stats["returns"].extend(reward[done].tolist())
        following = observation(seen, envs.action_masks())
        current["next"] = following.clone().update(
            {
                "reward": torch.tensor(reward, dtype=torch.float32).unsqueeze(-1),
                "done": torch.tensor(done).unsqueeze(-1),
                "terminated": torch.tensor(terminated).unsqueeze(-1),
            }
        )
        steps.append(current)
        current = following
    stats["next"] = current
    return torch.stack(steps, dim=1)


def observation(seen: np.ndarray, masks: np.ndarray) -> TensorDict:
    """The learner's observations and masks at every table, as a TensorDict."""
    return TensorDict(
        {"observation": torch.tensor(seen), "action_mask": torch.tensor(masks.copy())},
        batch_size=[len(seen)],
    )


def train(args: Args):
    """PPO until ``max_seconds`` have passed (an iteration starts only if one more fits)."""
    envs = vector.single_agent(
        args.env_id,
        args.num_envs,
        opponents=args.opponents,
        seed=args.seed,
        num_players=args.num_players,
    )
    actor, critic = build(
        envs.single_observation_space.shape[0], envs.single_action_space.n, args.hidden
    )
    loss = ClipPPOLoss(
        actor,
        critic,
        clip_epsilon=args.clip_epsilon,
        entropy_coeff=args.entropy_coef,
        normalize_advantage=True,
    )
    advantage = GAE(gamma=args.gamma, lmbda=args.gae_lambda, value_network=critic)
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.learning_rate, eps=1e-5)
    seen, _ = envs.reset(seed=args.seed)
    stats: dict = {"games": 0, "returns": [], "next": observation(seen, envs.action_masks())}
    start, steps, took = time.time(), 0, 0.0
    while time.time() - start + took < args.max_seconds:
        begun = time.time()
        batch = rollout(envs, actor, args, stats["next"], stats)
        with torch.no_grad():
            advantage(batch)
        flat = batch.reshape(-1)
        steps += len(flat)
        size = len(flat) // args.num_minibatches
        for _ in range(args.update_epochs):
            for part in flat[torch.randperm(len(flat))].split(size):
                losses = loss(part)
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optimizer.step()
        took = time.time() - begun
        recent = stats["returns"][-500:]
        print(
            f"{time.time() - start:6.1f}s steps {steps:8,d} games {stats['games']:6,d} "
            f"mean final reward (last 500) {np.mean(recent) if recent else 0:+.3f}"
        )
    return actor, {"steps": steps, "games": stats["games"], "train_seconds": time.time() - start}


def evaluate(actor, args: Args) -> dict:
    """The greedy policy's win share over ``eval_games`` fresh deals (seat rotated), with a
    95% normal interval; each table plays its equal share."""
    envs = vector.single_agent(
        args.env_id,
        args.eval_envs,
        opponents=args.opponents,
        seed=args.eval_seed,
        num_players=args.num_players,
    )
    quota = math.ceil(args.eval_games / args.eval_envs)
    played, won = np.zeros(args.eval_envs, int), np.zeros(args.eval_envs, int)
    seen, _ = envs.reset()
    while (played < quota).any():
        with torch.no_grad():
            logits = actor.module[0](observation(seen, envs.action_masks()))["logits"]
        masks = torch.tensor(envs.action_masks())
        greedy = logits.masked_fill(~masks, -torch.inf).argmax(-1)
        seen, _, terminated, truncated, info = envs.step(greedy.numpy())
        for i in np.flatnonzero((terminated | truncated) & (played < quota)):
            played[i] += 1
            won[i] += info["final_winners"][i, info["final_seat"][i]]
    share = won.sum() / played.sum()
    half = 1.96 * math.sqrt(share * (1 - share) / played.sum())
    return {
        "win_share": float(share),
        "interval": [share - half, share + half],
        "eval_games": int(played.sum()),
    }


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    actor, trained = train(args)
    result = {**trained, **evaluate(actor, args), "opponents": args.opponents}
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out)
    return result


if __name__ == "__main__":
    main()
