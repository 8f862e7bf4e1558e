"""PPO with action masks on card_envs.vector, in one file (CleanRL's style).

Trains one seat against built-in agents in the other seats (``vector.single_agent``), then
plays fresh deals greedily and prints the win share. Every hyperparameter is in ``Args``;
each is also a command-line flag (``--total-timesteps 200000``). Needs torch (the ``train``
extra). Run: ``python examples/ppo_vector.py`` (2-player Seals against random players).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from card_envs import vector


@dataclass
class Args:
    env_id: str = "seals_v0"
    num_players: int = 2
    opponents: str = "random"  # the built-in agent kind in every other seat
    seed: int = 1
    torch_threads: int = 2
    # training
    total_timesteps: int = 2_000_000  # learner decisions; max_seconds usually stops first
    max_seconds: float = 200.0  # wall-clock budget of the training loop
    num_envs: int = 64  # tables stepped together
    num_steps: int = 64  # decisions per table per rollout
    learning_rate: float = 1e-3
    anneal_lr: bool = True  # down to 0 over max_seconds
    gamma: float = 1.0  # rewards are terminal: no discount within a game
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    # evaluation on deals training never sees
    eval_games: int = 1_000
    eval_envs: int = 100
    eval_seed: int = 10**9
    json: str = ""  # also write the final figures to this path


def parse_args() -> Args:
    """Each field of ``Args`` as a ``--flag`` of its type."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        flag, default = "--" + field.name.replace("_", "-"), field.default
        if isinstance(default, bool):
            parser.add_argument(flag, type=lambda text: text.lower() in ("1", "true", "yes"))
        else:
            parser.add_argument(flag, type=type(default))
    given = {k: v for k, v in vars(parser.parse_args()).items() if v is not None}
    return Args(**given)


class Agent(nn.Module):
    """An actor and a critic over the observation vector; illegal actions get no probability."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, 1, 1.0),
        )
        self.actor = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, num_actions, 0.01),
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def policy(self, obs: torch.Tensor, mask: torch.Tensor) -> Categorical:
        """A categorical over the legal actions: masked logits are set to the dtype's minimum."""
        logits = self.actor(obs)
        return Categorical(logits=logits.masked_fill(~mask, torch.finfo(logits.dtype).min))

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """(action, its log-probability, the policy's entropy, the value) for a batch."""
        dist = self.policy(obs, mask)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), masked_entropy(dist, mask), self.value(obs)


def layer(inputs: int, outputs: int, gain: float = math.sqrt(2)) -> nn.Linear:
    """A linear layer with orthogonal weights and zero biases (CleanRL's initialisation)."""
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


def masked_entropy(dist: Categorical, mask: torch.Tensor) -> torch.Tensor:
    """The entropy over the legal actions only (a masked logit's 0 * -inf would be NaN)."""
    terms = dist.probs * dist.logits
    return -torch.where(mask, terms, torch.zeros_like(terms)).sum(-1)


def train(args: Args) -> tuple[Agent, dict]:
    """PPO on ``args.num_envs`` tables until ``total_timesteps`` decisions or ``max_seconds``."""
    envs = vector.single_agent(
        args.env_id,
        args.num_envs,
        opponents=args.opponents,
        seed=args.seed,
        num_players=args.num_players,
    )
    obs_size, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros((*shape, obs_size))
    masks = torch.zeros((*shape, num_actions), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))

    next_obs, _ = envs.reset(seed=args.seed)
    next_obs = torch.tensor(next_obs)
    next_mask = torch.tensor(envs.action_masks())
    next_done = torch.zeros(args.num_envs)
    start, steps, episodes, returns, took = time.time(), 0, 0, [], 0.0
    # an iteration starts only if one as long as the last (took seconds) still fits the budget
    while steps < args.total_timesteps and time.time() - start + took < args.max_seconds:
        begun = time.time()
        if args.anneal_lr:
            left = max(0.0, 1.0 - (time.time() - start) / args.max_seconds)
            optimizer.param_groups[0]["lr"] = left * args.learning_rate
        for t in range(args.num_steps):
            obs[t], masks[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[t], logprobs[t], values[t] = action, logprob, value
            seen, reward, terminated, truncated, _ = envs.step(action.numpy())
            rewards[t] = torch.tensor(reward)
            next_obs, next_mask = torch.tensor(seen), torch.tensor(envs.action_masks())
            next_done = torch.tensor(terminated | truncated, dtype=torch.float32)
            episodes += int(next_done.sum())
            returns.extend(reward[terminated | truncated].tolist())
        steps += args.num_steps * args.num_envs
        advantages, targets = gae(agent, args, next_obs, next_done, rewards, dones, values)
        batch = (obs, masks, actions, logprobs, advantages, targets)
        update(agent, optimizer, args, [x.reshape(-1, *x.shape[2:]) for x in batch])
        took = time.time() - begun
        recent = returns[-500:]
        print(
            f"{time.time() - start:6.1f}s steps {steps:8,d} games {episodes:6,d} "
            f"mean final reward (last 500) {np.mean(recent) if recent else 0:+.3f}"
        )
    return agent, {"steps": steps, "games": episodes, "train_seconds": time.time() - start}


def gae(agent, args, next_obs, next_done, rewards, dones, values):
    """Generalised advantage estimates and the value targets, bootstrapped from ``next_obs``."""
    with torch.no_grad():
        next_value = agent.value(next_obs)
    advantages = torch.zeros_like(rewards)
    last = torch.zeros(args.num_envs)
    for t in reversed(range(args.num_steps)):
        if t == args.num_steps - 1:
            keep, following = 1.0 - next_done, next_value
        else:
            keep, following = 1.0 - dones[t + 1], values[t + 1]
        delta = rewards[t] + args.gamma * following * keep - values[t]
        last = delta + args.gamma * args.gae_lambda * keep * last
        advantages[t] = last
    return advantages, advantages + values


def update(agent, optimizer, args, batch) -> None:
    """``update_epochs`` passes of clipped PPO over shuffled minibatches."""
    obs, masks, actions, logprobs, advantages, targets = batch
    size = len(obs)
    minibatch = size // args.num_minibatches
    for _ in range(args.update_epochs):
        order = torch.randperm(size)
        for first in range(0, size, minibatch):
            idx = order[first : first + minibatch]
            _, new_logprob, entropy, value = agent.act(obs[idx], masks[idx], actions[idx])
            ratio = (new_logprob - logprobs[idx]).exp()
            adv = advantages[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            clipped = torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
            policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
            value_loss = 0.5 * ((value - targets[idx]) ** 2).mean()
            loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()


def evaluate(agent: Agent, args: Args) -> dict:
    """The greedy policy's win share over ``eval_games`` fresh deals (seat rotated), with a
    95% normal interval; each table plays its equal share of the games."""
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
            logits = agent.policy(torch.tensor(seen), torch.tensor(envs.action_masks())).logits
        seen, _, terminated, truncated, info = envs.step(logits.argmax(-1).numpy())
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


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    agent, trained = train(args)
    result = {**trained, **evaluate(agent, args), "opponents": args.opponents}
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out)


if __name__ == "__main__":
    main()
